// Package backends holds the specs of an app's backend services: supervision,
// limits, no access to the host, logs (levels/backends.go).
package backends

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeBackends(tc)
}
