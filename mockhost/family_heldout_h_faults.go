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
	}
}
