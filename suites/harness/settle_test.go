package harness

import (
	"testing"

	"github.com/agentapp/conformance/reports"
)

// A requirement settles as the report settles it: the worst outcome of its
// specs, explained by the first spec in the report's order (by name) with
// that outcome, whatever order they ran in.
func TestSettledEventIsTheReportsVerdict(t *testing.T) {
	specs := []SpecOutcome{
		{Name: "a passes", Outcome: reports.Passed},
		{Name: "c fails", Outcome: reports.Failed, Failure: "c: the host refused it\nmore"},
		{Name: suiteName + " b fails", Outcome: reports.Failed, Failure: "b: the host accepted it\nmore"},
		{Name: "d blocked", Outcome: reports.Blocked, Failure: "d: precondition"},
	}
	e := settledEvent("CAT-FIELD-CONSTRAINTS", specs)
	rr := reports.RequirementResult{ID: "CAT-FIELD-CONSTRAINTS"}
	for _, s := range specs {
		rr.Specs = append(rr.Specs, s.Result())
	}
	res := reports.Results{Requirements: []reports.RequirementResult{rr}, Requested: []string{"catalog"}}
	if err := reports.Settle(&res, nil); err != nil {
		t.Fatal(err)
	}
	want := res.Requirements[0]
	if e.Outcome != want.Outcome || e.Reason != want.Reason || e.Outcome != reports.Failed {
		t.Errorf("progress says %s (%q), the report %s (%q)", e.Outcome, e.Reason, want.Outcome, want.Reason)
	}
	if e.Failure != "b: the host accepted it\nmore" {
		t.Errorf("progress quotes %q, want the message of the spec the report's reason comes from", e.Failure)
	}
	if e.Spec != "b fails" {
		t.Errorf("progress names spec %q, want that spec below the suite's container: %q", e.Spec, "b fails")
	}
	if none := settledEvent("CAT-METADATA", nil); none.Outcome != reports.NotRun || none.Failure != none.Reason || none.Reason == "" {
		t.Errorf("no spec: %+v", none)
	}
}
