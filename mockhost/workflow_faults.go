package mockhost

// workflowFaults are the faults of the workflow runtime (workflows.go).
func workflowFaults() []Fault {
	return []Fault{
		{Name: "workflow-timeout-state-only", Breaks: []string{"WORKFLOW-TIMEOUT"},
			Description: "the workflow's own timeoutMs is never read: a state that sets no timeout of its own runs unbounded"},
		{Name: "workflow-error-fallback-ignored", Breaks: []string{"WORKFLOW-ERROR-FALLBACK"},
			Description: "a state that fails for good ends the run failed though its onError names a fallback state"},
		{Name: "workflow-idempotency-ignored", Breaks: []string{"WORKFLOW-IDEMPOTENT-START"},
			Description: "a start's idempotency key is not read: a start repeating the key of a run starts a second run"},
		{Name: "workflow-idempotency-while-running", Breaks: []string{"WORKFLOW-IDEMPOTENT-START"},
			Description: "an idempotency key is held only while its run has not ended: repeated after the run completed, it starts a second run"},
		{Name: "workflow-idempotency-by-input", Breaks: []string{"WORKFLOW-IDEMPOTENT-START"},
			Description: "an idempotency key is held together with the start's input: the same key with another input starts a second run"},
		{Name: "workflow-branch-unsupported", Breaks: []string{"WORKFLOW-STATE-KINDS"},
			Description: "a branch state is not understood: a run fails when it reaches one"},
		{Name: "workflow-branch-list-unsupported", Breaks: []string{"WORKFLOW-STATE-KINDS"},
			Description: "a branch whose next lists several targets is not understood: the run fails there"},
		{Name: "workflow-branch-list-as-none", Breaks: []string{"WORKFLOW-STATE-KINDS"},
			Description: "a branch's next is read as one state key only: a list of targets counts as no next, and the run completes at the branch having run none"},
		{Name: "workflow-branch-every-target", Breaks: []string{"WORKFLOW-STATE-KINDS"},
			Description: "a branch with several targets runs each of them in turn: both storage writes happen"},
		{Name: "workflow-review-auto-approved", Breaks: []string{"WORKFLOW-HUMAN-REVIEW"},
			Description: "a human-review state passes at once: the storage write and the artifact after it happen before anybody decided"},
		{Name: "workflow-reject-continues", Breaks: []string{"WORKFLOW-HUMAN-REVIEW"},
			Description: "a rejection at a human review is taken as an approval: what comes after the review happens anyway"},
		{Name: "workflow-interrupt-ignored", Breaks: []string{"WORKFLOW-INTERRUPT-RESUME"},
			Description: "interrupt is answered as done, but the run goes on: a signal meanwhile still ends it"},
		{Name: "workflow-resume-from-start", Breaks: []string{"WORKFLOW-INTERRUPT-RESUME"},
			Description: "resume starts the run again from its first state: its agent task runs twice and its review is asked again"},
		{Name: "workflow-retry-ignored", Breaks: []string{"WORKFLOW-RETRY-POLICY"},
			Description: "a failed state is never tried again: a run whose agent task fails once fails, whatever recovery.maxRetries allows"},
		{Name: "workflow-retry-unbounded", Breaks: []string{"WORKFLOW-RETRY-POLICY"},
			Description: "a failed state is tried once more than recovery.maxRetries allows"},
		{Name: "workflow-timeout-ignored", Breaks: []string{"WORKFLOW-TIMEOUT"},
			Description: "a state's timeout is not applied: the run waits for a hanging agent task for minutes"},
		{Name: "workflow-mock-success-when-down", Breaks: []string{"WORKFLOW-FAILS-CLOSED"},
			Description: "an agent-task state whose App Server is down counts as done, and the run goes on to write and publish"},
		{Name: "workflow-failure-saves-result", Breaks: []string{"WORKFLOW-FAILS-CLOSED"},
			Description: "a run that ends failed still saves a partial result under its storage-write state's key, though that state never ran (its history says failed)"},
		{Name: "workflow-missing-tool-skipped", Breaks: []string{"WORKFLOW-FAILS-CLOSED"},
			Description: "a tool-call state whose tool the host does not have counts as done"},
		{Name: "workflow-runs-shared", Breaks: []string{"WORKFLOW-RUNS-ISOLATED"},
			Description: "a workflow run is found by its id alone: another app reads it, and could answer its review"},
		{Name: "workflow-artifact-no-provenance", Breaks: []string{"WORKFLOW-OUTPUTS-RECORDED"},
			Description: "a workflow's artifact is recorded without the release, workflow, run and state that made it"},
		{Name: "workflow-no-evidence", Breaks: []string{"WORKFLOW-OUTPUTS-RECORDED"},
			Description: "the states of a workflow run leave no evidence"},
		{Name: "workflow-input-unchecked", Breaks: []string{"SDK-TYPED-WORKFLOW-INPUT"},
			Description: "a workflow's declared inputs are not checked: a start whose input lacks or mistypes a member runs"},
		{Name: "workflow-input-required-only", Breaks: []string{"SDK-TYPED-WORKFLOW-INPUT"},
			Description: "only the presence of the declared inputs' required members is checked: a member of the wrong type or below its minimum runs"},
	}
}

// evalFaults are the faults of app/evals (evals.go).
func evalFaults() []Fault {
	return []Fault{
		{Name: "evals-always-pass", Breaks: []string{"EVAL-REGRESSION-RUN"},
			Description: "every regression eval is reported passed, each case held, whatever its run ended in"},
		{Name: "evals-threshold-ignored", Breaks: []string{"EVAL-REGRESSION-RUN"},
			Description: "an eval passes when any of its cases held, whatever its threshold"},
		{Name: "evals-threshold-exclusive", Breaks: []string{"EVAL-REGRESSION-RUN"},
			Description: "an eval passes only when its score is above its threshold: one whose score reaches it exactly is reported failed"},
		{Name: "evals-provenance-without-hashes", Breaks: []string{"EVAL-PROVENANCE"},
			Description: "an eval result's provenance names the app and release but not the package and manifest hashes"},
	}
}
