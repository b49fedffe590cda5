package agentpkg

import (
	"bytes"
	"strings"
)

// frontmatter is APP.md split into its YAML frontmatter and Markdown body.
type frontmatter struct {
	yaml       []byte
	body       string
	lineOffset int // file line of frontmatter line 0 (the opening ---)
}

// splitFrontmatter finds YAML frontmatter between "---" lines at the very
// start of APP.md (spec 000, APP.md). Unlike the reference CLI it accepts a
// UTF-8 byte-order mark and CRLF line ends. It returns a reason when there is
// no frontmatter.
func splitFrontmatter(raw []byte) (frontmatter, string) {
	data := bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	first, rest, found := cutLine(data)
	if !isFence(first) {
		return frontmatter{body: string(data)}, "APP.md does not start with a --- line opening YAML frontmatter"
	}
	if !found {
		return frontmatter{}, "APP.md frontmatter opens with --- but never closes"
	}
	start := len(data) - len(rest)
	pos := start
	for pos <= len(data) {
		line, after, more := cutLine(data[pos:])
		if isFence(line) {
			return frontmatter{
				yaml:       data[start:pos],
				body:       string(after),
				lineOffset: 1,
			}, ""
		}
		if !more {
			break
		}
		pos = len(data) - len(after)
	}
	return frontmatter{}, "APP.md frontmatter opens with --- but never closes"
}

// cutLine splits off the first line (without its LF).
func cutLine(b []byte) (line, rest []byte, found bool) {
	return bytes.Cut(b, []byte("\n"))
}

func isFence(line []byte) bool {
	return strings.TrimRight(string(line), " \t\r") == "---"
}
