package workflows

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// The workflow runtime, through app/invoke as workflow-app (spec 000
// Workflow descriptor; the methods are the harness's reading:
// docs/host-control-protocol.md, "Bridge payloads").
const (
	workflowFixture = "workflow-app"
	reviewFlow      = "review_flow"
	retryFlow       = "retry_flow"
	timeoutFlow     = "timeout_flow"
	fallbackFlow    = "fallback_flow"
	// timeoutMsFlow bounds its agent task with the state's timeoutMs,
	// timeoutWorkflowFlow with the workflow's own timeoutMs.
	timeoutMsFlow       = "timeout_ms_flow"
	timeoutWorkflowFlow = "timeout_workflow_flow"
	// branchFlow's branch route lists two targets, left and right.
	branchFlow = "branch_flow"
	// workflowSettle bounds how long a run may keep running before the
	// spec judges it: far beyond any state timeout of the fixture (1 s).
	workflowSettle = 20 * time.Second
	toolOfReview   = "pdf_reader"
	// secondToolOfReview is a second tool the specs that judge every
	// tool of a tool call's uses add to review_flow's check.
	secondToolOfReview = "web_search"
)

// reviewFlowStates are review_flow's states of the kinds the standard
// lists, in the order its next members give.
var reviewFlowStates = []string{"draft", "check", "route", "review", "save", "publish", "hold", "done"}

// branchTargets are branch_flow's targets of its branch route, and
// branchKeyOf where each writes.
var (
	branchTargets = []string{"left", "right"}
	branchKeyOf   = map[string]string{"left": "branch-flow-left", "right": "branch-flow-right"}
)

// storageKeyOf is where each workflow's storage-write state writes.
var storageKeyOf = map[string]string{reviewFlow: "review-flow-result", retryFlow: "retry-flow-result", timeoutFlow: "timeout-flow-result",
	fallbackFlow: "fallback-flow-result", timeoutMsFlow: "timeout-ms-flow-result", timeoutWorkflowFlow: "timeout-workflow-flow-result"}

// runView is what lime.workflow read answers.
type runView struct {
	RunID   string `json:"runId"`
	Status  string `json:"status"`
	State   string `json:"state"`
	Reason  string `json:"reason"`
	History []struct {
		State  string `json:"state"`
		Kind   string `json:"kind"`
		Status string `json:"status"`
	} `json:"history"`
	Artifacts []string `json:"artifacts"`
}

// ran lists the states the run's history names, in order.
func (v runView) ran() []string {
	var out []string
	for _, h := range v.History {
		out = append(out, h.State)
	}
	return out
}

// times counts the history entries of state.
func (v runView) times(state string) int {
	n := 0
	for _, h := range v.History {
		if h.State == state {
			n++
		}
	}
	return n
}

func (v runView) String() string {
	var steps []string
	for _, h := range v.History {
		steps = append(steps, h.State+":"+h.Status)
	}
	s := fmt.Sprintf("%s %s at %q after [%s]", v.RunID, v.Status, v.State, strings.Join(steps, " "))
	if v.Reason != "" {
		s += fmt.Sprintf(" (%s)", v.Reason)
	}
	return s
}

// installWorkflowApp configures p with the App Server and the review's
// tool, and installs workflow-app.
func installWorkflowApp(tc *harness.TestContext, p protocol.ConfigureParams) string {
	GinkgoHelper()
	tc.Configure(withTools(tc.WithAppServer(p), toolOfReview))
	dir := tc.Fixture(workflowFixture)
	return tc.Install(dir, tc.ReleaseOf(dir)).AppID
}

// withTools sets the tools the host has.
func withTools(p protocol.ConfigureParams, tools ...string) protocol.ConfigureParams {
	p.Available = map[string][]string{"tools": append([]string{}, tools...)}
	return p
}

// workflowCall makes one lime.workflow call as the app's main entry.
func workflowCall(tc *harness.TestContext, app, method string, args map[string]any) hostbridge.Message {
	GinkgoHelper()
	raw, _ := json.Marshal(args)
	return tc.InvokeAsApp(protocol.InvokeParams{AppID: app, EntryKey: "main", RequestID: harness.Nonce("workflow"),
		Capability: "lime.workflow", Method: method, Args: raw})
}

// startRun starts a run of key: a host that will not start one leaves the
// spec blocked, since nothing was run to judge.
func startRun(tc *harness.TestContext, app, key string) string {
	GinkgoHelper()
	return startRunKeyed(tc, app, key, harness.Nonce("run"))
}

// startRunKeyed starts a run of workflow key with the idempotency key idem.
func startRunKeyed(tc *harness.TestContext, app, key, idem string) string {
	GinkgoHelper()
	return startKeyedWith(tc, app, key, idem, harness.Nonce("topic"))
}

// readRun reads a run; an answer that is not a run is unusable.
func readRun(tc *harness.TestContext, app, run string) runView {
	GinkgoHelper()
	m := workflowCall(tc, app, "read", map[string]any{"runId": run})
	var v runView
	if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil || v.Status == "" {
		tc.Errorf("lime.workflow read of %s got %s, not host:response with the run's status", run, harness.AnswerText(m, true))
	}
	return v
}

// settleRun reads the run until it no longer runs, for at most
// workflowSettle.
func settleRun(tc *harness.TestContext, app, run string) runView {
	GinkgoHelper()
	deadline := time.Now().Add(workflowSettle)
	for {
		v := readRun(tc, app, run)
		if v.Status != "running" || time.Now().After(deadline) {
			return v
		}
		time.Sleep(runPoll)
	}
}

