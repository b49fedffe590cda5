package mockhost

// installAuditFaults are the faults of the family audit of the install area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func installAuditFaults() []Fault {
	return []Fault{
		{Name: "consent-by-named-party", Breaks: []string{"INSTALL-CONSENT"},
			Description: "app/install takes a consent that names the tenant or the workspace as the admin's approval, whatever consent.granted says (every member of consent.by)"},
		{Name: "policy-denies-by-prefix", Breaks: []string{"POLICY-INSTALL"},
			Description: "a name tenant policy denies is read as a pattern: minimal-app is denied under a policy naming minimal (confusable identities)"},
		{Name: "channel-install-downloads-first", Breaks: []string{"REGISTRY-METADATA-FIRST"},
			Description: "a release named by a channel is downloaded before its compatibility is checked; one named by its version is not (every entry point)"},
		{Name: "projection-services-carry-session", Breaks: []string{"PROJ-NO-SECRETS", "HOST-NO-SECRET-LEAK"},
			Description: "each projected service carries the host's cloud session token as the bearer it would be called with: the secret slots stay clean (every member of the projection)"},
	}
}
