package levels

// agentRequirements are the host duties of the App Server bridge: a host
// carries the app's lime.agent calls into App Server JSON-RPC and projects
// the facts back (Runtime; the App Server side of Desktop P5).
func agentRequirements() []Requirement {
	// The mapping binds a host from the level at which it offers lime.agent
	// (Desktop P2 injects the Capability SDK; docs/decisions.md, "The App
	// Server bridge from the level that offers it"); a host offering none
	// is not-applicable there, and AGENT-OFFERED judges the levels that need it.
	agent := []string{"runtime", "desktop-p2"}
	return []Requirement{
		{ID: "AGENT-OFFERED", BugFamilies: []BugFamily{EveryEntryPoint}, Strength: Must, Levels: []string{"runtime", "desktop-p5"},
			Title:  "A host at Runtime or Desktop P5 offers lime.agent: its hello profile lists it enabled and host/configure takes an App Server to reach",
			Clause: spec(SpecDesktop, "Required desktop host behavior; Desktop levels", "App Server bridge: Host owns the App Server client and projects lime.agent / lime.workflow through Desktop Host IPC into JSON-RPC. ... Desktop P5: Reuse the same contract in Tauri or runtime-backed shells while preserving the App Server JSON-RPC / RuntimeCore fact source.")},
		{ID: "APPSERVER-HANDSHAKE", BugFamilies: []BugFamily{EveryTransition, ChangeBetweenReads}, Strength: Must, Levels: agent,
			Title:  "Every App Server connection of the host, a reconnect and one to the App Server a later host/configure names too, completes initialize (with clientInfo.name) then initialized before any business method; once host/configure names another App Server, no business method goes to the first",
			Clause: spec(SpecDesktop, "Conformance checklist", "App Server transport completes initialize -> initialized before business methods are allowed. ... (001: Every transport connection must handshake first; clientInfo.name is explicitly provided by the host.)")},
		{ID: "AGENT-TASK-MAPPED", BugFamilies: []BugFamily{EveryEntryPoint}, Reading: "Agent task mapping", Strength: Must, Levels: agent,
			Title:  "lime.agent startTask becomes agentSession/start bound to the app and the workspace, then agentSession/turn/start on that session carrying the app's input and idempotency key",
			Clause: spec(SpecRuntime, "App Server bridge profile", "A desktop host that supports agentRuntime.bridge.kind=app-server-json-rpc in app.runtime.yaml must project app-facing capability calls into the current App Server protocol ... agentSession/start: Binds appId, workspaceId, and optional businessObjectRef. agentSession/turn/start: Carries SDK input, attachments, structured output, capabilityId, stream, queue policy, and host options.")},
		{ID: "AGENT-EVENTS-PROJECTED", BugFamilies: []BugFamily{EveryMember}, Reading: "Agent task mapping", Strength: Should, Levels: agent,
			Title:  "Each agentSession/event fact reaches the app, in order, as a lime.agent-task-event.v1 envelope naming the app, task, session and trace, the result last",
			Clause: spec(SpecMain, "Agent task event envelope", "Hosts should project lime.agent.startTask, streamTask, getTask, and subscription updates into a stable event envelope ... schemaVersion, eventId, sequence, type, appId, taskId, traceId, sessionId, at ... The final result must use type: \"result\" and a stable subtype")},
		{ID: "AGENT-RESULT-SUBTYPE", BugFamilies: []BugFamily{EveryMember}, Reading: "Agent task mapping", Strength: Must, Levels: agent,
			Title:  "A task's last event reaching the app is one type result carrying the subtype of the App Server's result, each of the seven the standard lists (success, error_max_turns, error_during_execution, error_max_budget, error_max_structured_output_retries, error_permission_denied, cancelled): never another subtype, none, or a second result",
			Clause: spec(SpecMain, "Agent task event envelope", "The final result must use type: \"result\" and a stable subtype: success Task completed and structured output / evidence is readable. error_max_turns Maximum turns reached. error_during_execution Runtime execution error. error_max_budget Cost or budget limit reached. error_max_structured_output_retries Structured output validation failed after retries. error_permission_denied Permission or policy denied execution. cancelled User or system cancelled the task.")},
		{ID: "AGENT-CANCEL-MAPPED", BugFamilies: []BugFamily{WhoAnswers}, Reading: "Agent task mapping", Strength: Must, Levels: agent,
			Title:  "lime.agent cancelTask becomes agentSession/turn/cancel of the task's session and turn, and the task ends with the App Server's cancelled result, not a success",
			Clause: spec(SpecRuntime, "App Server bridge profile", "A desktop host that supports agentRuntime.bridge.kind=app-server-json-rpc ... must project app-facing capability calls into the current App Server protocol ... Cancel task: agentSession/turn/cancel: Cancels the active turn; apps do not kill processes directly.")},
		{ID: "AGENT-RESUME-CONFIRMED", BugFamilies: []BugFamily{EveryMember, ConfusableIdentity, WhoAnswers}, Reading: "Agent task mapping", Strength: Must, Levels: agent,
			Title:  "A session id the app asks to resume is confirmed with agentSession/read before any turn on it, and one of another workspace, of another app in this workspace, unknown, or whose workspace agentSession/read does not state is refused",
			Clause: spec(SpecRuntime, "App Server bridge profile", "Read recoverable state: agentSession/read: Locally cached session ids must be confirmed by the server and must belong to the current workspace.")},
		{ID: "AGENT-APPROVAL", BugFamilies: []BugFamily{EveryMember, WhoAnswers}, Reading: "Agent task mapping", Strength: Must, Levels: agent,
			Title:  "A runtime approval reaches the app, its decision goes back with agentSession/action/respond, and a tool the tenant policy denies is denied whatever the app decides",
			Clause: spec(SpecMain, "Runtime approval", "Permission evaluation order must be: app manifest allowlist -> readiness -> tenant / workspace policy -> deny rules -> risk policy -> runtime approval -> post-action evidence. Deny wins over allow. (001: agentSession/action/respond: Responds to action.required while preserving policy and evidence.)")},
		{ID: "AGENT-STRUCTURED-OUTPUT", BugFamilies: []BugFamily{RepresentationLimit}, Strength: Should, Levels: agent,
			Title:  "Output that fails the app's JSON Schema is retried at most maxValidationRetries times, then ends as error_max_structured_output_retries; a natural-language summary is never a success",
			Clause: spec(SpecMain, "Structured output", "Hosts / AgentRuntime should validate structured output before artifact or storage write-back. Validation may trigger limited retries; after the limit, return error_max_structured_output_retries and never treat a natural-language summary as a successful patch.")},
		{ID: "AGENT-PROJECTIONS", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint, ConfusableIdentity}, Reading: "Agent task mapping", Strength: Must, Levels: agent,
			Title: "lime.agent listCapabilities, lime.artifacts read and lime.evidence export are answered with what capability/list, artifact/read and evidence/export return, bound to the app and workspace; with the App Server down each is a stable error, never a made-up answer",
			Clause: Clause{Source: SpecText, File: SpecMain, Section: "app.runtime.yaml fixed rules; 002 Conformance checklist",
				Quote: "capability/list, artifact/read, and evidence/export are current entries for capability, artifact, and evidence projection; apps must not bypass them to read host databases or filesystems. ... [ ] agentSession/event, artifact/read, and evidence/export derive from RuntimeCore / services facts, not app UI synthesis."}},
		{ID: "AGENT-NO-LEAK", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads, RepresentationLimit}, Reading: "Credentials in what the agent runtime says", Strength: MustNot, Levels: agent,
			Title: "A credential the host holds (a configured secret or session token) never reaches the app through a task event, a projection or an error message, even when the App Server's facts or answers quote it",
			Clause: Clause{Source: SpecText, File: SpecMain, Section: "Shared host model; Agent Task Runtime Control Plane design goals",
				Quote: "The host must not expose bearer tokens, refresh tokens, provider keys, plaintext secrets, raw billing ledgers, direct database handles, or internal filesystem paths to apps. ... the host remains the only authority for permissions, policy, tools, secrets, evidence, and model routing."}},
		{ID: "AGENT-NO-MOCK-WITHOUT-APP-SERVER", BugFamilies: []BugFamily{EveryMember}, Strength: MustNot, Levels: []string{"capability", "desktop-p2"},
			Title:  "A host with no App Server answers the app's lime.agent startTask and listCapabilities with host:error and no task fact, never a mock, whether or not it offers lime.agent",
			Clause: spec(SpecDesktop, "Electron and Tauri relationship", "When App Server is unavailable, the host returns blocked / host:error; product paths must not fall back to mock success. (Required desktop host behavior: App Server bridge: Host owns the App Server client and projects lime.agent / lime.workflow.)")},
		{ID: "AGENT-TRANSPORT-UNREACHABLE", BugFamilies: []BugFamily{EveryEntryPoint}, Reading: "The App Server's port", Strength: MustNot, Levels: agent,
			Title:  "While the host holds its App Server connection, the app's frame gets nothing through to the App Server's port: neither a fetch nor a WebSocket to it arrives there",
			Clause: spec(SpecMain, "Host Bridge v1", "Apps may only see SDK results, events, and governed projections. They must not see Electron IPC channels, Tauri commands, App Server transport, Rust structs, sidecar paths, or provider API keys. (001 UI runtime: Host Bridge does not expose App Server transport.)")},
		// Projection is Desktop P0's and Installable's work; a host that
		// offers lime.agent holds an App Server there too.
		{ID: "AGENT-NONE-AT-PROJECTION", BugFamilies: []BugFamily{EveryEntryPoint}, Reading: "Agent task mapping", Strength: MustNot, Levels: []string{"installable", "desktop-p0"},
			Title:  "A host that holds an App Server starts no agent session or turn on it while it verifies, projects or checks the readiness of a package declaring an agent entry",
			Clause: spec(SpecMain, "Projection contract", "Projection is deterministic. It compiles the manifest into host catalog objects. Projection does not run agents, call models, execute workers, or access customer data.")},
		{ID: "AGENT-NO-APP-FACTS", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Reading: "Facts the app fabricates", Strength: MustNot, Levels: agent,
			Title:  "A delta, a tool call, an artifact, evidence or a success result the app's frame posts for its running task, as host:event or as a bare task event envelope, never becomes the task's fact: not in the events the app receives, not its result, not an artifact it reads, not evidence it exports",
			Clause: spec(SpecRuntime, "Forbidden paths", "App UI state fabricating successful assistant:delta, tool result, artifact, or evidence events. (000 app.runtime.yaml fixed rules: assistant:delta, tool, approval, artifact, evidence, and terminal status must derive from RuntimeCore facts, not app UI state.)")},
		{ID: "TELEMETRY-NO-CONTENT", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads, WhoAnswers}, Reading: "Telemetry content", Strength: MustNot, Levels: agent,
			Title:  "With telemetry going to the collector the harness plays and content export off, from the first configuration on and once a later host/configure took back an opt-in an earlier one gave, the host exports neither a task's prompt text, nor the user content of its input or of a workflow run's, nor the body of an artifact the app read, in any signal, the app's own call asking for its content to be captured too",
			Clause: spec(SpecMain, "Tool discovery and observability", "Runtime profile events should map to OpenTelemetry spans: agent.task, llm.request, tool.call, approval.request, artifact.materialize, evidence.record, and subagent.run. Prompt text, user content, and artifact bodies are not exported by default; content export must be explicit opt-in.")},
		{ID: "AGENT-FAIL-CLOSED", BugFamilies: []BugFamily{EveryMember, WhoAnswers}, Strength: MustNot, Levels: agent,
			Title:  "With the App Server unreachable, refusing, hanging, answering garbage or dropping mid-turn, the app gets a stable error and never a mock success or a fact the App Server did not send",
			Clause: spec(SpecDesktop, "Electron and Tauri relationship", "When App Server is unavailable, the host returns blocked / host:error; product paths must not fall back to mock success. (001 forbidden paths: App UI state fabricating successful assistant:delta, tool result, artifact, or evidence events.)")},
	}
}
