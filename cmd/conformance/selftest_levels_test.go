package main

import (
	"slices"
	"testing"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
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
		{"launch-ignores-readiness", []string{"catalog", "installable", "desktop-p0", "desktop-p1"}},
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
