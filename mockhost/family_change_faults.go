package mockhost

// changeAndTransitionFaults are the held-out survivors of a change between two reads (family 3) and every state transition, then the same check again (family 5).
func changeAndTransitionFaults() []Fault {
	return nil
}