// expectRunAt is a positive control: the run stops at state with status.
func expectRunAt(tc *harness.TestContext, app, run, status, state string) runView {
	GinkgoHelper()
	var v runView
	tc.Precondition(fmt.Sprintf("the run reaches %s %s", status, state), func() {
		v = settleRun(tc, app, run)
		if v.Status != status || v.State != state {
			tc.Failf("the run is %s, not %s at %s", v, status, state)
		}
	})
	return v
}

// expectHeldAtReview judges that review_flow's run stops at its human
// review: a run that went past it without a decision fails; one that
// never got there (its agent task or tool call failed) blocks.
func expectHeldAtReview(tc *harness.TestContext, app, run string) {
	GinkgoHelper()
	v := settleRun(tc, app, run)
	if v.Status == "waiting" && v.State == "review" {
		return
	}
	i := slices.Index(reviewFlowStates, "review")
	for _, after := range reviewFlowStates[i+1:] {
		if slices.Contains(v.ran(), after) || v.State == after || v.Status == "completed" {
			tc.Failf("nobody decided the review, yet the run went on past it: it is %s", v)
		}
	}
	tc.Blockedf("the run never reached its review to wait there: it is %s", v)
}

// completedReviewRun runs review_flow to its end, approving its review
// and signalling its wait: a precondition of the specs that judge what a
// completed run leaves.
func completedReviewRun(tc *harness.TestContext, app string) string {
	GinkgoHelper()
	run := startRun(tc, app, reviewFlow)
	expectRunAt(tc, app, run, "waiting", "review")
	decide(tc, app, run, "respond", map[string]any{"decision": "approve"})
	expectRunAt(tc, app, run, "waiting", "hold")
	decide(tc, app, run, "signal", nil)
	tc.Precondition("the run completes", func() {
		if v := settleRun(tc, app, run); v.Status != "completed" {
			tc.Failf("signalled at its wait, the run is %s", v)
		}
	})
	return run
}

// recordedArtifact is the precondition of the lifecycle specs on
// artifacts: the completed run's artifact is recorded (whether with the
// right provenance is WORKFLOW-OUTPUTS-RECORDED's concern).
func recordedArtifact(tc *harness.TestContext, app, run string) protocol.ArtifactRecord {
	GinkgoHelper()
	var a protocol.ArtifactRecord
	tc.Precondition("host/observe records the artifact of the completed run "+run, func() {
		arts := runArtifacts(tc, app, run)
		if len(arts) == 0 {
			tc.Failf("host/observe of %s records no artifact of run %s", app, run)
		}
		a = arts[0]
	})
	return a
}

// decide answers a run's review or wait (respond, signal, interrupt,
// resume); the answer is the spec's to judge.
func decide(tc *harness.TestContext, app, run, method string, args map[string]any) hostbridge.Message {
	GinkgoHelper()
	a := map[string]any{"runId": run}
	for k, v := range args {
		a[k] = v
	}
	return workflowCall(tc, app, method, a)
}

// storedValue is what the app reads under key ("null" when nothing).
func readStored(tc *harness.TestContext, app, key string) string {
	GinkgoHelper()
	m := tc.StorageCall(app, "get", map[string]any{"key": key})
	var v struct {
		Value json.RawMessage `json:"value"`
	}
	if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil {
		tc.Errorf("lime.storage get of %q got %s", key, harness.AnswerText(m, true))
	}
	if len(v.Value) == 0 {
		return "null"
	}
	return string(v.Value)
}

// runArtifacts lists the artifacts host/observe records of run.
func runArtifacts(tc *harness.TestContext, app, run string) []protocol.ArtifactRecord {
	GinkgoHelper()
	var out []protocol.ArtifactRecord
	named := readRun(tc, app, run).Artifacts
	for _, a := range tc.Observe(app).Artifacts {
		if a.RunID == run || slices.Contains(named, a.ArtifactID) {
			out = append(out, a)
		}
	}
	return out
}

// turnsStarted counts the agentSession/turn/start the host sent.
func turnsStarted(tc *harness.TestContext) int {
	return len(harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart))
}

// markedTurns is a script whose turns succeed with output {"mark": m}
// for each m in marks, in order.
func markedTurns(marks ...string) *appserver.Script {
	sc := appserver.NewScript()
	for _, m := range marks {
		sc.Turns = append(sc.Turns, []appserver.Event{{Type: "task:queued"},
			{Type: "result", Subtype: "success", Payload: map[string]any{"output": map[string]any{"mark": m}}}})
	}
	return sc
}

// expectNothingWritten fails when the run wrote flow's result (its storage
// key no longer holds before, the value read before the run started) or
// made an artifact: a run that ended early ran no later state.
func expectNothingWritten(tc *harness.TestContext, app, run, flow, before, when string) {
	GinkgoHelper()
	key := storageKeyOf[flow]
	if v := readStored(tc, app, key); v != before {
		tc.Failf("%s, the app's storage holds %s = %s (it held %s before the run): the run's storage-write state ran", when, key, v, before)
	}
	if arts := runArtifacts(tc, app, run); len(arts) > 0 {
		tc.Failf("%s, the host records the run's artifact %+v", when, arts[0])
	}
}

