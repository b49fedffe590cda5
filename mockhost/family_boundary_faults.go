package mockhost

// boundaryAndMemberFaults are the held-out survivors of representation boundaries (family 6) and every member of what a clause lists (family 1).
func boundaryAndMemberFaults() []Fault {
	return []Fault{
		{Name: "app-updates-version-as-text", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "lime.appUpdates check orders release versions as text, so 1.10.0 is older than 1.9.0 (held-out 19)"},
		{Name: "revocation-missing-status-not-revoked", Breaks: []string{"VERIFY-REVOCATION-FAIL-CLOSED"},
			Description: "a revocation answer that is JSON without a revoked member (or with null) is read as not revoked (held-out 01)"},
		{Name: "workflow-tool-call-first-tool-only", Breaks: []string{"WORKFLOW-FAILS-CLOSED"},
			Description: "a workflow tool-call state checks only the first tool of its uses (held-out 10)"},
		{Name: "publisher-appmd-unchecked-when-signed", Breaks: []string{"VERIFY-PUBLISHER"},
			Description: "APP.md's publisher is compared with the release's only when app.signature.yaml has no trust block (held-out 02)"},
		{Name: "archive-climb-mid-path", Breaks: []string{"REGISTRY-ARCHIVE-CONTAINED"},
			Description: "archive entry names are checked for ../ before they are cleaned, so dist/../../x unpacks outside the package folder and the install goes on (held-out 18)"},
		{Name: "available-empty-list-ignored", Breaks: []string{"READY-AVAILABILITY"},
			Description: "host/configure's available with an empty list for a kind is taken as the kind left unstated: every required item of it counts as there (held-out 2026-11-26 #08)"},
		{Name: "overlay-empty-values-kept", Breaks: []string{"OVERLAY-PRECEDENCE"},
			Description: "app/overlay with values {} is taken as nothing to set, so the overlay set before stays in effect (held-out 2026-11-26 #06)"},
	}
}
