package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/drivers/revocation"
	"github.com/agentapp/conformance/drivers/sigstore"
	"github.com/agentapp/conformance/drivers/telemetry"
	"github.com/agentapp/conformance/drivers/thirdparty"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/formatter"
	"github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/format"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/reports"
)

// SpecOutcome is one spec's result.
type SpecOutcome struct {
	Name         string
	Requirements []string
	Outcome      reports.Outcome
	Failure      string
	Location     string
	Duration     time.Duration
	Exchanges    [2]int
	// Readings are the readings the host took where the texts leave a choice.
	Readings []string
	// Artifacts are files a failing spec saved under Config.ReportDir
	// (screenshots of the surface, the probe's log), by path relative to
	// the report folder.
	Artifacts []string
	// Engine is the browser engine a browser spec (one that opened, or set
	// out to open, the app surface) judged in; "" for a browser-free spec.
	Engine browser.Engine
}

// Result is the spec's entry in the report, as the report and the
// console's progress both take it (the artifacts aside, which only the
// report lists).
func (s SpecOutcome) Result() reports.SpecResult {
	sr := reports.SpecResult{Name: s.Name, Outcome: s.Outcome, DurationMs: s.Duration.Milliseconds(), Exchanges: s.Exchanges, Engine: string(s.Engine)}
	if s.Outcome != reports.Passed && s.Failure != "" {
		sr.Failure = &reports.Failure{Message: s.Failure, Location: s.Location}
	}
	return sr
}

// RequirementSettled is emitted once all of a requirement's specs ran. Its
// outcome and reason are decided as the report decides them
// (reports.SettleRequirement), so the console says what report.json says.
type RequirementSettled struct {
	ID      string
	Outcome reports.Outcome
	// Reason is the report's one-line reason ("" when passed).
	Reason string
	// Failure is the whole message of the spec the reason comes from (the
	// reason itself when no spec gave one).
	Failure string
	// Spec names that spec (a table's case included), below the suite's
	// top container; "" when no spec gave the reason.
	Spec string
}

// Result is what a run observed.
type Result struct {
	Specs    []SpecOutcome
	Hello    protocol.HelloResult
	HelloErr error
	// Connected is false when the host could never be reached.
	Connected bool
	// Unreachable says why the run gave up on the host ("" when it did not).
	Unreachable string
	// Interrupted names the signal that stopped the run ("" when none did).
	Interrupted string
	// Browsers describes each browser the run judged the app surface in
	// and where its evidence came from (report environment.browser).
	Browsers []string
	// BrowserInfos names the engine and version of each, in the same order.
	BrowserInfos []browser.Info
}

// SpecInfo describes a declared spec (from a dry run).
type SpecInfo struct {
	Name   string
	Labels []string
}

type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }

// LabelFilterFor returns the Ginkgo label filter selecting the specs of the
// given levels, ANDed with an extra filter.
func LabelFilterFor(levelIDs []string, extra string) string {
	f := "(" + strings.Join(levelIDs, " || ") + ")"
	if strings.TrimSpace(extra) != "" {
		f += " && (" + extra + ")"
	}
	return f
}

