package mockhost

// boundaryAndMemberFaults are the held-out survivors of representation boundaries (family 6) and every member of what a clause lists (family 1).
func boundaryAndMemberFaults() []Fault {
	return []Fault{
		{Name: "app-updates-version-as-text", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "lime.appUpdates check orders release versions as text, so 1.10.0 is older than 1.9.0 (held-out 19)"},
	}
}