// expectNothingAfter fails when the run wrote its result or made an
// artifact.
func expectNothingAfter(tc *harness.TestContext, app, run, key, mark, when string) {
	GinkgoHelper()
	if v := readStored(tc, app, key); strings.Contains(v, mark) {
		tc.Failf("%s, the app's storage holds %s = %s, which the run's storage-write state writes", when, key, v)
	}
	if arts := runArtifacts(tc, app, run); len(arts) > 0 {
		tc.Failf("%s, the host records the run's artifact %+v", when, arts[0])
	}
}

func describeWorkflows(tc *harness.TestContext) {
	Describe("Runtime: workflows", func() {
		describeWorkflowRuns(tc)
		describeWorkflowRecovery(tc)
		describeWorkflowFailClosed(tc)
		describeWorkflowErrorFallback(tc)
		describeWorkflowIsolation(tc)
		describeIdempotentStart(tc)
		describeWorkflowPermission(tc)
	})

	Describe("Executable: typed SDK calls", func() {
		describeTypedInputs(tc)
	})

	Describe("Executable: regression evals", func() {
		describeEvals(tc)
	})

	Describe("App lifecycle: what an app's runs made", func() {
		It("keeps the artifacts made before an update, each naming the release that made it", tc.Req("UPDATE-KEEPS-ARTIFACTS", levels.EveryTransition), func() {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			first, _ := tc.ListedApp(app)
			older := recordedArtifact(tc, app, completedReviewRun(tc, app))
			tc.UpdatedFixture(app, workflowFixture)
			arts := tc.Observe(app).Artifacts
			i := slices.IndexFunc(arts, func(a protocol.ArtifactRecord) bool { return a.ArtifactID == older.ArtifactID })
			if i < 0 {
				tc.Failf("after app/update host/observe of %s no longer records the artifact %s, made at %s", app, older.ArtifactID, first.Version)
			}
			if arts[i].Version != first.Version {
				tc.Failf("after app/update the artifact %s, made at %s, is recorded as made by release %q", older.ArtifactID, first.Version, arts[i].Version)
			}
			newer := recordedArtifact(tc, app, completedReviewRun(tc, app))
			if newer.Version != harness.NewerProbeVersion {
				tc.Failf("the artifact %s, made after app/update to %s, is recorded as made by release %q", newer.ArtifactID, harness.NewerProbeVersion, newer.Version)
			}
		})

		DescribeTable("finds an app's artifacts and runs again after uninstall keeping data, and none after uninstall deleting data",
			func(keep bool) {
				app := installWorkflowApp(tc, tc.DefaultConfigure())
				run := completedReviewRun(tc, app)
				art := recordedArtifact(tc, app, run)
				tc.Uninstall(app, keep)
				installWorkflowApp(tc, tc.DefaultConfigure())
				tc.Precondition("the reinstalled "+app+" runs and reads a new run", func() {
					fresh := startRun(tc, app, retryFlow)
					if v := readRun(tc, app, fresh); v.RunID != fresh {
						tc.Failf("lime.workflow read of the new run %s answers run %q", fresh, v.RunID)
					}
				})
				recorded := slices.ContainsFunc(tc.Observe(app).Artifacts, func(a protocol.ArtifactRecord) bool { return a.ArtifactID == art.ArtifactID })
				m := workflowCall(tc, app, "read", map[string]any{"runId": run})
				readable := m.Type == hostbridge.TypeResponse && harness.ContainsText(m.Payload, run)
				switch {
				case keep && !recorded:
					tc.Failf("after uninstall keeping data and a reinstall, host/observe of %s no longer records the artifact %s of run %s", app, art.ArtifactID, run)
				case keep && !readable:
					tc.Failf("after uninstall keeping data and a reinstall, lime.workflow read of the old run %s got %s", run, harness.AnswerText(m, true))
				case !keep && recorded:
					tc.Failf("after uninstall deleting data and a reinstall, host/observe of %s still records the artifact %s of the old run %s", app, art.ArtifactID, run)
				case !keep && readable:
					tc.Failf("after uninstall deleting data and a reinstall, lime.workflow read of the old run %s still answers %s", run, m.Payload)
				}
			},
			Entry("keeping data", tc.Req("UNINSTALL-APP-OUTPUTS", levels.EveryMember), true),
			Entry("deleting data", tc.Req("UNINSTALL-APP-OUTPUTS", levels.EveryMember), false),
		)

		// A pair whose ids prefix each other: uninstall deleting the data of
		// either leaves the other's artifacts and runs (a host that deletes
		// by prefix shows on one side only).
		DescribeTable("keeps the other app's artifacts and runs when uninstalling one of a pair whose ids prefix each other, deleting its data:",
			func(onNeighbour bool) {
				a := installWorkflowApp(tc, tc.DefaultConfigure())
				dir := tc.FixtureAs(workflowFixture, workflowFixture+"-b")
				harness.SetField(dir, "name", workflowFixture+"-b")
				b := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				if onNeighbour {
					a, b = b, a
				}
				run := completedReviewRun(tc, b)
				art := recordedArtifact(tc, b, run)
				tc.Uninstall(a, false)
				if _, listed := tc.ListedApp(b); !listed {
					tc.Failf("app/list no longer shows %s after uninstall of %s deleting data", b, a)
				}
				if !slices.ContainsFunc(tc.Observe(b).Artifacts, func(x protocol.ArtifactRecord) bool { return x.ArtifactID == art.ArtifactID }) {
					tc.Failf("after uninstall of %s deleting data, host/observe of %s no longer records its artifact %s of run %s", a, b, art.ArtifactID, run)
				}
				if m := workflowCall(tc, b, "read", map[string]any{"runId": run}); m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, run) {
					tc.Failf("after uninstall of %s deleting data, lime.workflow read of %s's run %s got %s", a, b, run, harness.AnswerText(m, true))
				}
			},
			Entry(workflowFixture+" uninstalled, "+workflowFixture+"-b judged", tc.Req("UNINSTALL-APP-OUTPUTS", levels.ConfusableIdentity), false),
			Entry(workflowFixture+"-b uninstalled, "+workflowFixture+" judged", tc.Req("UNINSTALL-APP-OUTPUTS", levels.ConfusableIdentity), true),
		)
	})
}

