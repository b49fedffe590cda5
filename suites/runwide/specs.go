// Package runwide holds the specs judged over the whole run, declared last:
// a planted secret in any frame the host sent (HOST-NO-SECRET-LEAK), and
// every answer against its method's schema (PROTO-RESULT-SCHEMA).
package runwide

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeSecretsEverywhere(tc)
	describeResultSchemas(tc)
}
