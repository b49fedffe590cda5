package mockhost

// changeAndTransitionFaults are the held-out survivors of a change between two reads (family 3) and every state transition, then the same check again (family 5).
func changeAndTransitionFaults() []Fault {
	return []Fault{
		{Name: "configure-merges-capabilities", Breaks: []string{"READY-CAPABILITIES"},
			Description: "A later host/configure changes only the capability overrides it names and keeps those of the earlier one: a capability disabled once stays disabled (held-out 12)."},
		{Name: "reset-keeps-secret-bindings", Breaks: []string{"PROTO-RESET"},
			Description: "host/reset forgets apps, data and configuration but keeps the secrets bound to apps with app/secret: an app installed again after the reset is ready on the old binding (held-out 13)."},
		{Name: "surface-readiness-cached-at-mount", Breaks: []string{"APP-DISABLE"},
			Description: "An open surface's capability calls skip the readiness gate, judged once at mount: the entry of an app disabled while it is open still writes storage (held-out 16)."},
		{Name: "install-from-listed-bootstrap", Breaks: []string{"REGISTRY-WITHDRAWN"},
			Description: "app/install from the registry picks from the releases registry/list offered earlier, never asking again: a release withdrawn after the listing is installed (held-out 20)."},
	}
}
