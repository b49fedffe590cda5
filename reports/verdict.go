package reports

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// RequirementOutcome folds spec outcomes into the requirement's outcome: the
// worst of them (Worst); not-run when no spec reported.
func RequirementOutcome(specs []SpecResult) Outcome {
	os := make([]Outcome, len(specs))
	for i, s := range specs {
		os[i] = s.Outcome
	}
	return Worst(os...)
}

// Settle decides, once, every requirement's outcome from its specs and every
// requested level's verdict from the requirements, and records them in r.
// Writers render what Settle decided; verify recomputes it to check a claim.
func Settle(r *Results, cat *levels.Catalog) error {
	if cat == nil {
		cat = levels.Default()
	}
	for i := range r.Requirements {
		rr := &r.Requirements[i]
		if rr.Kind == "" {
			rr.Kind = string(levels.StandardRule)
			if cr, ok := cat.Requirement(rr.ID); ok {
				rr.Kind = string(cr.Kind)
			}
		}
		SettleRequirement(rr)
	}
	if err := CheckOutcomes(r.Requirements); err != nil {
		return err
	}
	requested, err := orderLevels(cat, r.Requested)
	if err != nil {
		return fmt.Errorf("levelsRequested: %w", err)
	}
	r.Requested = requested
	lv, err := ComputeLevels(cat, requested, r.Requirements)
	if err != nil {
		return fmt.Errorf("computing level verdicts: %w", err)
	}
	r.Levels = nonNil(lv)
	r.LevelsPassed = PassedLevels(lv)
	return nil
}

// SettleRequirement decides one requirement's outcome from its specs and
// why it did not pass (DecidingSpec: whatever order they are in). It is the one
// place both do: Settle for the report, and the run's console as each
// requirement settles, so the two never disagree.
func SettleRequirement(rr *RequirementResult) {
	if len(rr.Specs) > 0 {
		rr.Outcome = RequirementOutcome(rr.Specs)
	} else if !rr.Outcome.withoutSpecs() {
		rr.Outcome = NotRun
	}
	if rr.Reason == "" {
		rr.Reason = requirementReason(*rr)
	}
}

// requirementReason says why a requirement did not pass: the first line of
// the message of its first spec with the requirement's outcome. When its
// browser specs ran on several engines it names each engine's outcome
// (engineReason): Desktop P5's "same contract" fails on either engine.
func requirementReason(r RequirementResult) string {
	if r.Outcome == Passed {
		return ""
	}
	if len(SpecEngines(r.Specs)) > 1 {
		return engineReason(r.Specs)
	}
	return specsReason(r.Specs, r.Outcome)
}

// specsReason is the reason specs with outcome o give (requirementReason).
func specsReason(specs []SpecResult, o Outcome) string {
	r := RequirementResult{Specs: specs, Outcome: o}
	if i := DecidingSpec(r.Specs, r.Outcome); i >= 0 {
		return firstLine(strings.TrimSpace(r.Specs[i].Failure.Message))
	}
	if len(r.Specs) == 0 {
		return "no spec of this requirement ran"
	}
	return string(r.Outcome) + " (the spec gave no reason)"
}

// SpecEngines are the engines specs judged in, sorted; browser-free specs
// (no engine) add none.
func SpecEngines(specs []SpecResult) []string {
	var es []string
	for _, s := range specs {
		if s.Engine != "" && !slices.Contains(es, s.Engine) {
			es = append(es, s.Engine)
		}
	}
	sort.Strings(es)
	return es
}

// engineReason gives each engine's outcome, with the reason of one that did
// not pass ("chromium: passed; webkit: failed: ..."), after the reason of
// the browser-free specs when they did not pass.
func engineReason(specs []SpecResult) string {
	var parts []string
	part := func(name string, of []SpecResult) {
		o := RequirementOutcome(of)
		if o == Passed {
			parts = append(parts, name+": passed")
			return
		}
		parts = append(parts, name+": "+string(o)+": "+specsReason(of, o))
	}
	var free []SpecResult
	for _, s := range specs {
		if s.Engine == "" {
			free = append(free, s)
		}
	}
	if len(free) > 0 && RequirementOutcome(free) != Passed {
		part("without a browser", free)
	}
	for _, e := range SpecEngines(specs) {
		var of []SpecResult
		for _, s := range specs {
			if s.Engine == e {
				of = append(of, s)
			}
		}
		part(e, of)
	}
	return strings.Join(parts, "; ")
}

// DecidingSpec is the index of the spec whose message explains the
// requirement outcome o: of the specs with outcome o and a message, the
// first by name (the first given among equal names), so that the order
// the specs ran or were listed in never changes it; -1 when none has one.
// The console quotes the same spec the report does.
func DecidingSpec(specs []SpecResult, o Outcome) int {
	best := -1
	if o == Passed {
		return best
	}
	for i, s := range specs {
		if s.Outcome == o && s.Failure != nil && strings.TrimSpace(s.Failure.Message) != "" &&
			(best < 0 || s.Name < specs[best].Name) {
			best = i
		}
	}
	return best
}

