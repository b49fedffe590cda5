package mockhost

// heldOutJFaults are the survivors of the held-out batch 2026-11-29b
// (mockhost/heldout/2026-11-29b), turned into faults once the specs of their
// families were fixed.
func heldOutJFaults() []Fault {
	return []Fault{
		{Name: "rollback-target-by-prefix", Breaks: []string{"ROLLBACK-TO-TARGET"},
			Description: "app/rollback finds the release a rollbackTarget names by prefix: with 1.0.1 then 1.0.10 installed before a release naming 1.0.1, the app goes back to 1.0.10 (held-out j01)"},
		{Name: "secret-binding-key-folded", Breaks: []string{"PROTO-SECRET-KEY-EXACT"},
			Description: "app/secret keeps a binding under its slot's name in lower case: a slot the app names with capitals stays unconfigured after the user bound it (held-out j03)"},
		{Name: "workflow-idempotency-key-folded", Breaks: []string{"WORKFLOW-IDEMPOTENT-START"},
			Description: "lime.workflow start looks idempotency keys up in lower case, taking them for UUIDs: a start whose key differs from a used one only in case is answered with that key's run (held-out j10)"},
		{Name: "evidence-version-from-app", Breaks: []string{"EVIDENCE-LOCAL-RECORD"},
			Description: "lime.evidence record names in its version the release the app's arguments claim, when they claim one, not the release of the launch that made it (held-out j12)"},
		{Name: "workflow-permission-unchecked", Breaks: []string{"WORKFLOW-PERMISSION-INTERCEPTED"},
			Description: "the call-time permission gate has no scope for lime.workflow: a start or respond runs though the app's permission of scope workflow was never granted, while its storage writes are refused (held-out j11)"},
		{Name: "call-gate-passes-needs-setup", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "the readiness gate of a bridge call stops only blocked and disabled entries: an open entry that fell to needs-setup (a secret it requires withdrawn) keeps running its calls, though app/launch refuses it (held-out j14)"},
		{Name: "request-login-answers-token", Breaks: []string{"CLOUD-SESSION-NO-TOKEN"},
			Description: "lime.cloudSession requestLogin {force: true} answers the refreshed session with the cloud session's bearer token, though getSnapshot keeps it out and no token was asked for (held-out j16)"},
		{Name: "rollback-keeps-newer-registrations", Breaks: []string{"ROLLBACK-RETIRES-ENTRIES"},
			Description: "app/rollback brings the older package back but keeps the newer release's catalog registrations: app/list shows the older release registering the entries only the newer one had (held-out j15)"},
		{Name: "reset-keeps-theme-and-locale", Breaks: []string{"PROTO-RESET"},
			Description: "host/reset forgets apps, surfaces and app storage but keeps the theme and locale host/set changed: an app installed after it is answered in the session before's locale and theme (held-out j17)"},
		{Name: "backend-answer-without-id", Breaks: []string{"PROTO-BACKEND-RELAY"},
			Description: "app/backend takes a line of the backend's stdout that carries no id for the answer to the request in flight: a notification the backend writes first is relayed as the result (held-out j13)"},
		{Name: "approval-tool-named-by-app", Breaks: []string{"AGENT-APPROVAL"},
			Description: "lime.agent respondApproval judges the tenant policy on the tool the app's decision names, not the one the App Server asked approval for: an allow naming an allowed tool goes through for a tool the tenant denies (held-out j20)"},
	}
}
