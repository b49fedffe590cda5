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
