package mockhost

// heldOutMFaults are the survivors of the held-out batch 2026-11-29e
// (mockhost/heldout/2026-11-29e), turned into faults once the specs of
// their families were fixed.
func heldOutMFaults() []Fault {
	return []Fault{
		{Name: "knowledge-bound-across-apps", Breaks: []string{"READY-REQUIRED-TIER"},
			Description: "a knowledge pack bound to one app's template counts for every app's knowledge_bound check of that key: the second app of a pair is ready with nothing bound to it (held-out m04)"},
		{Name: "center-readiness-kept", Breaks: []string{"CENTER-BLOCKERS"},
			Description: "the app center judges each entry once and keeps it: an entry tenant policy denies after the center was first opened is still shown as it was (held-out m06)"},
		{Name: "set-pushes-theme-only", Breaks: []string{"BRIDGE-VISIBILITY"},
			Description: "a host/set that changes the theme and the visibility at once pushes theme:update only: the app never hears it was hidden (held-out m07)"},
		{Name: "set-pushes-visibility-only", Breaks: []string{"BRIDGE-THEME-UPDATE"},
			Description: "a host/set that changes the theme and names the visibility at once pushes host:visibility only: the app keeps the old theme (held-out m07, the other order)"},
		{Name: "snapshot-of-envelope-entry", Breaks: []string{"BRIDGE-SNAPSHOT"},
			Description: "host:getSnapshot answers with the snapshot of the entry the message's envelope names, not of the entry the host mounted (held-out m08)"},
		{Name: "backend-silence-as-success", Breaks: []string{"PROTO-BACKEND-RELAY"},
			Description: "app/backend answers a null result when the running backend says nothing within the call timeout, instead of -32603 (held-out m10)"},
		{Name: "appserver-change-keeps-old-connection", Breaks: []string{"APPSERVER-HANDSHAKE"},
			Description: "a host/configure naming another App Server on the same transport keeps the connection to the first: the next task still goes there (held-out m11)"},
		{Name: "telemetry-app-asks-content", Breaks: []string{"TELEMETRY-NO-CONTENT"},
			Description: "an artifact.materialize span carries the artifact's body when the app's read asks captureContent, without the user's opt-in (held-out m12)"},
		{Name: "billing-gate-per-entry-only", Breaks: []string{"BILLING-BLOCKS"},
			Description: "while the quota is exhausted, the whole app's readiness lists an entry that needs lime.billing as ready; only readiness asked for the entry is gated (held-out m17)"},
		{Name: "frame-partition-by-namespace", Breaks: []string{"BRIDGE-STORAGE-PARTITIONED"},
			Description: "each app's frame origin (its browser storage partition) is keyed by the storage namespace it declares, not its id: two apps declaring one namespace share localStorage, IndexedDB and cookies (held-out m20)"},
	}
}
