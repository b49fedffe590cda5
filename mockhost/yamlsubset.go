package mockhost

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// yamlParseCodes are the findings of a frontmatter no real YAML parser
// accepts (or must refuse to expand).
func yamlParseCodes() []string {
	return []string{agentpkg.CodeInvalidYAML, agentpkg.CodeYAMLAliasBomb, agentpkg.CodeYAMLTooDeep,
		agentpkg.CodeYAMLTooLarge, agentpkg.CodeNotUTF8}
}

// hasYAMLError reports whether APP.md failed to parse as YAML.
func hasYAMLError(fs []protocol.Finding) bool {
	for _, f := range fs {
		for _, c := range yamlParseCodes() {
			if f.Code == c && f.File == agentpkg.ManifestFile {
				return true
			}
		}
	}
	return false
}

// lineSubsetFrontmatter is the bug behind the line-subset-yaml fault: the
// frontmatter read the way a home-made parser reads it (the standard's
// reference CLI does, SPEC-NOTES): top-level `key: value` lines only,
// anchors, aliases, flow collections and nesting taken as plain text or
// skipped, and never an error.
func lineSubsetFrontmatter(dir string) map[string]any {
	out := map[string]any{}
	md, err := os.ReadFile(filepath.Join(dir, agentpkg.ManifestFile))
	if err != nil {
		return out
	}
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	opened := false
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "---" {
			if opened {
				break
			}
			opened = true
			continue
		}
		if !opened || line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(value) == "" {
			continue
		}
		out[strings.TrimSpace(key)] = strings.Trim(strings.TrimSpace(value), `"'`)
	}
	return out
}
