package levels

// workflowRequirements are the host duties of a workflow runtime: running an
// app's declared state machines (spec 000 Workflow descriptor and its
// enhancements; spec 001 actors: "Workflow runtime: Execute approved
// workflow steps with trace, retry, cancel, and evidence"). The texts name
// lime.workflow.start and no other method, so how a run is started, read,
// answered, interrupted and resumed is the harness's reading (docs/
// decisions.md "Workflow runtime"; docs/host-control-protocol.md "Bridge
// payloads").
func workflowRequirements() []Requirement {
	const reading = "Workflow runtime"
	// 002's App Server bridge row: the host "projects lime.agent /
	// lime.workflow" through the App Server; on the desktop ladder the
	// workflows count where the App Server bridge does (Desktop P5).
	rt := []string{"runtime", "desktop-p5"}
	return []Requirement{
		{ID: "WORKFLOW-STATE-KINDS", BugFamilies: []BugFamily{EveryMember}, Reading: reading, Strength: Should, Levels: rt,
			Title:  "A workflow whose states use every kind the standard lists (agent-task, tool-call, branch, human-review, storage-write, artifact-create, wait, end) runs from its first state to its end, each state once, in the order its next members give; a branch whose next lists several targets goes on at exactly one of them",
			Clause: spec(SpecMain, "Workflow descriptor", "A workflow is a resumable business state machine, not prompt text. ... Hosts should understand at least agent-task, tool-call, human-review, storage-write, artifact-create, branch, wait, and end.")},
		{ID: "WORKFLOW-HUMAN-REVIEW", BugFamilies: []BugFamily{EveryMember, WhoAnswers}, Reading: reading, Strength: Must, Levels: rt,
			Title:  "A run stops at a human-review state until the app decides: nothing after the review (its storage write, its artifact) happens before an approval, a signal, or an approval naming another run, and nothing of it happens after a rejection",
			Clause: spec(SpecRuntime, "Minimum contract", "The final result is structured data, not only chat text. The app writes it back through lime.storage, lime.artifacts, and lime.evidence after policy checks and any required human review.")},
		{ID: "WORKFLOW-INTERRUPT-RESUME", BugFamilies: []BugFamily{EveryTransition}, Reading: reading, Strength: Must, Levels: rt,
			Title:  "An interrupted run stays where it was, whatever happens meanwhile, and a resumed run goes on from its checkpoint: states it finished are not run again, an agent task cut short is started anew on the App Server (cancelling the old turn is the host's choice)",
			Clause: spec(SpecMain, "Workflow descriptor; Workflow descriptor enhancements", "Long-running workflows must support interrupt, resume, retry policy, timeout, artifact outputs, and evidence recording. ... recovery is required: hosts implement checkpoint resumption, timeout retry, and error fallback.")},
		{ID: "WORKFLOW-RETRY-POLICY", BugFamilies: []BugFamily{RepresentationLimit}, Reading: reading, Strength: Must, Levels: rt,
			Title:  "A state that fails is tried again at most recovery.maxRetries times: a run whose agent task fails that often still completes, one whose task fails once more ends failed after exactly maxRetries + 1 attempts, never completed",
			Clause: spec(SpecMain, "Workflow descriptor; Workflow descriptor enhancements", "Long-running workflows must support interrupt, resume, retry policy ... recovery: onTimeout ... onError ... maxRetries: 3 ... recovery is required: hosts implement checkpoint resumption, timeout retry, and error fallback.")},
		{ID: "WORKFLOW-TIMEOUT", BugFamilies: []BugFamily{EveryMember}, Reading: reading, Strength: Must, Levels: rt,
			Title:  "A state that outlives its timeout (its timeout duration, its timeoutMs, or the workflow's timeoutMs) is ended and retried per the recovery policy; when its attempts are spent the run ends failed, naming the timed-out state, and nothing after it happens",
			Clause: spec(SpecMain, "Workflow descriptor; Workflow descriptor enhancements", "Long-running workflows must support interrupt, resume, retry policy, timeout ... timeout: 60s ... recovery is required: hosts implement checkpoint resumption, timeout retry, and error fallback.")},
		{ID: "WORKFLOW-ERROR-FALLBACK", BugFamilies: []BugFamily{EveryMember}, Reading: reading, Strength: Must, Levels: rt,
			Title:  "A state whose attempts are spent goes on at the state its onError names, not at its next: the run takes the fallback path and is not ended failed at the state",
			Clause: spec(SpecMain, "Workflow descriptor enhancements", "states: ... onError: show_error_and_retry ... recovery is required: hosts implement checkpoint resumption, timeout retry, and error fallback.")},
		{ID: "WORKFLOW-FAILS-CLOSED", BugFamilies: []BugFamily{EveryMember}, Reading: reading, Strength: MustNot, Levels: rt,
			Title:  "A state the host cannot carry out (its App Server is down, its tool is not available) ends the run failed, naming the state: it never counts as done, and no later state (storage write, artifact) runs",
			Clause: spec(SpecRuntime, "UI runtime; App Server bridge profile, Forbidden paths", "Blocked calls return host:error; mock results must not masquerade as success. ... Product paths falling back to mock success when App Server is unavailable.")},
		{ID: "WORKFLOW-RUNS-ISOLATED", BugFamilies: []BugFamily{EveryEntryPoint, WhoAnswers, ConfusableIdentity}, Reading: reading, Strength: MustNot, Levels: []string{"runtime", "desktop-p4"},
			Title:  "One app cannot read or drive another app's workflow run: lime.workflow read and respond of a run id another app started are refused, with nothing of the run in the answer",
			Clause: spec(SpecMain, "Storage and data boundary", "Apps can access only their namespace unless the user explicitly grants cross-app or workspace data.")},
		{ID: "WORKFLOW-PERMISSION-INTERCEPTED", BugFamilies: []BugFamily{EveryEntryPoint, ChangeBetweenReads}, Reading: "Permissions at call time", Strength: Must, Levels: rt,
			Title:  "A lime.workflow call that acts on a run (start, respond) while the app's declared permission of scope workflow is not granted gets host:error naming the permission and moves no run; granted again, a start runs",
			Clause: spec(SpecMain, "Conformance levels", "Capability: Host injects SDK capability handles according to manifest and intercepts permissions. (000 fields: permissions: Permission requests that the host must authorize before install or runtime; the manifest schema's permission scopes include workflow.)")},
		// 001 names the idempotency key among what a start carries and says
		// nothing of what a host does with it: the harness reads the key's
		// common meaning, a should (docs/decisions.md "Workflow runtime").
		{ID: "WORKFLOW-IDEMPOTENT-START", BugFamilies: []BugFamily{EveryTransition, ChangeBetweenReads, ConfusableIdentity}, Reading: reading, Strength: Should, Levels: rt,
			Title:  "A second lime.workflow start of the same workflow with an idempotency key the app already used starts no second run, whether the first run still waits or has completed and whatever input the second start carries: it is answered with the first run (or refused naming the key), while a start with a new key starts a run of its own",
			Clause: spec(SpecRuntime, "Minimum contract", "The app starts work with lime.agent.startTask() or lime.workflow.start() and includes app id, entry key, idempotency key, business context, requested tools, knowledge bindings, and expected output schema.")},
		{ID: "WORKFLOW-OUTPUTS-RECORDED", BugFamilies: []BugFamily{EveryMember}, Reading: reading, Strength: Must, Levels: rt,
			Title:  "A completed run leaves its artifact with provenance (app, release, workflow, run, state) and evidence of each state that did something (agent task, tool call, review, storage write, artifact), all naming the run; a review the app rejected leaves its evidence too",
			Clause: spec(SpecMain, "Workflow descriptor", "Long-running workflows must support interrupt, resume, retry policy, timeout, artifact outputs, and evidence recording.")},
		// Typed SDK calls: only the generic ladder's Executable level asks
		// for them ("typed workflows, typed SDK calls"); no desktop level's
		// text does.
		{ID: "SDK-TYPED-WORKFLOW-INPUT", BugFamilies: []BugFamily{EveryMember, RepresentationLimit, ChangeBetweenReads}, Reading: "Typed SDK calls", Strength: Should, Levels: []string{"executable"},
			Title:  "lime.workflow start of a workflow that declares its inputs as a JSON Schema runs an input that meets them, and refuses, naming the member and starting no run, one that misses a required member, gives a member the wrong type or goes below a minimum",
			Clause: spec(SpecMain, "Capability SDK; Conformance levels", "The SDK is a typed contract, not only a list of capability names. Compatible hosts should stabilize at least these call semantics: ... const run = await lime.workflow.start({ key: 'content_calendar', input }) ... Executable: Host can run typed workflows, typed SDK calls, overlays, readiness, evidence, and regression evals.")},
		// Regression evals: run through app/evals, the harness's method
		// (the texts give no eval format and no way to ask for a run).
		{ID: "EVAL-REGRESSION-RUN", BugFamilies: []BugFamily{EveryMember, ConfusableIdentity, RepresentationLimit}, Reading: "Regression evals", Strength: Should, Levels: []string{"executable"},
			Title:  "app/evals runs every regression eval the app declares and reports each case's outcome: an eval whose cases all end as they expect passes, one with a case that does not fails, naming that case, when its score is below its threshold, and passes when the score reaches it",
			Clause: spec(SpecMain, "Conformance levels; Manifest fields", "Executable: Host can run typed workflows, typed SDK calls, overlays, readiness, evidence, and regression evals. ... evals: Quality gates, readiness checks, regression evals, and human review rules.")},
		{ID: "EVAL-PROVENANCE", BugFamilies: []BugFamily{EveryMember}, Reading: "Regression evals", Strength: Must, Levels: []string{"executable"},
			Title:  "Every eval result app/evals reports carries the provenance of the installed release: app name, version, packageHash, manifestHash, standard and its version",
			Clause: spec(SpecMain, "Runtime contract", "Compatible hosts must: ... 9. Preserve app provenance on tasks, tool calls, artifacts, evals, storage migrations, and evidence records. ... appName + appVersion + packageHash + manifestHash + standard + standardVersion")},
	}
}
