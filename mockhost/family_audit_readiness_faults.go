package mockhost

// readinessAuditFaults are the faults of the family audit of the readiness area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func readinessAuditFaults() []Fault {
	return nil
}

// readinessAuditCollateral lists, per existing fault, the requirements of the
// readiness area that the audit's new spec rows show it breaking too.
func readinessAuditCollateral() map[string][]string {
	return nil
}
