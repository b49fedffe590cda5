package mockhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

// The workflow runtime (spec 001 actors: "Workflow runtime: Execute
// approved workflow steps with trace, retry, cancel, and evidence"; spec
// 000 Workflow descriptor). An app starts a run of a workflow its manifest
// declares with lime.workflow start; the host steps through its states,
// stops at a human review or a wait until the app answers, and can be
// interrupted and resumed from its checkpoint. The methods and answers are
// the harness's reading (docs/host-control-protocol.md, "Bridge payloads").

// Run statuses.
const (
	runRunning     = "running"
	runWaiting     = "waiting"
	runInterrupted = "interrupted"
	runCompleted   = "completed"
	runFailed      = "failed"
	runRejected    = "rejected"
)

// Limits of the workflow runtime.
const (
	maxWorkflowRuns   = 1000
	maxRunHistory     = 1000
	workflowPoll      = 50 * time.Millisecond // how often a waiting state looks for an interrupt
	defaultStateLimit = 2 * time.Minute       // an agent-task state without a timeout
)

// workflowState is one state of a declared workflow.
type workflowState struct {
	key, kind    string
	next         []string
	uses         []string
	timeout      time.Duration
	onError      string
	onReject     string
	storageKey   string
	artifactType string
}

// workflowDef is a workflow of an app's manifest.
type workflowDef struct {
	key        string
	states     []workflowState
	maxRetries int
	// inputs is the JSON Schema the workflow declares for its input, if any.
	inputs map[string]any
}

func (d workflowDef) state(key string) (workflowState, bool) {
	for _, s := range d.states {
		if s.key == key {
			return s, true
		}
	}
	return workflowState{}, false
}

