//go:build !mutation

package mockhost

// changeAndTransitionProbes observe the faults of this family (TestEveryFaultChangesTheAnswer).
func changeAndTransitionProbes() map[string]probe {
	return map[string]probe{}
}
