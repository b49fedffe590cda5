package mockhost

// heldOutHFaults are the survivors of the held-out batch 2026-11-28b
// (mockhost/heldout/2026-11-28b), turned into faults once the specs of their
// families were fixed.
func heldOutHFaults() []Fault {
	return []Fault{
		{Name: "permission-scope-covers-access", Breaks: []string{"BRIDGE-PERMISSION-INTERCEPTED", "BRIDGE-PERMISSION-ORDER"},
			Description: "any granted permission of a call's scope lets the call through: with the storage permission that reads granted and the one that writes not, lime.storage set runs (held-out h03)"},
		{Name: "configure-keeps-secrets", Breaks: []string{"READY-SECRETS"},
			Description: "a host/configure naming no secrets keeps the secrets of the configuration before: a required secret no longer configured still counts as configured (held-out h04)"},
		{Name: "export-current-workspace-only", Breaks: []string{"UNINSTALL-EXPORT"},
			Description: "export then delete exports what the app stored in the workspace configured now: what it stored in another workspace is deleted unexported (held-out h05)"},
		{Name: "eval-zero-threshold-ignored", Breaks: []string{"EVAL-REGRESSION-RUN"},
			Description: "a regression eval's threshold of 0 is read as no threshold, so the default 1 applies and an eval accepting any score fails (held-out h06)"},
		{Name: "state-change-retained-app", Breaks: []string{"UNINSTALL-KEEP-DATA"},
			Description: "app/disable and app/enable of an app uninstalled with its data kept answer ok with the state asked for, as if it were still installed, instead of -32004 (held-out h11)"},
		{Name: "update-keeps-localized-names", Breaks: []string{"CAT-DISPLAYNAME-I18N"},
			Description: "an update keeps the displayNameI18n of the release it replaced: app/list shows the older release's name for the configured locale (held-out h10)"},
		{Name: "projection-app-from-args", Breaks: []string{"AGENT-PROJECTIONS"},
			Description: "a projection call whose args name an appId asks the App Server for that app's records: lime.evidence export {appId: another app} gets the other app's evidence pack (held-out h13)"},
		{Name: "agent-resume-unstated-workspace", Breaks: []string{"AGENT-RESUME-CONFIRMED"},
			Description: "a cached session whose agentSession/read answer states no workspace is resumed as this workspace's, and a turn starts in it (held-out h14)"},
		{Name: "redaction-skips-member-names", Breaks: []string{"AGENT-NO-LEAK"},
			Description: "what the App Server says is redacted in its strings but not in its objects' member names: a credential quoted as a key (headers keyed by \"Bearer <token>\") reaches the app (held-out h17)"},
	}
}
