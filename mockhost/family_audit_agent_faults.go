package mockhost

// agentAuditFaults are the faults of the family audit of the agent area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func agentAuditFaults() []Fault {
	return nil
}

// agentAuditCollateral lists, per existing fault, the requirements of the
// agent area that the audit's new spec rows show it breaking too.
func agentAuditCollateral() map[string][]string {
	return nil
}
