package protocol

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// A required member that is missing is a violation at the member's own
// pointer, so a check that does not read it can tell it apart.
func TestViolationsNameEveryOffendingMember(t *testing.T) {
	s := mustLoad(t)
	raw := json.RawMessage(`{"ok":true,"projection":{"app":{},"entries":{}}}`)
	err := s.ValidateResult(MethodProject, raw)
	var se *SchemaError
	if !errors.As(err, &se) {
		t.Fatalf("ValidateResult = %v, want a SchemaError", err)
	}
	var ptrs []string
	for _, v := range se.Violations {
		ptrs = append(ptrs, v.Pointer)
	}
	for _, want := range []string{"/projection/entries", "/projection/provenance"} {
		if !slices.Contains(ptrs, want) {
			t.Errorf("violations %v do not name %s", ptrs, want)
		}
	}
	if se.Pointer != ptrs[0] && se.More != len(ptrs)-1 {
		t.Errorf("the one-line form (%s, %d more) is not the first of %v", se.Pointer, se.More, ptrs)
	}
	only := se.Only(Reads{"/projection/app", "/projection/provenance"}.Covers)
	if only == nil || len(only.Violations) != 1 || only.Pointer != "/projection/provenance" || only.More != 0 {
		t.Errorf("narrowed to what is read: %+v", only)
	}
	if se.Only(Reads{"/ok"}.Covers) != nil {
		t.Error("a check reading /ok only is told of violations it does not read")
	}
}

func TestReadsCover(t *testing.T) {
	for _, c := range []struct {
		reads Reads
		at    string
		want  bool
	}{
		{ReadsAll, "/a/b", true},
		{Reads{}, "", false},
		{Reads{"/a"}, "/a/b/c", true},     // below what is read
		{Reads{"/a/b"}, "/a", true},       // a container of what is read
		{Reads{"/a/b"}, "", true},         // the whole answer
		{Reads{"/a/b"}, "/a/c", false},    // a sibling
		{Reads{"/a/*/c"}, "/a/3/c", true}, // any index
		{Reads{"/a/*/c"}, "/a/3/d", false},
		{Reads{"/A"}, "/a", true}, // encoding/json matches without case
		{Reads{"/"}, "/x", false}, // the value must be an object, its members are not read
		{Reads{"/"}, "", true},
	} {
		if got := c.reads.Covers(Violation{Pointer: c.at}); got != c.want {
			t.Errorf("%q covers %q = %v, want %v", c.reads, c.at, got, c.want)
		}
	}
}

// What decoding a type reads: its fields' members, whole where a field
// keeps the value undecoded.
func TestReadsOf(t *testing.T) {
	type inner struct {
		Code string `json:"code"`
	}
	type T struct {
		OK      bool             `json:"ok"`
		Raw     json.RawMessage  `json:"raw"`
		List    []inner          `json:"list"`
		ByName  map[string]inner `json:"byName"`
		Any     map[string]any   `json:"any"`
		Skipped string           `json:"-"`
		NoTag   int
	}
	got := ReadsOf(&T{})
	want := Reads{"/", "/ok", "/raw", "/list/*/", "/list/*/code", "/byName/*/", "/byName/*/code", "/any", "/NoTag"}
	if !slices.Equal(got, want) {
		t.Errorf("ReadsOf = %q, want %q", got, want)
	}
	if r := ReadsOf(&json.RawMessage{}); !slices.Equal(r, ReadsAll) {
		t.Errorf("a raw result reads %q, want everything", r)
	}
	if r := ReadsOf(nil); len(r) != 0 || r.Covers(Violation{Pointer: "/x"}) {
		t.Errorf("no result reads %q", r)
	}
	// The readiness answer: a check decoding only its checks does not read
	// its status.
	var checksOnly struct {
		Checks []ReadinessCheck `json:"checks"`
	}
	if ReadsOf(&checksOnly).Covers(Violation{Pointer: "/status"}) {
		t.Error("a check that decodes only checks reads status")
	}
	if !ReadsOf(&ReadinessResult{}).Covers(Violation{Pointer: "/status"}) {
		t.Error("ReadinessResult does not read status")
	}
}
