//go:build !mutation

package mockhost

// dataAuditProbes answer, per fault of dataAuditFaults, the call whose
// answer the fault changes.
func dataAuditProbes() map[string]probe {
	return map[string]probe{}
}
