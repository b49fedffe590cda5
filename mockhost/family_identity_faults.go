package mockhost

// identityAndEntryPointFaults are the held-out survivors of confusable identities (family 4) and every entry point (family 2).
func identityAndEntryPointFaults() []Fault {
	return []Fault{
		{Name: "update-without-consent", Breaks: []string{"UPDATE-CONSENT"},
			Description: "app/update reuses the consent of the first install: a newer release is installed with consent.granted false (held-out 14)"},
		{Name: "secret-refusal-echoes-value", Breaks: []string{"SECRET-BIND-NO-ECHO"},
			Description: "app/secret's -32602 for a slot the app does not have repeats the binding, the secret value included (held-out 15)"},
		{Name: "displayname-language-fallback", Breaks: []string{"CAT-DISPLAYNAME-I18N"},
			Description: "app/list shows, for a locale displayNameI18n does not name, the entry of another region of its language: zh-TW gets zh-CN's name (held-out 07)"},
		{Name: "capability-name-trimmed-after-policy", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "a padded capability name is trimmed for the allowlist, readiness and the call but not for policy: \" lime.storage\" runs though policy denies lime.storage (held-out 04)"},
		{Name: "open-external-suffix-origin", Breaks: []string{"BRIDGE-OPEN-EXTERNAL"},
			Description: "host:openExternal takes any host that ends with a declared one, no dot boundary: https://evilprobe.example.org for https://probe.example.org (held-out 05)"},
	}
}

// identityAndEntryPointCollateral lists, per existing fault, the
// requirements of this family it breaks too: a host that installs without
// consent updates without it; one whose app/list, app/readiness or install
// cannot be used leaves the update and app/secret specs nothing to judge.
func identityAndEntryPointCollateral() map[string][]string {
	return map[string][]string{
		"accept-everything":            {"UPDATE-CONSENT"},
		"garbage-on-list":              {"UPDATE-CONSENT"},
		"hang-on-readiness":            {"UPDATE-CONSENT"},
		"readiness-nonstandard-status": {"UPDATE-CONSENT"},
		"refuse-unrelated-finding":     {"UPDATE-CONSENT", "SECRET-BIND-NO-ECHO"},
	}
}

// withIdentityCollateral adds identityAndEntryPointCollateral to the
// Breaks of the faults it names.
func withIdentityCollateral(fs []Fault) []Fault {
	more := identityAndEntryPointCollateral()
	for i := range fs {
		fs[i].Breaks = append(fs[i].Breaks, more[fs[i].Name]...)
	}
	return fs
}
