// Package platform holds the specs of the Desktop P3 host duties: the host,
// not each app, provides model settings, the cloud session, OEM branding,
// billing and app updates, projects to apps only what the shared
// projection allows, and keeps each app's evidence with its provenance
// (levels/platform.go).
package platform

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describePlatform(tc)
}
