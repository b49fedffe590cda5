//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// wfDriver drives workflow-app's runs through app/invoke.
type wfDriver struct {
	t  testing.TB
	x  *harness
	as *appserver.Server
	n  int
}

// runView is what lime.workflow read answers.
type runView struct {
	RunID     string        `json:"runId"`
	Status    string        `json:"status"`
	State     string        `json:"state"`
	Reason    string        `json:"reason"`
	History   []stateRecord `json:"history"`
	Artifacts []string      `json:"artifacts"`
}

// newWorkflowDriver installs workflow-app under an App Server playing sc
// (nil: the default) with the tools in tools (nil: not listed).
func newWorkflowDriver(t testing.TB, x *harness, sc *appserver.Script, tools []string) *wfDriver {
	t.Helper()
	var p protocol.ConfigureParams
	if tools != nil {
		p.Available = map[string][]string{"tools": tools}
	}
	as := appServerFor(t, x, sc, p)
	if _, err := x.install(fixtureCopy(t, "workflow-app", "", ""), nil, true); err != nil {
		t.Fatalf("installing workflow-app: %v", err)
	}
	return &wfDriver{t: t, x: x, as: as}
}

// call makes one lime.workflow call as workflow-app.
func (d *wfDriver) call(method string, args map[string]any) hostbridge.Message {
	d.t.Helper()
	d.n++
	raw, _ := json.Marshal(args)
	rid := fmt.Sprintf("wf-%d", d.n)
	var r protocol.InvokeResult
	d.x.must(protocol.MethodInvoke, protocol.InvokeParams{AppID: "workflow-app", EntryKey: "main", RequestID: rid,
		Capability: "lime.workflow", Method: method, Args: raw}, &r)
	var m hostbridge.Message
	if err := json.Unmarshal(r.Answer, &m); err != nil {
		d.t.Fatalf("app/invoke answered %s", r.Answer)
	}
	return m
}

// start starts a run of key and returns its id.
func (d *wfDriver) start(key string) string {
	d.t.Helper()
	m := d.call("start", map[string]any{"workflowKey": key, "input": map[string]any{"topic": "t"}})
	var v runView
	if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil || v.RunID == "" {
		d.t.Fatalf("start %s got %s %s", key, m.Type, m.Payload)
	}
	return v.RunID
}

func (d *wfDriver) read(run string) runView {
	d.t.Helper()
	m := d.call("read", map[string]any{"runId": run})
	var v runView
	if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil {
		d.t.Fatalf("read %s got %s %s", run, m.Type, m.Payload)
	}
	return v
}

