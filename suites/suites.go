// Package suites is the conformance suite as the CLI runs it: the spec
// areas, in the order they run, over the harness (suites/harness). Like
// csi-sanity, specs are not registered at package init: each area declares
// its Ginkgo containers against a TestContext, and Run wires them into one
// RunSpecs call, so the suites run embedded in the CLI with their
// configuration captured in closures rather than in package globals.
package suites

import (
	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/suites/agent"
	"github.com/agentapp/conformance/suites/backends"
	"github.com/agentapp/conformance/suites/catalog"
	"github.com/agentapp/conformance/suites/data"
	"github.com/agentapp/conformance/suites/harness"
	"github.com/agentapp/conformance/suites/install"
	"github.com/agentapp/conformance/suites/migrations"
	"github.com/agentapp/conformance/suites/overlays"
	"github.com/agentapp/conformance/suites/platform"
	"github.com/agentapp/conformance/suites/runwide"
	"github.com/agentapp/conformance/suites/surface"
	"github.com/agentapp/conformance/suites/workflows"
)

// What the CLI configures and reads back: the harness's own types.
type (
	Config             = harness.Config
	BrowserConfig      = harness.BrowserConfig
	Canaries           = harness.Canaries
	Result             = harness.Result
	RequirementSettled = harness.RequirementSettled
	SpecOutcome        = harness.SpecOutcome
	SpecInfo           = harness.SpecInfo
)

// DefaultConfig returns a Config with the defaults of this harness version.
func DefaultConfig() Config { return harness.DefaultConfig() }

// NewCanaries makes the secret values a run plants with host/configure.
func NewCanaries(red *control.Redactor) (Canaries, error) { return harness.NewCanaries(red) }

// StripBuildPaths removes the folders of the machine that built the harness
// from text the report publishes.
func StripBuildPaths(b []byte) []byte { return harness.StripBuildPaths(b) }

// Run runs every area's specs selected by cfg against the host.
func Run(cfg Config) (*Result, error) { return harness.Run(cfg, areas()) }

// Preview lists every spec of every area with its labels, running none.
func Preview(cfg Config) ([]SpecInfo, error) { return harness.Preview(cfg, areas()) }

// areas lists the spec areas in the order they run.
func areas() []harness.Area {
	return []harness.Area{
		catalog.Specs,
		install.Specs,
		surface.Specs,
		agent.Specs,
		migrations.Specs,
		overlays.Specs,
		data.Specs,
		platform.Specs,
		backends.Specs,
		workflows.Specs,
		runwide.Specs, // it searches every frame of the run before it
	}
}
