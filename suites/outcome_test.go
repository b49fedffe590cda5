package suites

import "testing"

// Gomega's failure text becomes what the host answered and what the
// harness expected, values whole, without Go type annotations.
func TestCleanMessageNamesTheHostsValue(t *testing.T) {
	hash := "sha256:dbbbb6658beee42449f58b3be913e3a818beedbadfed2af8c56edc2acb2b9c00"
	in := "packageHash of x\nExpected\n    <string>: " + hash + "\nto equal\n    <string>: sha256:03b6"
	want := "packageHash of x\nthe host answered:\n    " + hash + "\nwhere the harness expected it to equal:\n    sha256:03b6"
	if got := cleanMessage(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := cleanMessage("no warning\nExpected\n    <bool>: false\nto be true"); got != "no warning" {
		t.Errorf("BeTrue noise kept: %q", got)
	}
	empty := cleanMessage("installed packageHash\nExpected\n    <string>: \nto equal\n    <string>: sha256:47")
	if want := "installed packageHash\nthe host answered:\n    \"\" (empty)\nwhere the harness expected it to equal:\n    sha256:47"; empty != want {
		t.Errorf("empty value: got\n%s", empty)
	}
	list := cleanMessage("x\nExpected\n    <string>: blocked\nto be an element of\n    <[]string | len:2, cap:2>: [\"ready\", \"ready-degraded\"]")
	if want := "x\nthe host answered:\n    blocked\nwhere the harness expected it to be an element of:\n    [\"ready\", \"ready-degraded\"]"; list != want {
		t.Errorf("list value: got\n%s", list)
	}
}

// A failure location names the harness's source relative to its tree, never
// the absolute path of the machine that built the harness.
func TestFailureLocationsAreRelative(t *testing.T) {
	if root := moduleRoot(); root != "" {
		if got := relativeLocation(root + "suites/verify.go:51"); got != "suites/verify.go:51" {
			t.Errorf("got %q", got)
		}
	}
	if got := relativeLocation("github.com/agentapp/conformance/suites/verify.go:51"); got != "suites/verify.go:51" {
		t.Errorf("trimpath form: got %q", got)
	}
}