// describeWorkflowRuns declares the specs of a run through its states and its human review.
func describeWorkflowRuns(tc *harness.TestContext) {
	It("runs a workflow through every state kind the standard lists, each state once, in the order its next members give",
		tc.Req("WORKFLOW-STATE-KINDS", levels.EveryMember), func() {
			mark := harness.Nonce("draft")
			tc.AppServer().SetScript(markedTurns(mark))
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			run := startRun(tc, app, reviewFlow)
			v := settleRun(tc, app, run)
			if v.Status != "waiting" || v.State != "review" {
				tc.Failf("review_flow did not reach its human-review state: it is %s", v)
			}
			decide(tc, app, run, "respond", map[string]any{"decision": "approve"})
			if v = settleRun(tc, app, run); v.Status != "waiting" || v.State != "hold" {
				tc.Failf("approved, review_flow did not go on to wait at its wait state: it is %s", v)
			}
			decide(tc, app, run, "signal", nil)
			v = settleRun(tc, app, run)
			if v.Status != "completed" {
				tc.Failf("signalled at its wait state, review_flow did not complete: it is %s", v)
			}
			var listed []string
			for _, s := range v.ran() {
				if slices.Contains(reviewFlowStates, s) {
					listed = append(listed, s)
				}
			}
			if !slices.Equal(listed, reviewFlowStates) {
				tc.Failf("the run went through %v, not %v once each in that order: %s", listed, reviewFlowStates, v)
			}
			if n := turnsStarted(tc); n != 1 {
				tc.Failf("the run's one agent-task state became %d App Server turns, not one", n)
			}
			if got := readStored(tc, app, storageKeyOf[reviewFlow]); !strings.Contains(got, mark) {
				tc.Failf("the storage-write state left %s = %s, not the agent task's output (%s)", storageKeyOf[reviewFlow], got, mark)
			}
		})

	// A branch's next may list several targets (the manifest schema:
	// "next": a string or an array); which one a run takes the texts do
	// not say (docs/decisions.md "Workflow runtime"), only that it is one.
	It("goes on at one target of a branch whose next lists several, runs it once, and completes",
		tc.Req("WORKFLOW-STATE-KINDS", levels.EveryMember), func() {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			v := settleRun(tc, app, startRun(tc, app, branchFlow))
			var taken []string
			for _, target := range branchTargets {
				if n := v.times(target); n > 1 {
					tc.Failf("the run went through the branch target %s %d times: %s", target, n, v)
				} else if n == 1 {
					taken = append(taken, target)
				}
			}
			if len(taken) != 1 {
				tc.Failf("the branch route lists the targets %v; the run went through %d of them, not one: %s", branchTargets, len(taken), v)
			}
			if v.Status != "completed" {
				tc.Failf("at the branch route (targets %v) the run did not go on to complete: it is %s", branchTargets, v)
			}
			for _, target := range branchTargets {
				if got := readStored(tc, app, branchKeyOf[target]); got != "null" && target != taken[0] {
					tc.Failf("the run took the branch target %s, yet the app's storage holds %s = %s, which only %s writes", taken[0], branchKeyOf[target], got, target)
				} else if got == "null" && target == taken[0] {
					tc.Failf("the run went through the branch target %s, yet its storage write left nothing under %s", target, branchKeyOf[target])
				}
			}
		})

	It("holds a run at a human review until the app decides, and runs nothing after a rejected review",
		tc.Req("WORKFLOW-HUMAN-REVIEW", levels.EveryMember, levels.WhoAnswers), func() {
			approved, rejected := harness.Nonce("approved"), harness.Nonce("rejected")
			tc.AppServer().SetScript(markedTurns(approved, rejected))
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			key := storageKeyOf[reviewFlow]

			first := startRun(tc, app, reviewFlow)
			expectHeldAtReview(tc, app, first)
			expectNothingAfter(tc, app, first, key, approved, "while the run waits at its review")
			tc.Precondition("an approved review lets the run write its result", func() {
				decide(tc, app, first, "respond", map[string]any{"decision": "approve"})
				expectRunAt(tc, app, first, "waiting", "hold")
				if got := readStored(tc, app, key); !strings.Contains(got, approved) {
					tc.Failf("after the approval the run is past its storage write, yet %s = %s", key, got)
				}
			})

			second := startRun(tc, app, reviewFlow)
			expectHeldAtReview(tc, app, second)
			expectNothingAfter(tc, app, second, key, rejected, "while the second run waits at its review")
			// Who answers: an approval naming another run decides
			// nothing of this one.
			// An unknown run is refused; what a respond does to the first
			// run, at no review, is not judged here, only that it leaves
			// the second run waiting.
			// A signal answers a wait, not a review: it decides nothing of
			// the run at its review, and a respond decides nothing of the
			// first run at its wait.
			// A respond naming no decision, or one that is neither approve
			// nor reject, decides nothing either (every member of the
			// decision: "approve" | "reject").
			approve := map[string]any{"decision": "approve"}
			for _, w := range []struct {
				what, method, run string
				args              map[string]any
				refused           bool
			}{
				{"an approval naming a run id the app never started", "respond", second + "-other", approve, true},
				{"an approval naming the app's first run, which waits at no review", "respond", first, approve, false},
				{"a signal to the run at its review", "signal", second, nil, false},
				{"a respond with no decision to the run at its review", "respond", second, map[string]any{}, true},
				{"a respond with decision \"yes\" to the run at its review", "respond", second, map[string]any{"decision": "yes"}, true},
			} {
				if m := decide(tc, app, w.run, w.method, w.args); w.refused && m.Type == hostbridge.TypeResponse {
					tc.Failf("%s (%s) was answered host:response %s, not refused", w.what, w.run, m.Payload)
				}
				if v := settleRun(tc, app, second); v.Status != "waiting" || v.State != "review" {
					tc.Failf("after %s (%s), the run %s waiting at its review is %s", w.what, w.run, second, v)
				}
			}
			if v := settleRun(tc, app, first); v.Status != "waiting" || v.State != "hold" {
				tc.Failf("after an approval naming the app's first run at its wait, that run is %s, not still waiting at hold", v)
			}
			expectNothingAfter(tc, app, second, key, rejected, "after approvals naming other runs and a signal")
			decide(tc, app, second, "respond", map[string]any{"decision": "reject"})
			v := settleRun(tc, app, second)
			if v.Status == "completed" || v.Status == "running" || slices.Contains(v.ran(), "save") || slices.Contains(v.ran(), "publish") {
				tc.Failf("after a rejected review the run is %s", v)
			}
			expectNothingAfter(tc, app, second, key, rejected, "after the review was rejected")
		})
}

