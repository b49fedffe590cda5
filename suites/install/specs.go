// Package install holds the specs of the Installable level and Desktop
// P0: verification before any code runs (hashes, signatures, revocation,
// publisher, the review), the catalog row in the host's locale, package
// containment, registry sources, projection with provenance and no app code
// run while the host reads a package, install and uninstall, the installed
// copy's integrity, readiness and its tiers, lifecycle dates, policy and
// availability (levels/install.go).
package install

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeVerification(tc)
	describeRuntimeBacked(tc)
	describeSignature(tc)
	describeInstallReview(tc)
	describeLocale(tc)
	describeRevocation(tc)
	describeRegistry(tc)
	describeContainment(tc)
	describeProjection(tc)
	describeNoCodeExecution(tc)
	describeInstall(tc)
	describeInstalledIntegrity(tc)
	describeReadiness(tc)
	describeLifecycleReadiness(tc)
	describePolicy(tc)
	describeAvailability(tc)
	describeHealth(tc)
}
