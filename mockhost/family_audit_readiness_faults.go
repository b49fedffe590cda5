package mockhost

// readinessAuditFaults are the faults of the family audit of the readiness area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func readinessAuditFaults() []Fault {
	return []Fault{
		{Name: "installed-readiness-trusts-review", Breaks: []string{"READY-REQUIRED-TIER", "READY-SECRETS"},
			Description: "readiness of an installed app (by appId) counts its failing required-tier and secret checks as warnings, as the install review accepted them once: it is ready-degraded, while its package folder is not ready (every entry point)"},
		{Name: "installed-readiness-tiers-block", Breaks: []string{"READY-RECOMMENDED-TIER", "READY-PERFORMANCE-TIER"},
			Description: "readiness of an installed app (by appId) blocks on its failing recommended- and performance-tier checks, which only warn or inform for its package folder (every entry point)"},
		{Name: "installed-readiness-drops-ok", Breaks: []string{"READY-STATUS"},
			Description: "readiness of an installed app (by appId) is built apart from a folder's and answers ok false even when ready (every entry point)"},
		{Name: "installed-readiness-echoes-secret", Breaks: []string{"READY-NO-SECRET-LEAK", "HOST-NO-SECRET-LEAK"},
			Description: "readiness of an installed app (by appId) quotes the configured secret's value in its secret checks; a package folder's readiness does not (every entry point)"},
		{Name: "installed-readiness-ignores-entry", Breaks: []string{"READY-PER-ENTRY"},
			Description: "readiness of an installed app (by appId) ignores the entry asked for and judges the app as a whole; a package folder's readiness judges the entry (every entry point)"},
		{Name: "setup-actions-skip-capabilities", Breaks: []string{"READY-SETUP-ACTIONS"},
			Description: "a required capability switched off is reported without a fix flow: setupActions name only secrets, knowledge templates and package fixes (every member)"},
		{Name: "irreversible-risk-first-only", Breaks: []string{"MIGRATION-IRREVERSIBLE-RISK"},
			Description: "of the irreversible migrations an update brings, only the first one's risk is shown while they wait for approval (every member)"},
	}
}
