// Package platform holds the specs of the Desktop P3 platform projections:
// billing, entitlements, notifications and the other host services an app
// reaches through its capabilities (levels/platform.go).
package platform

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describePlatform(tc)
}
