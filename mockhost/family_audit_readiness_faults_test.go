//go:build !mutation

package mockhost

// readinessAuditProbes answer, per fault of readinessAuditFaults, the call whose
// answer the fault changes.
func readinessAuditProbes() map[string]probe {
	return map[string]probe{}
}
