package workflows

import (
	"fmt"
	"slices"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
)

// Regression evals through app/evals (spec 000 Conformance levels,
// Executable: "Host can run ... regression evals"; docs/decisions.md
// "Regression evals"): workflow-app declares two regression evals of
// typed_flow, one whose cases all end as they expect and one whose second
// case does not (its threshold is 1).
const (
	passingEval = "typed_flow_regression"
	failingEval = "typed_flow_stale"
	// boundaryEval has failingEval's outcomes and threshold 0.5: its score
	// reaches its threshold, so it passes.
	boundaryEval = "typed_flow_half"
	// floorEval has one case, staleCase, and threshold 0, the lowest the
	// range allows: its score 0 reaches it, so it passes (a threshold of 0
	// is a threshold, not a missing one).
	floorEval = "typed_flow_any"
	// staleCase is failingEval's case that does not hold: it expects its
	// run to fail, and typed_flow completes it.
	staleCase = "expects-a-failed-run"
	// Two entries name typed_flow, typed and then lockedEntry, which the
	// policy of runEvals denies. openEntryEval names typed and
	// lockedEntryEval names lockedEntry: its one case expects its start
	// refused. The evals naming no entry run as typed, the first.
	lockedEntry     = "typed_locked"
	openEntryEval   = "typed_flow_as_typed"
	lockedEntryEval = "typed_flow_as_locked"
)

// evalCases are the cases each eval of workflow-app declares, with the
// status each one's run ends in (every input meets typed_flow's inputs,
// so the cases hold on a host that checks them and on one that does not;
// lockedEntryEval's start is refused by runEvals's policy).
var evalCases = map[string]map[string]string{
	passingEval:     {"saves-a-valid-input": "completed", "saves-a-larger-count": "completed"},
	failingEval:     {"saves-a-larger-count": "completed", staleCase: "completed"},
	boundaryEval:    {"saves-a-valid-input": "completed", staleCase: "completed"},
	floorEval:       {staleCase: "completed"},
	openEntryEval:   {"saves-as-the-open-entry": "completed"},
	lockedEntryEval: {"refused-as-the-locked-entry": protocol.EvalRefused},
}

// runEvals installs workflow-app under a policy denying its entry
// lockedEntry and calls app/evals: a host without the method (-32601) or
// that cannot run them leaves the spec blocked.
func runEvals(tc *harness.TestContext) (string, protocol.EvalsResult) {
	GinkgoHelper()
	app := installWorkflowApp(tc, tc.WithPolicy(protocol.Policy{DeniedEntries: map[string][]string{workflowFixture: {lockedEntry}}}))
	var r protocol.EvalsResult
	err := tc.Call(protocol.MethodEvals, protocol.AppIDParams{AppID: app}, &r)
	if code, isErr := tc.HostErrorCode(protocol.MethodEvals, err); isErr {
		if code == protocol.CodeMethodNotFound {
			tc.Blockedf("the host does not implement %s (-32601), so no regression eval can be run", protocol.MethodEvals)
		}
		tc.Blockedf("%s of %s was refused: %v", protocol.MethodEvals, app, err)
	}
	return app, r
}

// evalAt finds eval key in r: the spec fails when it is missing, since the
// app declares it.
func evalAt(tc *harness.TestContext, r protocol.EvalsResult, key string) (int, protocol.EvalResult) {
	GinkgoHelper()
	i := slices.IndexFunc(r.Evals, func(e protocol.EvalResult) bool { return e.Key == key })
	if i < 0 {
		tc.Failf("%s: workflow-app declares the regression eval %s, and the answer has no result for it: %+v",
			harness.At(protocol.MethodEvals, []any{"evals"}), key, r.Evals)
	}
	return i, r.Evals[i]
}

// expectCases judges each case of eval e: its status and whether it held.
func expectCases(tc *harness.TestContext, i int, e protocol.EvalResult, held func(key string) bool) {
	GinkgoHelper()
	want := evalCases[e.Key]
	if len(e.Cases) != len(want) {
		tc.Failf("%s: the eval %s has %d cases, and the answer reports %d: %+v", harness.At(protocol.MethodEvals, []any{"evals", i, "cases"}), e.Key, len(want), len(e.Cases), e.Cases)
	}
	for j, c := range e.Cases {
		at := harness.At(protocol.MethodEvals, []any{"evals", i, "cases", j})
		status, ok := want[c.Key]
		switch {
		case !ok:
			tc.Failf("%s: the eval %s declares no case %q", at, e.Key, c.Key)
		case c.Status != status:
			tc.Failf("%s: the case %s of %s ends %q; run as its eval's entry with its input under the harness's policy, it ends %q", at, c.Key, e.Key, c.Status, status)
		case c.Passed != held(c.Key):
			tc.Failf("%s: the case %s of %s is reported passed=%v, yet it expects what its run %s", at, c.Key, e.Key, c.Passed, map[bool]string{true: "does", false: "does not do"}[held(c.Key)])
		}
	}
}

