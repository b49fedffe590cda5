// Package agent holds the specs of the App Server bridge behind lime.agent:
// the handshake, task and event mapping, approvals, cancel, resume,
// structured output, fail-closed behaviour with the App Server down, and no
// token reaching the app (levels/agent.go).
package agent

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeAgentWithoutAppServer(tc)
	describeAgent(tc)
}
