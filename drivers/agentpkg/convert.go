package agentpkg

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// converter turns a measured (bounded) node tree into JSON-compatible values.
type converter struct {
	file     string
	offset   int
	lines    map[string]int
	findings []Finding
}

// literalKey reports whether scalars under key keep their text as written:
// versions and dates must not become numbers or times (`version: 0.10` is
// "0.10", not 0.1 as in the reference CLI).
func literalKey(key string) bool {
	return key == "version" || key == "manifestVersion" || key == "minVersion" ||
		strings.HasSuffix(key, "At") || strings.HasSuffix(key, "Until")
}

func childPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func (c *converter) convert(n *yaml.Node, path, key string, literal bool) any {
	if n.Kind == yaml.AliasNode {
		return c.convert(n.Alias, path, key, literal)
	}
	if _, seen := c.lines[path]; !seen && path != "" {
		c.lines[path] = n.Line + c.offset
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalar(n, literal || literalKey(key))
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			out = append(out, c.convert(item, path+"["+strconv.Itoa(i)+"]", key, literal))
		}
		return out
	case yaml.MappingNode:
		return c.mapping(n, path, literal)
	default:
		return nil
	}
}

func (c *converter) mapping(n *yaml.Node, path string, literal bool) map[string]any {
	out := map[string]any{}
	merged := map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolveAlias(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			c.findings = append(c.findings, finding(CodeInvalidYAML, SeverityError, c.file, path,
				"line %d: mapping keys must be plain scalars", k.Line+c.offset))
			continue
		}
		if k.ShortTag() == "!!merge" {
			c.merge(merged, v, path, literal)
			continue
		}
		name := k.Value
		if _, dup := out[name]; dup {
			c.findings = append(c.findings, finding(CodeInvalidYAML, SeverityError, c.file, childPath(path, name),
				"line %d: key %q is defined twice", k.Line+c.offset, name))
			continue
		}
		// Everything under requires holds version ranges: keep it as text.
		lit := literal || (path == "" && name == "requires")
		out[name] = c.convert(v, childPath(path, name), name, lit)
	}
	for k, v := range merged {
		if _, set := out[k]; !set {
			out[k] = v
		}
	}
	return out
}

// merge folds a YAML merge key ("<<: *base") into merged.
func (c *converter) merge(merged map[string]any, v *yaml.Node, path string, literal bool) {
	v = resolveAlias(v)
	var sources []*yaml.Node
	switch v.Kind {
	case yaml.MappingNode:
		sources = []*yaml.Node{v}
	case yaml.SequenceNode:
		sources = v.Content
	}
	for _, s := range sources {
		s = resolveAlias(s)
		if s.Kind != yaml.MappingNode {
			c.findings = append(c.findings, finding(CodeInvalidYAML, SeverityError, c.file, path,
				"line %d: a merge key must refer to mappings", s.Line+c.offset))
			continue
		}
		for k, val := range c.mapping(s, path, literal) {
			if _, set := merged[k]; !set {
				merged[k] = val
			}
		}
	}
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// scalar decodes a scalar by the YAML 1.2 core schema as yaml.v3 resolves it;
// timestamps and literal fields stay text, values JSON cannot carry
// (NaN, infinities, integers beyond float64) stay text too.
func scalar(n *yaml.Node, literal bool) any {
	tag := n.ShortTag()
	if tag == "!!null" {
		return nil
	}
	if literal {
		return n.Value
	}
	switch tag {
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}