// settle waits until the run is no longer running (or 10 s passed) and
// returns what read says.
func (d *wfDriver) settle(run string) runView {
	d.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := d.read(run)
		if v.Status != runRunning || time.Now().After(deadline) {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// turns counts the agentSession/turn/start the host sent.
func (d *wfDriver) turns() int {
	n := 0
	for _, m := range d.as.Messages() {
		if m.Dir == appserver.FromHost && m.Method == appserver.MethodTurnStart {
			n++
		}
	}
	return n
}

// stored is what workflow-app's storage holds under key.
func (d *wfDriver) stored(key string) string {
	d.t.Helper()
	d.n++
	raw, _ := json.Marshal(map[string]any{"key": key})
	var r protocol.InvokeResult
	d.x.must(protocol.MethodInvoke, protocol.InvokeParams{AppID: "workflow-app", EntryKey: "main", RequestID: fmt.Sprintf("st-%d", d.n),
		Capability: "lime.storage", Method: "get", Args: raw}, &r)
	var m hostbridge.Message
	_ = json.Unmarshal(r.Answer, &m)
	var v struct {
		Value json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(m.Payload, &v)
	return string(v.Value)
}

// path is the states a run went through, with their outcome.
func (v runView) path() string {
	var parts []string
	for _, s := range v.History {
		parts = append(parts, s.State+":"+s.Status)
	}
	return strings.Join(parts, " ")
}

// summary is what a probe compares: status, state, path, turns and the
// stored result.
func (d *wfDriver) summary(v runView, storageKey string) string {
	return fmt.Sprintf("%s at %s [%s] turns=%d stored=%s reason=%q", v.Status, v.State, v.path(), d.turns(), d.stored(storageKey), v.Reason)
}

// reviewFlow runs review_flow to its review, decides, signals the wait
// and reports the summary at each stop.
func reviewFlow(t testing.TB, x *harness, decision string) string {
	d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
	run := d.start("review_flow")
	atReview := d.summary(d.settle(run), "review-flow-result")
	d.call("respond", map[string]any{"runId": run, "decision": decision})
	v := d.settle(run)
	if v.Status == runWaiting && v.State == "hold" {
		d.call("signal", map[string]any{"runId": run})
		v = d.settle(run)
	}
	return atReview + " | " + d.summary(v, "review-flow-result")
}

func TestWorkflowReviewFlowRunsEveryKind(t *testing.T) {
	x := start(t)
	d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
	run := d.start("review_flow")
	v := d.settle(run)
	if v.Status != runWaiting || v.State != "review" || d.stored("review-flow-result") != "null" {
		t.Fatalf("before the review: %s", d.summary(v, "review-flow-result"))
	}
	d.call("respond", map[string]any{"runId": run, "decision": "approve"})
	if v = d.settle(run); v.Status != runWaiting || v.State != "hold" {
		t.Fatalf("after approval: %s", d.summary(v, "review-flow-result"))
	}
	d.call("signal", map[string]any{"runId": run})
	v = d.settle(run)
	want := "begin:completed draft:completed check:completed route:completed review:approved save:completed publish:completed hold:completed done:completed"
	if v.Status != runCompleted || v.path() != want || d.turns() != 1 || !strings.Contains(d.stored("review-flow-result"), "ok") {
		t.Fatalf("got %s, want completed along %s", d.summary(v, "review-flow-result"), want)
	}
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "workflow-app"}, &o)
	if len(o.Artifacts) != 1 || o.Artifacts[0].RunID != run || o.Artifacts[0].Version != "1.0.0" || o.Artifacts[0].State != "publish" {
		t.Errorf("artifacts: %+v", o.Artifacts)
	}
	states := map[string]bool{}
	for _, e := range o.Evidence {
		if e.RunID == run {
			states[e.State] = true
		}
	}
	for _, s := range []string{"draft", "check", "review", "save", "publish"} {
		if !states[s] {
			t.Errorf("no evidence of state %s: %+v", s, o.Evidence)
		}
	}
}

func TestWorkflowRejectedReviewWritesNothing(t *testing.T) {
	got := reviewFlow(t, start(t), "reject")
	if !strings.Contains(got, "| rejected at review") || !strings.HasSuffix(strings.SplitN(got, "stored=", 3)[2], `null reason="state review: rejected by the reviewer"`) {
		t.Fatalf("got %s", got)
	}
}

// interruptAtHold interrupts review_flow at its wait, signals it (which
// must not move it), resumes and signals again.
func interruptAtHold(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
	run := d.start("review_flow")
	d.settle(run)
	d.call("respond", map[string]any{"runId": run, "decision": "approve"})
	d.settle(run)
	d.call("interrupt", map[string]any{"runId": run})
	d.call("signal", map[string]any{"runId": run})
	during := d.settle(run)
	d.call("resume", map[string]any{"runId": run})
	after := d.settle(run)
	if after.State == "hold" {
		d.call("signal", map[string]any{"runId": run})
	}
	return during.Status + " | " + after.Status + " at " + after.State + " | " + d.summary(d.settle(run), "review-flow-result")
}

func TestWorkflowInterruptAndResume(t *testing.T) {
	got := interruptAtHold(t, start(t))
	if !strings.HasPrefix(got, "interrupted | waiting at hold | completed") || !strings.Contains(got, "turns=1") {
		t.Fatalf("got %s", got)
	}
}

func TestWorkflowInterruptCancelsTheRunningTurn(t *testing.T) {
	x := start(t)
	sc := appserver.NewScript()
	sc.Turns = [][]appserver.Event{appserver.HangingTurn()}
	d := newWorkflowDriver(t, x, sc, []string{"pdf_reader"})
	run := d.start("review_flow")
	deadline := time.Now().Add(5 * time.Second)
	for d.turns() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	d.call("interrupt", map[string]any{"runId": run})
	d.call("resume", map[string]any{"runId": run})
	v := d.settle(run)
	cancels := 0
	for _, m := range d.as.Messages() {
		if m.Dir == appserver.FromHost && m.Method == appserver.MethodTurnCancel {
			cancels++
		}
	}
	if v.State != "review" || d.turns() != 2 || cancels != 1 {
		t.Fatalf("got %s, cancels=%d", d.summary(v, "review-flow-result"), cancels)
	}
}

// retryFlow runs retry_flow with its first fails turns failing.
func retryFlow(t testing.TB, x *harness, fails int) string {
	sc := appserver.NewScript()
	sc.EventGap = time.Millisecond
	for range fails {
		sc.Turns = append(sc.Turns, appserver.FailedTurn())
	}
	d := newWorkflowDriver(t, x, sc, nil)
	run := d.start("retry_flow")
	return d.summary(d.settle(run), "retry-flow-result")
}

func TestWorkflowRetryPolicy(t *testing.T) {
	x := start(t)
	if got := retryFlow(t, x, 2); !strings.HasPrefix(got, "completed") || !strings.Contains(got, "turns=3") {
		t.Errorf("two failures, two retries allowed: %s", got)
	}
	x = start(t)
	if got := retryFlow(t, x, 3); !strings.HasPrefix(got, "failed") || !strings.Contains(got, "turns=3") || !strings.Contains(got, "stored=null") {
		t.Errorf("three failures, two retries allowed: %s", got)
	}
}

// timeoutFlow runs timeout_flow with every turn hanging.
func timeoutFlow(t *testing.T, x *harness) string {
	return hangingFlow(t, x, "timeout_flow", "timeout-flow-result")
}

// hangingFlow runs workflow key while every agent task hangs and reports
// how it ended (within 5s) and what its storage-write left at result.
func hangingFlow(t *testing.T, x *harness, key, result string) string {
	sc := appserver.NewScript()
	sc.Turn = appserver.HangingTurn()
	d := newWorkflowDriver(t, x, sc, nil)
	run := d.start(key)
	deadline := time.Now().Add(5 * time.Second)
	v := d.read(run)
	for v.Status == runRunning && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		v = d.read(run)
	}
	return d.summary(v, result)
}

