package reports

import (
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// junit.xml is red (<failure>, <error>) only where run's exit code can be
// non-zero: a failed should is a warning, a baselined failure is an
// expected failure, both <skipped> with a message that says so; a listed
// requirement that was blocked is reported, red, saying the baseline does
// not forgive it; a stale entry is a red testcase of its own.
func TestJUnitWarningsAndTheBaseline(t *testing.T) {
	cat := levels.Default()
	strength := func(id string) string {
		r, ok := cat.Requirement(id)
		if !ok {
			t.Fatalf("no requirement %s", id)
		}
		return string(r.Strength)
	}
	if strength("INSTALL-PINNED") != "should" || strength("READY-CAPABILITIES") != "must" || strength("CAT-METADATA") != "must" {
		t.Fatal("the catalog changed: pick a should and two musts")
	}
	type want struct {
		child   string // failure, error, skipped
		typ     string // failure / error type
		message string // prefix of the message
		out     string // in system-out
	}
	for _, tc := range []struct {
		name     string
		id       string
		outcome  Outcome
		baseline []ExpectedFailure
		want     want
		prop     string // name=value of a suite property
		stale    bool   // a stale testcase for id
	}{
		{name: "a failed should is a warning", id: "INSTALL-PINNED", outcome: Failed,
			want: want{child: "skipped", message: "warning: it broke"}},
		{name: "an error of a should changes no level", id: "INSTALL-PINNED", outcome: Error,
			want: want{child: "skipped", message: "error (a should / may: changes no level): it broke"}},
		{name: "a failed must is red", id: "READY-CAPABILITIES", outcome: Failed,
			want: want{child: "failure", typ: "failed", message: "it broke"}},
		{name: "a failed protocol precondition is red", id: "PROTO-RESET", outcome: Failed,
			want: want{child: "failure", typ: "precondition", message: "it broke"}},
		{name: "a baselined failed must is expected", id: "READY-CAPABILITIES", outcome: Failed,
			baseline: []ExpectedFailure{{ID: "READY-CAPABILITIES", Reason: "HOST-7"}},
			want:     want{child: "skipped", message: "expected failure: it broke", out: "expected failure READY-CAPABILITIES (HOST-7): still fails"},
			prop:     "expectedFailures.still-failing=READY-CAPABILITIES"},
		{name: "a baselined failed precondition is expected", id: "PROTO-RESET", outcome: Failed,
			baseline: []ExpectedFailure{{ID: "PROTO-RESET", Reason: "HOST-8"}},
			want:     want{child: "skipped", message: "expected failure: it broke"}},
		{name: "a baselined blocked must is reported", id: "CAT-METADATA", outcome: Blocked,
			baseline: []ExpectedFailure{{ID: "CAT-METADATA", Reason: "HOST-9"}},
			want:     want{child: "error", typ: "blocked", message: "it broke", out: "expected failure CAT-METADATA (HOST-9): is blocked, not failed: the baseline forgives failures only"},
			prop:     "expectedFailures.not-judged=CAT-METADATA"},
		{name: "a stale entry is red", id: "READY-CAPABILITIES", outcome: Passed,
			baseline: []ExpectedFailure{{ID: "READY-CAPABILITIES", Reason: "HOST-7"}},
			want:     want{out: "expected failure READY-CAPABILITIES (HOST-7): passes now"},
			prop:     "expectedFailures.stale=READY-CAPABILITIES", stale: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testReport(t, 0)
			setSpec(t, r, tc.id, tc.outcome, "it broke\nsecond line")
			r.Run.ExpectedFailures = tc.baseline
			doc := writeJUnitDoc(t, r)
			for _, p := range validateJUnit(doc) {
				t.Errorf("junit.xml: %s", p)
			}
			root, err := parseXMLTree(doc)
			if err != nil {
				t.Fatal(err)
			}
			suite := root.child("testsuite")
			var mine, stale *xmlNode
			red := 0
			for _, c := range suite.children("testcase") {
				if c.child("failure") != nil || c.child("error") != nil {
					red++
				}
				switch {
				case strings.HasSuffix(c.Attrs["name"], "expected failure is stale"):
					stale = c
				case c.Attrs["classname"] == tc.id && strings.Contains(c.Attrs["name"], "spec 1 of"):
					mine = c
				}
			}
			if mine == nil {
				t.Fatalf("no testcase for %s's first spec", tc.id)
			}
			wantRed := tc.want.child == "failure" || tc.want.child == "error" || tc.stale
			if (red == 1) != wantRed || red > 1 {
				t.Errorf("%d red testcases, want %v", red, map[bool]int{true: 1, false: 0}[wantRed])
			}
			var kids []string
			for _, k := range mine.Children {
				if k.Name != "system-out" {
					kids = append(kids, k.Name)
				}
			}
			if got := strings.Join(kids, " "); got != tc.want.child {
				t.Fatalf("testcase has [%s], want [%s]\n%s", got, tc.want.child, doc)
			}
			if tc.want.child != "" {
				k := mine.child(tc.want.child)
				if k.Attrs["type"] != tc.want.typ || !strings.HasPrefix(k.Attrs["message"], tc.want.message) || strings.Contains(k.Attrs["message"], "\n") {
					t.Errorf("<%s type=%q message=%q>, want type %q, message %q...", tc.want.child, k.Attrs["type"], k.Attrs["message"], tc.want.typ, tc.want.message)
				}
				if !strings.Contains(k.Text, "second line") {
					t.Errorf("<%s> body %q does not carry the whole message", tc.want.child, k.Text)
				}
			}
			if out := mine.child("system-out"); tc.want.out != "" && (out == nil || !strings.Contains(out.Text, tc.want.out)) {
				t.Errorf("system-out does not say %q:\n%s", tc.want.out, doc)
			}
			if tc.stale {
				if stale == nil || stale.child("failure") == nil || stale.child("failure").Attrs["type"] != "stale-expected-failure" || stale.Attrs["classname"] != tc.id {
					t.Errorf("no red stale testcase for %s:\n%s", tc.id, doc)
				}
			} else if stale != nil {
				t.Errorf("a stale testcase without a stale entry")
			}
			props := map[string]string{}
			if ps := suite.child("properties"); ps != nil {
				for _, p := range ps.children("property") {
					props[p.Attrs["name"]] = p.Attrs["value"]
				}
			}
			if name, value, ok := strings.Cut(tc.prop, "="); ok && props[name] != value {
				t.Errorf("property %s = %q, want %q", name, props[name], value)
			}
		})
	}
}
