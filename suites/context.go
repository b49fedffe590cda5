// Package suites holds the conformance specs. Like csi-sanity, specs are not
// registered at package init: each area is a function that declares its
// Ginkgo containers against a TestContext, and Run wires them into one
// RunSpecs call, so the suites run embedded in the CLI with their
// configuration captured in closures rather than in package globals.
package suites

import (
	"context"
	"fmt"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// Config is what a run needs; the CLI only turns flags into it.
type Config struct {
	Connector   control.Connector
	Catalog     *levels.Catalog
	Levels      []string // level ids to run; their labels form the filter
	LabelFilter string   // optional extra Ginkgo label filter, ANDed
	Focus       []string // optional spec text focus
	// WorkDir is a folder the run owns: fixtures are materialized below it.
	WorkDir    string
	Transcript *control.Transcript
	// Progress receives one event per requirement as it settles.
	Progress func(RequirementSettled)
	// Log receives Ginkgo's own console output (nil discards it).
	Log interface{ Write([]byte) (int, error) }
	// Canaries are the secret values planted with host/configure.
	Canaries Canaries
}

// DefaultConfig returns a Config with the defaults of this harness version.
func DefaultConfig() Config {
	return Config{Catalog: levels.Default()}
}

// TestContext is what every spec sees: the configuration, the live host
// connection and the resources the current spec created.
type TestContext struct {
	Config    Config
	Catalog   *levels.Catalog
	client    *control.Client
	resources *Resources
	plan      *plan
}

// area declares the specs of one concern.
type area func(tc *TestContext)

// areas lists the spec areas in the order they run.
func areas() []area {
	return []area{
		describeProtocol,
		describeCatalog,
		describeLayering,
		describeVerification,
		describeContainment,
		describeProjection,
		describeNoCodeExecution,
		describeInstall,
		describeReadiness,
		describeLifecycleReadiness,
	}
}

func newTestContext(cfg Config) *TestContext {
	return &TestContext{Config: cfg, Catalog: cfg.Catalog, plan: newPlan()}
}

// declare builds the spec tree: one top-level container so that specs run
// in declaration order (Ginkgo shuffles top-level containers only).
func (tc *TestContext) declare() {
	ginkgo.Describe("Agent App host conformance", func() {
		ginkgo.BeforeEach(tc.beforeEach)
		ginkgo.AfterEach(tc.afterEach)
		for _, a := range areas() {
			a(tc)
		}
	})
}

// Req returns the decorations of a spec checking requirement id: its id and
// every level it counts for, as Ginkgo labels.
func (tc *TestContext) Req(id string) ginkgo.Labels {
	r, ok := tc.Catalog.Requirement(id)
	if !ok {
		panic(fmt.Sprintf("suites: spec cites unknown requirement %q", id))
	}
	tc.plan.add(id)
	return append(ginkgo.Labels{r.ID}, tc.Catalog.LevelLabels(r)...)
}

// Host returns the live control client of the current spec.
func (tc *TestContext) Host() *control.Client { return tc.client }

// ctx returns a context for one host call; the client applies its own
// per-call timeout on top.
func (tc *TestContext) ctx() context.Context { return context.Background() }

// beforeEach gives every spec a live connection and a fresh, configured host.
func (tc *TestContext) beforeEach() {
	tc.resources = newResources(tc)
	if tc.Config.Transcript != nil {
		tc.Config.Transcript.SetSpec(ginkgo.CurrentSpecReport().FullText())
	}
	if tc.client == nil || !tc.client.Alive() {
		if tc.client != nil {
			_ = tc.client.Close()
		}
		tc.client = nil
		c, err := tc.Config.Connector.Connect(context.Background(), tc.Config.Transcript)
		if err != nil {
			ginkgo.Fail(fmt.Sprintf("cannot reach the host (%s): %v", tc.Config.Connector.Describe(), err))
		}
		tc.client = c
	}
	tc.MustCall(protocol.MethodReset, struct{}{}, &protocol.OK{})
	tc.Configure(tc.DefaultConfigure())
}

func (tc *TestContext) afterEach() {
	tc.resources.Cleanup()
}

// close releases the connection at the end of the run.
func (tc *TestContext) close() {
	if tc.client != nil {
		_ = tc.client.Close()
		tc.client = nil
	}
}

// Reading records which of the readings the texts allow the host took
// (docs/decisions.md); it lands in the report.
func (tc *TestContext) Reading(topic, reading string) {
	ginkgo.AddReportEntry("reading", topic+": "+reading)
}