func TestWorkflowTimeout(t *testing.T) {
	got := timeoutFlow(t, start(t))
	if !strings.HasPrefix(got, "failed at draft") || !strings.Contains(got, "turns=2") || !strings.Contains(got, "timed out") {
		t.Fatalf("got %s", got)
	}
}

// downFlow runs review_flow with the App Server refusing.
func downFlow(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
	d.as.SetMode(appserver.Refuse)
	d.as.DropConnections()
	run := d.start("review_flow")
	return d.summary(d.settle(run), "review-flow-result")
}

// fallbackFlow runs fallback_flow with the App Server refusing: its agent
// task fails for good and the run goes on at its onError state.
func fallbackFlow(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
	d.as.SetMode(appserver.Refuse)
	d.as.DropConnections()
	run := d.start("fallback_flow")
	return d.summary(d.settle(run), "fallback-flow-fallback")
}

// noToolFlow runs review_flow on a host without pdf_reader.
func noToolFlow(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, []string{})
	run := d.start("review_flow")
	return d.summary(d.settle(run), "review-flow-result")
}

func TestWorkflowFailsClosed(t *testing.T) {
	if got := downFlow(t, start(t)); !strings.HasPrefix(got, "failed at draft") {
		t.Errorf("App Server down: %s", got)
	}
	if got := noToolFlow(t, start(t)); !strings.HasPrefix(got, "failed at check") || !strings.Contains(got, "pdf_reader") {
		t.Errorf("tool missing: %s", got)
	}
}

