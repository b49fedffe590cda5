package mockhost

// permissionFaults are the faults of permission interception and the
// permission order at call time (permissions.go, capabilities.go).
func permissionFaults() []Fault {
	return []Fault{
		{Name: "permissions-checked-at-readiness-only", Breaks: []string{"BRIDGE-PERMISSION-INTERCEPTED"},
			Description: "grants are read by readiness alone: a call needing an optional permission the user has not granted runs"},
		{Name: "invoke-approval-before-policy", Breaks: []string{"BRIDGE-PERMISSION-ORDER"},
			Description: "the approval gate runs before tenant policy: a call policy denies and that needs approval is refused as waiting for approval"},
		{Name: "invoke-policy-first", Breaks: []string{"BRIDGE-PERMISSION-ORDER"},
			Description: "tenant policy is checked before the allowlist and readiness: an undeclared or disabled capability policy also denies is refused at the policy gate"},
		{Name: "invoke-approval-before-permission", Breaks: []string{"BRIDGE-PERMISSION-ORDER"},
			Description: "the approval gate runs before the grants: a call whose permission is not granted and that needs approval is refused as waiting for approval"},
		{Name: "grant-overrides-policy-deny", Breaks: []string{"BRIDGE-DENY-WINS"},
			Description: "a permission the user granted for a call lets it pass tenant policy's deny of its capability (allow beats deny)"},
	}
}
