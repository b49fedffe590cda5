// Package catalog holds the specs of the Catalog level and of the control
// protocol every other check stands on: discovery of APP.md, its
// frontmatter and field constraints, metadata and layered files
// (levels/catalog.go).
package catalog

import "github.com/agentapp/conformance/suites/harness"

// Specs declares the area's specs, in the order they run.
func Specs(tc *harness.TestContext) {
	describeProtocol(tc)
	describeCatalog(tc)
	describeLayering(tc)
}