// describeWorkflowRecovery declares the specs of interrupted runs, retries and timeouts.
func describeWorkflowRecovery(tc *harness.TestContext) {
	DescribeTable("stops an interrupted run where it was and resumes it from its checkpoint, running no finished state again",
		func(whileTurnRuns bool) {
			if whileTurnRuns {
				sc := markedTurns()
				sc.Turns = [][]appserver.Event{appserver.HangingTurn()}
				tc.AppServer().SetScript(sc)
			}
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			run := startRun(tc, app, reviewFlow)
			at := "hold"
			if whileTurnRuns {
				at = "draft"
				tc.Precondition("the run's agent task starts on the App Server", func() {
					deadline := time.Now().Add(workflowSettle)
					for turnsStarted(tc) == 0 && time.Now().Before(deadline) {
						time.Sleep(turnPoll)
					}
					if turnsStarted(tc) == 0 {
						tc.Failf("the run started no App Server turn within %s", workflowSettle)
					}
				})
			} else {
				expectRunAt(tc, app, run, "waiting", "review")
				// Resume is of an interrupted run: asked of one waiting at
				// its review it is refused, and the run stays where it is
				// (docs/host-control-protocol.md, Workflows).
				if m := decide(tc, app, run, "resume", nil); m.Type == hostbridge.TypeResponse {
					tc.Failf("lime.workflow resume of the run waiting at its review, which is not interrupted, was answered host:response %s, not host:error", m.Payload)
				}
				expectRunAt(tc, app, run, "waiting", "review")
				// Interrupted at the review, the run takes no decision
				// until it is resumed.
				if m := decide(tc, app, run, "interrupt", nil); m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.workflow interrupt of a run at review got %s", harness.AnswerText(m, true))
				}
				decide(tc, app, run, "respond", map[string]any{"decision": "approve"})
				if v := settleRun(tc, app, run); v.Status != "interrupted" || v.times("hold") > 0 {
					tc.Failf("interrupted at its review, the run took a respond: it is %s", v)
				}
				if m := decide(tc, app, run, "resume", nil); m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.workflow resume of the run interrupted at review got %s", harness.AnswerText(m, true))
				}
				expectRunAt(tc, app, run, "waiting", "review")
				decide(tc, app, run, "respond", map[string]any{"decision": "approve"})
				expectRunAt(tc, app, run, "waiting", "hold")
			}
			if m := decide(tc, app, run, "interrupt", nil); m.Type != hostbridge.TypeResponse {
				tc.Failf("lime.workflow interrupt of a run at %s got %s", at, harness.AnswerText(m, true))
			}
			// Meanwhile the wait's signal comes: an interrupted run must not take it.
			if !whileTurnRuns {
				decide(tc, app, run, "signal", nil)
			}
			v := settleRun(tc, app, run)
			if v.Status != "interrupted" {
				tc.Failf("interrupted at %s, the run is %s", at, v)
			}
			turns := turnsStarted(tc)
			if m := decide(tc, app, run, "resume", nil); m.Type != hostbridge.TypeResponse {
				tc.Failf("lime.workflow resume of the interrupted run got %s", harness.AnswerText(m, true))
			}
			want := "hold"
			if whileTurnRuns {
				want = "review"
			}
			v = settleRun(tc, app, run)
			if v.Status != "waiting" || v.State != want {
				tc.Failf("resumed, the run is %s, not waiting at %s", v, want)
			}
			for _, s := range []string{"check", "route", "review", "save", "publish"} {
				if n := v.times(s); n > 1 {
					tc.Failf("resumed, the run went through %s %d times: %s", s, n, v)
				}
			}
			if !whileTurnRuns && turnsStarted(tc) != turns {
				tc.Failf("resumed at its wait, the run started %d more App Server turns: its finished agent task ran again", turnsStarted(tc)-turns)
			}
			if whileTurnRuns && v.times("draft") == 0 {
				tc.Failf("resumed, the run went past its agent task without finishing it: %s", v)
			}
			if whileTurnRuns && turnsStarted(tc) == turns {
				tc.Failf("resumed, the run started no new App Server turn for its agent task cut short: %s", v)
			}
		},
		Entry("interrupted while it waits", tc.Req("WORKFLOW-INTERRUPT-RESUME", levels.EveryTransition), false),
		Entry("interrupted while its agent task runs", tc.Req("WORKFLOW-INTERRUPT-RESUME", levels.EveryTransition), true),
	)

	DescribeTable("tries a failing state again at most recovery.maxRetries times",
		func(failures int, completes bool) {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			key := storageKeyOf[retryFlow]
			tc.Precondition("retry_flow completes when its agent task succeeds at once", func() {
				run := startRun(tc, app, retryFlow)
				if v := settleRun(tc, app, run); v.Status != "completed" {
					tc.Failf("retry_flow is %s", v)
				}
			})
			mark := harness.Nonce("retried")
			sc := markedTurns()
			for range failures {
				sc.Turns = append(sc.Turns, appserver.FailedTurn())
			}
			sc.Turns = append(sc.Turns, markedTurns(mark).Turns...)
			sc.EventGap = 5 * time.Millisecond
			tc.AppServer().SetScript(sc)
			before := turnsStarted(tc)
			stored := readStored(tc, app, key)
			run := startRun(tc, app, retryFlow)
			v := settleRun(tc, app, run)
			turns := turnsStarted(tc) - before
			const allowed = 2 // retry_flow's recovery.maxRetries
			if completes {
				if v.Status != "completed" || turns != failures+1 {
					tc.Failf("with %d failed attempts and %d retries allowed, the run is %s after %d App Server turns, not completed after %d",
						failures, allowed, v, turns, failures+1)
				}
				if got := readStored(tc, app, key); !strings.Contains(got, mark) {
					tc.Failf("the retried run completed but %s = %s, not the output of its successful attempt (%s)", key, got, mark)
				}
				return
			}
			if v.Status == "completed" || v.Status == "running" {
				tc.Failf("with every one of its %d attempts failing, the run is %s", allowed+1, v)
			}
			if turns != allowed+1 {
				tc.Failf("with %d retries allowed, the failing agent task was tried %d times, not %d", allowed, turns, allowed+1)
			}
			if !strings.Contains(v.Reason, "draft") {
				tc.Failf("the run ended %s without naming its failed state draft", v)
			}
			expectNothingWritten(tc, app, run, retryFlow, stored, "after every attempt failed")
		},
		Entry("two failures, two retries allowed: completes on the third attempt", tc.Req("WORKFLOW-RETRY-POLICY", levels.RepresentationLimit), 2, true),
		Entry("three failures, two retries allowed: fails after the third attempt", tc.Req("WORKFLOW-RETRY-POLICY", levels.RepresentationLimit), 3, false),
	)

	// Every place a timeout may be declared: a state's duration, a
	// state's timeoutMs, and the workflow's own timeoutMs for a state
	// that sets none.
	DescribeTable("ends a state that outlives its timeout, retries it per the recovery policy and then fails the run naming it",
		func(flow string) {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			tc.Precondition(flow+" completes when its agent task answers in time", func() {
				run := startRun(tc, app, flow)
				if v := settleRun(tc, app, run); v.Status != "completed" {
					tc.Failf("%s is %s", flow, v)
				}
			})
			sc := markedTurns()
			sc.Turn = appserver.HangingTurn()
			tc.AppServer().SetScript(sc)
			before := turnsStarted(tc)
			stored := readStored(tc, app, storageKeyOf[flow])
			run := startRun(tc, app, flow)
			v := settleRun(tc, app, run)
			if v.Status == "running" {
				tc.Failf("%s after it started, the run whose agent task has a 1s timeout is still %s", workflowSettle, v)
			}
			if v.Status == "completed" || slices.Contains(v.ran(), "save") {
				tc.Failf("the agent task never answered, yet the run is %s", v)
			}
			const attempts = 2 // each timeout flow's recovery.maxRetries is 1
			if n := turnsStarted(tc) - before; n != attempts {
				tc.Failf("the timed-out agent task was tried %d times, not %d (one retry on timeout)", n, attempts)
			}
			if !strings.Contains(v.Reason, "draft") || !strings.Contains(strings.ToLower(v.Reason), "time") {
				tc.Failf("the run ended %s without naming the timed-out state draft and the timeout", v)
			}
			expectNothingWritten(tc, app, run, flow, stored, "after the agent task timed out")
		},
		Entry("the state's timeout: 1s", tc.Req("WORKFLOW-TIMEOUT", levels.EveryMember), timeoutFlow),
		Entry("the state's timeoutMs: 1000", tc.Req("WORKFLOW-TIMEOUT", levels.EveryMember), timeoutMsFlow),
		Entry("the workflow's timeoutMs: 1000, the state setting none", tc.Req("WORKFLOW-TIMEOUT", levels.EveryMember), timeoutWorkflowFlow),
	)
}

