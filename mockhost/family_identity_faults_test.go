//go:build !mutation

package mockhost

// identityAndEntryPointProbes observe the faults of this family (TestEveryFaultChangesTheAnswer).
func identityAndEntryPointProbes() map[string]probe {
	return map[string]probe{}
}
