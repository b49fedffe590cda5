//go:build !mutation

package mockhost

// agentAuditProbes answer, per fault of agentAuditFaults, the call whose
// answer the fault changes.
func agentAuditProbes() map[string]probe {
	return map[string]probe{}
}