func describeEvals(tc *harness.TestContext) {
	It("runs the app's regression evals: one whose cases all end as they expect passes, one with a case that does not fails below its threshold, naming it, and passes at it, a threshold of 0 included",
		tc.Req("EVAL-REGRESSION-RUN", levels.EveryMember, levels.RepresentationLimit), func() {
			_, r := runEvals(tc)
			i, pass := evalAt(tc, r, passingEval)
			tc.Precondition("the eval "+passingEval+", whose cases all end as they expect, passes", func() {
				expectCases(tc, i, pass, func(string) bool { return true })
				if !pass.Passed || pass.Score != 1 {
					tc.Failf("%s: the eval %s, whose cases all hold, is reported passed=%v score=%v", harness.At(protocol.MethodEvals, []any{"evals", i}), passingEval, pass.Passed, pass.Score)
				}
			})
			// It states no threshold: the default is 1.
			if pass.Threshold != 1 {
				tc.Failf("%s: the eval %s states no threshold, so its threshold is the default 1; the answer says %v", harness.At(protocol.MethodEvals, []any{"evals", i, "threshold"}), passingEval, pass.Threshold)
			}
			i, fail := evalAt(tc, r, failingEval)
			at := harness.At(protocol.MethodEvals, []any{"evals", i})
			expectCases(tc, i, fail, func(key string) bool { return key != staleCase })
			if fail.Passed {
				tc.Failf("%s: the eval %s, whose case %s does not end as it expects (threshold %v), is reported passed (score %v)", at, failingEval, staleCase, fail.Threshold, fail.Score)
			}
			if fail.Score != 0.5 || fail.Threshold != 1 {
				tc.Failf("%s: the eval %s holds one case of two against its threshold 1; the answer says score %v, threshold %v", at, failingEval, fail.Score, fail.Threshold)
			}
			i, half := evalAt(tc, r, boundaryEval)
			expectCases(tc, i, half, func(key string) bool { return key != staleCase })
			if !half.Passed || half.Score != 0.5 || half.Threshold != 0.5 {
				tc.Failf("%s: the eval %s holds one case of two against its threshold 0.5, so it passes; the answer says passed=%v, score %v, threshold %v",
					harness.At(protocol.MethodEvals, []any{"evals", i}), boundaryEval, half.Passed, half.Score, half.Threshold)
			}
			i, floor := evalAt(tc, r, floorEval)
			expectCases(tc, i, floor, func(string) bool { return false })
			if !floor.Passed || floor.Score != 0 || floor.Threshold != 0 {
				tc.Failf("%s: the eval %s holds none of its one case against its threshold 0, the lowest the range allows, so it passes; the answer says passed=%v, score %v, threshold %v",
					harness.At(protocol.MethodEvals, []any{"evals", i}), floorEval, floor.Passed, floor.Score, floor.Threshold)
			}
			if n := len(r.Evals); n != len(evalCases) {
				tc.Failf("%s: workflow-app declares %d regression evals, and the answer reports %d: %+v", harness.At(protocol.MethodEvals, []any{"evals"}), len(evalCases), n, r.Evals)
			}
		})

	// The entry an eval names is the identity its cases run under, and two
	// entries share typed_flow: docs/host-control-protocol.md, app/evals
	// ("optionally the entry its cases run as (else the first entry whose
	// workflow it is)", "through the same gates").
	It("runs an eval's cases as the entry the eval names, through that entry's gates, not as another entry of the same workflow",
		tc.Req("EVAL-REGRESSION-RUN", levels.ConfusableIdentity), func() {
			_, r := runEvals(tc)
			tc.Precondition("the eval "+openEntryEval+", run as the entry typed the policy allows, passes with its run completed", func() {
				i, open := evalAt(tc, r, openEntryEval)
				expectCases(tc, i, open, func(string) bool { return true })
				if !open.Passed || open.Score != 1 {
					tc.Failf("%s: the eval %s, whose case holds, is reported passed=%v score=%v", harness.At(protocol.MethodEvals, []any{"evals", i}), openEntryEval, open.Passed, open.Score)
				}
			})
			i, locked := evalAt(tc, r, lockedEntryEval)
			expectCases(tc, i, locked, func(string) bool { return true })
			if !locked.Passed || locked.Score != 1 {
				tc.Failf("%s: the eval %s runs its case as %s, which the policy denies, so its start is refused as the case expects; the answer says passed=%v score=%v",
					harness.At(protocol.MethodEvals, []any{"evals", i}), lockedEntryEval, lockedEntry, locked.Passed, locked.Score)
			}
		})

	It("stamps every eval result with the provenance of the installed release",
		tc.Req("EVAL-PROVENANCE", levels.EveryMember), func() {
			app, r := runEvals(tc)
			installed, ok := tc.ListedApp(app)
			if !ok {
				tc.Errorf("app/list does not name %s, installed by this spec", app)
			}
			want := map[string]any{"appName": installed.Name, "appVersion": installed.Version, "packageHash": installed.PackageHash,
				"manifestHash": installed.ManifestHash, "standard": agentpkg.Standard, "standardVersion": agentpkg.StandardVersion}
			tc.Precondition("app/evals reports the evals workflow-app declares", func() {
				if len(r.Evals) == 0 {
					tc.Failf("%s reports no eval of %s", protocol.MethodEvals, app)
				}
			})
			for i, e := range r.Evals {
				for k, v := range want {
					if got := e.Provenance[k]; fmt.Sprint(got) != fmt.Sprint(v) {
						tc.Failf("%s: the result of eval %s says %v; the installed release's is %v", harness.At(protocol.MethodEvals, []any{"evals", i, "provenance", k}), e.Key, got, v)
					}
				}
			}
		})
}
