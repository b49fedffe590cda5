// Package overlays holds the specs of tenant and user overlays: applied in
// order, never changing the package's hash, kept across updates
// (levels/overlays.go).
package overlays

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeOverlays(tc)
	describeOverlayBypass(tc)
}
