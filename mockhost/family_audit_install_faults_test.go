//go:build !mutation

package mockhost

// installAuditProbes answer, per fault of installAuditFaults, the call whose
// answer the fault changes.
func installAuditProbes() map[string]probe {
	return map[string]probe{}
}
