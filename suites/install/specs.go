// Package install holds the specs of installing and keeping an app: verification
// before any code runs (hashes, signatures, revocation, publisher, the
// review), registry sources, install and uninstall, the installed copy's
// integrity, readiness and its tiers, lifecycle dates, policy and
// availability (levels/catalog.go: Verification, Install and uninstall,
// Readiness).
package install

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeVerification(tc)
	describeSignature(tc)
	describeInstallReview(tc)
	describeRevocation(tc)
	describeRegistry(tc)
	describeInstall(tc)
	describeInstalledIntegrity(tc)
	describeReadiness(tc)
	describeLifecycleReadiness(tc)
	describePolicy(tc)
	describeAvailability(tc)
}
