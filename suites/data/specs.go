// Package data holds the specs of what an app keeps: storage namespaced and
// scoped to its app, lifecycle (disable, enable, update, rollback,
// uninstall) that keeps or deletes it as the clause says, export, evidence,
// outputs and secret bindings (levels/data.go).
package data

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeScoping(tc)
	describeData(tc)
	describeSecretBindings(tc)
	describeUpgrades(tc)
	describeUninstallUserState(tc)
}