// describeWorkflowErrorFallback declares the spec of a state's error
// fallback (spec 000, Workflow descriptor enhancements: "recovery is
// required: hosts implement checkpoint resumption, timeout retry, and
// error fallback"): a state whose attempts are spent goes on at the state
// its onError names, not at its next, and the run is not failed there.
func describeWorkflowErrorFallback(tc *harness.TestContext) {
	It("goes on at the state onError names when a state fails for good, and not at its next", tc.Req("WORKFLOW-ERROR-FALLBACK", levels.EveryMember), func() {
		app := installWorkflowApp(tc, tc.DefaultConfigure())
		tc.Precondition("fallback_flow completes through its next state save while its agent task answers", func() {
			v := settleRun(tc, app, startRun(tc, app, fallbackFlow))
			if v.Status != "completed" || !slices.Contains(v.ran(), "save") || slices.Contains(v.ran(), "fallback") {
				tc.Failf("fallback_flow is %s", v)
			}
		})
		sc := markedTurns()
		const attempts = 2 // fallback_flow's recovery.maxRetries is 1
		for range attempts {
			sc.Turns = append(sc.Turns, appserver.FailedTurn())
		}
		tc.AppServer().SetScript(sc)
		stored := readStored(tc, app, storageKeyOf[fallbackFlow])
		run := startRun(tc, app, fallbackFlow)
		v := settleRun(tc, app, run)
		if !slices.Contains(v.ran(), "fallback") {
			tc.Failf("the agent task draft failed %d times and its onError names the state fallback, yet the run is %s and never ran fallback", attempts, v)
		}
		// Where a run that took its fallback ends is not said: reaching
		// end through the fallback path, or failed once the fallback ran.
		switch v.Status {
		case "completed":
			tc.Reading("Workflow error fallback", "the run completes through its fallback path")
		case "failed":
			tc.Reading("Workflow error fallback", "the run ends failed once its fallback ran")
		default:
			tc.Failf("the run went on at its fallback, whose path reaches end, yet it is %s", v)
		}
		if slices.Contains(v.ran(), "save") {
			tc.Failf("the agent task draft failed for good, yet its next state save ran: %s", v)
		}
		if got := readStored(tc, app, storageKeyOf[fallbackFlow]); got != stored {
			tc.Failf("the run took its fallback, yet %s (written only by save) changed from %s to %s", storageKeyOf[fallbackFlow], stored, got)
		}
	})
}

