package harness

import (
	"encoding/json"
	"strings"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/agentapp/conformance/drivers/agentpkg"
)

// Oracle loads a package with the harness's own implementation of the
// standard: the expected values specs compare host answers with.
func (tc *TestContext) Oracle(dir string) *agentpkg.Package {
	ginkgo.GinkgoHelper()
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		Errorf("harness could not load %s: %v", dir, err)
	}
	return p
}

// OracleProjection is the harness's own projection of the package at dir
// under the full capability profile, decoded.
func (tc *TestContext) OracleProjection(dir string) Object {
	ginkgo.GinkgoHelper()
	raw, err := agentpkg.Project(tc.Oracle(dir), agentpkg.Profile{Capabilities: agentpkg.FullProfile()})
	if err != nil {
		Errorf("harness could not project %s: %v", dir, err)
	}
	return DecodeObject("the harness's projection", raw)
}

// Object is a decoded JSON object.
type Object = map[string]any

// DecodeObject decodes a JSON object, failing the spec on anything else.
func DecodeObject(what string, raw []byte) Object {
	ginkgo.GinkgoHelper()
	var o Object
	if err := json.Unmarshal(raw, &o); err != nil {
		Errorf("%s is not a JSON object: %v", what, err)
	}
	return o
}

// Objects returns the objects of an array member (non-objects are reported).
func Objects(o Object, key string) []Object {
	ginkgo.GinkgoHelper()
	v, ok := o[key]
	if !ok || v == nil {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		Errorf("projection member %q is %T, not an array", key, v)
	}
	out := make([]Object, 0, len(arr))
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			Errorf("projection %s[%d] is %T, not an object", key, i, e)
		}
		out = append(out, m)
	}
	return out
}

// Str returns a string member or "".
func Str(o Object, key string) string {
	s, _ := o[key].(string)
	return s
}

// Keys returns the "key" member of each object.
func Keys(os []Object) []string {
	out := make([]string, 0, len(os))
	for _, o := range os {
		out = append(out, Str(o, "key"))
	}
	return out
}

// ManifestKeys returns the "key" members of a manifest array section.
func ManifestKeys(p *agentpkg.Package, section string) []string {
	arr, _ := p.Manifest[section].([]any)
	var out []string
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			if k, ok := m["key"].(string); ok {
				out = append(out, k)
			}
		}
	}
	return out
}

// ContainsAny reports whether text contains any of the needles.
func ContainsAny(text string, needles ...string) bool {
	for _, n := range needles {
		if n != "" && strings.Contains(text, n) {
			return true
		}
	}
	return false
}

// EqualFold matches a string equal to want up to case: hex digests may be
// written in either case.
func EqualFold(want string) types.GomegaMatcher {
	return WithTransform(strings.ToLower, Equal(strings.ToLower(want)))
}

// MapOf is v as an object, or nil when it is not one.
func MapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
