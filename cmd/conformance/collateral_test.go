package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// caseWith is a fault's finished case whose report holds these outcomes.
func caseWith(f mockhost.Fault, outcomes map[string]reports.Outcome) *selftestCase {
	rep := &reports.Report{}
	for _, id := range slices.Sorted(maps.Keys(outcomes)) {
		rep.Requirements = append(rep.Requirements, reports.RequirementResult{ID: id, Outcome: outcomes[id]})
	}
	return &selftestCase{fault: f, report: rep}
}

// The kill verdict rests on Breaks; recorded collateral that passed is a
// stale file, named with the command that refreshes it, and no failure.
func TestJudgeSeparatesMeantRecordedAndNewCollateral(t *testing.T) {
	f := mockhost.Fault{Name: "f", Breaks: []string{"A"}, Collateral: []string{"B"}}
	for _, tc := range []struct {
		name     string
		outcomes map[string]reports.Outcome
		status   string
		line     string
	}{
		{"meant and recorded fail", map[string]reports.Outcome{"A": reports.Failed, "B": reports.Blocked}, "KILLED", ""},
		{"meant passes", map[string]reports.Outcome{"A": reports.Passed, "B": reports.Failed}, "SURVIVED", "passed though the fault breaks them: A"},
		{"recorded passes", map[string]reports.Outcome{"A": reports.Failed, "B": reports.Passed}, "STALE",
			"stale " + mockhost.CollateralFile + ": recorded as its collateral but did not fail: B; refresh with conformance selftest --fault f --write-collateral"},
		{"new collateral", map[string]reports.Outcome{"A": reports.Failed, "B": reports.Failed, "C": reports.Failed}, "COLLATERAL",
			"new collateral: record it with conformance selftest --fault f --write-collateral"},
	} {
		k := caseWith(f, tc.outcomes)
		if v := judge(k); v.status != tc.status {
			t.Errorf("%s: %s, want %s (%+v)", tc.name, v.status, tc.status, v)
		}
		var out bytes.Buffer
		bad := printKillMatrix(&out, []*selftestCase{caseWith(mockhost.Fault{}, nil), k})
		if !strings.Contains(out.String(), tc.line) {
			t.Errorf("%s: the kill matrix does not say %q:\n%s", tc.name, tc.line, out.String())
		}
		// A stale entry is reported and the fault still killed; the
		// others fail the selftest, named.
		if want := tc.status != "KILLED" && tc.status != "STALE"; want != (len(bad) == 1 && bad[0] == tc.status+" f") {
			t.Errorf("%s: problems %q", tc.name, bad)
		}
	}
}

// --write-collateral rewrites the entries of the faults run, and only
// theirs, to what failed outside their Breaks, keeping what the child did
// not judge (--level), and the case is then judged on the new entry.
func TestRewriteCollateralRecordsWhatFailedOutsideBreaks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "collateral.json")
	if err := os.WriteFile(path, mockhost.EncodeCollateral(map[string][]string{"f": {"OLD", "UNJUDGED"}, "g": {"KEPT"}}), 0o644); err != nil {
		t.Fatal(err)
	}
	k := caseWith(mockhost.Fault{Name: "f", Breaks: []string{"A"}, Collateral: []string{"OLD", "UNJUDGED"}},
		map[string]reports.Outcome{"A": reports.Failed, "OLD": reports.Passed, "NEW": reports.Failed, "SKIPPED": reports.NotRun})
	k.judged = map[string]bool{"A": true, "OLD": true, "NEW": true, "SKIPPED": true}
	broken := &selftestCase{fault: mockhost.Fault{Name: "h", Breaks: []string{"A"}}}
	n, err := rewriteCollateral(path, []*selftestCase{{}, k, broken})
	if err != nil || n != 1 {
		t.Fatalf("rewrote %d entries, err %v; want 1", n, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := mockhost.EncodeCollateral(map[string][]string{"f": {"NEW", "UNJUDGED"}, "g": {"KEPT"}})
	if !bytes.Equal(b, want) {
		t.Errorf("file:\n%s\nwant:\n%s", b, want)
	}
	if v := judge(k); v.status != "KILLED" {
		t.Errorf("after the rewrite the case is %s (%+v), want KILLED", v.status, v)
	}
}

// Outside a checkout there is no file to rewrite: said, naming it.
func TestRewriteCollateralNamesAMissingFile(t *testing.T) {
	_, err := rewriteCollateral(filepath.Join(t.TempDir(), "none.json"), nil)
	if err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("err = %v, want one naming none.json", err)
	}
}

// The closing lines name each failed check, so a runner that keeps only
// the output's tail still says which fault failed and how.
func TestTheClosingLinesNameEachProblem(t *testing.T) {
	cat := levels.Default()
	survived := caseWith(mockhost.Fault{Name: "f", Breaks: []string{"A"}}, map[string]reports.Outcome{"A": reports.Passed})
	stale := caseWith(mockhost.Fault{Name: "g", Breaks: []string{"A"}, Collateral: []string{"B"}}, map[string]reports.Outcome{"A": reports.Failed, "B": reports.Passed})
	var out bytes.Buffer
	code := judgeKillMatrix(&out, []*selftestCase{caseWith(mockhost.Fault{}, nil), survived, stale}, cat, killMatrixScope{})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	tail := strings.Join(lines[len(lines)-2:], "\n")
	if code != exitFailed || tail != "problem: SURVIVED f\nselftest: 2 passed, 1 failed" {
		t.Errorf("exit %d, closing lines:\n%s\n(whole output:\n%s)", code, tail, out.String())
	}
}