func TestWorkflowCallsAreTheApps(t *testing.T) {
	x := start(t)
	d := newWorkflowDriver(t, x, nil, nil)
	if m := d.call("read", map[string]any{"runId": "run-404"}); m.Type != hostbridge.TypeError {
		t.Errorf("read of an unknown run: %s %s", m.Type, m.Payload)
	}
	if m := d.call("start", map[string]any{"workflowKey": "nope"}); m.Type != hostbridge.TypeError {
		t.Errorf("start of an undeclared workflow: %s %s", m.Type, m.Payload)
	}
	if m := d.call("signal", map[string]any{"runId": d.start("retry_flow")}); m.Type != hostbridge.TypeError {
		t.Errorf("signal of a run not waiting: %s %s", m.Type, m.Payload)
	}
}

// outputsOf is what host/observe records of review_flow's completed run.
func outputsOf(t *testing.T, x *harness) string {
	reviewFlow(t, x, "approve")
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "workflow-app"}, &o)
	var ev []string
	for _, e := range o.Evidence {
		ev = append(ev, e.RunID+"/"+e.State)
	}
	return fmt.Sprintf("artifacts=%+v evidence=%v", o.Artifacts, ev)
}

// artifactsAfter runs review_flow to its end, then does what to
// workflow-app and reports the artifacts host/observe records of it.
func artifactsAfter(what func(t *testing.T, x *harness)) probe {
	return func(t *testing.T, x *harness) string {
		reviewFlow(t, x, "approve")
		what(t, x)
		var o protocol.ObserveResult
		x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "workflow-app"}, &o)
		return fmt.Sprintf("%+v", o.Artifacts)
	}
}

// fixtureCopy materializes the fixture name with old replaced by new in
// its APP.md (nothing replaced when old is "").
func fixtureCopy(t testing.TB, name, old, new string) string {
	t.Helper()
	dir, err := platformconformance.Materialize(name, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if old == "" {
		return dir
	}
	md := filepath.Join(dir, "APP.md")
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// updateWorkflowApp updates workflow-app to its release 1.1.0.
func updateWorkflowApp(t *testing.T, x *harness) {
	dir := fixtureCopy(t, "workflow-app", "version: 1.0.0", "version: 1.1.0")
	x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "workflow-app", Path: dir,
		Consent: protocol.Consent{Granted: true, By: "user", Migrations: true}}, nil)
}

// reinstallAfter uninstalls workflow-app (keeping its data or not) and
// installs it again.
func reinstallAfter(keep bool) func(t *testing.T, x *harness) {
	return func(t *testing.T, x *harness) {
		x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "workflow-app", KeepData: keep}, nil)
		dir := fixtureCopy(t, "workflow-app", "", "")
		if _, err := x.install(dir, nil, true); err != nil {
			t.Fatal(err)
		}
	}
}

// foreignRead starts a run of workflow-app and reads it as another app
// that declares the same workflows.
func foreignRead(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, nil)
	run := d.start("retry_flow")
	dir := fixtureCopy(t, "workflow-app", "name: workflow-app", "name: other-app")
	if _, err := x.install(dir, nil, true); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"runId": run})
	var r protocol.InvokeResult
	x.must(protocol.MethodInvoke, protocol.InvokeParams{AppID: "other-app", EntryKey: "main", RequestID: "foreign",
		Capability: "lime.workflow", Method: "read", Args: raw}, &r)
	var m hostbridge.Message
	_ = json.Unmarshal(r.Answer, &m)
	return m.Type
}

