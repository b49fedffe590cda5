package levels

import (
	"slices"
	"strings"
	"testing"
)

// TestCoverageInventoryAgreesWithCatalog: every requirement citing a spec
// text cites a clause of the inventory, every clause marked judged is cited
// by a requirement, and no clause marked not yet judged or not externally
// testable is (issue 27: docs/coverage.md says what judges each clause).
func TestCoverageInventoryAgreesWithCatalog(t *testing.T) {
	clauses, err := TextClauses()
	if err != nil {
		t.Fatal(err)
	}
	cov := CoverClauses(Default(), clauses)
	for _, id := range cov.Uncited {
		t.Errorf("%s cites no clause of levels/clauses.tsv: give the clause it enforces an anchor its quote contains", id)
	}
	for _, p := range cov.Problems {
		t.Error(p)
	}
}

// TestCoverageInventoryWalksEveryText: each of the five texts has clauses,
// ids are unique, and each clause not judged says why.
func TestCoverageInventoryWalksEveryText(t *testing.T) {
	clauses, err := TextClauses()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	seen := map[string]bool{}
	for _, c := range clauses {
		per[c.File]++
		if seen[c.ID] {
			t.Errorf("clause id %s given twice", c.ID)
		}
		seen[c.ID] = true
		if !strings.HasPrefix(c.ID, c.File[:3]+"/") {
			t.Errorf("clause id %s does not start with its text's number %s", c.ID, c.File[:3])
		}
	}
	for _, f := range Texts() {
		if per[f] == 0 {
			t.Errorf("the inventory has no clause of %s", f)
		}
	}
}

// TestCoverageLinksByAnchorTextAndRequirementID: a requirement cites a
// clause when its quote holds an anchor as whole words (case and
// punctuation aside) in the clause's text, or when an anchor names it.
func TestCoverageLinksByAnchorTextAndRequirementID(t *testing.T) {
	c := TextClause{ID: "000/readiness/1", File: SpecMain, Section: "Readiness", Status: ClauseJudged,
		Anchors: []string{"Readiness may return ready", "req:BRIDGE-X", "-req:CONTEXT-ONLY"}}
	req := func(id, file, section, quote string) Requirement {
		return Requirement{ID: id, Clause: spec(file, section, quote)}
	}
	cases := []struct {
		name string
		r    Requirement
		want bool
	}{
		{"the anchor, other case and punctuation", req("R", SpecMain, "Readiness", "readiness MAY return: ready, needs-setup"), true},
		{"the anchor in another text", req("R", SpecDesktop, "Readiness state rules", "Readiness may return ready"), false},
		{"another text naming this one in its section", req("R", SpecDesktop, "Rules; 000 Readiness", "Readiness may return ready"), true},
		{"another text naming this one in an aside", req("R", SpecDesktop, "Rules", "x (000: Readiness may return ready)"), true},
		{"the anchor inside a longer word", req("R", SpecMain, "Readiness", "Readiness may return readyish"), false},
		{"no anchor", req("R", SpecMain, "Readiness", "Readiness should check policy"), false},
		{"another text naming this one in a list of texts", req("R", SpecDesktop, "Rules", "x; 000 Readiness: Readiness may return ready"), true},
		{"named by id", req("BRIDGE-X", SpecRuntime, "UI runtime", "anything"), true},
		{"unlinked by id though it quotes the anchor", req("CONTEXT-ONLY", SpecMain, "Readiness", "Readiness may return ready"), false},
		{"a guide clause", Requirement{ID: "R", Clause: guide("Client guides", "Readiness may return ready")}, false},
	}
	for _, tc := range cases {
		if got := c.CitedBy(tc.r); got != tc.want {
			t.Errorf("%s: CitedBy = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCoverageReportsEachDisagreement: a spec requirement citing no clause,
// a judged clause no requirement cites, and a clause marked not yet judged
// that a requirement cites are each reported.
func TestCoverageReportsEachDisagreement(t *testing.T) {
	reqs := []Requirement{
		{ID: "CITES-A", Title: "t", Strength: Must, Levels: []string{"catalog"}, BugFamilies: []BugFamily{EveryMember}, Clause: spec(SpecMain, "A", "alpha rule")},
		{ID: "CITES-B", Title: "t", Strength: Must, Levels: []string{"catalog"}, BugFamilies: []BugFamily{EveryMember}, Clause: spec(SpecMain, "B", "beta rule")},
		{ID: "CITES-NONE", Title: "t", Strength: Must, Levels: []string{"catalog"}, BugFamilies: []BugFamily{EveryMember}, Clause: spec(SpecMain, "C", "gamma rule")},
	}
	cat, err := New(allLevels(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	clauses := []TextClause{
		{ID: "000/a/1", File: SpecMain, Status: ClauseJudged, Anchors: []string{"alpha rule"}},
		{ID: "000/b/1", File: SpecMain, Status: ClauseNotYetJudged, Anchors: []string{"beta rule"}},
		{ID: "000/d/1", File: SpecMain, Status: ClauseJudged, Anchors: []string{"delta rule"}},
	}
	cov := CoverClauses(cat, clauses)
	if !slices.Equal(cov.Uncited, []string{"CITES-NONE"}) {
		t.Errorf("uncited = %v, want [CITES-NONE]", cov.Uncited)
	}
	if !slices.Equal(cov.Reqs["000/a/1"], []string{"CITES-A"}) {
		t.Errorf("000/a/1 cited by %v, want [CITES-A]", cov.Reqs["000/a/1"])
	}
	joined := strings.Join(cov.Problems, "\n")
	for _, want := range []string{"000/b/1 is marked not-yet-judged but is cited by CITES-B", "000/d/1 is marked judged but no requirement"} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems %q do not say %q", joined, want)
		}
	}
	if len(cov.Problems) != 2 {
		t.Errorf("%d problems, want 2: %q", len(cov.Problems), cov.Problems)
	}
}
