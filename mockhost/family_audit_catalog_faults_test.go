//go:build !mutation

package mockhost

// catalogAuditProbes answer, per fault of catalogAuditFaults, the call whose
// answer the fault changes.
func catalogAuditProbes() map[string]probe {
	return map[string]probe{}
}
