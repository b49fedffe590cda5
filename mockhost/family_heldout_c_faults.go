package mockhost

// heldOutCFaults are the survivors of the held-out batch 2026-11-26c
// (mockhost/heldout/2026-11-26c), turned into faults once the specs of
// their families were fixed: an id or key that only case-folds onto,
// extends or cuts short the right one, a transition a disabled app goes
// through, and a decision made with the wrong call.
func heldOutCFaults() []Fault {
	return []Fault{
		{Name: "update-identity-by-prefix", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "app/update takes a package whose app id begins with the one named as a release of it: bridge-probe is updated with bridge-probe-b's package (held-out c02)"},
		{Name: "rollback-reenables-disabled", Breaks: []string{"APP-DISABLE"},
			Description: "app/rollback rebuilds the app's row from the release it restores, recorded installed: a disabled app comes back enabled (held-out c03)"},
		{Name: "state-change-id-case-folded", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "app/disable and app/enable look an id they do not find up again case-insensitively: disabling BRIDGE-PROBE disables bridge-probe (held-out c04)"},
		{Name: "secret-slot-case-folded", Breaks: []string{"PROTO-SECRET-KEY-EXACT"},
			Description: "app/secret takes a key that only case-folds onto one of the app's slots and binds it under the caller's spelling, answering ok (held-out c05)"},
		{Name: "overlay-key-case-folded", Breaks: []string{"PROTO-OVERLAY-KEY-EXACT"},
			Description: "app/overlay finds the template by a case-insensitive key and keeps the overlay under the caller's spelling, answering ok (held-out c06)"},
		{Name: "bridge-appid-case-folded", Breaks: []string{"BRIDGE-APPID"},
			Description: "the Host Bridge compares the envelope's appId with the launched app case-insensitively: a message naming its own app in capitals is executed (held-out c13)"},
		{Name: "workflow-signal-passes-review", Breaks: []string{"WORKFLOW-HUMAN-REVIEW"},
			Description: "lime.workflow signal wakes a run at whatever state it waits: a signal moves a run past its human review without a decision (held-out c15)"},
		{Name: "agent-resume-other-app-session", Breaks: []string{"AGENT-RESUME-CONFIRMED"},
			Description: "agentSession/read's answer is checked for its workspace only: an app resumes a session another app started in the same workspace (held-out c19)"},
	}
}