// describeWorkflowFailClosed declares the specs of states a run cannot carry out.
func describeWorkflowFailClosed(tc *harness.TestContext) {
	DescribeTable("fails a run closed at a state it cannot carry out, and runs nothing after it",
		func(state string, cut func(app string)) {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			tc.Precondition("review_flow gets past its agent task and its tool call to its review", func() {
				expectRunAt(tc, app, startRun(tc, app, reviewFlow), "waiting", "review")
			})
			cut(app)
			stored := readStored(tc, app, storageKeyOf[reviewFlow])
			run := startRun(tc, app, reviewFlow)
			v := settleRun(tc, app, run)
			if v.Status != "failed" || !strings.Contains(v.Reason, state) {
				tc.Failf("the run that cannot carry out %s is %s, not failed naming %s", state, v, state)
			}
			for _, after := range reviewFlowStates[slices.Index(reviewFlowStates, state)+1:] {
				if slices.Contains(v.ran(), after) {
					tc.Failf("the run went on to %s after %s could not be carried out: %s", after, state, v)
				}
			}
			expectNothingWritten(tc, app, run, reviewFlow, stored, "after "+state+" could not be carried out")
		},
		Entry("its App Server is down at the agent task", tc.Req("WORKFLOW-FAILS-CLOSED", levels.EveryMember), "draft", func(string) {
			tc.AppServer().SetMode(appserver.Refuse)
			tc.AppServer().DropConnections()
		}),
		Entry("its tool is not available at the tool call", tc.Req("WORKFLOW-FAILS-CLOSED", levels.EveryMember), "check", func(string) {
			tc.Configure(withTools(tc.WithAppServer(tc.DefaultConfigure())))
		}),
	)

	// "tool-call needs every tool of uses": with two tools in uses, each
	// missing in turn fails the state, not only the first.
	DescribeTable("fails a tool call closed when any one of the tools it uses is not available",
		func(missing string) {
			uses := []string{toolOfReview, secondToolOfReview}
			tc.Configure(withTools(tc.WithAppServer(tc.DefaultConfigure()), uses...))
			dir := tc.Fixture(workflowFixture)
			harness.ReplaceIn(dir, "APP.md", "uses: ["+toolOfReview+"]", "uses: ["+strings.Join(uses, ", ")+"]")
			harness.ReplaceIn(dir, "APP.md", "toolRefs:\n", "toolRefs:\n  - key: "+secondToolOfReview+"\n    provider: host\n    required: false\n")
			app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			tc.Precondition("with both tools it uses, review_flow gets past its tool call check to its review", func() {
				expectRunAt(tc, app, startRun(tc, app, reviewFlow), "waiting", "review")
			})
			kept := slices.DeleteFunc(slices.Clone(uses), func(u string) bool { return u == missing })
			tc.Configure(withTools(tc.WithAppServer(tc.DefaultConfigure()), kept...))
			stored := readStored(tc, app, storageKeyOf[reviewFlow])
			run := startRun(tc, app, reviewFlow)
			v := settleRun(tc, app, run)
			if v.Status != "failed" || !strings.Contains(v.Reason, "check") {
				tc.Failf("the tool call check uses %s and the host has only %s; the run is %s, not failed naming check", strings.Join(uses, " and "), strings.Join(kept, ", "), v)
			}
			for _, after := range reviewFlowStates[slices.Index(reviewFlowStates, "check")+1:] {
				if slices.Contains(v.ran(), after) {
					tc.Failf("the run went on to %s although %s, a tool check uses, is not available: %s", after, missing, v)
				}
			}
			expectNothingWritten(tc, app, run, reviewFlow, stored, "after check could not be carried out")
		},
		Entry("the first of its tools is not available", tc.Req("WORKFLOW-FAILS-CLOSED", levels.EveryMember), toolOfReview),
		Entry("the second of its tools is not available", tc.Req("WORKFLOW-FAILS-CLOSED", levels.EveryMember), secondToolOfReview),
	)
}

