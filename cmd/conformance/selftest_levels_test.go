package main

import (
	"slices"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// A selftest child runs the judged levels that need no browser, plus the
// levels of what its fault breaks; the baseline runs everything mockhost
// claims.
func TestChildLevelsSpareTheBrowserUnlessTheFaultNeedsIt(t *testing.T) {
	cat := levels.Default()
	find := func(name string) mockhost.Fault {
		for _, f := range mockhost.Faults() {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no fault %s", name)
		return mockhost.Fault{}
	}
	for _, tc := range []struct {
		fault string
		want  []string
	}{
		{"exec-worker-on-project", []string{"catalog", "installable", "desktop-p0"}},
		{"bridge-trusts-any-origin", []string{"catalog", "installable", "desktop-p0", "capability", "desktop-p2"}},
		{"center-hides-blockers", []string{"catalog", "installable", "desktop-p0", "desktop-p1"}},
	} {
		got := childLevels(cat, find(tc.fault))
		slices.Sort(got)
		slices.Sort(tc.want)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: child levels %v, want %v", tc.fault, got, tc.want)
		}
	}
	base := childLevels(cat, mockhost.Fault{})
	for _, id := range mockhost.ClaimedLevels() {
		if !slices.Contains(base, id) {
			t.Errorf("the baseline does not run claimed level %s: %v", id, base)
		}
	}
}

// In the breaks scope a fault's child runs the specs of what it breaks,
// nothing else, wherever they count; the baseline runs everything, an
// indiscriminate fault what it breaks and its recorded collateral. A
// requirement a filtered child did not run is no collateral, and a
// recorded collateral it did not run is not stale.
func TestBreaksScopeFiltersOrdinaryFaultsOnly(t *testing.T) {
	// A fault of the package pipeline runs what it breaks, not its levels whole.
	plain := mockhost.Fault{Name: "exec-worker-on-project", Breaks: []string{"P0-NO-APP-CODE", "UNINSTALL-EXPORT"}}
	if got, want := breaksFilter(plain), "P0-NO-APP-CODE || UNINSTALL-EXPORT"; got != want {
		t.Errorf("filter %q, want %q", got, want)
	}
	f := mockhost.Fault{Name: "export-keeps-data", Breaks: []string{"UNINSTALL-EXPORT"}}
	if got, want := breaksFilter(f), "UNINSTALL-EXPORT"; got != want {
		t.Errorf("filter %q, want %q", got, want)
	}
	// Its recorded collateral does not run: it is --scope levels' to see.
	recorded := mockhost.Fault{Name: "x", Breaks: []string{"CAT-LAYERED-LOAD"}, Collateral: []string{"VERIFY-ORDER"}}
	if got, want := breaksFilter(recorded), "CAT-LAYERED-LOAD"; got != want {
		t.Errorf("filter %q, want %q", got, want)
	}
	if got := breaksFilter(mockhost.Fault{}); got != "" {
		t.Errorf("the baseline is filtered: %q", got)
	}
	// An indiscriminate fault runs what rests on its refusals and what it
	// was seen to fail besides, not a whole certification.
	wide := mockhost.Fault{Name: "x", Indiscriminate: []levels.RefusalKind{levels.RefusesPackage},
		Breaks: []string{"VERIFY-ORDER"}, Collateral: []string{"INSTALL-REVIEW"}}
	if got, want := breaksFilter(wide), "VERIFY-ORDER || INSTALL-REVIEW"; got != want {
		t.Errorf("indiscriminate fault's filter %q, want %q", got, want)
	}
	k := &selftestCase{fault: f, report: &reports.Report{Results: reports.Results{Requirements: []reports.RequirementResult{
		{ID: "UNINSTALL-EXPORT", Outcome: reports.Failed},
		{ID: "BRIDGE-ORIGIN", Outcome: reports.NotRun},
	}}}}
	if v := judge(k); v.status != "KILLED" {
		t.Errorf("a not-run requirement counted against the fault: %+v", v)
	}
	k.fault = recorded
	k.report.Requirements = []reports.RequirementResult{{ID: "CAT-LAYERED-LOAD", Outcome: reports.Failed}, {ID: "VERIFY-ORDER", Outcome: reports.NotRun}}
	k.judged = nil
	if v := judge(k); v.status != "KILLED" {
		t.Errorf("a recorded collateral the child did not run was judged: %+v", v)
	}
	k.report.Requirements[1].Outcome = reports.Passed
	if v := judge(k); v.status != "STALE" {
		t.Errorf("a recorded collateral that ran and passed is not reported stale: %+v", v)
	}
}

// The children that run longest start first, so none starts last and runs
// alone: the baseline and indiscriminate or hostile faults, then faults of
// browser levels (the one breaking more first), then the rest.
func TestLongestChildrenStartFirst(t *testing.T) {
	cat := levels.Default()
	plain := &selftestCase{fault: mockhost.Fault{Name: "exec-worker-on-project", Breaks: []string{"P0-NO-APP-CODE"}}}
	bridge := &selftestCase{fault: mockhost.Fault{Name: "bridge-trusts-any-origin", Breaks: []string{"BRIDGE-ORIGIN"}}}
	wide := &selftestCase{fault: mockhost.Fault{Name: "wide", Breaks: []string{"BRIDGE-ORIGIN", "BRIDGE-SOURCE"}}}
	hostile := &selftestCase{fault: mockhost.Fault{Name: "hang-on-readiness", Hostile: true, Breaks: []string{"READY-STATUS"}}}
	base := &selftestCase{}
	got := longestFirst(cat, []*selftestCase{plain, bridge, wide, hostile, base})
	want := []*selftestCase{hostile, base, wide, bridge, plain}
	if !slices.Equal(got, want) {
		var names []string
		for _, k := range got {
			names = append(names, k.fault.Name)
		}
		t.Errorf("order %q, want hang-on-readiness, baseline, wide, bridge-trusts-any-origin, exec-worker-on-project", names)
	}
}

// Every fault's child in the breaks scope gets a label filter the report
// keeps and Ginkgo parses (an indiscriminate fault's lists what it breaks
// and its collateral: the longest).
func TestEveryFaultFilterFitsTheReport(t *testing.T) {
	for _, f := range mockhost.Faults() {
		filter := breaksFilter(f)
		if len(filter) > reports.MaxLabelFilter {
			t.Errorf("fault %s: its child's label filter is %d characters, more than the report keeps (%d)", f.Name, len(filter), reports.MaxLabelFilter)
		}
		if _, err := types.ParseLabelFilter(filter); err != nil {
			t.Errorf("fault %s: %q does not parse: %v", f.Name, filter, err)
		}
	}
}
