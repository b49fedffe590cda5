package mockhost

// boundaryAndMemberFaults are the held-out survivors of representation boundaries (family 6) and every member of what a clause lists (family 1).
func boundaryAndMemberFaults() []Fault {
	return nil
}
