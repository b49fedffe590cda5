package protocol

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// Reads are the members of an answer a check reads, as JSON pointers
// (RFC 6901) in which the token "*" stands for any one member or index. A
// pointer reads its member's whole value. A schema violation matters to
// the check only where it reads (docs/host-control-protocol.md, "What one
// answer costs"); one elsewhere leaves the answer usable to it.
type Reads []string

// ReadsAll reads the whole answer: every violation matters.
var ReadsAll = Reads{""}

// Covers reports whether the check reads where v is: at, below or above a
// pointer it reads (a member that is not an object hides every member the
// check reads in it). Tokens compare without case, as encoding/json
// matches members to fields.
func (r Reads) Covers(v Violation) bool {
	vt := tokens(v.Pointer)
	for _, p := range r {
		pt := tokens(p)
		n := min(len(pt), len(vt))
		same := true
		for i := 0; i < n && same; i++ {
			same = pt[i] == "*" || strings.EqualFold(pt[i], vt[i])
		}
		if same {
			return true
		}
	}
	return false
}

// tokens splits a JSON pointer into its unescaped tokens.
func tokens(p string) []string {
	if p == "" {
		return nil
	}
	ts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range ts {
		ts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return ts
}

// ReadsOf returns what decoding into result reads: the members its type
// has fields for, recursively, and the whole value where a field keeps it
// undecoded (json.RawMessage, any, a map of any, a type that decodes
// itself). A *json.RawMessage result reads everything; nil reads nothing.
func ReadsOf(result any) Reads {
	if result == nil {
		return Reads{}
	}
	t := reflect.TypeOf(result)
	if c, ok := readsCache.Load(t); ok {
		return c.(Reads)
	}
	r := Reads(readsOfType(t, "", map[reflect.Type]bool{}))
	readsCache.Store(t, r)
	return r
}

var readsCache sync.Map // reflect.Type -> Reads

var (
	rawType         = reflect.TypeOf(json.RawMessage(nil))
	jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// readsOfType lists the pointers below at that decoding into t reads.
func readsOfType(t reflect.Type, at string, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawType || reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return []string{at}
	}
	switch t.Kind() {
	case reflect.Interface:
		return []string{at}
	case reflect.Slice, reflect.Array, reflect.Map:
		if t.Kind() == reflect.Map && t.Elem().Kind() == reflect.Interface {
			return []string{at}
		}
		return readsOfType(t.Elem(), at+"/*", seen)
	case reflect.Struct:
		if seen[t] {
			return []string{at} // a recursive type: read it whole
		}
		seen[t] = true
		defer delete(seen, t)
		out := []string{at + "/"} // the value itself must be an object
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				out = append(out, readsOfType(f.Type, at, seen)...)
				continue
			}
			if name == "" {
				name = f.Name
			}
			out = append(out, readsOfType(f.Type, at+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(name), seen)...)
		}
		return out
	}
	return []string{at}
}
