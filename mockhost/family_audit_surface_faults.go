package mockhost

// surfaceAuditFaults are the faults of the family audit of the surface area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func surfaceAuditFaults() []Fault {
	return nil
}

// surfaceAuditCollateral lists, per existing fault, the requirements of the
// surface area that the audit's new spec rows show it breaking too.
func surfaceAuditCollateral() map[string][]string {
	return nil
}