func workflowProbes() map[string]probe {
	return map[string]probe{
		"workflow-runs-shared":            foreignRead,
		"update-drops-artifacts":          artifactsAfter(updateWorkflowApp),
		"artifacts-stamped-current":       artifactsAfter(updateWorkflowApp),
		"delete-data-keeps-outputs":       artifactsAfter(reinstallAfter(false)),
		"keep-data-drops-outputs":         artifactsAfter(reinstallAfter(true)),
		"workflow-branch-unsupported":     func(t *testing.T, x *harness) string { return reviewFlow(t, x, "approve") },
		"workflow-review-auto-approved":   func(t *testing.T, x *harness) string { return reviewFlow(t, x, "approve") },
		"workflow-reject-continues":       func(t *testing.T, x *harness) string { return reviewFlow(t, x, "reject") },
		"workflow-interrupt-ignored":      interruptAtHold,
		"workflow-resume-from-start":      interruptAtHold,
		"workflow-retry-ignored":          func(t *testing.T, x *harness) string { return retryFlow(t, x, 2) },
		"workflow-retry-unbounded":        func(t *testing.T, x *harness) string { return retryFlow(t, x, 3) },
		"workflow-timeout-ignored":        timeoutFlow,
		"workflow-mock-success-when-down": downFlow,
		"workflow-missing-tool-skipped":   noToolFlow,
		"workflow-failure-saves-result":   downFlow,
		"workflow-error-fallback-ignored": fallbackFlow,
		"workflow-timeout-state-only": func(t *testing.T, x *harness) string {
			return hangingFlow(t, x, "timeout_workflow_flow", "timeout-workflow-flow-result")
		},
		"workflow-artifact-no-provenance":    outputsOf,
		"workflow-no-evidence":               outputsOf,
		"workflow-branch-list-unsupported":   branchRun,
		"workflow-branch-list-as-none":       branchRun,
		"workflow-branch-every-target":       branchRun,
		"workflow-idempotency-ignored":       repeatedKey,
		"workflow-idempotency-while-running": repeatedKey,
		"workflow-idempotency-by-input":      repeatedKey,
		"workflow-input-unchecked":           typedStarts,
		"workflow-input-required-only":       typedStarts,
		"evals-always-pass":                  evalsOf,
		"evals-threshold-ignored":            evalsOf,
		"evals-threshold-exclusive":          evalsOf,
		"evals-provenance-without-hashes":    evalsOf,
	}
}

// evalsOf runs workflow-app's regression evals and reports their results.
func evalsOf(t *testing.T, x *harness) string {
	newWorkflowDriver(t, x, nil, nil)
	var r protocol.EvalsResult
	x.must(protocol.MethodEvals, protocol.AppIDParams{AppID: "workflow-app"}, &r)
	var out []string
	for _, e := range r.Evals {
		out = append(out, fmt.Sprintf("%s passed=%v score=%v cases=%+v hash=%v", e.Key, e.Passed, e.Score, e.Cases, e.Provenance["packageHash"] != ""))
	}
	return strings.Join(out, " | ")
}

// branchRun runs branch_flow to its end and reports the states it went
// through.
func branchRun(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, nil)
	v := d.settle(d.start("branch_flow"))
	return d.summary(v, "branch-flow-right")
}

// repeatedKey starts typed_flow, lets the run complete, and starts it
// again with the same idempotency key and another input: it reports
// whether the second start answered the first run.
func repeatedKey(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, nil)
	runOf := func(topic string) string {
		m := d.call("start", map[string]any{"workflowKey": "typed_flow", "input": map[string]any{"topic": topic, "count": 1}, "idempotencyKey": "k1"})
		var v struct {
			RunID string `json:"runId"`
		}
		_ = json.Unmarshal(m.Payload, &v)
		return v.RunID
	}
	first := runOf("first")
	d.settle(first)
	return fmt.Sprintf("second start answers the first run: %v", runOf("second") == first)
}

// typedStarts starts typed_flow with a valid input and with inputs that
// miss or mistype a member, and reports each answer's type.
func typedStarts(t *testing.T, x *harness) string {
	d := newWorkflowDriver(t, x, nil, nil)
	var out []string
	for _, in := range []map[string]any{{"topic": "t", "count": 1}, {"count": 1}, {"topic": "t", "count": "1"}, {"topic": "t", "count": 0}} {
		m := d.call("start", map[string]any{"workflowKey": "typed_flow", "input": in})
		out = append(out, fmt.Sprintf("%s %s", m.Type, hostbridge.ErrorOf(m).Message))
	}
	return strings.Join(out, " | ")
}

// BenchmarkWorkflowRun measures one whole run of retry_flow (an agent task
// as an App Server turn, a storage write, the end) through app/invoke, from
// start until read says completed.
func BenchmarkWorkflowRun(b *testing.B) {
	x := start(b)
	sc := appserver.NewScript()
	sc.EventGap = 0
	d := newWorkflowDriver(b, x, sc, nil)
	b.ResetTimer()
	for range b.N {
		run := d.start("retry_flow")
		if v := d.settle(run); v.Status != runCompleted {
			b.Fatalf("run %s: %s", run, d.summary(v, "retry-flow-result"))
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}
