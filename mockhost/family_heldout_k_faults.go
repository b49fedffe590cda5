package mockhost

// heldOutKFaults are the survivors of the held-out batch 2026-11-29c
// (mockhost/heldout/2026-11-29c), turned into faults once the specs of their
// families were fixed.
func heldOutKFaults() []Fault {
	return []Fault{
		{Name: "readiness-path-by-prefix", Breaks: []string{"READY-SECRETS"},
			Description: "app/readiness of a path takes the installed app whose folder's path that path begins with: a package in tiny-app-next beside the installed tiny-app is answered with tiny-app's readiness (held-out k04)"},
		{Name: "navigate-route-controls-kept", Breaks: []string{"BRIDGE-NAVIGATE"},
			Description: "host:navigate lets tabs and newlines through in a route: \"/\\t/evil.example/x\", which a browser reads as //evil.example/x, passes as app-local (held-out k10)"},
		{Name: "storage-bucket-by-declared-namespace", Breaks: []string{"STORAGE-NAMESPACED"},
			Description: "lime.storage keeps an app's keys under the storage namespace its manifest declares, not the app it installed: two apps declaring the same namespace read and overwrite each other's keys (held-out k14)"},
		{Name: "workflow-inputs-cached-by-key", Breaks: []string{"SDK-TYPED-WORKFLOW-INPUT"},
			Description: "lime.workflow start checks input against a workflow's inputs compiled once and kept by workflow key: after an update raises a minimum, an input only the release before accepted still runs (held-out k16)"},
		{Name: "app-updates-version-from-app", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "lime.appUpdates check takes the current version from the app's arguments when they give one: an app claiming it runs 1.1.0 is told no update is available for the installed 1.0.0 (held-out k18)"},
	}
}
