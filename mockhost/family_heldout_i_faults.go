package mockhost

// heldOutIFaults are the survivors of the held-out batch 2026-11-29
// (mockhost/heldout/2026-11-29), turned into faults once the specs of their
// families were fixed.
func heldOutIFaults() []Fault {
	return []Fault{
		{Name: "reset-keeps-revocation-cache", Breaks: []string{"VERIFY-REVOCATION-CACHE"},
			Description: "host/reset forgets apps and configuration but keeps the revocation answers it cached: a package revoked since its last check still verifies in the fresh host while the answer's cacheSeconds last (held-out i01)"},
		{Name: "review-compatibility-from-hello", Breaks: []string{"INSTALL-REVIEW"},
			Description: "the install review judges version compatibility against the hello's capability profile, not the one host/configure set: a capability configured below the package's range reviews as compatible, though app/install refuses it (held-out i02)"},
		{Name: "release-compatibility-lime-unread", Breaks: []string{"REGISTRY-METADATA-FIRST"},
			Description: "only the capability ranges of a registry release's compatibility are read before the download: a release whose host version range (lime.appRuntime) excludes the host is fetched, and refused only from its manifest (held-out i03)"},
		{Name: "health-critical-absent-read-as-false", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "a health check that does not state critical is read as critical: false: a failing startup check written without it only degrades the app (ready-degraded) instead of blocking it (held-out i08)"},
		{Name: "disabled-entries-keep-status", Breaks: []string{"APP-DISABLE"},
			Description: "app/readiness of a disabled app is disabled, but its entries list keeps each entry's own status (ready) beside the disabled blocker: a launcher reading the entries shows them ready (held-out i09)"},
		{Name: "storage-write-lands-when-permission-denied", Breaks: []string{"BRIDGE-PERMISSION-INTERCEPTED"},
			Description: "a lime.storage set the permission gate stops is answered host:error, but its write-behind path stores the value all the same: once the permission is granted, a get reads it (held-out i10)"},
		{Name: "call-gate-readiness-error-passes", Breaks: []string{"UNINSTALL-APP-STORAGE"},
			Description: "the bridge's readiness gate takes a readiness it cannot have (the app is no longer installed) as no objection: a surface left open across an uninstall still runs lime.storage set, and a reinstall finds the value (held-out i11)"},
		{Name: "snapshot-locale-from-configure", Breaks: []string{"BRIDGE-LOCALE"},
			Description: "the snapshot builder reads the locale host/configure gave, not the user's change: after host/set changes the locale, lime.ui getLocale names the new one and every host:snapshot the old one (held-out i12)"},
		{Name: "approval-defer-sent-as-allow", Breaks: []string{"AGENT-APPROVAL"},
			Description: "lime.agent respondApproval tells the App Server yes or no: a defer goes to it as allow, and the tool runs without anyone approving it (held-out i14)"},
		{Name: "workflow-reject-leaves-no-evidence", Breaks: []string{"WORKFLOW-OUTPUTS-RECORDED"},
			Description: "a workflow run's human review leaves an evidence record when the app approves it and none when it rejects it (held-out i15)"},
		{Name: "snapshot-carries-billing-record", Breaks: []string{"BRIDGE-NO-LEAK"},
			Description: "host:snapshot carries the tenant's billing record as Lime Cloud gave it, raw ledger and payment credential included, though lime.billing getStatus leaves them out (held-out i18)"},
		{Name: "migration-recorded-before-run", Breaks: []string{"READY-MIGRATIONS"},
			Description: "a storage migration is written into the host's ledger before it runs and stays there when it fails: app/migrate answers the failure, yet readiness answers ready (held-out i17)"},
		{Name: "export-includes-secret-bindings", Breaks: []string{"UNINSTALL-SECRET-BINDINGS"},
			Description: "export then delete writes the secrets the user bound to the app, in plain text, into the export file (held-out i19)"},
		{Name: "evals-ignore-named-entry", Breaks: []string{"EVAL-REGRESSION-RUN"},
			Description: "app/evals runs a regression eval's cases as the first entry naming its workflow, reading the entry the eval names only when no entry names it: a case meant for an entry the policy denies runs as another and completes (held-out i16)"},
		{Name: "workflow-span-carries-input", Breaks: []string{"TELEMETRY-NO-CONTENT"},
			Description: "each lime.workflow start exports a workflow.run span carrying the run's input as a plain attribute, whether or not the user opted in to content export (held-out i20)"},
	}
}
