package reports

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A structural validator for junit.xml, written from the facts of Jenkins'
// junit-10.xsd (the junit plugin's schema, which CI consumers follow): Go has
// no XSD validator, so the test states the schema as data.

// xmlNode is one element of a parsed document.
type xmlNode struct {
	Name     string
	Attrs    map[string]string
	Order    []string // attribute names as written
	Children []*xmlNode
	Text     string // character data directly inside, concatenated
}

func (n *xmlNode) children(name string) []*xmlNode {
	var out []*xmlNode
	for _, c := range n.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

func (n *xmlNode) child(name string) *xmlNode {
	if cs := n.children(name); len(cs) > 0 {
		return cs[0]
	}
	return nil
}

// parseXMLTree parses a document into elements, refusing namespaces and
// duplicate attributes.
func parseXMLTree(data []byte) (*xmlNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != "" {
				return nil, fmt.Errorf("element %s has namespace %q", t.Name.Local, t.Name.Space)
			}
			n := &xmlNode{Name: t.Name.Local, Attrs: map[string]string{}}
			for _, a := range t.Attr {
				if a.Name.Space != "" {
					return nil, fmt.Errorf("<%s> attribute %s has namespace %q", n.Name, a.Name.Local, a.Name.Space)
				}
				if _, dup := n.Attrs[a.Name.Local]; dup {
					return nil, fmt.Errorf("<%s> repeats attribute %s", n.Name, a.Name.Local)
				}
				n.Attrs[a.Name.Local] = a.Value
				n.Order = append(n.Order, a.Name.Local)
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("two root elements")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

// particle is one element of a content model's sequence.
type particle struct {
	name     string
	min, max int // max -1: unbounded
}

// elementRule is what junit-10.xsd allows for one element.
type elementRule struct {
	required, optional []string
	content            []particle // in order; none: no child element allowed
	text               bool       // character data allowed (mixed or simple content)
}

var (
	counter   = regexp.MustCompile(`^[0-9]+$`)
	decimal   = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	zonedTime = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`)
)

// junit10 is junit-10.xsd's structure, element by element.
var junit10 = map[string]elementRule{
	"testsuites": {
		optional: []string{"name", "time", "tests", "failures", "disabled", "errors"},
		content:  []particle{{"testsuite", 0, -1}},
	},
	"testsuite": {
		required: []string{"name", "tests"},
		optional: []string{"failures", "errors", "time", "disabled", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url", "version"},
		content:  []particle{{"properties", 0, 1}, {"testcase", 0, -1}, {"system-out", 0, 1}, {"system-err", 0, 1}},
	},
	"properties": {content: []particle{{"property", 1, -1}}},
	"property":   {required: []string{"name", "value"}},
	"testcase": {
		required: []string{"name"},
		optional: []string{"assertions", "time", "classname", "status", "file", "line"},
		content:  []particle{{"skipped", 0, 1}, {"error", 0, -1}, {"failure", 0, -1}, {"system-out", 0, -1}, {"system-err", 0, -1}},
	},
	"skipped":    {optional: []string{"message"}, text: true},
	"error":      {optional: []string{"message", "type"}, text: true},
	"failure":    {optional: []string{"message", "type"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// attribute value formats.
var junitAttrFormat = map[string]*regexp.Regexp{
	"tests": counter, "failures": counter, "errors": counter, "skipped": counter, "disabled": counter,
	"assertions": counter, "line": counter, "time": decimal, "timestamp": zonedTime,
}

// validateJUnit lists every way doc breaks junit-10.xsd's structure, and
// every count on testsuites or testsuite that disagrees with the testcases.
func validateJUnit(doc []byte) []string {
	root, err := parseXMLTree(doc)
	if err != nil {
		return []string{"does not parse: " + err.Error()}
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if root.Name != "testsuites" {
		bad("root element is <%s>, want <testsuites>", root.Name)
	}
	var walk func(n *xmlNode, path string)
	walk = func(n *xmlNode, path string) {
		path += "/" + n.Name
		rule, ok := junit10[n.Name]
		if !ok {
			bad("%s: element <%s> is not in the schema", path, n.Name)
			return
		}
		allowed := map[string]bool{}
		for _, a := range append(append([]string(nil), rule.required...), rule.optional...) {
			allowed[a] = true
		}
		for _, a := range n.Order {
			if !allowed[a] {
				bad("%s: attribute %s is not allowed on <%s>", path, a, n.Name)
			} else if f := junitAttrFormat[a]; f != nil && !f.MatchString(n.Attrs[a]) {
				bad("%s: %s=%q does not match %s", path, a, n.Attrs[a], f)
			}
		}
		for _, a := range rule.required {
			if _, ok := n.Attrs[a]; !ok {
				bad("%s: required attribute %s is missing", path, a)
			}
		}
		if !rule.text && strings.TrimSpace(n.Text) != "" {
			bad("%s: <%s> holds text %q; only elements are allowed", path, n.Name, strings.TrimSpace(n.Text))
		}
		// The children must follow the sequence, each particle taken as
		// often as it repeats, in order.
		i := 0
		for _, p := range rule.content {
			k := 0
			for i < len(n.Children) && n.Children[i].Name == p.name && (p.max < 0 || k < p.max) {
				i++
				k++
			}
			if k < p.min {
				bad("%s: <%s> needs at least %d <%s>, has %d there", path, n.Name, p.min, p.name, k)
			}
		}
		if i < len(n.Children) {
			var got []string
			for _, c := range n.Children {
				got = append(got, c.Name)
			}
			bad("%s: <%s> is not allowed at position %d of [%s]", path, n.Children[i].Name, i+1, strings.Join(got, " "))
		}
		for _, c := range n.Children {
			walk(c, path)
		}
	}
	walk(root, "")
	if len(problems) > 0 || root.Name != "testsuites" {
		return problems
	}
	// Counts agree with the testcases.
	sum := map[string]int{}
	for _, s := range root.children("testsuite") {
		got := map[string]int{"tests": len(s.children("testcase"))}
		for _, c := range s.children("testcase") {
			for _, k := range []struct{ attr, child string }{{"failures", "failure"}, {"errors", "error"}, {"skipped", "skipped"}} {
				if c.child(k.child) != nil {
					got[k.attr]++
				}
			}
		}
		for _, attr := range []string{"tests", "failures", "errors", "skipped"} {
			sum[attr] += got[attr]
			if v, ok := s.Attrs[attr]; ok && v != strconv.Itoa(got[attr]) {
				bad("testsuite %q: %s=%s, but its testcases make %d", s.Attrs["name"], attr, v, got[attr])
			}
		}
	}
	for _, attr := range []string{"tests", "failures", "errors"} {
		if v, ok := root.Attrs[attr]; ok && v != strconv.Itoa(sum[attr]) {
			bad("testsuites: %s=%s, but its testcases make %d", attr, v, sum[attr])
		}
	}
	return problems
}
