package protocol

// Regression evals (docs/host-control-protocol.md, "app/evals"): spec 000
// Conformance levels, Executable: "Host can run ... regression evals";
// Manifest fields, evals: "Quality gates, readiness checks, regression
// evals, and human review rules"; Runtime contract 9: "Preserve app
// provenance on tasks, tool calls, artifacts, evals ...". How an eval is
// written and run is the harness's reading (docs/decisions.md "Regression
// evals").

// MethodEvals has the host run an installed app's regression evals and
// report each one's result.
const MethodEvals = "app/evals"

// Eval case statuses besides a run's own (completed, failed, rejected,
// waiting): the host refused to start the case's run.
const EvalRefused = "refused"

// EvalsResult is app/evals' answer: one result per regression eval the
// app declares, in manifest order.
type EvalsResult struct {
	Evals []EvalResult `json:"evals"`
}

// EvalResult is one eval's result: passed when the share of its cases
// that held (score) reaches its threshold.
type EvalResult struct {
	Key        string         `json:"key"`
	Kind       string         `json:"kind"`
	Passed     bool           `json:"passed"`
	Score      float64        `json:"score"`
	Threshold  float64        `json:"threshold"`
	Cases      []EvalCase     `json:"cases"`
	Provenance map[string]any `json:"provenance"`
}

// EvalCase is one case of an eval: the status its run ended in and
// whether that is the status the case expects.
type EvalCase struct {
	Key    string `json:"key"`
	Passed bool   `json:"passed"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}
