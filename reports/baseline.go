package reports

// BaselineState is what became of one entry of a baseline of known failures
// (run.expectedFailures) in the run.
type BaselineState string

// Baseline states. The baseline forgives failures only.
const (
	// BaselineStillFailing: the requirement failed, as listed; the failure
	// does not fail the run.
	BaselineStillFailing BaselineState = "still-failing"
	// BaselineStale: the requirement passed; the entry fails the run so
	// that a baseline only shrinks.
	BaselineStale BaselineState = "stale"
	// BaselineNotJudged: the requirement neither failed nor passed
	// (blocked, error, skipped, ...); it counts as the report says.
	BaselineNotJudged BaselineState = "not-judged"
)

// BaselineEntry is one entry of the baseline with the outcome and reason
// the report gives its requirement.
type BaselineEntry struct {
	ExpectedFailure
	State   BaselineState
	Outcome Outcome
	// Why is the reason report.json gives the requirement's outcome (the
	// entry's own reason is ExpectedFailure.Reason).
	Why string
}

// Baseline sorts the entries of r's baseline (run.expectedFailures) by what
// the run made of them, in catalog order, from each requirement's settled
// outcome: the one place the baseline is read (the exit code of run and
// merge, and junit.xml, render it). Entries for requirements outside the
// requested levels are left out.
func Baseline(r *Results) []BaselineEntry {
	listed := map[string]ExpectedFailure{}
	for _, e := range r.Run.ExpectedFailures {
		listed[e.ID] = e
	}
	var out []BaselineEntry
	for _, rr := range r.Requirements {
		e, ok := listed[rr.ID]
		if !ok {
			continue
		}
		be := BaselineEntry{ExpectedFailure: e, Outcome: rr.Outcome, Why: rr.Reason, State: BaselineNotJudged}
		switch rr.Outcome {
		case Failed:
			be.State = BaselineStillFailing
		case Passed:
			be.State = BaselineStale
		}
		out = append(out, be)
	}
	return out
}
