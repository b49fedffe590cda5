package mockhost

// installAuditFaults are the faults of the family audit of the install area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func installAuditFaults() []Fault {
	return nil
}

// installAuditCollateral lists, per existing fault, the requirements of the
// install area that the audit's new spec rows show it breaking too.
func installAuditCollateral() map[string][]string {
	return nil
}
