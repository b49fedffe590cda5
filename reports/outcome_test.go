package reports

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// The lattice, worst first, with flaky just below error.
func TestOutcomeLatticeOrder(t *testing.T) {
	want := []Outcome{Failed, Error, Flaky, Blocked, Interrupted, Skipped, NotRun, NotApplicable, Passed}
	if got := Outcomes(); !slices.Equal(got, want) {
		t.Fatalf("Outcomes() = %v, want %v", got, want)
	}
	if !Flaky.Valid() || Outcome("flakey").Valid() {
		t.Error("flaky must be an outcome of the lattice, and only that word")
	}
	if Flaky.Judged() {
		t.Error("flaky is judged: a spec whose two runs disagree judged nothing")
	}
	for _, tc := range []struct {
		in   []Outcome
		want Outcome
	}{
		{[]Outcome{Error, Flaky}, Error},
		{[]Outcome{Flaky, Error}, Error},
		{[]Outcome{Flaky, Blocked}, Flaky},
		{[]Outcome{Blocked, Flaky}, Flaky},
		{[]Outcome{Flaky, Interrupted}, Flaky},
		{[]Outcome{Flaky, Skipped, NotRun}, Flaky},
		{[]Outcome{Passed, Flaky, Passed}, Flaky},
		{[]Outcome{Flaky, Failed}, Failed},
		{[]Outcome{Flaky}, Flaky},
	} {
		if got := Worst(tc.in...); got != tc.want {
			t.Errorf("Worst(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// Worst agrees with the order of Outcomes for every pair.
	all := Outcomes()
	for i, a := range all {
		for j, b := range all {
			want := a
			if j < i {
				want = b
			}
			if got := Worst(a, b); got != want {
				t.Errorf("Worst(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
}

// flaky does to a requirement exactly what error does: unjudged when
// binding (a protocol precondition too), no effect for a should or may.
func TestEffectOfFlakyMirrorsError(t *testing.T) {
	cat := levels.Default()
	for _, id := range []string{"CAT-METADATA", "CAT-LEGACY-KINDS", "INSTALL-PINNED", "PROTO-RESET"} {
		r, ok := cat.Requirement(id)
		if !ok {
			t.Fatalf("no requirement %s in the catalog", id)
		}
		if got, want := EffectOf(r, Flaky), EffectOf(r, Error); got != want {
			t.Errorf("%s (%s): EffectOf(flaky) = %s, EffectOf(error) = %s", id, r.Strength, got, want)
		}
	}
	for _, tc := range []struct {
		strength levels.Strength
		kind     levels.Kind
		want     Effect
	}{
		{levels.Must, levels.StandardRule, EffectUnjudged},
		{levels.MustNot, levels.StandardRule, EffectUnjudged},
		{levels.Must, levels.Precondition, EffectUnjudged},
		{levels.Should, levels.StandardRule, EffectNone},
		{levels.May, levels.StandardRule, EffectNone},
	} {
		r := levels.Requirement{ID: "X", Strength: tc.strength, Kind: tc.kind}
		if got := EffectOf(r, Flaky); got != tc.want {
			t.Errorf("EffectOf(%s %s, flaky) = %s, want %s", tc.strength, tc.kind, got, tc.want)
		}
	}
}

// A level with a flaky must requirement is error, never passed nor failed,
// and counts it as flaky; a flaky should leaves its level passed.
func TestFlakyRequirementLevels(t *testing.T) {
	level := func(r *Report, id string) LevelResult {
		t.Helper()
		for _, l := range r.Levels {
			if l.ID == id {
				return l
			}
		}
		t.Fatalf("no level %s", id)
		return LevelResult{}
	}
	for _, tc := range []struct {
		req     string
		level   string
		verdict Verdict
	}{
		{"CAT-METADATA", "catalog", LevelError},            // must
		{"CAT-METADATA", "desktop-p0", LevelError},         // must, from a level below
		{"CAT-LEGACY-KINDS", "catalog", LevelError},        // must-not
		{"PROTO-RESET", "catalog", LevelError},             // protocol precondition
		{"VERIFY-PACKAGE-HASH", "installable", LevelError}, // must
		{"VERIFY-PACKAGE-HASH", "catalog", LevelPassed},    // not in catalog
		{"READY-CAPABILITIES", "desktop-p0", LevelError},   // must
		{"READY-REQUIRED-TIER", "executable", LevelError},  // must
		{"READY-STATUS", "desktop-p0", LevelPassed},        // should: no effect
		{"PROJ-PROVENANCE", "installable", LevelPassed},    // should: no effect
		{"INSTALL-PINNED", "installable", LevelPassed},     // should: no effect
	} {
		r := testReport(t, 0)
		setSpec(t, r, tc.req, Flaky, "the snapshot had no host field\nsecond line")
		rr := r.Requirements[findReq(r, tc.req)]
		if rr.Outcome != Flaky {
			t.Errorf("%s: requirement outcome %s, want flaky", tc.req, rr.Outcome)
		}
		if rr.Reason != "the snapshot had no host field" {
			t.Errorf("%s: reason %q, want the first line of the failure", tc.req, rr.Reason)
		}
		l := level(r, tc.level)
		if l.Verdict != tc.verdict {
			t.Errorf("%s flaky: level %s is %s (%s), want %s", tc.req, tc.level, l.Verdict, l.Reason, tc.verdict)
		}
		if tc.verdict == LevelError && l.Reason != "could not be judged: "+tc.req {
			t.Errorf("%s flaky: level %s reason %q, want it named as not judged", tc.req, tc.level, l.Reason)
		}
		if slices.Contains(r.LevelsPassed, tc.level) != (l.Verdict == LevelPassed) {
			t.Errorf("%s flaky: levelsPassed %v disagrees with verdict %s", tc.req, r.LevelsPassed, l.Verdict)
		}
		cr, _ := levels.Default().Requirement(tc.req)
		wantN := 0
		if levels.Default().InLevel(cr, tc.level) {
			wantN = 1
		}
		if l.Flaky != wantN || l.Errors != 0 || l.Failed != 0 || l.Warnings != 0 {
			t.Errorf("%s flaky: level %s counts flaky %d, errors %d, failed %d, warnings %d; want flaky %d and nothing else",
				tc.req, tc.level, l.Flaky, l.Errors, l.Failed, l.Warnings, wantN)
		}
	}

	// flaky beside error is error; beside blocked it is flaky; the level is
	// error either way.
	r := testReport(t, 0)
	i := findReq(r, "CAT-METADATA")
	if len(r.Requirements[i].Specs) < 2 {
		// testReport gives every other requirement two specs.
		r.Requirements[i].Specs = append(r.Requirements[i].Specs, SpecResult{Name: "[CAT-METADATA] spec 2", Outcome: Passed})
	}
	for _, tc := range []struct{ other, want Outcome }{{Error, Error}, {Blocked, Flaky}, {Interrupted, Flaky}, {Failed, Failed}} {
		r.Requirements[i].Specs[0].Outcome = Flaky
		r.Requirements[i].Specs[0].Failure = &Failure{Message: "flaked"}
		r.Requirements[i].Specs[1].Outcome = tc.other
		r.Requirements[i].Specs[1].Failure = &Failure{Message: string(tc.other)}
		r.Requirements[i].Reason = ""
		recompute(t, r)
		if got := r.Requirements[i].Outcome; got != tc.want {
			t.Errorf("specs flaky and %s: requirement %s, want %s", tc.other, got, tc.want)
		}
		// A flaky requirement's level is error, also beside an interrupted
		// spec (the requirement is flaky, not interrupted).
		wantLevel := LevelError
		if tc.other == Failed {
			wantLevel = LevelFailed
		}
		if got := level(r, "catalog").Verdict; got != wantLevel {
			t.Errorf("specs flaky and %s: catalog %s, want %s", tc.other, got, wantLevel)
		}
	}
}

// A requirement cannot be flaky without a spec that was: Settle makes it
// not-run, CheckOutcomes (and so verify) refuses the claim.
func TestFlakyNeedsASpec(t *testing.T) {
	r := testReport(t, 0)
	i := findReq(r, "CAT-METADATA")
	r.Requirements[i].Specs = nil
	r.Requirements[i].Outcome = Flaky
	if err := CheckOutcomes(r.Requirements); err == nil || !strings.Contains(err.Error(), "claims flaky but no spec ran") {
		t.Errorf("CheckOutcomes of a flaky requirement without specs: %v", err)
	}
	r.Requirements[i].Reason = ""
	recompute(t, r)
	if got := r.Requirements[i].Outcome; got != NotRun {
		t.Errorf("Settle left a flaky requirement without specs %s, want not-run", got)
	}
	// A requirement whose spec is flaky cannot claim passed or error.
	r = testReport(t, 0)
	setSpec(t, r, "CAT-METADATA", Flaky, "flaked")
	for _, lie := range []Outcome{Passed, Error, Blocked} {
		reqs := slices.Clone(r.Requirements)
		reqs[findReq(r, "CAT-METADATA")].Outcome = lie
		if err := CheckOutcomes(reqs); err == nil {
			t.Errorf("a requirement with a flaky spec claims %s and CheckOutcomes accepts it", lie)
		}
	}
}

// The predicate schema accepts flaky (spec, requirement, level count) and
// requires its reason; the level count is absent when 0, so a report
// without flaky has exactly the shape it had before flaky.
func TestPredicateSchemaFlaky(t *testing.T) {
	r := testReport(t, 0)
	setSpec(t, r, "BRIDGE-SNAPSHOT", Flaky, "the snapshot had no host field")
	setSpec(t, r, "CAT-METADATA", Flaky, "app/list answered late, then on time")
	p, err := BuildPredicate(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidatePredicate(p); err != nil {
		t.Fatalf("a predicate with flaky outcomes: %v", err)
	}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"outcome":"flaky"`)) || !bytes.Contains(raw, []byte(`"flaky":1`)) {
		t.Errorf("the predicate does not carry the flaky outcome and its level count: %s", raw)
	}
	s, err := compilePredicateSchema()
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(string) string{
		"flaky requirement without reason": func(j string) string {
			return strings.Replace(j, `"outcome":"flaky","reason":"app/list answered late, then on time",`, `"outcome":"flaky",`, 1)
		},
		"a flaky count of 0":     func(j string) string { return strings.Replace(j, `"flaky":1`, `"flaky":0`, 1) },
		"an outcome off-lattice": func(j string) string { return strings.Replace(j, `"outcome":"flaky"`, `"outcome":"flakey"`, 1) },
	} {
		mut := mutate(string(raw))
		if mut == string(raw) {
			t.Errorf("%s: the mutation did not apply", name)
			continue
		}
		if err := validatePredicateJSON(s, []byte(mut)); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
	}

	// Without flaky, no level carries the count at all.
	clean, err := BuildPredicate(testReport(t, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := json.Marshal(clean)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(cr, []byte(`"flaky"`)) {
		t.Error("a predicate without a flaky outcome mentions flaky")
	}
	if err := ValidatePredicate(clean); err != nil {
		t.Fatal(err)
	}
}

// A flaky outcome survives signing and verify: the recomputed level is
// error, and --require-level of it is refused.
func TestVerifyFlaky(t *testing.T) {
	k := testKey(t, Ed25519)
	pub := []*Key{publicOnly(t, k)}
	r := testReport(t, 0)
	setSpec(t, r, "VERIFY-PACKAGE-HASH", Flaky, "package/verify answered late, then on time")
	env := signedEnvelope(t, r, k)
	if err := verifyWith(env, VerifyOptions{Keys: pub, RequireLevels: []string{"catalog"}}); err != nil {
		t.Fatalf("verify of a report with a flaky installable requirement, requiring catalog: %v", err)
	}
	wantKind(t, verifyWith(env, VerifyOptions{Keys: pub, RequireLevels: []string{"installable"}}), KindLevel)

	// A signer that turns the flaky requirement into passed is refused.
	p, err := BuildPredicate(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Requirements {
		if p.Requirements[i].ID == "VERIFY-PACKAGE-HASH" {
			p.Requirements[i].Outcome, p.Requirements[i].Reason = Passed, ""
		}
	}
	wantKind(t, verifyWith(signPredicate(t, r, p, k), VerifyOptions{Keys: pub}), KindLevel)
}

// In in-toto's test-result predicate a flaky requirement is warned, never
// passed nor failed; a flaky must leaves its level error, so the result is
// FAILED (not every requested level passed).
func TestTestResultFlaky(t *testing.T) {
	r := testReport(t, 0)
	setSpec(t, r, "CAT-METADATA", Flaky, "app/list answered late, then on time")
	p, err := BuildPredicate(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := TestResult(p, levels.Default())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(tr.WarnedTests, "CAT-METADATA") || slices.Contains(tr.PassedTests, "CAT-METADATA") || slices.Contains(tr.FailedTests, "CAT-METADATA") {
		t.Errorf("flaky CAT-METADATA: passed %v, failed %v, warned %v; want it warned only", tr.PassedTests, tr.FailedTests, tr.WarnedTests)
	}
	if tr.Result != ResultFailed {
		t.Errorf("result %s, want %s", tr.Result, ResultFailed)
	}
}

// TestSettleNamesEachEngineOutcome: a requirement whose browser spec
// passes on one engine and fails on the other fails, and its reason gives
// both outcomes (issue 26, Parity); a failing browser-free spec leads it.
func TestSettleNamesEachEngineOutcome(t *testing.T) {
	rr := RequirementResult{ID: "BRIDGE-ENVELOPE", Specs: []SpecResult{
		{Name: "envelope", Outcome: Failed, Engine: "webkit", Failure: &Failure{Message: "version 2 on host:snapshot\nat ..."}},
		{Name: "envelope", Outcome: Passed, Engine: "chromium"},
	}}
	SettleRequirement(&rr)
	if want := "chromium: passed; webkit: failed: version 2 on host:snapshot"; rr.Outcome != Failed || rr.Reason != want {
		t.Errorf("settled %s %q, want failed %q", rr.Outcome, rr.Reason, want)
	}
	rr.Outcome, rr.Reason = "", ""
	rr.Specs = append(rr.Specs, SpecResult{Name: "catalog", Outcome: Error, Failure: &Failure{Message: "timeout"}})
	SettleRequirement(&rr)
	if want := "without a browser: error: timeout; chromium: passed; webkit: failed: version 2 on host:snapshot"; rr.Outcome != Failed || rr.Reason != want {
		t.Errorf("settled %s %q, want failed %q", rr.Outcome, rr.Reason, want)
	}
	// One engine: the reason is the deciding spec's, as before.
	one := RequirementResult{Specs: []SpecResult{{Name: "x", Outcome: Failed, Engine: "webkit", Failure: &Failure{Message: "m"}}}}
	SettleRequirement(&one)
	if one.Reason != "m" {
		t.Errorf("one engine: reason %q, want m", one.Reason)
	}
}
