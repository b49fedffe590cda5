package reports

import "github.com/agentapp/conformance/levels"

// Outcome is what one spec, or one requirement, came to. The lattice,
// worst first (docs/report-format.md "Outcomes"):
//
//	failed       the host violated the clause: the spec saw it
//	error        the harness got no usable answer (timeout, crash,
//	             malformed frame, an answer the check needs that fails
//	             its schema): nothing was judged
//	flaky        the spec failed, then passed when re-run at once (a
//	             browser spec gets one retry): neither run is trusted,
//	             so nothing was judged; reported, never passed
//	blocked      a named precondition failed (the positive control on the
//	             untouched package, an install the spec needs, a package
//	             the host could not take): nothing was judged
//	interrupted  the run was stopped while the spec ran
//	skipped      the spec could not apply here, with a reason
//	not-run      the spec was not selected (--focus, --label-filter) or
//	             the run ended before it
//	not-applicable  the clause binds only a host that does something (takes
//	             runtime-backed releases, offers a capability) and the spec
//	             saw, with a named reason, that this host does not: the
//	             clause has nothing to bind here
//	passed       the spec saw the behaviour it names
//
// Only failed says the host broke the standard. flaky does for its
// requirement and levels what error does (EffectOf), and ranks just below it:
// a spec whose one run failed and whose other passed judged nothing
// reliably, but it did run and did see a failure, which is more than a
// failed precondition (blocked) or a stop (interrupted) can say.
type Outcome string

// The outcomes.
const (
	Failed      Outcome = "failed"
	Error       Outcome = "error"
	Flaky       Outcome = "flaky"
	Blocked     Outcome = "blocked"
	Interrupted Outcome = "interrupted"
	Skipped     Outcome = "skipped"
	NotRun      Outcome = "not-run"
	// NotApplicable always carries the evidence that the host does not do
	// what the clause is conditioned on (docs/decisions.md, "Clauses that
	// bind only some hosts").
	NotApplicable Outcome = "not-applicable"
	Passed        Outcome = "passed"
)

// Outcomes lists every outcome, worst first.
func Outcomes() []Outcome {
	return []Outcome{Failed, Error, Flaky, Blocked, Interrupted, Skipped, NotRun, NotApplicable, Passed}
}

// severity ranks an outcome: higher is worse; -1 for unknown words.
func (o Outcome) severity() int {
	all := Outcomes()
	for i, x := range all {
		if x == o {
			return len(all) - i
		}
	}
	return -1
}

// Valid reports whether o is an outcome of the lattice.
func (o Outcome) Valid() bool { return o.severity() >= 0 }

// Judged reports whether the harness reached a verdict on the clause:
// passed or failed (never flaky: its two runs disagree).
func (o Outcome) Judged() bool { return o == Passed || o == Failed }

// withoutSpecs reports whether a requirement no spec reported for may have
// outcome o: not-run, skipped or interrupted. Every other outcome says what
// a spec saw (passed, failed, error, flaky, blocked), so it needs one.
func (o Outcome) withoutSpecs() bool {
	return o == NotRun || o == Skipped || o == Interrupted
}

// Worst folds outcomes: the worst of them; not-run when there is none.
// This is the one place a requirement's outcome is decided from its specs'.
func Worst(os ...Outcome) Outcome {
	if len(os) == 0 {
		return NotRun
	}
	w := Passed
	for _, o := range os {
		if o.severity() > w.severity() {
			w = o
		}
	}
	return w
}

// Effect is what a requirement's outcome does to the levels it counts for.
type Effect string

// Effects.
const (
	EffectPass     Effect = "pass"     // passed
	EffectFail     Effect = "fail"     // a binding standard requirement failed: the level fails
	EffectWarn     Effect = "warn"     // a should or may failed: a warning, never a failure
	EffectUnjudged Effect = "unjudged" // not judged (error, flaky, blocked, a broken protocol precondition, ...)
	EffectMissing  Effect = "missing"  // skipped or not run: the level is incomplete
	EffectStopped  Effect = "stopped"  // interrupted
	EffectNone     Effect = "none"     // a should or may that was not judged, or a clause that binds nothing here: no effect
)

// EffectOf decides what requirement r's outcome o does to a level. A failed
// protocol precondition does not fail a level (the standard does not say
// so); it leaves the level unjudged. flaky has exactly error's effect:
// unjudged for a binding requirement, none for a should or may.
func EffectOf(r levels.Requirement, o Outcome) Effect {
	binding := r.Strength.Binding()
	switch {
	case o == Passed:
		return EffectPass
	case o == NotApplicable:
		return EffectNone
	case o == Failed && r.IsPrecondition():
		return EffectUnjudged
	case o == Failed && binding:
		return EffectFail
	case o == Failed:
		return EffectWarn
	case !binding:
		return EffectNone
	case o == Interrupted:
		return EffectStopped
	case o == Skipped || o == NotRun:
		return EffectMissing
	}
	return EffectUnjudged
}
