package mockhost

// heldOutDFaults are the survivors of the held-out batch 2026-11-27
// (mockhost/heldout/2026-11-27), turned into faults once the specs of
// their families were fixed: what host/configure replaces, a profile entry
// stating no version, and every member of a user-state call's refusals.
func heldOutDFaults() []Fault {
	return []Fault{
		{Name: "configure-keeps-clock", Breaks: []string{"READY-END-OF-LIFE", "READY-DEPRECATED"},
			Description: "a host/configure naming no clock keeps the clock of the one before, not the wall clock: lifecycle dates are judged against a stale now (held-out d01)"},
		{Name: "empty-version-keeps-hello", Breaks: []string{"VERIFY-COMPATIBILITY"},
			Description: "a capability host/configure offers with version \"\" keeps the hello's version, so it meets version ranges (held-out d03)"},
		{Name: "rollback-noop-ok", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "app/rollback of an app with no earlier release answers ok, the app on the release it runs (held-out d08)"},
		{Name: "workflow-absent-input-unchecked", Breaks: []string{"SDK-TYPED-WORKFLOW-INPUT"},
			Description: "lime.workflow start with no input is not checked against the workflow's declared inputs: the run starts and completes (held-out d09)"},
		{Name: "agent-turn-timeout-taken-as-started", Breaks: []string{"AGENT-FAIL-CLOSED"},
			Description: "an agentSession/turn/start the App Server does not answer in time is taken as started: startTask is answered with a task, no host:error (held-out d12)"},
		{Name: "navigate-route-unchecked-with-entry", Breaks: []string{"BRIDGE-NAVIGATE"},
			Description: "host:navigate naming an entry of the app takes its route unchecked: {entryKey: main, route: //evil.example/x} is allowed (held-out d13)"},
		{Name: "bridge-protocol-by-prefix", Breaks: []string{"BRIDGE-ENVELOPE-CHECKED"},
			Description: "the envelope's protocol is matched by prefix: a message of lime.agentApp.bridge_2, or any name beginning with the bridge's, is executed (held-out d14)"},
		{Name: "secret-status-ignores-binding", Breaks: []string{"UPDATE-KEEPS-SECRET-BINDINGS"},
			Description: "lime.secrets status reads host/configure's secrets only: a slot the user bound with app/secret answers not configured, though readiness counts it (held-out d16)"},
		{Name: "withdrawn-installed-by-channel", Breaks: []string{"REGISTRY-WITHDRAWN"},
			Description: "app/install by channel trusts the channel to name a current release: a channel resolving to a withdrawn release installs it (held-out d17)"},
		{Name: "projection-marks-configured-secrets", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "package/project marks each secret slot configured or not from host/configure's secrets: the projection loads secrets and changes with them (held-out d18)"},
		{Name: "workspace-path-backslash", Breaks: []string{"PROTO-USER-STATE-EXACT"},
			Description: "app/file takes a backslash as an ordinary file-name character: a path with one is written, not refused (held-out d05)"},
	}
}
