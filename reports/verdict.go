package reports

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// RequirementOutcome folds spec outcomes into the requirement's outcome:
// failed if any spec failed, else skipped if any was skipped, else passed;
// not-run when there is no spec result.
func RequirementOutcome(specs []SpecResult) string {
	if len(specs) == 0 {
		return NotRun
	}
	out := Passed
	for _, s := range specs {
		switch s.Outcome {
		case Failed:
			return Failed
		case Skipped:
			out = Skipped
		case NotRun:
			if out == Passed {
				out = NotRun
			}
		}
	}
	return out
}

// ComputeLevels derives every requested level's verdict from requirement
// outcomes alone. A level passes when the harness can judge it and every
// must / must-not requirement counting for it passed; a failed should is a
// warning. Requirements are looked up in the catalog, never trusted from the
// report, so a report cannot pass a level by mislabelling a requirement.
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
		var failed, missing []string
		for _, r := range cat.ForLevels([]string{id}) {
			rr, ok := byID[r.ID]
			outcome := NotRun
			if ok {
				outcome = rr.Outcome
			}
			switch outcome {
			case Passed:
				lr.Passed++
			case Failed:
				if r.Strength == levels.Should {
					lr.Warnings++
				} else {
					lr.Failed++
					failed = append(failed, r.ID)
				}
			case Skipped:
				lr.Skipped++
				if r.Strength != levels.Should {
					missing = append(missing, r.ID)
				}
			default:
				lr.NotRun++
				if r.Strength != levels.Should {
					missing = append(missing, r.ID)
				}
			}
		}
		switch {
		case !cat.CanJudge(id):
			lr.Verdict = LevelNotJudged
			lr.Reason = "this harness version does not cover every requirement of " + l.Name + " or a level below it"
		case len(failed) > 0:
			lr.Verdict = LevelFailed
			sort.Strings(failed)
			lr.Reason = "failed: " + strings.Join(failed, ", ")
		case len(missing) > 0:
			lr.Verdict = LevelFailed
			sort.Strings(missing)
			lr.Reason = "not run or skipped: " + strings.Join(missing, ", ")
		default:
			lr.Verdict = LevelPassed
		}
		out = append(out, lr)
	}
	return out, nil
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

// ClauseOf converts a catalog clause.
func ClauseOf(c levels.Clause) Clause {
	return Clause{Source: string(c.Source), File: c.File, Section: c.Section, Quote: c.Quote}
}
