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
		{Name: "jit-token-absent", Breaks: []string{"CLOUD-SESSION-JIT-TOKEN"},
			Description: "lime.cloudSession has no just-in-time token: an app's explicit token request is refused as an unknown method"},
		{Name: "jit-token-other-session", Breaks: []string{"CLOUD-SESSION-JIT-TOKEN"},
			Description: "the just-in-time token is the first session token in name order, not the cloud session's: a session named cloud-admin beside it is handed out"},
		{Name: "jit-token-cached", Breaks: []string{"CLOUD-SESSION-JIT-TOKEN"},
			Description: "the first just-in-time token the host gave an app is given again after the session's token changed"},
		{Name: "forced-login-refused", Breaks: []string{"CLOUD-SESSION-JIT-TOKEN"},
			Description: "lime.cloudSession requestLogin with force: true is refused, so an app whose token was rejected has no session to retry with"},
		{Name: "jit-token-in-snapshot-after", Breaks: []string{"CLOUD-SESSION-TOKEN-NOT-KEPT"},
			Description: "once an app fetched a just-in-time token the host keeps it with the app's session, and getSnapshot carries it"},
		{Name: "jit-token-in-app-config", Breaks: []string{"CLOUD-SESSION-TOKEN-NOT-KEPT"},
			Description: "the host keeps the just-in-time token it handed out in the app's user overlay, its config, where host/observe shows it"},
		{Name: "evidence-record-dropped", Breaks: []string{"EVIDENCE-LOCAL-RECORD"},
			Description: "lime.evidence record is answered ok, but the host keeps no evidence record of it"},
	}
}
