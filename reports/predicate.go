package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// PredicateType is the in-toto predicate type URI of a conformance report
// (docs/report-format.md "Predicate"). v2 brought the outcome lattice and the
// run status; a v1 verifier refuses v2 predicates by type.
const PredicateType = "https://agentapp.dev/conformance/report/v2"

// Predicate is the conformance report as signed: the same Results as
// report.json, put in a canonical order, with host-quoted text capped. Two
// runs of the same host and fixtures give predicates that differ only in
// times and durations.
type Predicate struct {
	Results
}

// Failure messages and reasons can quote what a host sent. The harness cuts
// them where it builds them (MaxFailureText); the predicate cuts them again,
// for a report this harness did not write, so a hostile host cannot push
// the predicate past its schema. A location is ours, and shorter.
const maxPredicateLocation = 1 << 10

// BuildPredicate derives the predicate from a settled report: requirements
// in catalog order (unknown ids last, by id), specs by name, long text cut.
// It decides nothing: outcomes and verdicts are the report's (Settle); their
// consistency is checked, as verify checks it.
func BuildPredicate(r *Report, cat *levels.Catalog) (*Predicate, error) {
	if cat == nil {
		cat = levels.Default()
	}
	if _, err := CheckVerdicts(cat, &r.Results); err != nil {
		return nil, err
	}
	p := &Predicate{Results: r.Results}
	p.StartedAt, p.FinishedAt = r.StartedAt.UTC(), r.FinishedAt.UTC()
	requested, err := orderLevels(cat, r.Requested)
	if err != nil {
		return nil, fmt.Errorf("levelsRequested: %w", err)
	}
	p.Requested = requested
	p.Levels = orderLevelResults(cat, r.Levels)
	p.LevelsPassed = PassedLevels(p.Levels)
	p.Run.Focus = append([]string(nil), r.Run.Focus...)
	p.Fixtures = sortedDigests(r.Fixtures)
	p.Readings = sortedReadings(r.Readings)
	p.Run.Reason = ClipFailure(p.Run.Reason)
	p.Requirements = []RequirementResult{}
	for _, rr := range orderRequirements(cat, r.Requirements) {
		rr.Levels = append([]string{}, rr.Levels...)
		specs := append([]SpecResult{}, rr.Specs...)
		sort.SliceStable(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
		for i, s := range specs {
			if len(s.Artifacts) > 0 {
				specs[i].Artifacts = append([]Artifact(nil), s.Artifacts...)
			}
			if s.Failure != nil {
				specs[i].Failure = &Failure{Message: ClipFailure(s.Failure.Message),
					Location: TruncateUTF8(s.Failure.Location, maxPredicateLocation)}
			}
		}
		rr.Specs = specs
		rr.Reason = ClipFailure(rr.Reason)
		p.Requirements = append(p.Requirements, rr)
	}
	return p, nil
}

// Report converts the predicate to a report (without transcript reference),
// so diff treats reports and envelopes alike.
func (p *Predicate) Report() *Report {
	return &Report{Format: FormatVersion, Results: p.Results}
}

// CheckVerdicts recomputes outcomes and level verdicts from spec outcomes
// and refuses results whose claims disagree. It returns the recomputed
// levels. verify and every writer of signed output go through it.
func CheckVerdicts(cat *levels.Catalog, r *Results) ([]LevelResult, error) {
	if err := CheckOutcomes(r.Requirements); err != nil {
		return nil, err
	}
	for _, id := range r.Requested {
		if _, ok := cat.Level(id); !ok {
			return nil, fmt.Errorf("levelsRequested: unknown level %q", id)
		}
	}
	computed, err := ComputeLevels(cat, r.Requested, r.Requirements)
	if err != nil {
		return nil, fmt.Errorf("computing level verdicts: %w", err)
	}
	claimed := map[string]Verdict{}
	for _, l := range r.Levels {
		if _, dup := claimed[l.ID]; dup {
			return nil, fmt.Errorf("levels: level %s appears twice", l.ID)
		}
		claimed[l.ID] = l.Verdict
	}
	for _, l := range computed {
		c, ok := claimed[l.ID]
		if !ok {
			return nil, fmt.Errorf("requested level %s has no verdict", l.ID)
		}
		if c != l.Verdict {
			return nil, fmt.Errorf("it claims level %s %s, but its requirement outcomes make it %s (%s)", l.ID, c, l.Verdict, l.Reason)
		}
		delete(claimed, l.ID)
	}
	if len(claimed) > 0 {
		extra := make([]string, 0, len(claimed))
		for id := range claimed {
			extra = append(extra, id)
		}
		sort.Strings(extra)
		return nil, fmt.Errorf("levels %s have a verdict but were not requested", strings.Join(extra, ", "))
	}
	if want := PassedLevels(computed); !sameSet(want, r.LevelsPassed) {
		return nil, fmt.Errorf("levelsPassed is [%s], but requirement outcomes pass [%s]",
			strings.Join(r.LevelsPassed, ", "), strings.Join(want, ", "))
	}
	switch r.Run.Status {
	case RunComplete, RunInterrupted, RunHostUnreachable:
	default:
		return nil, fmt.Errorf("run.status %q is not %s, %s or %s", r.Run.Status, RunComplete, RunInterrupted, RunHostUnreachable)
	}
	return computed, nil
}

func sameSet(a, b []string) bool {
	x, y := append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(x)
	sort.Strings(y)
	return strings.Join(x, ",") == strings.Join(y, ",")
}

// orderLevelResults puts level results in catalog order (a copy).
func orderLevelResults(cat *levels.Catalog, ls []LevelResult) []LevelResult {
	rank := map[string]int{}
	for i, id := range cat.LevelIDs() {
		rank[id] = i
	}
	out := append([]LevelResult{}, ls...)
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i].ID] < rank[out[j].ID] })
	return out
}

// orderLevels dedupes level ids and puts them in catalog order.
func orderLevels(cat *levels.Catalog, ids []string) ([]string, error) {
	want := map[string]bool{}
	for _, id := range ids {
		if _, ok := cat.Level(id); !ok {
			return nil, fmt.Errorf("unknown level %q", id)
		}
		want[id] = true
	}
	out := []string{}
	for _, id := range cat.LevelIDs() {
		if want[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// orderRequirements puts requirements in catalog order, unknown ids last by id.
func orderRequirements(cat *levels.Catalog, reqs []RequirementResult) []RequirementResult {
	rank := map[string]int{}
	for i, r := range cat.Requirements() {
		rank[r.ID] = i
	}
	out := append([]RequirementResult(nil), reqs...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, oki := rank[out[i].ID]
		rj, okj := rank[out[j].ID]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func sortedDigests(ds []Digest) []Digest {
	out := append([]Digest{}, ds...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func sortedReadings(rs []Reading) []Reading {
	if len(rs) == 0 {
		return nil
	}
	out := append([]Reading(nil), rs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Topic < out[j].Topic })
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
