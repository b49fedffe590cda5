package suites_test

import (
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/suites"
)

// TestEveryJudgedRequirementHasASpecAndAFault is the catalog's coverage
// gate: a requirement of a level the harness claims to judge is covered only
// when a spec carries its label and a non-hostile mockhost fault breaks it.
func TestEveryJudgedRequirementHasASpecAndAFault(t *testing.T) {
	cat := levels.Default()
	cfg := suites.DefaultConfig()
	specs, err := suites.Preview(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Fatal("no spec declared")
	}
	specFor := map[string]int{}
	for _, s := range specs {
		found := false
		for _, l := range s.Labels {
			if _, ok := cat.Requirement(l); ok {
				specFor[l]++
				found = true
			}
		}
		if !found {
			t.Errorf("spec %q carries no requirement label", s.Name)
		}
	}
	faultFor := map[string]int{}
	for _, f := range mockhost.Faults() {
		// An escapes fault is judged by the report's escapedProcesses.
		if len(f.Breaks) == 0 && !f.Escapes {
			t.Errorf("fault %s breaks no requirement", f.Name)
		}
		seen := map[string]bool{}
		for _, id := range f.Breaks {
			if seen[id] {
				t.Errorf("fault %s names %s twice", f.Name, id)
			}
			seen[id] = true
			if _, ok := cat.Requirement(id); !ok {
				t.Errorf("fault %s names unknown requirement %s", f.Name, id)
			}
			if !f.Hostile {
				faultFor[id]++
			}
		}
	}
	for _, r := range cat.ForLevels(cat.JudgedLevels()) {
		if specFor[r.ID] == 0 {
			t.Errorf("requirement %s (%s) has no spec", r.ID, r.Title)
		}
		if faultFor[r.ID] == 0 {
			t.Errorf("requirement %s (%s) has no mockhost fault that breaks it", r.ID, r.Title)
		}
	}
	for _, id := range cat.JudgedLevels() {
		if len(cat.ForLevels([]string{id})) == 0 {
			t.Errorf("judged level %s has no requirement", id)
		}
	}
}

// TestEveryJudgedRequirementListsTheFamiliesItsSpecsCover is the families'
// gate (issue "Specs that catch the bugs nobody here wrote"): every judged
// requirement lists at least one bug family in levels/, and each family it
// lists is a label of at least one spec carrying its id, so the claim
// points at the spec rows that make it (run them with
// `--label-filter 'ID && family:...'`).
func TestEveryJudgedRequirementListsTheFamiliesItsSpecsCover(t *testing.T) {
	cat := levels.Default()
	specs, err := suites.Preview(suites.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]map[string]bool{} // requirement id -> family label -> seen
	for _, s := range specs {
		for _, id := range s.Labels {
			if _, ok := cat.Requirement(id); !ok {
				continue
			}
			for _, l := range s.Labels {
				if strings.HasPrefix(l, "family:") {
					if covered[id] == nil {
						covered[id] = map[string]bool{}
					}
					covered[id][l] = true
				}
			}
		}
	}
	for _, r := range cat.ForLevels(cat.JudgedLevels()) {
		if len(r.BugFamilies) == 0 {
			t.Errorf("%s lists no bug family its specs cover", r.ID)
			continue
		}
		for _, f := range r.BugFamilies {
			if !covered[r.ID][f.Label()] {
				t.Errorf("%s lists family %q, but no spec of it carries the label %s", r.ID, f, f.Label())
			}
		}
	}
}
