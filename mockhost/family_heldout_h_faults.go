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
	}
}
