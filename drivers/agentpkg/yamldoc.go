package agentpkg

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlDoc is one parsed YAML document converted to JSON-compatible values.
type yamlDoc struct {
	value any
	lines map[string]int // field path ("entries[2].kind") -> line in the file
}

// parseYAML parses data with the limits of lim (spec 000 security rules:
// hostile input must fail fast) and converts it to JSON-compatible values:
// map[string]any, []any, string, int64, float64, bool and nil. file names the
// file in findings; lineOffset is added to YAML line numbers; prefix is
// prepended to recorded field paths.
func parseYAML(data []byte, file string, lineOffset int, opts LoadOptions, prefix string) (yamlDoc, []Finding) {
	lim := opts.Limits.withDefaults()
	if int64(len(data)) > lim.MaxYAMLBytes {
		return yamlDoc{}, []Finding{finding(CodeYAMLTooLarge, SeverityError, file, "",
			"YAML has %d bytes; the limit is %d", len(data), lim.MaxYAMLBytes)}
	}
	if !opts.SkipUTF8Check && !utf8.Valid(data) {
		line := lineOffset + 1 + bytes.Count(data[:firstInvalidUTF8(data)], []byte("\n"))
		return yamlDoc{}, []Finding{finding(CodeNotUTF8, SeverityError, file, "",
			"line %d is not valid UTF-8", line)}
	}
	if opts.SkipUTF8Check {
		data = bytes.ToValidUTF8(data, []byte("\uFFFD")) // the parser itself refuses invalid UTF-8
	}
	root, err := unmarshalNode(data)
	if err != nil {
		code := CodeInvalidYAML
		if strings.Contains(err.Error(), "exceeded max depth") {
			code = CodeYAMLTooDeep
		}
		return yamlDoc{}, []Finding{finding(code, SeverityError, file, "", "%s", shiftLines(err.Error(), lineOffset))}
	}
	if root == nil {
		return yamlDoc{lines: map[string]int{}}, nil
	}
	m := measure(root)
	if m.cyclic {
		return yamlDoc{}, []Finding{finding(CodeInvalidYAML, SeverityError, file, "", "an anchor contains an alias to itself")}
	}
	if extra := m.size(root) - m.physical; extra > int64(lim.MaxAliasExpansion) {
		return yamlDoc{}, []Finding{finding(CodeYAMLAliasBomb, SeverityError, file, "",
			"aliases expand to more than %d extra nodes (%d); refusing to expand them", lim.MaxAliasExpansion, extra)}
	}
	if extra := m.textSize(root) - m.physicalText; extra > lim.MaxAliasBytes {
		return yamlDoc{}, []Finding{finding(CodeYAMLAliasBomb, SeverityError, file, "",
			"aliases expand to more than %d extra bytes of text (%d); refusing to expand them", lim.MaxAliasBytes, extra)}
	}
	if d := m.depth(root); d > int64(lim.MaxDepth) {
		return yamlDoc{}, []Finding{finding(CodeYAMLTooDeep, SeverityError, file, "",
			"YAML nests %d levels deep; the limit is %d", d, lim.MaxDepth)}
	}
	c := converter{file: file, offset: lineOffset, lines: map[string]int{}}
	v := c.convert(root, prefix, "", false)
	return yamlDoc{value: v, lines: c.lines}, c.findings
}

// unmarshalNode parses the first document into a node tree, turning a parser
// panic into an error.
func unmarshalNode(data []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("YAML parser failed: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// shiftLines rewrites "line N" in a parser message to the file's line numbers.
func shiftLines(msg string, offset int) string {
	msg = strings.TrimPrefix(msg, "yaml: ")
	if offset == 0 {
		return msg
	}
	return yamlLineRE.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "line "))
		if err != nil {
			return s
		}
		return "line " + strconv.Itoa(n+offset)
	})
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// measure computes, without expanding aliases, how many nodes the tree would
// have, how many bytes of scalar text it would hold and how deep it would
// nest once every alias is expanded. Nodes alone do not bound a document:
// 9,000 aliases of one 100 KB scalar are 9,000 nodes and 900 MB of text.
type measurer struct {
	sizes    map[*yaml.Node]int64
	texts    map[*yaml.Node]int64
	depths   map[*yaml.Node]int64
	visiting map[*yaml.Node]bool
	physical int64
	// physicalText is the bytes of scalar text the document itself holds.
	physicalText int64
	cyclic       bool
}

const saturate = math.MaxInt64 / 4

func measure(root *yaml.Node) *measurer {
	m := &measurer{sizes: map[*yaml.Node]int64{}, texts: map[*yaml.Node]int64{}, depths: map[*yaml.Node]int64{}, visiting: map[*yaml.Node]bool{}}
	m.count(root, map[*yaml.Node]bool{})
	m.size(root)
	return m
}

func (m *measurer) count(n *yaml.Node, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	m.physical++
	if n.Kind == yaml.ScalarNode {
		m.physicalText += int64(len(n.Value))
	}
	for _, c := range n.Content {
		m.count(c, seen)
	}
}

func (m *measurer) size(n *yaml.Node) int64 {
	if n == nil {
		return 0
	}
	if s, ok := m.sizes[n]; ok {
		return s
	}
	if m.visiting[n] {
		m.cyclic = true
		return 0
	}
	m.visiting[n] = true
	var s, t, d int64 = 1, 0, 0
	switch n.Kind {
	case yaml.AliasNode:
		s, t, d = m.size(n.Alias), m.texts[n.Alias], m.depths[n.Alias]
	case yaml.ScalarNode:
		t = int64(len(n.Value))
	default:
		for _, c := range n.Content {
			s = min(s+m.size(c), saturate)
			t = min(t+m.texts[c], saturate)
			d = max(d, m.depths[c])
		}
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			d++
		}
	}
	m.visiting[n] = false
	m.sizes[n], m.texts[n], m.depths[n] = s, t, d
	return s
}

// textSize is the bytes of scalar text under n once aliases are expanded.
func (m *measurer) textSize(n *yaml.Node) int64 { m.size(n); return m.texts[n] }

func (m *measurer) depth(n *yaml.Node) int64 { m.size(n); return m.depths[n] }
