package reports

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentapp/conformance/levels"
)

// PredicateType is the in-toto predicate type URI of a conformance report
// (docs/report-format.md "Predicate"). A breaking change of the predicate
// gets a new URI (v2); additions that old verifiers must reject do too,
// because the schema forbids unknown fields.
const PredicateType = "https://agentapp.dev/conformance/report/v1"

// Predicate is the conformance report as signed: report.json without what
// differs between two runs of the same host and fixtures other than times and
// durations (the transcript's digest and exchange numbers live in the
// statement's subjects and in report.json, not here).
type Predicate struct {
	Harness      Harness                `json:"harness"`
	Standard     Standard               `json:"standard"`
	Host         Host                   `json:"host"`
	Environment  Environment            `json:"environment"`
	StartedAt    time.Time              `json:"startedAt"`
	FinishedAt   time.Time              `json:"finishedAt"`
	DurationMs   int64                  `json:"durationMs"`
	Requested    []string               `json:"levelsRequested"`
	LevelsPassed []string               `json:"levelsPassed"`
	Levels       []LevelResult          `json:"levels"`
	Requirements []PredicateRequirement `json:"requirements"`
	FixtureSet   string                 `json:"fixtureSetDigest"`
	Fixtures     []Digest               `json:"fixtures"`
	Readings     []Reading              `json:"readings,omitempty"`
}

// PredicateRequirement is one requirement's outcome in the predicate.
type PredicateRequirement struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Strength string          `json:"strength"`
	Levels   []string        `json:"levels"`
	Clause   Clause          `json:"clause"`
	Outcome  string          `json:"outcome"`
	Reason   string          `json:"reason,omitempty"`
	Specs    []PredicateSpec `json:"specs"`
}

// PredicateSpec is one spec's outcome in the predicate.
type PredicateSpec struct {
	Name       string   `json:"name"`
	Outcome    string   `json:"outcome"`
	Failure    *Failure `json:"failure,omitempty"`
	DurationMs int64    `json:"durationMs"`
}

// Failure messages and reasons can quote what a host sent; the predicate
// keeps at most this many bytes of each (report.json keeps them whole), so a
// hostile host cannot push the predicate past its schema.
const (
	maxPredicateText     = 32 << 10
	maxPredicateLocation = 1 << 10
)

