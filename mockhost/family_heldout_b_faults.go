package mockhost

// heldOutBFaults are the survivors of the held-out batch 2026-11-26b
// (mockhost/heldout/2026-11-26b), turned into faults once the specs of
// their families were fixed (its RESULTS.md lists which spec row judges
// each): a second subject for a rule that held for the first, whether a
// second package, app, rollback, route, blocker or transition.
func heldOutBFaults() []Fault {
	return []Fault{
		{Name: "revocation-cache-by-url", Breaks: []string{"VERIFY-REVOCATION-CACHE"},
			Description: "a cached revocation answer is kept per checkUrl, not per package: a package naming the same service gets the first package's \"not revoked\" (held-out b01)"},
		{Name: "bridge-version-string-accepted", Breaks: []string{"BRIDGE-ENVELOPE-CHECKED"},
			Description: "the Host Bridge envelope's version is read loosely: a message with version \"1\", a string, is executed as version 1 (held-out b12)"},
		{Name: "center-shows-first-blocker", Breaks: []string{"CENTER-BLOCKERS"},
			Description: "the app center shows only the first reason an entry is not ready: an entry held back by a capability and a tenant policy shows the capability (held-out b13)"},
		{Name: "zero-retries-taken-as-default", Breaks: []string{"AGENT-STRUCTURED-OUTPUT"},
			Description: "expectedOutput's maxValidationRetries 0 is read as unstated: output failing the schema is retried twice (held-out b14)"},
		{Name: "workflow-idempotency-across-apps", Breaks: []string{"WORKFLOW-RUNS-ISOLATED"},
			Description: "lime.workflow start matches idempotency keys across apps: another app starting the same workflow with the same key is handed this app's run (held-out b16)"},
		{Name: "workflow-review-answered-while-interrupted", Breaks: []string{"WORKFLOW-INTERRUPT-RESUME"},
			Description: "a run interrupted at its human review still takes respond and goes on without resume (held-out b17)"},
		{Name: "app-updates-offers-withdrawn", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "lime.appUpdates check offers the newest release of the app whatever its status: a withdrawn release is named as the update (held-out b19)"},
		{Name: "redaction-skips-lists", Breaks: []string{"AGENT-NO-LEAK"},
			Description: "what the agent runtime says is redacted in its objects' members but not in its lists: a held credential inside a list reaches the app (held-out b20)"},
		{Name: "update-keeps-old-registrations", Breaks: []string{"UPDATE-REGISTERS"},
			Description: "app/update keeps the catalog registrations of the first install: app/list's registered names none of the entries the newer release adds (held-out b05)"},
		{Name: "second-rollback-rolls-forward", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "the release rolled back from stays the rollback target, so a second app/rollback goes forward to it again (held-out b06)"},
		{Name: "update-reenables-disabled-app", Breaks: []string{"APP-DISABLE"},
			Description: "app/update of a disabled app installs the newer release enabled: its entries are ready and launch (held-out b07)"},
		{Name: "entry-readiness-skips-integrity", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "only the app's own readiness hashes the installed copy again; an entry's readiness (what app/launch and the bridge ask) accepts an edited copy (held-out b09)"},
		{Name: "grants-unnamed-app-all-granted", Breaks: []string{"READY-PERMISSIONS"},
			Description: "an app the stated grants do not name is judged as if no grants were stated: its required permissions count as granted (held-out b10)"},
	}
}
