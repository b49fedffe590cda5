package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// summaryRE is what a CI log greps for: the four fixed counts and the
// parenthesis, in that order.
var summaryRE = regexp.MustCompile(`^conformance: (\d+) passed, (\d+) failed, (\d+) error, (\d+) blocked \(levels: ([^)]*)\)(; .*)?$`)

// The summary line counts requirements by the outcome Settle gave them,
// and names the levels that passed.
func TestSummaryLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, r *Report)
		want string
	}{
		{"all passed", func(*testing.T, *Report) {}, ""},
		{"a failed must", func(t *testing.T, r *Report) {
			setSpec(t, r, "READY-CAPABILITIES", Failed, "x")
		}, ""},
		{"a failed should counts as failed", func(t *testing.T, r *Report) {
			setSpec(t, r, "INSTALL-PINNED", Failed, "x")
		}, ""},
		{"error and blocked", func(t *testing.T, r *Report) {
			setSpec(t, r, "VERIFY-PACKAGE-HASH", Error, "x")
			setSpec(t, r, "CAT-METADATA", Blocked, "x")
		}, ""},
		{"the other outcomes follow the parenthesis", func(t *testing.T, r *Report) {
			setSpec(t, r, "BRIDGE-SNAPSHOT", Flaky, "x")
			setSpec(t, r, "PROJ-CONTENTS", Skipped, "x")
			setSpec(t, r, "UNINSTALL-KEEP-DATA", NotRun, "x")
		}, "; 1 flaky, 1 skipped, 1 not-run"},
		{"no level passed", func(t *testing.T, r *Report) {
			setSpec(t, r, "PROTO-RESET", Failed, "x")
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testReport(t, 0)
			tc.edit(t, r)
			line := SummaryLine(&r.Results)
			m := summaryRE.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("summary %q does not match %s", line, summaryRE)
			}
			n := map[Outcome]int{}
			for _, rr := range r.Requirements {
				n[rr.Outcome]++
			}
			for i, o := range []Outcome{Passed, Failed, Error, Blocked} {
				if m[i+1] != itoa(n[o]) {
					t.Errorf("summary %q: %s count %s, want %d (the report's requirements)", line, o, m[i+1], n[o])
				}
			}
			wantLevels := strings.Join(r.LevelsPassed, ", ")
			if wantLevels == "" {
				wantLevels = "none"
			}
			if m[5] != wantLevels {
				t.Errorf("summary %q names levels %q, want levelsPassed %q", line, m[5], wantLevels)
			}
			if m[6] != tc.want {
				t.Errorf("summary %q ends %q, want %q", line, m[6], tc.want)
			}
		})
	}
}

// report.html's header names the harness's commit, or says it is unknown.
func TestHTMLNamesTheHarnessCommit(t *testing.T) {
	for _, tc := range []struct{ commit, want string }{
		{"0123456789abcdef-dirty", "(commit 0123456789abcdef-dirty)"},
		{"", "(commit unknown)"},
	} {
		r := testReport(t, 0)
		r.Harness.Commit = tc.commit
		var b bytes.Buffer
		if err := WriteHTML(&b, r, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("commit %q: report.html does not say %q", tc.commit, tc.want)
		}
	}
}
