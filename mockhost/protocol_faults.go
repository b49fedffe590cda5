package mockhost

// protocolFaults are the faults of the control protocol itself (dispatch.go,
// params.go, leak_faults.go): hello, reset and the errors every method
// answers with.
func protocolFaults() []Fault {
	return []Fault{
		{Name: "hello-wrong-protocol", Breaks: []string{"PROTO-HELLO"},
			Description: "hello reports protocol version 0 and an unknown host kind"},
		{Name: "reset-keeps-apps", Breaks: []string{"PROTO-RESET"},
			Description: "host/reset forgets configuration but keeps installed apps"},
		{Name: "lenient-params", Breaks: []string{"PROTO-ERRORS"},
			Description: "params are not checked: a call missing a required member runs with it empty instead of getting -32602"},
		{Name: "unknown-method-null", Breaks: []string{"PROTO-ERRORS"},
			Description: "unknown methods are answered with a null result instead of -32601"},
		{Name: "error-data-carries-session", Breaks: []string{"HOST-NO-SECRET-LEAK"},
			Description: "error answers carry the request context for debugging, session tokens included, base64-encoded"},
	}
}
