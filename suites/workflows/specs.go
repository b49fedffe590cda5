// Package workflows holds the specs of lime.workflow: runs, reviews and
// who may answer them, signals, retries, idempotency and the outputs a run
// records (levels/workflows.go).
package workflows

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeWorkflows(tc)
}
