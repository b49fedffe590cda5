package mockhost

import "slices"

// heldOutFamilyFaults are the faults that came out of the held-out bug hunt
// of 2026-11-26 (mockhost/heldout): each is a survivor of that batch, turned
// into a fault once the specs of its family were fixed. They are kept per
// family of docs/decisions.md, "Families every spec is checked against".
func heldOutFamilyFaults() []Fault {
	return slices.Concat(changeAndTransitionFaults(), boundaryAndMemberFaults(), identityAndEntryPointFaults(), heldOutBFaults(), heldOutCFaults(), heldOutDFaults(), heldOutEFaults(), heldOutFFaults(), heldOutGFaults(), heldOutHFaults(), heldOutH2Faults(), heldOutIFaults(), heldOutJFaults(), heldOutKFaults(), heldOutLFaults(), heldOutMFaults())
}

// familyAuditFaults are the faults of the family audit, one list per area:
// each breaks a family the area's specs cover, beyond the representative
// case an earlier fault broke.
func familyAuditFaults() []Fault {
	return slices.Concat(catalogAuditFaults(), installAuditFaults(), readinessAuditFaults(),
		dataAuditFaults(), surfaceAuditFaults(), agentAuditFaults())
}
