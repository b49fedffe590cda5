// Package surface holds the specs of Host Bridge v1 on a launched app's
// surface: the snapshot and its fields, the envelope, request ids, source
// and origin checks, fail-closed answers, navigation, downloads, toasts,
// theme and visibility updates, and what the app's frame must never hold
// (levels/surface.go).
package surface

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeBridge(tc)
}