// Run runs the suites once against the configured host. Ginkgo allows one
// RunSpecs per process, so Run may be called once per process.
func Run(cfg Config, areas []Area) (*Result, error) {
	if cfg.Connector == nil {
		return nil, errors.New("suites: no host connector configured")
	}
	if cfg.Catalog == nil {
		return nil, errors.New("suites: no catalog configured")
	}
	if len(cfg.Levels) == 0 {
		return nil, errors.New("suites: no level requested")
	}
	filter := LabelFilterFor(cfg.Levels, cfg.LabelFilter)
	if _, err := types.ParseLabelFilter(filter); err != nil {
		return nil, fmt.Errorf("label filter %q: %w", filter, err)
	}

	res := &Result{}
	unreachable := cfg.Unreachable
	cfg.Unreachable = func(reason string) {
		res.Unreachable = reason
		if unreachable != nil {
			unreachable(reason)
		}
	}
	tc := newTestContext(cfg)
	svc, err := revocation.Start(func(r revocation.Request, answer string) {
		cfg.Transcript.RecordPeer("revocation", "GET checkUrl?packageHash="+r.PackageHash+"&manifestHash="+r.ManifestHash, answer)
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = svc.Close() }()
	tc.revocation = svc
	reg, err := registry.Start(func(r registry.Request, answer string) {
		cfg.Transcript.RecordPeer("registry", "GET "+r.Path, answer)
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = reg.Close() }()
	tc.registry = reg
	if tc.sigstore, err = sigstore.NewAuthority(); err != nil {
		return nil, err
	}
	tc.recordAppServer = func(m appserver.Message) {
		b, _ := json.Marshal(m)
		cfg.Transcript.RecordPeer("appserver", string(b), "")
	}
	as, err := appserver.Start(tc.recordAppServer)
	if err != nil {
		return nil, err
	}
	defer func() { _ = as.Close() }()
	tc.appServer = as
	tc.recordTelemetry = func(e telemetry.Export) {
		cfg.Transcript.RecordPeer("telemetry", fmt.Sprintf("POST %s (%s, %d bytes, spans %q)", e.Signal, e.ContentType, len(e.Body), e.Spans), e.Err)
	}
	otel, err := telemetry.Start(tc.recordTelemetry)
	if err != nil {
		return nil, err
	}
	defer func() { _ = otel.Close() }()
	tc.telemetry = otel
	third, err := thirdparty.Start()
	if err != nil {
		return nil, err
	}
	defer func() { _ = third.Close() }()
	tc.thirdParty = third
	tc.declare(areas)
	defer tc.close()
	if cfg.Browser.WebDriverHost {
		// The session's application is the host: it starts before the
		// run connects to it.
		if _, err := tc.browser(); err != nil {
			tc.gaveUp = "the WebDriver session whose application is the host did not start: " + err.Error()
			cfg.Unreachable(tc.gaveUp)
		}
	}
	defer func() { res.Browsers, res.BrowserInfos = tc.browsersUsed() }()

	// Ginkgo stops the run on SIGINT / SIGTERM (it aborts the running spec,
	// cleans up and skips the rest); the run records that it happened.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var sigMu sync.Mutex
	go func() {
		for sig := range sigs {
			sigMu.Lock()
			if res.Interrupted == "" {
				res.Interrupted = "SIGINT"
				if sig == syscall.SIGTERM {
					res.Interrupted = "SIGTERM"
				}
			}
			sigMu.Unlock()
		}
	}()

	suiteCfg, repCfg := ginkgo.GinkgoConfiguration()
	suiteCfg.RandomSeed = 1
	suiteCfg.RandomizeAllSpecs = false
	suiteCfg.LabelFilter = filter
	suiteCfg.FocusStrings = cfg.Focus
	suiteCfg.Timeout = time.Hour
	suiteCfg.GracePeriod = 5 * time.Second
	repCfg.NoColor = true
	repCfg.Succinct = true

	var log io.Writer = io.Discard
	if cfg.Log != nil {
		log = cfg.Log
	}
	// Suite setup: Ginkgo writes its console report to formatter's writer;
	// Gomega reports through the context's fail handler (outcome.go), and
	// prints values whole: a hash cut in the middle helps nobody.
	// The progress settles a requirement after the last spec of it the
	// tree holds; the tree is counted in a dry run before the real one.
	col := newCollector(tc, res, specsPerRequirement(tc, suiteCfg, repCfg))
	ginkgo.ReportAfterEach(col.afterEach)
	formatter.ColorableStdOut = log
	gomega.RegisterFailHandler(tc.gomegaFail)
	format.MaxLength = 0
	format.TruncatedDiff = false

	ginkgo.RunSpecs(&failRecorder{}, suiteName, suiteCfg, repCfg)
	signal.Stop(sigs)
	close(sigs)
	sigMu.Lock()
	interrupted := res.Interrupted
	sigMu.Unlock()
	col.finish()
	if interrupted != "" {
		for i := range res.Specs {
			if res.Specs[i].Outcome == reports.NotRun {
				res.Specs[i].Failure = "not reached: the run was interrupted by " + interrupted
			}
		}
	}
	return res, nil
}

// Preview declares the suites and returns every spec with its labels,
// without running any (a Ginkgo dry run).
func Preview(cfg Config, areas []Area) ([]SpecInfo, error) {
	if cfg.Catalog == nil {
		return nil, errors.New("suites: no catalog configured")
	}
	tc := newTestContext(cfg)
	tc.declare(areas)
	suiteCfg, repCfg := ginkgo.GinkgoConfiguration()
	suiteCfg.RandomSeed = 1
	repCfg.NoColor = true
	formatter.ColorableStdOut = io.Discard
	rep := ginkgo.PreviewSpecs(suiteName, suiteCfg, repCfg)
	var out []SpecInfo
	for _, s := range rep.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		out = append(out, SpecInfo{Name: s.FullText(), Labels: s.Labels()})
	}
	return out, nil
}

// specsPerRequirement counts the specs of the tree that carry each
// requirement's label, from a dry run of the tree tc declared (Ginkgo
// reports every spec of the tree to ReportAfterEach, selected or not).
// Counting the tree, not the calls of Req, is what makes a table whose
// entries share one Req settle after its last entry, not its first.
func specsPerRequirement(tc *TestContext, suiteCfg types.SuiteConfig, repCfg types.ReporterConfig) map[string]int {
	formatter.ColorableStdOut = io.Discard
	rep := ginkgo.PreviewSpecs(suiteName, suiteCfg, repCfg)
	n := map[string]int{}
	for _, s := range rep.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt {
			continue
		}
		for _, l := range s.Labels() {
			if _, ok := tc.Catalog.Requirement(l); ok {
				n[l]++
			}
		}
	}
	return n
}

