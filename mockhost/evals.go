package mockhost

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// Regression evals (spec 000 Conformance levels, Executable: "Host can run
// ... regression evals"; Runtime contract 9: "Preserve app provenance on
// ... evals"). The texts give no eval format: in the harness's reading
// (docs/decisions.md "Regression evals") a regression eval of the manifest
// names a workflow of the app and its cases, each an input and the status
// its run must end in (or "refused"). The host runs each case as the app's
// own lime.workflow start would, through the bridge and its gates: no
// package code runs.

// Limits of an eval run.
const (
	maxEvalCases   = 100
	evalBudget     = 4 * time.Second // all cases of one app/evals, within the harness's call timeout (5 s)
	evalCasePoll   = 20 * time.Millisecond
	evalTimedOut   = "timed-out" // a case whose run still ran when the budget was spent
	evalKindRegres = "regression"
)

// evalDef is a regression eval of a manifest.
type evalDef struct {
	Key       string   `json:"key"`
	Kind      string   `json:"kind"`
	Workflow  string   `json:"workflow"`
	Entry     string   `json:"entry"`
	Threshold *float64 `json:"threshold"`
	Cases     []struct {
		Key    string          `json:"key"`
		Input  json.RawMessage `json:"input"`
		Expect string          `json:"expect"`
	} `json:"cases"`
}

// runEvals answers app/evals: every regression eval of the installed app,
// run now, with the provenance of the installed release.
func (h *Host) runEvals(appID string) (protocol.EvalsResult, *jsonrpc2.Error) {
	pk, e := h.installedPackage(appID)
	if e != nil {
		return protocol.EvalsResult{}, e
	}
	raw, err := json.Marshal(pk.Manifest["evals"])
	if err != nil {
		return protocol.EvalsResult{}, rpcError(protocol.CodeInternalError, fmt.Sprintf("encoding the evals of %s: %v", appID, err), nil)
	}
	var defs []evalDef
	_ = json.Unmarshal(raw, &defs) // the manifest was validated at install; an unusable list is no eval
	out := protocol.EvalsResult{Evals: []protocol.EvalResult{}}
	deadline := time.Now().Add(evalBudget)
	for _, d := range defs {
		if d.Kind != evalKindRegres || d.Key == "" {
			continue
		}
		r := protocol.EvalResult{Key: d.Key, Kind: d.Kind, Threshold: 1, Cases: []protocol.EvalCase{}, Provenance: pk.Provenance()}
		if d.Threshold != nil && *d.Threshold >= 0 && *d.Threshold <= 1 {
			r.Threshold = *d.Threshold
		}
		// fault: eval-zero-threshold-ignored — a threshold of 0 is read as none, so the default 1 applies.
		if h.faults.Has("eval-zero-threshold-ignored") && r.Threshold == 0 {
			r.Threshold = 1
		}
		// fault: evals-provenance-without-hashes — an eval result's provenance names the app and release but not the package and manifest hashes.
		if h.faults.Has("evals-provenance-without-hashes") {
			r.Provenance["packageHash"], r.Provenance["manifestHash"] = "", ""
		}
		held := 0
		for i, c := range d.Cases {
			if i == maxEvalCases {
				break
			}
			status, reason := h.runEvalCase(appID, h.evalEntry(pk.Manifest, d), d.Workflow, c.Input, fmt.Sprintf("eval-%s-%d", d.Key, i), deadline)
			ec := protocol.EvalCase{Key: clip(c.Key, 200), Status: status, Passed: status == c.Expect, Reason: clip(reason, 500)}
			if ec.Key == "" {
				ec.Key = fmt.Sprintf("case-%d", i+1)
			}
			if ec.Passed {
				held++
			}
			r.Cases = append(r.Cases, ec)
		}
		if len(r.Cases) > 0 {
			r.Score = float64(held) / float64(len(r.Cases))
		}
		r.Passed = len(r.Cases) > 0 && r.Score >= r.Threshold
		// fault: evals-threshold-exclusive — an eval passes only when its score is above its threshold, not when it reaches it.
		if h.faults.Has("evals-threshold-exclusive") {
			r.Passed = len(r.Cases) > 0 && r.Score > r.Threshold
		}
		// fault: evals-threshold-ignored — an eval passes when any of its cases held, whatever its threshold.
		if h.faults.Has("evals-threshold-ignored") {
			r.Passed = held > 0
		}
		// fault: evals-always-pass — every regression eval is reported passed, each case held, whatever its run ended in.
		if h.faults.Has("evals-always-pass") {
			r.Passed, r.Score = true, 1
			for i := range r.Cases {
				r.Cases[i].Passed = true
			}
		}
		out.Evals = append(out.Evals, r)
	}
	return out, nil
}

// evalEntry is the entry an eval's cases run as: the eval's entry, else
// the first entry naming its workflow, else the first entry.
func (h *Host) evalEntry(m map[string]any, d evalDef) string {
	// fault: evals-ignore-named-entry — the first entry naming the eval's workflow wins over the entry the eval names.
	if d.Entry != "" && !h.faults.Has("evals-ignore-named-entry") {
		return d.Entry
	}
	entries, _ := m["entries"].([]any)
	first := ""
	for _, it := range entries {
		e, _ := it.(map[string]any)
		if first == "" {
			first = stringField(e, "key")
		}
		if stringField(e, "workflow") == d.Workflow {
			return stringField(e, "key")
		}
	}
	if d.Entry != "" {
		return d.Entry
	}
	return first
}

// runEvalCase starts the case's run as the app's entry would and waits
// for it to stop running, until deadline: its status, "refused" with the
// refusal's message, or "timed-out".
func (h *Host) runEvalCase(appID, entry, workflow string, input json.RawMessage, requestID string, deadline time.Time) (string, string) {
	if time.Now().After(deadline) {
		return evalTimedOut, fmt.Sprintf("not run: the evals took more than %s", evalBudget)
	}
	args, err := json.Marshal(map[string]any{"workflowKey": workflow, "input": input})
	if err != nil {
		return protocol.EvalRefused, err.Error()
	}
	res, e := h.invokeAsApp(protocol.InvokeParams{AppID: appID, EntryKey: entry, RequestID: requestID,
		Capability: "lime.workflow", Method: "start", Args: args})
	if e != nil {
		return protocol.EvalRefused, e.Message
	}
	var m hostbridge.Message
	var run struct {
		RunID string `json:"runId"`
	}
	if json.Unmarshal(res.Answer, &m) != nil || m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &run) != nil || run.RunID == "" {
		return protocol.EvalRefused, hostbridge.ErrorOf(m).Message
	}
	for {
		w := h.workflows
		w.mu.Lock()
		status, reason := runFailed, "the run is gone"
		if r, ok := w.runs[run.RunID]; ok {
			status, reason = r.status, r.reason
		}
		w.mu.Unlock()
		if status != runRunning {
			return status, reason
		}
		if time.Now().After(deadline) {
			return evalTimedOut, fmt.Sprintf("run %s still ran after %s", run.RunID, evalBudget)
		}
		time.Sleep(evalCasePoll)
	}
}
