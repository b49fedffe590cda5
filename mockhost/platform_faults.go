package mockhost

// platformFaults are the faults of the Desktop P3 platform capabilities
// (platform.go): each breaks a capability the way a host that let the app
// own it, or leaked what it holds, would.
func platformFaults() []Fault {
	return []Fault{
		{Name: "model-settings-expose-provider-key", Breaks: []string{"MODEL-SETTINGS-NO-KEY"},
			Description: "lime.modelSettings get answers the provider key and the host's routing table with the effective profile"},
		{Name: "model-settings-app-writable", Breaks: []string{"MODEL-SETTINGS-HOST-OWNED"},
			Description: "lime.modelSettings set is executed: the app's profile replaces the host's global model settings"},
		{Name: "branding-from-package", Breaks: []string{"BRANDING-HOST-PROJECTED"},
			Description: "lime.branding get answers the brand the app's own package names (install.branding), not the OEM brand the host holds"},
		{Name: "billing-ledger-in-answer", Breaks: []string{"BILLING-NO-LEDGER"},
			Description: "lime.billing getStatus answers the raw billing ledger and the payment credential with the plan"},
		{Name: "billing-ignores-quota", Breaks: []string{"BILLING-BLOCKS"},
			Description: "readiness never looks at billing: an exhausted quota keeps nothing from ready"},
		{Name: "app-updates-ignores-registry", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "lime.appUpdates check never asks the registry: the installed version is always the latest"},
		{Name: "app-updates-fabricated", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "with the registry unreachable, lime.appUpdates check answers that the app is up to date"},
		{Name: "holds-no-platform-credentials", Breaks: []string{"MODEL-SETTINGS-NO-KEY", "BILLING-NO-LEDGER", "CLOUD-SESSION-NO-TOKEN"},
			Description: "the host has no place for the platform's credentials: the provider key, routing table, ledger, payment credential and session tokens host/configure names are dropped, so no answer could carry them (the must-nots on them have no evidence and must not pass)"},
		{Name: "evidence-record-dropped", Breaks: []string{"EVIDENCE-LOCAL-RECORD"},
			Description: "lime.evidence record is answered ok, but the host keeps no evidence record of it"},
	}
}
