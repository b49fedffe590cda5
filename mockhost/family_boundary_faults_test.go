//go:build !mutation

package mockhost

// boundaryAndMemberProbes observe the faults of this family (TestEveryFaultChangesTheAnswer).
func boundaryAndMemberProbes() map[string]probe {
	return map[string]probe{}
}