// stateRecord is one step of a run's history.
type stateRecord struct {
	State   string `json:"state"`
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	Attempt int    `json:"attempt,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// workflowRun is one run of a workflow.
type workflowRun struct {
	id, appID, version string
	idem               string // the app's idempotency key of start
	def                workflowDef
	l                  *launch
	input, output      json.RawMessage
	status, current    string
	reason             string
	history            []stateRecord
	artifacts          []string
	// epoch changes when the run is interrupted, resumed or forgotten: a
	// stepping goroutine of an older epoch stops.
	epoch int
	// turn is the agent task the run waits for, if any.
	turn *agentTaskLink
}

// workflowRuns is every run since the last reset, and the artifacts the
// runs created, by app.
type workflowRuns struct {
	mu        sync.Mutex
	seq       int
	runs      map[string]*workflowRun
	artifacts map[string][]protocol.ArtifactRecord
}

func newWorkflowRuns() *workflowRuns {
	return &workflowRuns{runs: map[string]*workflowRun{}, artifacts: map[string][]protocol.ArtifactRecord{}}
}

// forget stops every run and forgets it (host/reset, Close).
func (w *workflowRuns) forget() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range w.runs {
		r.epoch++
	}
	w.runs = map[string]*workflowRun{}
	w.artifacts = map[string][]protocol.ArtifactRecord{}
}

// uninstalled stops the runs of an app that was uninstalled and, when its
// data goes (deleteData), forgets them and its artifacts; kept data keeps
// both for a reinstall (spec 002 Cleanup: "uninstall keep data, uninstall
// delete data").
func (w *workflowRuns) uninstalled(appID string, deleteData bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, r := range w.runs {
		if r.appID != appID {
			continue
		}
		r.epoch++
		if r.status == runRunning || r.status == runWaiting {
			r.status = runInterrupted
		}
		if deleteData {
			delete(w.runs, id)
		}
	}
	if deleteData {
		delete(w.artifacts, appID)
	}
}

// observe lists the artifacts the runs of appID created.
func (w *workflowRuns) observe(appID string) []protocol.ArtifactRecord {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.artifacts[appID])
}

// workflowCall answers lime.workflow's methods.
func (h *Host) workflowCall(l *launch, method string, args json.RawMessage) (any, *denial) {
	var a struct {
		WorkflowKey    string          `json:"workflowKey"`
		Input          json.RawMessage `json:"input"`
		IdempotencyKey string          `json:"idempotencyKey"`
		RunID          string          `json:"runId"`
		Decision       string          `json:"decision"`
	}
	if len(args) > 0 && !decodePayload(args, &a) {
		return nil, invalidArgs("lime.workflow needs an object of arguments.")
	}
	if method == "start" {
		return h.startWorkflow(l, a.WorkflowKey, a.Input, a.IdempotencyKey)
	}
	w := h.workflows
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.runs[a.RunID]
	// fault: workflow-runs-shared — a run is found by its id alone: any app may read and drive another app's run.
	if ok && r.appID != l.appID && !h.faults.Has("workflow-runs-shared") {
		// fault: workflow-run-owner-prefix — a run's owner is checked as a prefix: an app reaches the runs of every app whose id begins with its own.
		ok = h.faults.Has("workflow-run-owner-prefix") && strings.HasPrefix(r.appID, l.appID)
	}
	// fault: workflow-respond-current-review — a respond naming no run of the app decides the app's run waiting at a review.
	if !ok && method == "respond" && h.faults.Has("workflow-respond-current-review") {
		for _, o := range w.runs {
			if st, _ := o.def.state(o.current); o.appID == l.appID && o.status == runWaiting && st.kind == "human-review" {
				r, ok = o, true
			}
		}
	}
	if !ok {
		return nil, invalidArgs(fmt.Sprintf("This app has no workflow run %q.", clip(a.RunID, 100)))
	}
	switch method {
	case "read":
		return r.snapshotLocked(), nil
	case "respond":
		return h.respondLocked(r, a.Decision)
	case "signal":
		st, _ := r.def.state(r.current)
		// fault: workflow-signal-passes-review — signal wakes a run at whatever state it waits: a signal moves a run past its human review.
		if r.status != runWaiting || (st.kind != "wait" && !h.faults.Has("workflow-signal-passes-review")) {
			return nil, invalidArgs(fmt.Sprintf("Run %s is not waiting for a signal.", r.id))
		}
		r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "completed"})
		h.goOnLocked(r, st.next)
		return r.snapshotLocked(), nil
	case "interrupt":
		if r.status != runRunning && r.status != runWaiting {
			return nil, invalidArgs(fmt.Sprintf("Run %s is %s and cannot be interrupted.", r.id, r.status))
		}
		// fault: workflow-interrupt-ignored — interrupt is answered as done, but the run goes on as if nothing was asked.
		if h.faults.Has("workflow-interrupt-ignored") {
			return map[string]any{"runId": r.id, "status": runInterrupted}, nil
		}
		r.epoch++
		r.status = runInterrupted
		if t := r.turn; t != nil {
			st, _ := r.def.state(r.current)
			r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "interrupted"})
			r.turn = nil
			go h.cancelTurn(t)
		}
		return r.snapshotLocked(), nil
	case "resume":
		// fault: workflow-resume-not-interrupted — resume of a run that is not interrupted is answered with the run as it is.
		if r.status != runInterrupted && h.faults.Has("workflow-resume-not-interrupted") {
			return r.snapshotLocked(), nil
		}
		if r.status != runInterrupted {
			return nil, invalidArgs(fmt.Sprintf("Run %s is %s, not interrupted.", r.id, r.status))
		}
		// fault: workflow-resume-from-start — resume starts the run again from its first state.
		if h.faults.Has("workflow-resume-from-start") {
			r.current = r.def.states[0].key
		}
		r.status = runRunning
		r.epoch++
		go h.advance(r, r.epoch)
		return r.snapshotLocked(), nil
	}
	return nil, invalidArgs(fmt.Sprintf("lime.workflow has no method %q.", clip(method, 100)))
}

// startWorkflow starts a run of the workflow key (the launched entry's
// workflow when key is empty).
func (h *Host) startWorkflow(l *launch, key string, input json.RawMessage, idem string) (any, *denial) {
	pk, e := h.installedPackage(l.appID)
	if e != nil {
		return nil, invalidArgs("This app's package cannot be read.")
	}
	if key == "" {
		if e, found := manifestEntry(pk.Manifest, l.entryKey); found {
			key = stringField(e, "workflow")
		}
	}
	// fault: workflow-timeout-state-only — the workflow's own timeoutMs is never read: only a state's timeout bounds it.
	def, ok := workflowOf(pk.Manifest, key, !h.faults.Has("workflow-timeout-state-only"))
	if !ok {
		return nil, invalidArgs(fmt.Sprintf("This app declares no workflow %q with states.", clip(key, 100)))
	}
	// fault: workflow-span-carries-input — each lime.workflow start exports a workflow.run span whose attributes carry the run's input as it is, whether or not the user opted in to content export.
	if h.faults.Has("workflow-span-carries-input") {
		h.exportSpan(l, "workflow.run", map[string]string{"lime.workflow.key": key, "lime.workflow.input": string(input)})
	}
	badInput := h.checkInput(def, input)
	// variant: workflow-input-checked-in-run — a start whose input does not meet the workflow's declared inputs is answered with a run that ends failed at once, its reason naming the member, and runs no state.
	if badInput != nil && !h.variants.Has("workflow-input-checked-in-run") {
		return nil, badInput
	}
	w := h.workflows
	w.mu.Lock()
	defer w.mu.Unlock()
	// fault: workflow-idempotency-ignored — a start's idempotency key is not read: every start starts a run of its own.
	// fault: workflow-idempotency-key-folded — a start's idempotency key is looked up in lower case, as if every key were a UUID: a key differing from a used one only in case gets that key's run.
	if h.faults.Has("workflow-idempotency-key-folded") {
		idem = strings.ToLower(idem)
	}
	if idem != "" && !h.faults.Has("workflow-idempotency-ignored") {
		if r := w.keyedLocked(l.appID, key, idem, input, h.faults); r != nil {
			// variant: workflow-idempotent-start-refused — a start repeating an idempotency key the app used is refused host:error naming the key and its run, instead of answered with that run.
			if h.variants.Has("workflow-idempotent-start-refused") {
				return nil, invalidArgs(fmt.Sprintf("The idempotency key %q was used by run %s.", clip(idem, 100), r.id))
			}
			return r.snapshotLocked(), nil
		}
	}
	if len(w.runs) >= maxWorkflowRuns {
		return nil, invalidArgs("Too many workflow runs; finish some first.")
	}
	w.seq++
	r := &workflowRun{id: fmt.Sprintf("run-%d", w.seq), appID: l.appID, version: l.version, def: def, l: l,
		input: input, idem: idem, status: runRunning, current: def.states[0].key}
	w.runs[r.id] = r
	if badInput != nil {
		r.status, r.reason = runFailed, badInput.message
		return r.snapshotLocked(), nil
	}
	go h.advance(r, r.epoch)
	return r.snapshotLocked(), nil
}

// keyedLocked is the run of app's workflow key that a start with the
// idempotency key idem repeats, if any (001 Minimum contract: the start
// "includes app id, entry key, idempotency key").
func (w *workflowRuns) keyedLocked(app, key, idem string, input json.RawMessage, faults FaultSet) *workflowRun {
	for _, r := range w.runs {
		// fault: workflow-idempotency-across-apps — a start's idempotency key is matched across apps: another app's run with the same key is answered.
		// fault: workflow-idempotency-across-workflows — a start's idempotency key is matched across the app's workflows: a start of another workflow reusing the key is answered with the first workflow's run.
		if (r.appID != app && !faults.Has("workflow-idempotency-across-apps")) || (r.def.key != key && !faults.Has("workflow-idempotency-across-workflows")) || r.idem != idem {
			continue
		}
		// fault: workflow-idempotency-while-running — a key is held only while its run has not ended: a start repeating the key of a completed run starts another.
		if faults.Has("workflow-idempotency-while-running") && r.status != runRunning && r.status != runWaiting && r.status != runInterrupted {
			continue
		}
		// fault: workflow-idempotency-by-input — a key is held together with the start's input: the same key with another input starts another run.
		if faults.Has("workflow-idempotency-by-input") && !bytes.Equal(r.input, input) {
			continue
		}
		return r
	}
	return nil
}

// workflowOf reads the workflow key of manifest m; workflowTimeouts says
// whether the workflow's own timeoutMs bounds states that set none.
func workflowOf(m map[string]any, key string, workflowTimeouts bool) (workflowDef, bool) {
	list, _ := m["workflows"].([]any)
	for _, item := range list {
		w, _ := item.(map[string]any)
		if w == nil || stringField(w, "key") != key || key == "" {
			continue
		}
		d := workflowDef{key: key}
		d.inputs, _ = w["inputs"].(map[string]any)
		for _, policy := range []string{"recovery", "retryPolicy"} {
			if p, _ := w[policy].(map[string]any); p != nil {
				if n, ok := intField(p, "maxRetries"); ok && n >= 0 {
					d.maxRetries = min(n, 10)
				}
			}
		}
		var workflowTimeout time.Duration
		if n, ok := intField(w, "timeoutMs"); ok && n > 0 && workflowTimeouts {
			workflowTimeout = time.Duration(n) * time.Millisecond
		}
		states, _ := w["states"].([]any)
		for _, si := range states {
			s, _ := si.(map[string]any)
			if s == nil {
				continue
			}
			st := workflowState{key: stringField(s, "key"), kind: stringField(s, "kind"), onError: stringField(s, "onError"),
				onReject: stringField(s, "onReject"), storageKey: stringField(s, "storageKey"), artifactType: stringField(s, "artifactType"),
				timeout: workflowTimeout}
			st.next = stringList(s["next"])
			st.uses = stringList(s["uses"])
			if t, err := time.ParseDuration(stringField(s, "timeout")); err == nil && t > 0 {
				st.timeout = t
			}
			if n, ok := intField(s, "timeoutMs"); ok && n > 0 {
				st.timeout = time.Duration(n) * time.Millisecond
			}
			d.states = append(d.states, st)
		}
		return d, len(d.states) > 0
	}
	return workflowDef{}, false
}

// stringList reads a string or a list of strings.
func stringList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// intField reads an integer member (a YAML int or a numeric string).
func intField(m map[string]any, key string) (int, bool) {
	switch x := m[key].(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	return 0, false
}

// snapshotLocked is what read answers.
func (r *workflowRun) snapshotLocked() map[string]any {
	out := r.output
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	return map[string]any{"runId": r.id, "workflowKey": r.def.key, "status": r.status, "state": r.current,
		"reason": r.reason, "history": slices.Clone(r.history), "artifacts": slices.Clone(r.artifacts), "output": out}
}

func (r *workflowRun) recordLocked(s stateRecord) {
	if len(r.history) < maxRunHistory {
		r.history = append(r.history, s)
	}
}

// goOnLocked moves the run to the first of next and steps on; a run
// whose state names no next ends there.
func (h *Host) goOnLocked(r *workflowRun, next []string) {
	if len(next) == 0 {
		r.status = runCompleted
		return
	}
	r.current = next[0]
	r.status = runRunning
	r.epoch++
	go h.advance(r, r.epoch)
}

// failLocked ends the run failed at state st, or goes to its onError
// state when it names one (the error fallback).
func (h *Host) failLocked(r *workflowRun, st workflowState, reason string) {
	// fault: workflow-error-fallback-ignored — a state's onError target is never taken: the run ends failed at the state.
	if _, ok := r.def.state(st.onError); ok && !h.faults.Has("workflow-error-fallback-ignored") {
		h.goOnLocked(r, []string{st.onError})
		return
	}
	r.status = runFailed
	r.reason = fmt.Sprintf("state %s: %s", st.key, reason)
	// fault: workflow-failure-saves-result — a run that ends failed still saves what it has under its storage-write state's key, though that state never ran.
	if h.faults.Has("workflow-failure-saves-result") {
		for _, later := range r.def.states {
			if later.kind == "storage-write" && later.storageKey != "" {
				_ = h.surf.store(h.storageNamespace(r.l), later.storageKey, json.RawMessage(`{"partial":true}`))
			}
		}
	}
}

// respondLocked takes the app's decision at a human-review state.
func (h *Host) respondLocked(r *workflowRun, decision string) (any, *denial) {
	st, _ := r.def.state(r.current)
	waiting := r.status == runWaiting
	// fault: workflow-review-answered-while-interrupted — a run interrupted at its human review still takes respond and goes on.
	if h.faults.Has("workflow-review-answered-while-interrupted") && r.status == runInterrupted {
		waiting = true
	}
	if !waiting || st.kind != "human-review" {
		return nil, invalidArgs(fmt.Sprintf("Run %s is not waiting for a review.", r.id))
	}
	// fault: workflow-respond-no-decision-approves — a respond naming no decision is taken as an approval.
	if decision == "" && h.faults.Has("workflow-respond-no-decision-approves") {
		decision = "approve"
	}
	switch decision {
	case "approve":
		r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "approved"})
		h.workflowEvidence(r, st)
		h.goOnLocked(r, st.next)
	case "reject":
		r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "rejected"})
		// fault: workflow-reject-leaves-no-evidence — only an approved review is recorded as evidence: a rejected one leaves none.
		if !h.faults.Has("workflow-reject-leaves-no-evidence") {
			h.workflowEvidence(r, st)
		}
		// fault: workflow-reject-continues — a rejection at a human review is taken as an approval.
		if h.faults.Has("workflow-reject-continues") {
			h.goOnLocked(r, st.next)
			break
		}
		if _, ok := r.def.state(st.onReject); ok {
			h.goOnLocked(r, []string{st.onReject})
			break
		}
		r.status = runRejected
		r.reason = fmt.Sprintf("state %s: rejected by the reviewer", st.key)
	default:
		return nil, invalidArgs("A review decision is approve or reject.")
	}
	return r.snapshotLocked(), nil
}

// advance steps the run from its current state until it waits, ends or a
// newer epoch takes over.
func (h *Host) advance(r *workflowRun, epoch int) {
	w := h.workflows
	for {
		w.mu.Lock()
		if r.epoch != epoch || r.status != runRunning {
			w.mu.Unlock()
			return
		}
		st, ok := r.def.state(r.current)
		if !ok {
			r.status, r.reason = runFailed, fmt.Sprintf("no state %q in workflow %s", r.current, r.def.key)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		if !h.runState(r, epoch, st) {
			return
		}
	}
}

// branchTargets is the next of a branch state whose run goes on at one
// target (the first, or under a variant the last); false: the run stopped.
func (h *Host) branchTargets(r *workflowRun, epoch int, st workflowState) ([]string, bool) {
	if len(st.next) < 2 {
		return st.next, true
	}
	switch {
	// fault: workflow-branch-list-unsupported — a branch whose next lists several targets is not understood: the run fails there.
	case h.faults.Has("workflow-branch-list-unsupported"):
		w := h.workflows
		w.mu.Lock()
		defer w.mu.Unlock()
		if r.epoch == epoch {
			r.status, r.reason = runFailed, fmt.Sprintf("state %s: next must name one state", st.key)
		}
		return nil, false
	// fault: workflow-branch-list-as-none — a branch's next is read as a single state key only: a list of targets is no next, and the run completes at the branch.
	case h.faults.Has("workflow-branch-list-as-none"):
		return nil, true
	// fault: workflow-branch-every-target — a branch with several targets runs each of them: every target but the first is carried out on the way to the first.
	case h.faults.Has("workflow-branch-every-target"):
		for _, k := range st.next[1:] {
			if t, ok := r.def.state(k); ok && !h.runState(r, epoch, t) {
				return nil, false
			}
		}
	// variant: workflow-branch-last-target — a branch with several targets goes on at its last target, not its first.
	case h.variants.Has("workflow-branch-last-target"):
		return st.next[len(st.next)-1:], true
	}
	return st.next, true
}

// runState carries out one state; it reports whether the run steps on at
// once (false: it waits, ended, or a newer epoch took over).
func (h *Host) runState(r *workflowRun, epoch int, st workflowState) bool {
	w := h.workflows
	done := func(status string) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		if r.epoch != epoch {
			return false
		}
		r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: status, Attempt: 1})
		if len(st.next) == 0 || st.kind == "end" {
			r.status = runCompleted
			return false
		}
		r.current = st.next[0]
		return true
	}
	switch st.kind {
	case "start", "end":
		return done("completed")
	case "branch":
		// fault: workflow-branch-unsupported — a branch state is not understood: the run fails there.
		if h.faults.Has("workflow-branch-unsupported") {
			w.mu.Lock()
			defer w.mu.Unlock()
			r.status, r.reason = runFailed, fmt.Sprintf("state %s: this host cannot run states of kind branch", st.key)
			return false
		}
		next, ok := h.branchTargets(r, epoch, st)
		if !ok {
			return false
		}
		st.next = next // done steps to st.next[0]
		return done("completed")
	case "human-review", "wait":
		w.mu.Lock()
		defer w.mu.Unlock()
		if r.epoch != epoch {
			return false
		}
		// fault: workflow-review-auto-approved — a human-review state passes at once, without the app's decision.
		if st.kind == "human-review" && len(st.next) > 0 && h.faults.Has("workflow-review-auto-approved") {
			r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "approved"})
			r.current = st.next[0]
			return true
		}
		r.status = runWaiting
		return false
	case "tool-call":
		if missing := h.missingTool(st.uses); missing != "" {
			// fault: workflow-missing-tool-skipped — a tool-call state whose tool the host does not have counts as done.
			if !h.faults.Has("workflow-missing-tool-skipped") {
				w.mu.Lock()
				defer w.mu.Unlock()
				if r.epoch == epoch {
					r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "failed", Attempt: 1, Reason: "tool " + missing + " is not available"})
					h.failLocked(r, st, fmt.Sprintf("the tool %s is not available on this host", missing))
				}
				return false
			}
		}
		h.workflowEvidence(r, st)
		return done("completed")
	case "storage-write":
		key := st.storageKey
		if key == "" {
			key = st.key
		}
		w.mu.Lock()
		value := r.output
		if len(value) == 0 {
			value = r.input
		}
		w.mu.Unlock()
		if len(value) == 0 {
			value = json.RawMessage("null")
		}
		if err := h.surf.store(h.storageNamespace(r.l), key, append(json.RawMessage{}, value...)); err != nil {
			w.mu.Lock()
			defer w.mu.Unlock()
			h.failLocked(r, st, "storage is full")
			return false
		}
		h.workflowEvidence(r, st)
		return done("completed")
	case "artifact-create":
		h.createArtifact(r, st)
		h.workflowEvidence(r, st)
		return done("completed")
	case "agent-task":
		return h.runAgentState(r, epoch, st)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.epoch == epoch {
		r.status, r.reason = runFailed, fmt.Sprintf("state %s: this host cannot run states of kind %q", st.key, st.kind)
	}
	return false
}

// missingTool names the first of uses the host does not have ("" when it
// has them all). A host configured without a tools list has every tool.
func (h *Host) missingTool(uses []string) string {
	cfg, _ := h.config()
	tools, listed := cfg.Available["tools"]
	if !listed {
		return ""
	}
	// fault: workflow-tool-call-first-tool-only — a tool-call state checks only the first tool of its uses.
	if h.faults.Has("workflow-tool-call-first-tool-only") && len(uses) > 1 {
		uses = uses[:1]
	}
	for _, u := range uses {
		if !slices.Contains(tools, u) {
			return u
		}
	}
	return ""
}

// createArtifact records the artifact of an artifact-create state, with
// its provenance.
func (h *Host) createArtifact(r *workflowRun, st workflowState) {
	typ := st.artifactType
	if typ == "" {
		typ = st.key
	}
	w := h.workflows
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := protocol.ArtifactRecord{ArtifactID: fmt.Sprintf("artifact-%s-%s", r.id, st.key), AppID: r.appID, Version: r.version,
		Type: typ, Workflow: r.def.key, RunID: r.id, State: st.key}
	// fault: workflow-artifact-no-provenance — a workflow's artifact is recorded without the release, workflow, run and state that made it.
	if h.faults.Has("workflow-artifact-no-provenance") {
		rec = protocol.ArtifactRecord{ArtifactID: rec.ArtifactID, AppID: r.appID, Type: typ}
	}
	if len(w.artifacts[r.appID]) < maxLogged {
		w.artifacts[r.appID] = append(w.artifacts[r.appID], rec)
	}
	r.artifacts = append(r.artifacts, rec.ArtifactID)
}

// workflowEvidence records evidence of a state that did something.
func (h *Host) workflowEvidence(r *workflowRun, st workflowState) {
	// fault: workflow-no-evidence — the states of a workflow run leave no evidence.
	if h.faults.Has("workflow-no-evidence") {
		return
	}
	h.surf.addEvidence(r.appID, protocol.EvidenceRecord{Kind: "workflow-state", Capability: "lime.workflow", AppID: r.appID,
		Version: r.version, RunID: r.id, State: st.key})
}

// runAgentState runs an agent-task state as App Server turns, one per
// attempt: at most maxRetries + 1 attempts, each bounded by the state's
// timeout.
func (h *Host) runAgentState(r *workflowRun, epoch int, st workflowState) bool {
	w := h.workflows
	attempts := r.def.maxRetries + 1
	// fault: workflow-retry-ignored — a failed state is never tried again, whatever the recovery policy says.
	if h.faults.Has("workflow-retry-ignored") {
		attempts = 1
	}
	// fault: workflow-retry-unbounded — a failed state is tried once more than the recovery policy allows.
	if h.faults.Has("workflow-retry-unbounded") {
		attempts++
	}
	var why string
	for attempt := 1; attempt <= attempts; attempt++ {
		w.mu.Lock()
		// A run host/reset or an interrupt stopped starts no turn: one
		// started now would reach the App Server after the reset.
		if r.epoch != epoch {
			w.mu.Unlock()
			return false
		}
		input, _ := json.Marshal(map[string]any{"workflowKey": r.def.key, "runId": r.id, "state": st.key, "input": r.input})
		w.mu.Unlock()
		link, _, down := h.beginTurn(r.l, taskArgs{Input: input, IdempotencyKey: fmt.Sprintf("%s/%s/%d", r.id, st.key, attempt)})
		var status string
		var output json.RawMessage
		switch {
		case down:
			// fault: workflow-mock-success-when-down — an agent-task state whose App Server is down counts as done, with no output.
			if h.faults.Has("workflow-mock-success-when-down") {
				status = "success"
				break
			}
			status, why = "failed", "the agent runtime is not available"
		case link == nil:
			status, why = "failed", "the agent task was refused"
		default:
			w.mu.Lock()
			if r.epoch != epoch {
				w.mu.Unlock()
				go h.cancelTurn(link)
				return false
			}
			r.turn = link
			w.mu.Unlock()
			status, output, why = h.awaitTurn(r, epoch, link, st.timeout)
			w.mu.Lock()
			if r.turn == link {
				r.turn = nil
			}
			w.mu.Unlock()
		}
		if status == "stale" {
			return false
		}
		w.mu.Lock()
		if r.epoch != epoch {
			w.mu.Unlock()
			return false
		}
		if status == "success" {
			r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: "completed", Attempt: attempt})
			if len(output) > 0 {
				r.output = output
			}
			w.mu.Unlock()
			h.workflowEvidence(r, st)
			w.mu.Lock()
			defer w.mu.Unlock()
			if r.epoch != epoch {
				return false
			}
			if len(st.next) == 0 {
				r.status = runCompleted
				return false
			}
			r.current = st.next[0]
			return true
		}
		r.recordLocked(stateRecord{State: st.key, Kind: st.kind, Status: status, Attempt: attempt, Reason: why})
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.epoch == epoch {
		h.failLocked(r, st, fmt.Sprintf("%s (attempts: %d)", why, attempts))
	}
	return false
}

// awaitTurn waits for the result of the turn t of run r: status success,
// failed, timed-out or stale (the run was interrupted or forgotten), the
// result's output and why it did not succeed.
func (h *Host) awaitTurn(r *workflowRun, epoch int, t *agentTaskLink, limit time.Duration) (status string, output json.RawMessage, why string) {
	if limit <= 0 {
		limit = defaultStateLimit
	}
	// fault: workflow-timeout-ignored — a state's timeout is not applied: the run waits for its agent task however long it takes.
	if h.faults.Has("workflow-timeout-ignored") {
		limit = defaultStateLimit
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	tick := time.NewTicker(workflowPoll)
	defer tick.Stop()
	for {
		timedOut := false
		select {
		case <-t.done:
		case <-tick.C:
		case <-timer.C:
			timedOut = true
		}
		h.agent.mu.Lock()
		res, broken := t.result, t.brokenNotified
		h.agent.mu.Unlock()
		h.workflows.mu.Lock()
		stale := r.epoch != epoch
		h.workflows.mu.Unlock()
		switch {
		case stale:
			return "stale", nil, "interrupted"
		case res != nil && res.Subtype == "success":
			var p struct {
				Output json.RawMessage `json:"output"`
			}
			_ = json.Unmarshal(res.Payload, &p)
			return "success", p.Output, ""
		case res != nil:
			return "failed", nil, "the agent task ended with " + res.Subtype
		case broken:
			return "failed", nil, "the agent runtime stopped before the task finished"
		case timedOut:
			go h.cancelTurn(t)
			return "timed-out", nil, fmt.Sprintf("timed out after %s", limit)
		}
	}
}

// cancelTurn cancels t on the App Server (a timed-out or interrupted
// agent-task state); a failure to do so is not the app's concern.
func (h *Host) cancelTurn(t *agentTaskLink) {
	ctx, cancel := context.WithTimeout(context.Background(), h.agent.callTimeout())
	defer cancel()
	conn, err := h.agent.connection(ctx)
	if err != nil {
		return
	}
	_ = call(ctx, h.agent.callTimeout(), conn, "agentSession/turn/cancel", map[string]any{"sessionId": t.sessionID, "turnId": t.turnID}, nil)
}
