package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// The Markdown reading the page tests share: tables, links, heading
// anchors and requirement ids, as GitHub renders them.

// table is one Markdown table: its header cells and its body rows.
type table struct {
	header []string
	rows   [][]string
}

// cell returns row's cell i, or "" when the row is short.
func (t table) cell(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

// splitRow splits a table line into trimmed cells.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// tables returns every table of text, outside fenced code.
func tables(text string) []table {
	var out []table
	var cur []string
	flush := func() {
		if len(cur) >= 2 {
			t := table{header: splitRow(cur[0])}
			for _, l := range cur[2:] {
				t.rows = append(t.rows, splitRow(l))
			}
			out = append(out, t)
		}
		cur = nil
	}
	for _, l := range proseLines(text) {
		if strings.HasPrefix(strings.TrimSpace(l), "|") {
			cur = append(cur, l)
			continue
		}
		flush()
	}
	flush()
	return out
}

// tableWithHeader returns the one table whose header starts with cols.
func tableWithHeader(text string, cols ...string) (table, error) {
	var found []table
	for _, t := range tables(text) {
		if len(t.header) >= len(cols) && slices.Equal(t.header[:len(cols)], cols) {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return table{}, fmt.Errorf("want one table whose header starts with %q, found %d", cols, len(found))
	}
	return found[0], nil
}

var codeSpanRE = regexp.MustCompile("`[^`]*`")

// backticked returns the code spans of s, without their backticks.
func backticked(s string) []string {
	var out []string
	for _, m := range codeSpanRE.FindAllString(s, -1) {
		out = append(out, strings.Trim(m, "`"))
	}
	return out
}

// proseLines returns text's lines with fenced code blocks blanked, so that
// line numbers still count from the top of the file.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// link is one inline Markdown link.
type link struct {
	line   int
	target string
}

var linkRE = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// links returns the inline links of text outside code, with their lines.
func links(text string) []link {
	var out []link
	for i, l := range proseLines(text) {
		l = codeSpanRE.ReplaceAllString(l, "")
		for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
			out = append(out, link{line: i + 1, target: m[1]})
		}
	}
	return out
}

var (
	headingRE     = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	headingLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// anchors returns the anchors GitHub gives text's headings: lower case,
// code and link markup dropped, every character but letters, digits,
// spaces, hyphens and underscores removed, spaces made hyphens, and -1,
// -2 ... added to repeats.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		m := headingRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		h := headingLinkRE.ReplaceAllString(m[2], "$1")
		h = strings.ReplaceAll(h, "`", "")
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// brokenLinks checks every local link of the Markdown file at path: the
// file or folder it names must exist, and an anchor must be a heading of
// the Markdown file it points into. Links with a scheme are not followed.
func brokenLinks(path string) ([]string, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var broken []string
	for _, l := range links(string(text)) {
		if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(l.target, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			if _, err := os.Stat(target); err != nil {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: no such file or folder", path, l.line, l.target))
				continue
			}
		}
		if anchor == "" {
			continue
		}
		if !strings.HasSuffix(target, ".md") {
			broken = append(broken, fmt.Sprintf("%s:%d: %s: an anchor into a file that is not Markdown", path, l.line, l.target))
			continue
		}
		md, err := os.ReadFile(target)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", target, err)
		}
		if !anchors(string(md))[anchor] {
			broken = append(broken, fmt.Sprintf("%s:%d: %s: %s has no heading with anchor #%s", path, l.line, l.target, target, anchor))
		}
	}
	return broken, nil
}

// requirementIDRE matches what a requirement id looks like: upper-case
// words joined by hyphens (CAT-FIELD-CONSTRAINTS, P0-NO-APP-CODE).
var requirementIDRE = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\b`)

// notRequirements are the hyphenated upper-case words a page may use that
// are no requirement ids.
var notRequirements = map[string]bool{"UTF-8": true, "UTF-16": true, "SHA-256": true, "JSON-RPC": true, "SPEC-NOTES": true}

// requirementIDs returns the requirement ids text names, in order, once each.
func requirementIDs(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range requirementIDRE.FindAllString(text, -1) {
		if !notRequirements[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// sections splits text at its level-two headings: heading to body.
func sections(text string) map[string]string {
	out := map[string]string{}
	var heading string
	var body []string
	flush := func() {
		if heading != "" {
			out[heading] = strings.Join(body, "\n")
		}
	}
	for _, l := range proseLines(text) {
		if strings.HasPrefix(l, "## ") {
			flush()
			heading, body = strings.TrimPrefix(l, "## "), nil
			continue
		}
		body = append(body, l)
	}
	flush()
	return out
}
