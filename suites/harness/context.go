// Package harness is everything of the conformance suite that is not a
// spec: the TestContext every spec sees, with the peers the harness plays
// as accessors (AppServer(), Registry(), Revocation(), Sigstore(),
// ThirdParty()); the outcome path (Precondition, Failf, Blockedf, Errorf);
// the collector that turns Ginkgo's reports into requirement outcomes;
// resources and cleanup; fixtures and the package spoilers; the oracle; the
// browser surface and the probe; the App Server and canary helpers; the
// one build of the backend probe. The spec areas (suites/<area>) declare
// their specs against it; it imports none of them.
package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/drivers/revocation"
	"github.com/agentapp/conformance/drivers/sigstore"
	"github.com/agentapp/conformance/drivers/telemetry"
	"github.com/agentapp/conformance/drivers/thirdparty"
	"github.com/agentapp/conformance/levels"
)

// Config is what a run needs; the CLI only turns flags into it.
type Config struct {
	// Browser is how the surface specs reach a browser.
	Browser BrowserConfig
	// Relay is the command that relays a sidecar's stdio to an App Server
	// address (appended): `conformance appserver-relay`. Empty, the specs
	// over the stdio transport cannot run and are blocked.
	Relay       []string
	Connector   control.Connector
	Catalog     *levels.Catalog
	Levels      []string // level ids to run; their labels form the filter
	LabelFilter string   // optional extra Ginkgo label filter, ANDed
	Focus       []string // optional spec text focus
	// WorkDir is a folder the run owns: fixtures are materialized below it.
	WorkDir string
	// BrowserAttempts is how many times a browser spec that does not pass
	// runs (0: twice, a pass the second time reported flaky). selftest's
	// fault children in the breaks scope run them once: there a spec is
	// expected to fail, and a second attempt only doubles the wait.
	BrowserAttempts int
	// BackendProbe is a backend-probe binary built beforehand (selftest
	// builds one for all its children); empty, the run builds its own
	// once from the embedded source.
	BackendProbe string
	Transcript   *control.Transcript
	// Progress receives one event per requirement as it settles.
	Progress func(RequirementSettled)
	// Log receives Ginkgo's own console output (nil discards it).
	Log interface{ Write([]byte) (int, error) }
	// ReportDir is the folder the report is written to; a failing surface
	// spec saves its screenshots and probe log under its artifacts/ ("":
	// nothing is saved).
	ReportDir string
	// Redact removes planted secrets from text the run publishes (nil:
	// text is kept as it is).
	Redact func([]byte) []byte
	// Canaries are the secret values planted with host/configure.
	Canaries Canaries
	// Unreachable is told, once, why the run gave up on the host: it could
	// not be reached (or reset) twice in a row.
	Unreachable func(reason string)
}

// unreachableAfter is how many specs in a row may fail to reach or reset
// the host before the run stops trying: every later spec is an error at once.
const unreachableAfter = 2

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
	// leaks logs planted secrets seen in any frame the host sent.
	leaks *LeakLog
	// schemas logs the schema violations of every answer (schemas.go).
	schemas *SchemaLog
	// revocation is the revocation service the harness plays (nil in a
	// dry run); every spec starts with it answering "not revoked".
	revocation *revocation.Service
	// appServer is the App Server the harness plays (nil in a dry run).
	appServer *appserver.Server
	// telemetry is the OpenTelemetry collector the harness plays (nil in
	// a dry run).
	telemetry *telemetry.Collector
	// recordTelemetry puts an export to a collector of the harness's in
	// the transcript.
	recordTelemetry func(telemetry.Export)
	// recordAppServer puts a message an App Server of the harness's said
	// or heard in the transcript.
	recordAppServer func(appserver.Message)
	// registry is the registry the harness plays (nil in a dry run);
	// every spec starts with it empty.
	registry *registry.Registry
	// sigstore is the offline Sigstore the harness signs packages with
	// (nil in a dry run).
	sigstore *sigstore.Authority
	// thirdParty serves the third-origin spoof page (nil in a dry run).
	thirdParty *thirdparty.Server
	// browserOnce starts the one browser of the run on first use;
	// surfaces are the sessions the current spec opened.
	browserOnce browserStarter
	runtimes    runtimeBrowsers
	surfaces    []browser.Page
	// usedBrowser says the current spec set out to open the app surface:
	// a browser spec, judged on each engine of a parity run (SpecOutcome.Engine).
	usedBrowser bool
	// stuck are the current spec's sessions whose page stopped answering
	// (its script never yields): no screenshot is waited for from them.
	stuck map[browser.Page]bool
	// probe is the run's one build of the backend-app fixture's service.
	probe probeBuild
	// lastProbe is the probe's last report in the current spec.
	lastProbe []byte
	// surfaceMisses counts mounts in a row that did not load;
	// surfaceGaveUp is why the run stopped opening surfaces.
	surfaceMisses int
	surfaceGaveUp string

	// phase and phaseWhat say how a failure of the running spec reads (outcome.go).
	phase     phase
	phaseWhat string
	// misses counts specs in a row whose setup could not reach the host;
	// gaveUp is why the run stopped trying ("" while it tries).
	misses int
	gaveUp string

	// nodeCtx is the running node's SpecContext (withNodeContext).
	nodeMu  sync.Mutex
	nodeCtx context.Context
}