// collector turns Ginkgo spec reports into outcomes and progress events.
type collector struct {
	mu        sync.Mutex
	tc        *TestContext
	res       *Result
	remaining map[string]int
	specs     map[string][]SpecOutcome
	settled   map[string]bool
	wanted    map[string]bool
	seqStart  int
}

// newCollector expects, for each requested requirement, the number of specs
// the tree holds for it (specsPerRequirement).
func newCollector(tc *TestContext, res *Result, declared map[string]int) *collector {
	c := &collector{tc: tc, res: res, remaining: map[string]int{}, specs: map[string][]SpecOutcome{},
		settled: map[string]bool{}, wanted: map[string]bool{}}
	for _, r := range tc.Catalog.ForLevels(tc.Config.Levels) {
		c.wanted[r.ID] = true
		c.remaining[r.ID] = declared[r.ID]
	}
	return c
}

func (c *collector) requirementIDs(labels []string) []string {
	var ids []string
	for _, l := range labels {
		if _, ok := c.tc.Catalog.Requirement(l); ok {
			ids = append(ids, l)
		}
	}
	sort.Strings(ids)
	return ids
}

func (c *collector) afterEach(r types.SpecReport) {
	if r.LeafNodeType != types.NodeTypeIt {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := c.requirementIDs(r.Labels())
	o := SpecOutcome{Name: r.FullText(), Requirements: ids, Duration: r.RunTime}
	o.Outcome, o.Failure = specOutcome(r)
	if c.tc.usedBrowser {
		o.Engine = c.tc.Config.Browser.engine()
	}
	c.tc.usedBrowser = false // a spec the filter skips runs no beforeEach
	// Ginkgo's own messages (a panic, a timeout) and a flake's prefix did
	// not pass through publishable.
	o.Failure = c.tc.publishable(o.Failure)
	if o.Outcome != reports.Passed && o.Outcome != reports.NotRun && o.Outcome != reports.Skipped {
		o.Location = relativeLocation(r.FailureLocation().String())
	}
	for _, e := range r.ReportEntries {
		switch e.Name {
		case "reading":
			o.Readings = append(o.Readings, e.Value.String())
		case artifactEntry:
			o.Artifacts = append(o.Artifacts, e.Value.String())
		}
	}
	if t := c.tc.Config.Transcript; t != nil {
		end := t.Seq()
		o.Exchanges = [2]int{c.seqStart + 1, end}
		c.seqStart = end
	}
	c.res.Specs = append(c.res.Specs, o)
	if c.tc.client != nil && !c.res.Connected {
		c.res.Connected = true
		c.res.Hello = c.tc.client.Hello()
		c.res.HelloErr = c.tc.client.HelloErr()
	}
	for _, id := range ids {
		if !c.wanted[id] || c.settled[id] {
			continue
		}
		c.specs[id] = append(c.specs[id], o)
		c.remaining[id]--
		if c.remaining[id] <= 0 {
			c.settle(id)
		}
	}
}

// settle tells the progress that requirement id has settled, with the
// outcome and reason the report will give it (reports.SettleRequirement).
func (c *collector) settle(id string) {
	c.settled[id] = true
	if c.tc.Config.Progress == nil {
		return
	}
	c.tc.Config.Progress(settledEvent(id, c.specs[id]))
}

// settledEvent decides requirement id from its specs as the report does.
func settledEvent(id string, specs []SpecOutcome) RequirementSettled {
	rr := reports.RequirementResult{ID: id}
	for _, s := range specs {
		rr.Specs = append(rr.Specs, s.Result())
	}
	reports.SettleRequirement(&rr)
	e := RequirementSettled{ID: id, Outcome: rr.Outcome, Reason: rr.Reason, Failure: rr.Reason}
	if i := reports.DecidingSpec(rr.Specs, rr.Outcome); i >= 0 {
		e.Failure = rr.Specs[i].Failure.Message
		e.Spec = strings.TrimPrefix(rr.Specs[i].Name, suiteName+" ")
	}
	return e
}

// finish settles requirements whose specs did not all report (never
// reached because the run was interrupted, or none declared).
func (c *collector) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []string
	for id := range c.wanted {
		if !c.settled[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		c.settle(id)
	}
}

// specOutcome decides a spec's outcome from Ginkgo's report: the outcome
// entry a failure left (outcome.go) wins; a plain failure is failed; a spec
// Ginkgo did not run (filtered out, or skipped after an interrupt) without
// a reason of the spec's own is not-run.
func specOutcome(r types.SpecReport) (reports.Outcome, string) {
	msg := strings.TrimSpace(r.FailureMessage())
	switch {
	case r.State.Is(types.SpecStatePassed) && r.NumAttempts > 1:
		// It failed, then passed when run again at once: a flake is
		// reported, never hidden as a pass.
		first := "an earlier attempt failed"
		if len(r.AdditionalFailures) > 0 {
			first = strings.TrimSpace(r.AdditionalFailures[0].Failure.Message)
		}
		return reports.Flaky, fmt.Sprintf("failed, then passed when run again (%d attempts): %s", r.NumAttempts, first)
	case r.State.Is(types.SpecStatePassed):
		return reports.Passed, ""
	case r.State.Is(types.SpecStateInterrupted):
		if msg == "" {
			msg = "interrupted by a signal while this spec ran"
		}
		return reports.Interrupted, msg
	case r.State.Is(types.SpecStateSkipped | types.SpecStatePending):
		if msg == "" {
			return reports.NotRun, "not selected (--focus, --label-filter) or not reached"
		}
		return reports.Skipped, msg
	case r.State.Is(types.SpecStateTimedout | types.SpecStatePanicked | types.SpecStateAborted):
		if msg == "" {
			msg = r.State.String()
		}
		return reports.Error, fmt.Sprintf("the harness could not finish this spec (%s): %s", r.State, msg)
	}
	if msg == "" {
		msg = r.State.String()
	}
	for _, e := range r.ReportEntries {
		if e.Name == outcomeEntry {
			if o := reports.Outcome(e.Value.String()); o.Valid() {
				return o, msg
			}
		}
	}
	return reports.Failed, msg
}

// moduleRoot is the folder this package's module was built from; failure
// locations are made relative to it, so a report carries no absolute path
// of the machine that built the harness.
func moduleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file))) + string(filepath.Separator)
}

func relativeLocation(loc string) string {
	return string(StripBuildPaths([]byte(loc)))
}

// modCachePath matches a Go module cache folder in a source path.
var modCachePath = regexp.MustCompile(`/[^\s"'<>]*/pkg/mod/`)

// StripBuildPaths removes the folders of the machine that built the harness
// from text the report publishes (failure locations, Ginkgo's log): the
// harness's own source tree and the Go module cache.
func StripBuildPaths(b []byte) []byte {
	if root := moduleRoot(); root != "" {
		b = bytes.ReplaceAll(b, []byte(root), nil)
	}
	b = modCachePath.ReplaceAll(b, nil)
	return bytes.ReplaceAll(b, []byte("github.com/agentapp/conformance/"), nil)
}
