package mockhost

// heldOutEFaults are the survivors of the held-out batch 2026-11-27b
// (mockhost/heldout/2026-11-27b), turned into faults once the specs of
// their families were fixed: what a control method answers beside its main
// effect, what host/configure replaces, and every member of a list the
// harness plants.
func heldOutEFaults() []Fault {
	return []Fault{
		{Name: "export-with-keep-data", Breaks: []string{"UNINSTALL-EXPORT"},
			Description: "app/uninstall with exportTo and keepData true writes the export and keeps the data, answering ok instead of -32602 naming exportTo (held-out e01)"},
		{Name: "state-change-repeat-refused", Breaks: []string{"APP-DISABLE"},
			Description: "app/disable of a disabled app, or app/enable of an enabled one, is refused with -32602 instead of answering the state (held-out e02)"},
		{Name: "rolled-back-from-target", Breaks: []string{"ROLLBACK-TO-TARGET"},
			Description: "app/rollback answers rolledBackFrom with the release it went to, not the one it left (held-out e03)"},
		{Name: "verify-echoes-release-hash", Breaks: []string{"VERIFY-PACKAGE-HASH"},
			Description: "package/verify answers the packageHash the release pins instead of the one it computed (held-out e18)"},
		{Name: "configure-keeps-policy", Breaks: []string{"POLICY-INSTALL"},
			Description: "a host/configure naming no policy keeps the tenant policy of the one before: an app it denied stays denied (held-out e20)"},
		{Name: "denied-entries-first-only", Breaks: []string{"READY-POLICY"},
			Description: "tenant policy's deniedEntries is read up to its first key per app: an entry listed second stays ready (held-out e04)"},
		{Name: "clock-offset-dropped", Breaks: []string{"READY-END-OF-LIFE"},
			Description: "host/configure's clock is read as its date and time in UTC, its offset dropped: 03:00+05:00 counts as 03:00Z (held-out e09)"},
		{Name: "readiness-path-by-folder-name", Breaks: []string{"READY-SECRETS"},
			Description: "app/readiness of a path takes an installed app whose folder has the same name for that package and answers its readiness (held-out e17)"},
		{Name: "retained-data-by-prefix", Breaks: []string{"UNINSTALL-APP-STORAGE"},
			Description: "data an uninstall kept is found by the app id it begins with: installing tiny takes what tiny-app kept (held-out e11)"},
		{Name: "file-read-path-unchecked", Breaks: []string{"PROTO-USER-STATE-EXACT"},
			Description: "app/file without content (a read) takes its path as given: ../../x is read outside the workspace, not refused with -32602 (held-out e14)"},
		{Name: "billing-reason-quotes-ledger", Breaks: []string{"BILLING-NO-LEDGER"},
			Description: "with the quota exhausted and no blocked reason of the tenant's, the reason billing blocks (readiness, lime.billing) quotes the raw ledger (held-out e13)"},
		{Name: "workflow-respond-no-decision-approves", Breaks: []string{"WORKFLOW-HUMAN-REVIEW"},
			Description: "lime.workflow respond naming no decision is taken as an approval: the run goes on past its review (held-out e19)"},
		{Name: "workflow-resume-not-interrupted", Breaks: []string{"WORKFLOW-INTERRUPT-RESUME"},
			Description: "lime.workflow resume of a run that is not interrupted (waiting at its review) is answered host:response with the run, not host:error (held-out e10)"},
		{Name: "appserver-null-as-empty-success", Breaks: []string{"AGENT-FAIL-CLOSED"},
			Description: "an App Server answering artifact/read (or another projection read) with null gives the app an empty object as host:response (held-out e16)"},
	}
}
