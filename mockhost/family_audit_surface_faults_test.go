//go:build !mutation

package mockhost

// surfaceAuditProbes answer, per fault of surfaceAuditFaults, the call whose
// answer the fault changes.
func surfaceAuditProbes() map[string]probe {
	return map[string]probe{}
}