// suiteName is the suite's and its one top-level container's text: every
// spec's full text begins with it.
const suiteName = "Agent App host conformance"

// Area declares the specs of one concern against tc.
type Area func(tc *TestContext)

func newTestContext(cfg Config) *TestContext {
	tc := &TestContext{Config: cfg, Catalog: cfg.Catalog, leaks: newLeakLog(cfg.Canaries), schemas: newSchemaLog()}
	cfg.Transcript.OnReceive(tc.leaks.observe)
	return tc
}

// declare builds the spec tree: one top-level container so that specs run
// in declaration order (Ginkgo shuffles top-level containers only).
func (tc *TestContext) declare(areas []Area) {
	ginkgo.Describe(suiteName, ginkgo.AroundNode(tc.withNodeContext), func() {
		ginkgo.BeforeEach(tc.beforeEach)
		ginkgo.AfterEach(tc.afterEach)
		for _, a := range areas {
			a(tc)
		}
	})
}

// Req returns the decorations of a spec checking requirement id: its id,
// every level it counts for and the bug families (levels.BugFamily) the spec
// covers for it, as Ginkgo labels. A family the requirement does not list is
// a mistake in the spec tree.
func (tc *TestContext) Req(id string, families ...levels.BugFamily) ginkgo.Labels {
	r, ok := tc.Catalog.Requirement(id)
	if !ok {
		panic(fmt.Sprintf("suites: spec cites unknown requirement %q", id))
	}
	labels := append(ginkgo.Labels{r.ID}, tc.Catalog.LevelLabels(r)...)
	for _, f := range families {
		if !slices.Contains(r.BugFamilies, f) {
			panic(fmt.Sprintf("suites: a spec of %s covers family %q, which levels/ does not list for it", id, f))
		}
		labels = append(labels, f.Label())
	}
	return labels
}

// Host returns the live control client of the current spec.
func (tc *TestContext) Host() *control.Client { return tc.client }

// Context is the running node's Ginkgo SpecContext (context.Background
// outside a node): every host call, browser step and page read of a spec
// runs under it, so an interrupted or timed-out spec stops waiting on the
// host at once. Each call applies its own timeout on top.
func (tc *TestContext) Context() context.Context {
	tc.nodeMu.Lock()
	defer tc.nodeMu.Unlock()
	if tc.nodeCtx == nil {
		return context.Background()
	}
	return tc.nodeCtx
}

func (tc *TestContext) ctx() context.Context { return tc.Context() }

// withNodeContext keeps the running node's SpecContext for Context while
// the node runs (an AroundNode of the suite's one top-level container: it
// wraps every spec and setup node).
func (tc *TestContext) withNodeContext(ctx context.Context, body func(context.Context)) {
	tc.nodeMu.Lock()
	tc.nodeCtx = ctx
	tc.nodeMu.Unlock()
	defer func() {
		tc.nodeMu.Lock()
		tc.nodeCtx = nil
		tc.nodeMu.Unlock()
	}()
	body(ctx)
}

// beforeEach gives every spec a live connection and a fresh, configured
// host. What it needs of the host are the control protocol's own rules, so
// a host that breaks them leaves the spec an error, never a failure; a host
// that cannot be reached twice in a row is not tried again.
func (tc *TestContext) beforeEach() {
	tc.phase, tc.phaseWhat = judging, ""
	tc.usedBrowser = false
	tc.resources = newResources(tc)
	if tc.revocation != nil {
		tc.revocation.Reset()
	}
	if tc.registry != nil {
		tc.registry.Reset()
	}
	if tc.appServer != nil {
		tc.appServer.Reset()
	}
	if tc.telemetry != nil {
		tc.telemetry.Reset()
	}
	if tc.Config.Transcript != nil {
		tc.Config.Transcript.SetSpec(ginkgo.CurrentSpecReport().FullText())
	}
	if tc.gaveUp != "" {
		tc.Errorf("not attempted: %s", tc.gaveUp)
	}
	if tc.client == nil || !tc.client.Alive() {
		if tc.client != nil {
			_ = tc.client.Close()
		}
		tc.client = nil
		c, err := tc.Config.Connector.Connect(tc.ctx(), tc.Config.Transcript)
		if err != nil {
			tc.missed(fmt.Sprintf("cannot reach the host (%s): %v", tc.Config.Connector.Describe(), err))
		}
		tc.client = c
	}
	err := tc.Call(protocol.MethodReset, struct{}{}, &protocol.OK{})
	var he *control.HostError
	switch {
	case errors.As(err, &he):
		tc.Errorf("the host refused host/reset, which every check needs (docs/host-control-protocol.md): %s", HostErrorText(he))
	case err != nil:
		tc.missed(fmt.Sprintf("the host did not reset: %v", err))
	}
	tc.misses = 0
	err = tc.Call(protocol.MethodConfigure, tc.DefaultConfigure(), &protocol.OK{})
	if err != nil {
		tc.Errorf("the host did not accept host/configure, which every check needs: %v", err)
	}
}

