package mockhost

// overlayFaults are the faults of configuration overlays (overlays.go).
func overlayFaults() []Fault {
	return []Fault{
		{Name: "overlay-last-write-wins", Breaks: []string{"OVERLAY-PRECEDENCE"},
			Description: "the overlay value set last is in effect, whatever its scope: a tenant default set after a workspace override beats it"},
		{Name: "overlay-user-over-workspace", Breaks: []string{"OVERLAY-PRECEDENCE"},
			Description: "a user overlay beats the workspace override of the same name"},
		{Name: "overlay-grants-permissions", Breaks: []string{"OVERLAY-NO-BYPASS"},
			Description: "the permission keys an overlay in effect lists under grants count as granted: an overlay lifts the readiness gate of a required permission"},
		{Name: "overlay-enables-denied-entry", Breaks: []string{"OVERLAY-NO-BYPASS"},
			Description: "an entry an overlay in effect lists under enabledEntries is no longer denied by tenant policy"},
		{Name: "overlay-skips-readiness", Breaks: []string{"OVERLAY-NO-BYPASS"},
			Description: "an overlay in effect that sets skipReadiness makes the installed app and its entries ready, whatever fails"},
		{Name: "overlay-written-into-package", Breaks: []string{"OVERLAY-KEEPS-PACKAGE-HASH"},
			Description: "an overlay is saved into the installed package beside its APP.md, so the package no longer hashes to its release"},
		{Name: "update-resets-overlays", Breaks: []string{"UPDATE-KEEPS-OVERLAYS"},
			Description: "an update starts the newer release from its package defaults: the tenant, user and workspace overlays set before are gone"},
	}
}
