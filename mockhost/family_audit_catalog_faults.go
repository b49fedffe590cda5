package mockhost

// catalogAuditFaults are the faults of the family audit of the catalog area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func catalogAuditFaults() []Fault {
	return nil
}

// catalogAuditCollateral lists, per existing fault, the requirements of the
// catalog area that the audit's new spec rows show it breaking too.
func catalogAuditCollateral() map[string][]string {
	return nil
}