// BuildPredicate derives the predicate from a report. Level verdicts are
// recomputed from requirement outcomes; requirements come in catalog order
// (unknown ids last, by id) and specs by name, so two runs that differ only
// in times give predicates that differ only in times and durations.
func BuildPredicate(r *Report, cat *levels.Catalog) (*Predicate, error) {
	if cat == nil {
		cat = levels.Default()
	}
	if err := CheckOutcomes(r.Requirements); err != nil {
		return nil, err
	}
	requested, err := orderLevels(cat, r.Requested)
	if err != nil {
		return nil, fmt.Errorf("levelsRequested: %w", err)
	}
	computed, err := ComputeLevels(cat, requested, r.Requirements)
	if err != nil {
		return nil, fmt.Errorf("computing level verdicts: %w", err)
	}
	p := &Predicate{
		Harness:      r.Harness,
		Standard:     r.Standard,
		Host:         r.Host,
		Environment:  r.Environment,
		StartedAt:    r.StartedAt.UTC(),
		FinishedAt:   r.FinishedAt.UTC(),
		DurationMs:   r.DurationMs,
		Requested:    requested,
		LevelsPassed: PassedLevels(computed),
		Levels:       nonNil(computed),
		FixtureSet:   r.FixtureSet,
		Fixtures:     sortedDigests(r.Fixtures),
		Readings:     sortedReadings(r.Readings),
	}
	for _, rr := range orderRequirements(cat, r.Requirements) {
		pr := PredicateRequirement{
			ID: rr.ID, Title: rr.Title, Strength: rr.Strength, Levels: nonNil(rr.Levels),
			Clause: rr.Clause, Outcome: rr.Outcome, Reason: rr.Reason, Specs: []PredicateSpec{},
		}
		specs := append([]SpecResult(nil), rr.Specs...)
		sort.SliceStable(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
		for _, s := range specs {
			ps := PredicateSpec{Name: s.Name, Outcome: s.Outcome, DurationMs: s.DurationMs}
			if s.Failure != nil {
				ps.Failure = &Failure{Message: TruncateUTF8(s.Failure.Message, maxPredicateText),
					Location: TruncateUTF8(s.Failure.Location, maxPredicateLocation)}
			}
			pr.Specs = append(pr.Specs, ps)
		}
		if pr.Outcome == Skipped && pr.Reason == "" {
			pr.Reason = skipReason(specs)
		}
		pr.Reason = TruncateUTF8(pr.Reason, maxPredicateText)
		p.Requirements = append(p.Requirements, pr)
	}
	p.Requirements = nonNil(p.Requirements)
	return p, nil
}

// skipReason is the reason a skipped requirement gives when the report left
// it out: the messages of its skipped specs.
func skipReason(specs []SpecResult) string {
	var msgs []string
	for _, s := range specs {
		if s.Outcome == Skipped && s.Failure != nil && s.Failure.Message != "" {
			msgs = append(msgs, s.Failure.Message)
		}
	}
	if len(msgs) == 0 {
		return "skipped (the spec gave no reason)"
	}
	return strings.Join(msgs, "; ")
}

// Results converts the predicate's requirements back to report form, for
// verdict computation and diff.
func (p *Predicate) Results() []RequirementResult {
	out := make([]RequirementResult, 0, len(p.Requirements))
	for _, pr := range p.Requirements {
		rr := RequirementResult{ID: pr.ID, Title: pr.Title, Strength: pr.Strength, Levels: pr.Levels,
			Clause: pr.Clause, Outcome: pr.Outcome, Reason: pr.Reason}
		for _, s := range pr.Specs {
			rr.Specs = append(rr.Specs, SpecResult{Name: s.Name, Outcome: s.Outcome, Failure: s.Failure, DurationMs: s.DurationMs})
		}
		out = append(out, rr)
	}
	return out
}

// Report converts the predicate to a report (without transcript reference or
// exchange numbers), so diff treats reports and envelopes alike.
func (p *Predicate) Report() *Report {
	return &Report{
		Format: FormatVersion, Harness: p.Harness, Standard: p.Standard, Host: p.Host,
		Environment: p.Environment, StartedAt: p.StartedAt, FinishedAt: p.FinishedAt,
		DurationMs: p.DurationMs, Requested: p.Requested, LevelsPassed: p.LevelsPassed,
		Levels: p.Levels, Requirements: p.Results(), Fixtures: p.Fixtures, FixtureSet: p.FixtureSet,
		Readings: p.Readings,
	}
}

// CheckOutcomes checks that every requirement's outcome follows from its
// specs (RequirementOutcome); a requirement without specs is not-run or
// skipped. It also rejects duplicate ids and unknown outcome words.
func CheckOutcomes(reqs []RequirementResult) error {
	seen := map[string]bool{}
	for i, r := range reqs {
		if r.ID == "" {
			return fmt.Errorf("requirements[%d]: id is empty", i)
		}
		if seen[r.ID] {
			return fmt.Errorf("requirements[%d]: requirement %s appears twice", i, r.ID)
		}
		seen[r.ID] = true
		if !validOutcome(r.Outcome) {
			return fmt.Errorf("requirements[%d] (%s): outcome %q is not passed, failed, skipped or not-run", i, r.ID, r.Outcome)
		}
		for j, s := range r.Specs {
			if !validOutcome(s.Outcome) {
				return fmt.Errorf("requirements[%d] (%s): specs[%d]: outcome %q is not passed, failed, skipped or not-run", i, r.ID, j, s.Outcome)
			}
		}
		if len(r.Specs) == 0 {
			if r.Outcome != NotRun && r.Outcome != Skipped {
				return fmt.Errorf("requirement %s claims %s but no spec ran for it", r.ID, r.Outcome)
			}
			continue
		}
		if want := RequirementOutcome(r.Specs); r.Outcome != want {
			return fmt.Errorf("requirement %s claims %s but its specs say %s", r.ID, r.Outcome, want)
		}
	}
	return nil
}

func validOutcome(o string) bool {
	switch o {
	case Passed, Failed, Skipped, NotRun:
		return true
	}
	return false
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