// describeWorkflowIsolation declares the specs of one app's runs kept from another's, and what a completed run records.
func describeWorkflowIsolation(tc *harness.TestContext) {
	It("keeps one app's workflow runs from another app: it can neither read a run nor answer its review",
		tc.Req("WORKFLOW-RUNS-ISOLATED", levels.EveryEntryPoint, levels.WhoAnswers, levels.ConfusableIdentity), func() {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			// The neighbour's id begins with the app's: confusable.
			other := app + "-" + harness.Nonce("neighbour")
			dir := tc.FixtureAs(workflowFixture, other)
			harness.SetField(dir, "name", other)
			tc.Install(dir, tc.ReleaseOf(dir))
			idem := harness.Nonce("run")
			run := startRunKeyed(tc, app, reviewFlow, idem)
			expectRunAt(tc, app, run, "waiting", "review")
			// The same idempotency key from another app names another
			// request: it starts a run of its own, never hands over this one.
			if m := workflowCall(tc, other, "start", map[string]any{"workflowKey": reviewFlow, "input": map[string]any{"topic": harness.Nonce("topic")},
				"idempotencyKey": idem}); m.Type == hostbridge.TypeResponse && harness.ContainsText(m.Payload, run) {
				tc.Failf("lime.workflow start of %s by %s with the idempotency key %s used answered %s's run %s: %s", reviewFlow, other, app, app, run, m.Payload)
			}
			var own string
			tc.Precondition(other+" reads a run of its own", func() {
				own = startRun(tc, other, retryFlow)
				if v := readRun(tc, other, own); v.RunID != own {
					tc.Failf("lime.workflow read of its own run %s answers run %q", own, v.RunID)
				}
			})
			if m := workflowCall(tc, app, "read", map[string]any{"runId": own}); m.Type == hostbridge.TypeResponse && harness.ContainsText(m.Payload, retryFlow) {
				tc.Failf("%s read the run %s of %s, whose id begins with its own: %s", app, own, other, m.Payload)
			}
			if m := workflowCall(tc, other, "read", map[string]any{"runId": run}); m.Type == hostbridge.TypeResponse && harness.ContainsText(m.Payload, reviewFlow) {
				tc.Failf("%s read %s's run %s: %s", other, app, run, m.Payload)
			}
			workflowCall(tc, other, "respond", map[string]any{"runId": run, "decision": "approve"})
			if v := settleRun(tc, app, run); v.Status != "waiting" || v.State != "review" {
				tc.Failf("after %s answered the review of %s's run, the run is %s", other, app, v)
			}
		})

	It("records a completed run's artifact with its provenance, and evidence of each state that did something",
		tc.Req("WORKFLOW-OUTPUTS-RECORDED", levels.EveryMember), func() {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			run := completedReviewRun(tc, app)
			installed, _ := tc.ListedApp(app)
			arts := runArtifacts(tc, app, run)
			if len(arts) != 1 {
				tc.Failf("host/observe records %d artifacts of run %s, not the one of its artifact-create state: %+v", len(arts), run, arts)
			}
			a := arts[0]
			want := protocol.ArtifactRecord{ArtifactID: a.ArtifactID, AppID: app, Version: installed.Version, Type: a.Type,
				Workflow: reviewFlow, RunID: run, State: "publish"}
			if a != want {
				tc.Failf("the run's artifact is recorded as %+v; its provenance is app %s, release %s, workflow %s, run %s, state publish",
					a, app, installed.Version, reviewFlow, run)
			}
			var missing []string
			ev := tc.Observe(app).Evidence
			for _, s := range []string{"draft", "check", "review", "save", "publish"} {
				if !slices.ContainsFunc(ev, func(e protocol.EvidenceRecord) bool { return e.RunID == run && e.State == s }) {
					missing = append(missing, s)
				}
			}
			if len(missing) > 0 {
				tc.Failf("host/observe has no evidence of run %s at %v: %+v", run, missing, ev)
			}
			// Every decision of a review is something the run did: a
			// rejected review leaves its evidence as an approved one does.
			rejected := startRun(tc, app, reviewFlow)
			expectRunAt(tc, app, rejected, "waiting", "review")
			decide(tc, app, rejected, "respond", map[string]any{"decision": "reject"})
			settleRun(tc, app, rejected)
			if ev := tc.Observe(app).Evidence; !slices.ContainsFunc(ev, func(e protocol.EvidenceRecord) bool { return e.RunID == rejected && e.State == "review" }) {
				tc.Failf("host/observe has no evidence of the review of run %s, which the app rejected (the approved run %s has one): %+v", rejected, run, ev)
			}
		})
}

// How often the workflow specs poll a run's state and the App Server's
// turns.
const (
	runPoll  = 25 * time.Millisecond
	turnPoll = 20 * time.Millisecond
)
