// Package migrations holds the specs of an app's data migrations: run in
// order, irreversible ones named to the user, never writing the host's own
// data (levels/migrations.go).
package migrations

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeMigrations(tc)
}