// ComputeLevels derives every requested level's verdict from requirement
// outcomes alone (EffectOf decides what each outcome does):
//
//	failed       a must / must-not of the standard failed (in any level)
//	not-judged   otherwise, the harness cannot judge the level (levels.CanJudge)
//	interrupted  otherwise, a binding requirement was interrupted
//	error        otherwise, one could not be judged (error, flaky, blocked,
//	             or a protocol precondition the host broke)
//	incomplete   otherwise, one was skipped or not run
//	passed       every binding requirement passed (a failed should or may
//	             is a warning)
//
// Requirements are looked up in the catalog, never trusted from the report,
// so a report cannot pass a level by mislabelling a requirement.
func ComputeLevels(cat *levels.Catalog, requested []string, reqs []RequirementResult) ([]LevelResult, error) {
	byID := map[string]RequirementResult{}
	for _, r := range reqs {
		if _, dup := byID[r.ID]; dup {
			return nil, fmt.Errorf("requirement %s appears twice", r.ID)
		}
		byID[r.ID] = r
	}
	var out []LevelResult
	for _, id := range requested {
		l, ok := cat.Level(id)
		if !ok {
			return nil, fmt.Errorf("unknown level %q", id)
		}
		lr := LevelResult{ID: l.ID, Name: l.Name, Family: string(l.Family)}
		by := map[Effect][]string{}
		for _, r := range cat.ForLevels([]string{id}) {
			outcome := NotRun
			if rr, ok := byID[r.ID]; ok {
				outcome = rr.Outcome
			}
			lr.count(outcome, r.Strength.Binding())
			e := EffectOf(r, outcome)
			by[e] = append(by[e], r.ID)
		}
		lr.Verdict, lr.Reason = levelVerdict(cat.CanJudge(id), l.Name, by)
		out = append(out, lr)
	}
	return out, nil
}

func (lr *LevelResult) count(o Outcome, binding bool) {
	switch o {
	case Passed:
		lr.Passed++
	case Failed:
		lr.Failed++
		if !binding {
			lr.Warnings++
		}
	case Error:
		lr.Errors++
	case Flaky:
		lr.Flaky++
	case Blocked:
		lr.Blocked++
	case Interrupted:
		lr.Interrupted++
	case Skipped:
		lr.Skipped++
	case NotApplicable:
		lr.NotApplicable++
	default:
		lr.NotRun++
	}
}

// levelVerdict is the one place a level verdict is decided.
func levelVerdict(judgeable bool, name string, by map[Effect][]string) (Verdict, string) {
	list := func(e Effect) string {
		ids := append([]string(nil), by[e]...)
		sort.Strings(ids)
		return strings.Join(ids, ", ")
	}
	switch {
	// A violated clause fails its level even where the harness cannot
	// vouch for the rest of it: a failure is evidence, a pass is not.
	case len(by[EffectFail]) > 0:
		return LevelFailed, "failed: " + list(EffectFail)
	case !judgeable:
		return LevelNotJudged, "this harness version does not cover every requirement of " + name + " or a level below it"
	case len(by[EffectStopped]) > 0:
		return LevelInterrupted, "the run was interrupted during: " + list(EffectStopped)
	case len(by[EffectUnjudged]) > 0:
		return LevelError, "could not be judged: " + list(EffectUnjudged)
	case len(by[EffectMissing]) > 0:
		return LevelIncomplete, "skipped or not run: " + list(EffectMissing)
	}
	return LevelPassed, ""
}

// PassedLevels lists the ids of passed levels.
func PassedLevels(ls []LevelResult) []string {
	out := []string{}
	for _, l := range ls {
		if l.Verdict == LevelPassed {
			out = append(out, l.ID)
		}
	}
	return out
}

// CheckOutcomes checks that every requirement's outcome follows from its
// specs (RequirementOutcome); a requirement without specs is not-run,
// skipped or interrupted (withoutSpecs). It also rejects duplicate ids and
// words outside the lattice.
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
		if !r.Outcome.Valid() {
			return fmt.Errorf("requirements[%d] (%s): outcome %q is not one of %s", i, r.ID, r.Outcome, outcomeWords())
		}
		for j, s := range r.Specs {
			if !s.Outcome.Valid() {
				return fmt.Errorf("requirements[%d] (%s): specs[%d]: outcome %q is not one of %s", i, r.ID, j, s.Outcome, outcomeWords())
			}
		}
		if len(r.Specs) == 0 {
			if !r.Outcome.withoutSpecs() {
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

func outcomeWords() string {
	var ws []string
	for _, o := range Outcomes() {
		ws = append(ws, string(o))
	}
	return strings.Join(ws, ", ")
}

// ClauseOf converts a catalog clause.
func ClauseOf(c levels.Clause) Clause {
	return Clause{Source: string(c.Source), File: c.File, Section: c.Section, Quote: c.Quote}
}
