//go:build !mutation

package mockhost

import (
	"slices"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// TestHeldOutFaultsBreakRequirementsOfTheirFamily checks that a fault the
// held-out hunt turned up breaks only requirements whose specs say they
// cover its family (levels' BugFamilies): the family was fixed in the
// specs before the bug became a fault.
func TestHeldOutFaultsBreakRequirementsOfTheirFamily(t *testing.T) {
	cat := levels.Default()
	for _, g := range []struct {
		faults   []Fault
		families []levels.BugFamily
	}{
		{changeAndTransitionFaults(), []levels.BugFamily{levels.ChangeBetweenReads, levels.EveryTransition}},
		{boundaryAndMemberFaults(), []levels.BugFamily{levels.RepresentationLimit, levels.EveryMember}},
		{identityAndEntryPointFaults(), []levels.BugFamily{levels.ConfusableIdentity, levels.EveryEntryPoint}},
		{heldOutBFaults(), []levels.BugFamily{levels.ConfusableIdentity, levels.EveryTransition, levels.EveryEntryPoint, levels.RepresentationLimit, levels.EveryMember}},
		{heldOutCFaults(), []levels.BugFamily{levels.ConfusableIdentity, levels.EveryTransition, levels.WhoAnswers, levels.RepresentationLimit}},
		{heldOutDFaults(), []levels.BugFamily{levels.ChangeBetweenReads, levels.RepresentationLimit, levels.EveryMember, levels.EveryTransition}},
		{heldOutEFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutFFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutGFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutHFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutH2Faults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutIFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutJFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutKFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutLFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
		{heldOutMFaults(), []levels.BugFamily{levels.EveryMember, levels.EveryTransition, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint, levels.RepresentationLimit, levels.WhoAnswers}},
	} {
		for _, f := range g.faults {
			for _, id := range f.Breaks {
				r, ok := cat.Requirement(id)
				if !ok {
					t.Errorf("fault %s breaks %s, which levels does not know", f.Name, id)
					continue
				}
				if !slices.ContainsFunc(g.families, func(fam levels.BugFamily) bool { return slices.Contains(r.BugFamilies, fam) }) {
					t.Errorf("fault %s breaks %s, whose BugFamilies %v list none of %v", f.Name, id, r.BugFamilies, g.families)
				}
			}
		}
	}
}
