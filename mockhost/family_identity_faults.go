package mockhost

// identityAndEntryPointFaults are the held-out survivors of confusable identities (family 4) and every entry point (family 2).
func identityAndEntryPointFaults() []Fault {
	return nil
}
