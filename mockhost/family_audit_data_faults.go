package mockhost

// dataAuditFaults are the faults of the family audit of the data area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func dataAuditFaults() []Fault {
	return nil
}

// dataAuditCollateral lists, per existing fault, the requirements of the
// data area that the audit's new spec rows show it breaking too.
func dataAuditCollateral() map[string][]string {
	return nil
}