// missed ends the spec as an error because its setup could not use the
// host, and gives up on the host after unreachableAfter misses in a row.
func (tc *TestContext) missed(reason string) {
	ginkgo.GinkgoHelper()
	tc.misses++
	if tc.misses >= unreachableAfter && tc.gaveUp == "" {
		tc.gaveUp = fmt.Sprintf("the host could not be reached %d times in a row; last: %s", tc.misses, reason)
		if tc.Config.Unreachable != nil {
			tc.Config.Unreachable(reason)
		}
	}
	tc.Errorf("%s", reason)
}

func (tc *TestContext) afterEach() {
	tc.saveArtifacts()
	tc.resources.Cleanup()
	tc.surfaces, tc.lastProbe, tc.stuck = nil, nil, nil
}

// markStuck records that sess's page stopped answering.
func (tc *TestContext) markStuck(sess browser.Page) {
	if tc.stuck == nil {
		tc.stuck = map[browser.Page]bool{}
	}
	tc.stuck[sess] = true
}

// close releases the connection and the browser at the end of the run.
func (tc *TestContext) close() {
	tc.browserOnce.close()
	tc.runtimes.close()
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

// The peers the harness plays for the current run (nil in a dry run). Each
// spec starts with them reset: the revocation service answering "not
// revoked", the registry empty, the App Server serving.

// AppServer is the App Server the harness plays.
func (tc *TestContext) AppServer() *appserver.Server { return tc.appServer }

// Telemetry is the OpenTelemetry collector the harness plays.
func (tc *TestContext) Telemetry() *telemetry.Collector { return tc.telemetry }

// AnotherCollector starts one more OpenTelemetry collector on loopback,
// for this spec alone: its exports go to the transcript as the first
// collector's do, and it stops when the spec ends.
func (tc *TestContext) AnotherCollector() *telemetry.Collector {
	ginkgo.GinkgoHelper()
	return startForSpec(tc, "OpenTelemetry collector", func() (*telemetry.Collector, error) { return telemetry.Start(tc.recordTelemetry) })
}

// AnotherAppServer starts one more App Server on loopback, for this spec
// alone: what it says and hears goes to the transcript as the first one's
// does, and it stops when the spec ends.
func (tc *TestContext) AnotherAppServer() *appserver.Server {
	ginkgo.GinkgoHelper()
	return startForSpec(tc, "App Server", func() (*appserver.Server, error) { return appserver.Start(tc.recordAppServer) })
}

// startForSpec starts one more peer the harness plays (what names it),
// stopped when the spec ends; a peer that does not start is the
// harness's trouble, an error of the spec.
func startForSpec[P interface{ Close() error }](tc *TestContext, what string, start func() (P, error)) P {
	ginkgo.GinkgoHelper()
	p, err := start()
	if err != nil {
		tc.Errorf("the harness could not start a second %s: %v", what, err)
	}
	ginkgo.DeferCleanup(p.Close)
	return p
}

// WithTelemetry points p's telemetry at the harness's collector, content
// export left at its default (off) unless exportContent.
func (tc *TestContext) WithTelemetry(p protocol.ConfigureParams, exportContent bool) protocol.ConfigureParams {
	p.Telemetry = &protocol.Telemetry{Endpoint: tc.telemetry.URL(), ExportContent: exportContent}
	return p
}

// Registry is the registry the harness plays.
func (tc *TestContext) Registry() *registry.Registry { return tc.registry }

// Revocation is the revocation service the harness plays.
func (tc *TestContext) Revocation() *revocation.Service { return tc.revocation }

// Sigstore is the offline Sigstore the harness signs packages with.
func (tc *TestContext) Sigstore() *sigstore.Authority { return tc.sigstore }

// ThirdParty serves the third-origin spoof page.
func (tc *TestContext) ThirdParty() *thirdparty.Server { return tc.thirdParty }

// Resources are what the current spec created, undone when it ends.
func (tc *TestContext) Resources() *Resources { return tc.resources }

// Leaks are the planted secrets seen in any frame the host sent this run.
func (tc *TestContext) Leaks() *LeakLog { return tc.leaks }

// Schemas are the schema violations of every answer of the run.
func (tc *TestContext) Schemas() *SchemaLog { return tc.schemas }
