package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/procs"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// runOptions are the flags of `conformance run`.
type runOptions struct {
	hostCmd      string
	hostAddr     string
	levels       multiFlag
	labelFilter  string
	focus        multiFlag
	out          string
	callTimeout  time.Duration
	startTimeout time.Duration
	signKey      string
	hostArtifact string
	browser      string
	browserWS    string
	// browserEngine is --browser-engine; webdriverURL is --webdriver.
	browserEngine string
	webdriverURL  string
	// webdriverCaps is --webdriver-capabilities, parsed into webdriverCapsObj.
	webdriverCaps    string
	webdriverCapsObj map[string]any
	// trustHostBrowser: judge the surface in a browser the host names.
	trustHostBrowser bool
	// webdriverHost: the WebDriver session's application is the host.
	webdriverHost   bool
	backendProbe    string
	browserAttempts int
	faults          multiFlag
	variants        multiFlag
	quiet           bool
	expected        string
	shardSpec       string
	shard           *shard // parsed from shardSpec by checkRunOptions; nil: the whole run
	// engines are parsed from browserEngine by checkRunOptions: more than
	// one runs a child per engine (engines.go).
	engines []browser.Engine
}

func parseRunFlags(c *cli, args []string) (*runOptions, error) {
	o := &runOptions{}
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.StringVar(&o.hostCmd, "host-cmd", "", "start the host under test with this shell `COMMAND` and speak the protocol on its stdin/stdout")
	fs.StringVar(&o.hostAddr, "host-addr", "", "reach a running host under test at this TCP address `HOST:PORT` (e.g. 127.0.0.1:7000)")
	fs.Var(&o.levels, "level", "`LEVEL` to certify (repeatable; default: every level this harness can judge)")
	fs.StringVar(&o.labelFilter, "label-filter", "", "extra Ginkgo label `FILTER`, e.g. a requirement id")
	fs.Var(&o.focus, "focus", "run only specs whose text matches this `REGEXP` (repeatable)")
	fs.StringVar(&o.out, "out", "./conformance-report", "`DIR` the report replaces whole when the run ends")
	fs.DurationVar(&o.callTimeout, "call-timeout", 5*time.Second, "how long the host may take to answer one call")
	fs.DurationVar(&o.startTimeout, "start-timeout", hostStartTimeout, "how long a host just started (or connected) may take to answer conformance/hello; --call-timeout when that is longer")
	fs.StringVar(&o.signKey, "sign-key", "", "PEM private key `FILE` (PKCS#8) to sign the report with")
	fs.StringVar(&o.hostArtifact, "host-artifact", "", "host build artifact `FILE` whose SHA-256 becomes a report subject")
	fs.StringVar(&o.browser, "browser", "", "Chromium `BINARY` for the app surface specs (default: chromium on PATH)")
	fs.StringVar(&o.browserWS, "browser-endpoint", "", "attach to a running browser runtime's DevTools `URL` (ws://...) instead of launching Chromium")
	fs.StringVar(&o.browserEngine, "browser-engine", "chromium", "the browser `ENGINE` the app surface specs judge in: chromium (over DevTools, or over WebDriver with --webdriver), webkit (WebKitGTK over WebDriver: WebKitWebDriver under xvfb-run, or --webdriver), or both, chromium,webkit: the browser specs run on each, and a requirement fails if it fails on either")
	fs.StringVar(&o.webdriverURL, "webdriver", "", "judge the app surface through a running W3C WebDriver remote end at `URL` (http://127.0.0.1:4444: tauri-driver, WebKitWebDriver) instead of starting one")
	fs.StringVar(&o.webdriverCaps, "webdriver-capabilities", "", "the `JSON` object of capabilities each WebDriver session asks for instead of the engine's defaults, e.g. {\"tauri:options\":{\"application\":\"/path/to/app\"}} for tauri-driver")
	fs.BoolVar(&o.webdriverHost, "webdriver-host", false, "the WebDriver session's application is the host under test (a Tauri host tauri-driver starts, named by --webdriver-capabilities, its control endpoint at --host-addr): the harness starts that session first, keeps it for the run, and judges the windows the host names in app/launch and app/center")
	fs.BoolVar(&o.trustHostBrowser, "trust-host-browser", false, "judge the app surface in a browser runtime the host names (DevTools) that --browser-endpoint does not: its verdicts then rest on a browser the host controls, and the report says so")
	fs.IntVar(&o.browserAttempts, "browser-attempts", 2, "how many `TIMES` a browser spec that does not pass runs (1 or 2; a pass the second time is reported flaky)")
	fs.StringVar(&o.backendProbe, "backend-probe", "", "a backend-probe `BINARY` built beforehand for the backend specs (default: built once per run from the embedded source with the Go toolchain on PATH)")
	fs.Var(&o.faults, "fault", "embedded mockhost only: switch on a fault `NAME` (repeatable; conformance mockhost --list-faults lists them)")
	fs.Var(&o.variants, "variant", "embedded mockhost only: switch on a variant `NAME`, a reading the standard allows that mockhost does not take by default (repeatable; conformance mockhost --list-variants lists them)")
	fs.BoolVar(&o.quiet, "quiet", false, "print only the summary")
	fs.StringVar(&o.expected, "expected-failures", "", "YAML `FILE` mapping requirement ids known to fail to why: they do not fail the run, and one that passes fails it as stale (the report keeps every failure)")
	fs.StringVar(&o.shardSpec, "shard", "", "run only shard `I/N` of the requested requirements (the k-th, 0-based, in catalog order is in shard (k mod N)+1); conformance merge joins the shards' reports")
	pos, err := parseFlags(c, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, fmt.Errorf("unexpected argument %q", pos[0])
	}
	if o.hostCmd != "" && o.hostAddr != "" {
		return nil, errors.New("--host-cmd and --host-addr exclude each other")
	}
	if len(o.faults) > 0 && (o.hostCmd != "" || o.hostAddr != "") {
		return nil, errors.New("--fault applies to the embedded mockhost only; pass faults to the host command instead")
	}
	if len(o.variants) > 0 && (o.hostCmd != "" || o.hostAddr != "") {
		return nil, errors.New("--variant applies to the embedded mockhost only; pass variants to the host command instead")
	}
	if o.callTimeout <= 0 {
		return nil, errors.New("--call-timeout must be positive")
	}
	if o.startTimeout <= 0 {
		return nil, errors.New("--start-timeout must be positive")
	}
	if err := checkRunOptions(o); err != nil {
		return nil, err
	}
	return o, nil
}

func cmdRun(c *cli, args []string) int {
	o, err := parseRunFlags(c, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(c.stderr, "conformance run: %v\n", err)
		return exitUsage
	}
	cat := levels.Default()
	want := cat.JudgedLevels()
	if len(o.levels) > 0 {
		if want, err = cat.ParseLevels(o.levels); err != nil {
			fmt.Fprintf(c.stderr, "conformance run: --level: %v\n", err)
			return exitUsage
		}
	}
	faults, err := mockhost.ParseFaults(o.faults)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance run: --fault: %v\n", err)
		return exitUsage
	}
	if err := checkEmbeddedFaults(faults); err != nil {
		fmt.Fprintf(c.stderr, "conformance run: --fault: %v\n", err)
		return exitUsage
	}
	variants, err := mockhost.ParseVariants(o.variants)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance run: --variant: %v\n", err)
		return exitUsage
	}
	var expected []reports.ExpectedFailure
	if o.expected != "" {
		if expected, err = loadExpectedFailures(o.expected, cat); err != nil {
			fmt.Fprintf(c.stderr, "conformance run: --expected-failures %v\n", err)
			return exitUsage
		}
	}
	var rep *reports.Report
	if len(o.engines) > 1 {
		rep, err = certifyEngines(c, o, cat, o.engines)
	} else {
		rep, err = certify(c, o, cat, want, embedded{faults, variants}, expected)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance run: %v\n", err)
		return exitHarness
	}
	code := exitCodeOf(rep)
	if len(expected) > 0 {
		bc, err := checkBaseline(rep, cat, expected)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance run: %v\n", err)
			return exitHarness
		}
		bc.print(c.stdout, o.expected)
		code = bc.code
	}
	// Last, also with --quiet: the line a CI log greps.
	fmt.Fprintln(c.stdout, reports.SummaryLine(&rep.Results))
	return code
}

// exitCodeOf turns a settled report into the run's exit code: interrupted
// first, then a violated clause, then what could not be judged, then what
// was not run. Only exitFailed says the host broke the standard.
func exitCodeOf(rep *reports.Report) int {
	if rep.Run.Status == reports.RunInterrupted {
		return exitInterrupted
	}
	worst := exitOK
	for _, l := range rep.Levels {
		code := exitOK
		switch l.Verdict {
		case reports.LevelFailed:
			return exitFailed
		case reports.LevelInterrupted:
			code = exitInterrupted
		case reports.LevelError:
			code = exitNotJudged
		case reports.LevelIncomplete, reports.LevelNotJudged:
			code = exitIncomplete
		}
		if worst == exitOK || (code != exitOK && code < worst) {
			worst = code
		}
	}
	if rep.Run.Status == reports.RunHostUnreachable && worst == exitOK {
		worst = exitNotJudged
	}
	return worst
}

// certify runs the suites against the host and writes the report.
// embedded are the faults and variants the embedded mockhost runs with.
type embedded struct {
	faults   mockhost.FaultSet
	variants mockhost.VariantSet
}

func certify(c *cli, o *runOptions, cat *levels.Catalog, want []string, mock embedded, expected []reports.ExpectedFailure) (*reports.Report, error) {
	rd, err := openReportDir(o.out)
	if err != nil {
		return nil, err
	}
	defer rd.abort() // a run that fails leaves the previous report as it was
	sweepStale(c, "run")
	workDir, err := procs.MkdirTemp("agentapp-conformance-")
	if err != nil {
		return nil, fmt.Errorf("making work folder: %w", err)
	}
	defer workDir.Remove()
	work := workDir.Path

	tf, err := os.Create(filepath.Join(rd.dir(), "transcript.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("creating transcript: %w", err)
	}
	defer tf.Close()
	red := control.NewRedactor()
	red.Add(work, "$WORK")
	canaries, err := suites.NewCanaries(red)
	if err != nil {
		return nil, err
	}
	transcript := control.NewTranscript(tf, red)

	hostStderr := io.Writer(io.Discard)
	if !o.quiet {
		// The host's stderr reaches the console redacted and inert.
		iw := newInertWriter(c.stderr, red.Redact)
		defer iw.Flush()
		hostStderr = iw
	}
	connector, transport, closeHost, err := connectorFor(o, mock, hostStderr)
	if err != nil {
		return nil, err
	}
	defer closeHost()

	// Ginkgo's console output quotes failure messages; it is kept in memory
	// and written redacted, like everything else the report publishes.
	var log bytes.Buffer

	cfg := suites.DefaultConfig()
	cfg.Catalog = cat
	cfg.Connector = connector
	cfg.Levels = want
	cfg.LabelFilter = o.shard.labelFilter(cat, want, o.labelFilter)
	cfg.Focus = o.focus
	cfg.WorkDir = work
	if o.backendProbe != "" {
		if cfg.BackendProbe, err = filepath.Abs(o.backendProbe); err != nil {
			return nil, fmt.Errorf("--backend-probe: %w", err)
		}
	}
	cfg.ReportDir = rd.dir()
	cfg.Redact = red.Redact
	cfg.Transcript = transcript
	cfg.Canaries = canaries
	cfg.BrowserAttempts = o.browserAttempts
	cfg.Browser = suites.BrowserConfig{Binary: o.browser, Endpoint: o.browserWS, Engine: o.engine(), WebDriver: o.webdriverURL, WebDriverCapabilities: o.webdriverCapsObj, WebDriverHost: o.webdriverHost, TrustHostRuntime: o.trustHostBrowser}
	if self, err := os.Executable(); err == nil {
		cfg.Relay = []string{self, "appserver-relay"}
	}
	cfg.Log = &log
	p := newProgress(c.stdout, cat, o.quiet, red)
	cfg.Progress = p.settled
	cfg.Unreachable = func(reason string) {
		fmt.Fprintf(c.stderr, "conformance run: giving up on the host: %s\n", reports.ForTerminal(reason))
	}

	if !o.quiet {
		fmt.Fprintf(c.stdout, "certifying %s at %s\n", connector.Describe(), strings.Join(want, ", "))
		if o.shard != nil {
			fmt.Fprintf(c.stdout, "shard %d/%d: %d of the %d requirements (the others end not-run)\n",
				o.shard.index, o.shard.total, len(o.shard.requirementIDs(cat, want)), len(cat.ForLevels(want)))
		}
	}
	started := time.Now().UTC()
	res, err := suites.Run(cfg)
	if err != nil {
		return nil, fmt.Errorf("running suites: %w", err)
	}
	finished := time.Now().UTC()
	if err := tf.Sync(); err != nil {
		return nil, fmt.Errorf("writing transcript: %w", err)
	}
	// Ginkgo's log quotes failure messages, and so what the host wrote:
	// it is made inert for the terminal it will be read in.
	ginkgoLog := reports.ForTerminalLines(string(suites.StripBuildPaths(red.Redact(log.Bytes()))))
	if err := os.WriteFile(filepath.Join(rd.dir(), "ginkgo.log"), []byte(ginkgoLog), 0o644); err != nil {
		return nil, fmt.Errorf("writing ginkgo.log: %w", err)
	}
	redactOutcomes(res, red)
	var escaped []reports.EscapedProcess
	if pw, ok := connector.(control.ProcessWatcher); ok {
		// suites.Run has stopped every host it started.
		escaped = escapedProcesses(pw.Escaped(), func(s string) string { return string(red.Redact([]byte(s))) })
	}

	rep, err := buildReport(reportInput{
		catalog: cat, levels: want, result: res, started: started, finished: finished,
		transport: transport, faults: mock.faults.Names(), variants: mock.variants.Names(), work: work, focus: o.focus, labelFilter: o.labelFilter,
		reportDir: rd.dir(), expected: expected, shard: o.shard, escaped: escaped,
	})
	if err != nil {
		return nil, err
	}
	if err := publishReport(c, o, rd, rep, cat); err != nil {
		return nil, err
	}
	return rep, nil
}

// engine is the one engine a single-engine run judges in.
// publishReport writes rep into the report folder (signed when asked),
// swaps the folder in and prints the run's summary.
func publishReport(c *cli, o *runOptions, rd *reportDir, rep *reports.Report, cat *levels.Catalog) error {
	written, err := reports.WriteAll(rd.dir(), rep, reports.WriteOptions{
		SignKeyPath: o.signKey, HostArtifact: o.hostArtifact, Catalog: cat,
	})
	if err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if err := rd.commit(); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	printSummary(c.stdout, rep, o.out, written)
	return nil
}

func (o *runOptions) engine() browser.Engine {
	if len(o.engines) == 0 {
		return browser.EngineChromium
	}
	return o.engines[0]
}

// hostStartTimeout is --start-timeout's default: how long a host just
// started (or connected) has to answer conformance/hello, whatever
// --call-timeout says, since a start is not a call
// (docs/host-control-protocol.md, Timeouts and limits).
const hostStartTimeout = 20 * time.Second

// hostStartWait is how long a host that the WebDriver session started
// (--webdriver-host) may take to listen at --host-addr.
const hostStartWait = 30 * time.Second

// connectorFor picks how to reach the host: a command, an address, or the
// embedded mockhost over an in-memory pipe.
func connectorFor(o *runOptions, mock embedded, stderr io.Writer) (control.Connector, string, func(), error) {
	opts := control.DefaultOptions()
	opts.CallTimeout = o.callTimeout
	opts.StartTimeout = o.startTimeout
	opts.HarnessVersion = harnessVersion
	switch {
	case o.hostCmd != "":
		return control.StdioConnector(o.hostCmd, stderr, opts), "stdio", func() {}, nil
	case o.hostAddr != "":
		if o.webdriverHost {
			opts.DialWait = hostStartWait // the session started it a moment ago
		}
		return control.TCPConnector(o.hostAddr, opts), "tcp", func() {}, nil
	}
	h := mockhost.NewWithOptions(mockhost.Options{Faults: mock.faults, Variants: mock.variants})
	conn := control.PipeConnector(func(rwc io.ReadWriteCloser) { _ = h.Serve(rwc) }, opts)
	return conn, "in-process", func() { _ = h.Close() }, nil
}

// redactOutcomes removes planted secret values (and the work folder) from
// everything a spec reported: a leaking host's answer may be quoted in a
// failure message, and the report is published.
func redactOutcomes(res *suites.Result, red *control.Redactor) {
	clean := func(s string) string { return string(red.Redact([]byte(s))) }
	for i := range res.Specs {
		s := &res.Specs[i]
		s.Failure = clean(s.Failure)
		s.Location = clean(s.Location)
		for j := range s.Readings {
			s.Readings[j] = clean(s.Readings[j])
		}
	}
}

// sweepStale removes the temp folders of earlier runs that were killed,
// and kills what of their hosts still runs (procs.SweepStale: never a
// live run's). Trouble is a notice, not a reason to stop.
func sweepStale(c *cli, cmd string) {
	sw, err := procs.SweepStale("")
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance %s: clearing what killed runs left: %v\n", cmd, err)
	}
	if len(sw.Folders) > 0 {
		fmt.Fprintf(c.stderr, "conformance %s: removed %d temp folders of runs that were killed (%s), and killed %d of their processes\n",
			cmd, len(sw.Folders), strings.Join(sw.Folders, ", "), sw.Killed)
	}
}

// checkEmbeddedFaults refuses a fault that acts in a host process only:
// the embedded mockhost is the harness itself.
func checkEmbeddedFaults(faults mockhost.FaultSet) error {
	for _, f := range mockhost.Faults() {
		if f.Escapes && faults.Has(f.Name) {
			return fmt.Errorf("%s acts in a host process only: run it with --host-cmd \"conformance mockhost --stdio --fault %s\"", f.Name, f.Name)
		}
	}
	return nil
}

// escapedProcesses groups the processes that escaped their host's process
// group by (redacted) command line and session, sorted.
func escapedProcesses(es []procs.Escape, redact func(string) string) []reports.EscapedProcess {
	var out []reports.EscapedProcess
	for _, e := range es {
		out = append(out, reports.EscapedProcess{Command: redact(e.Command), NewSession: e.NewSession, Count: 1})
	}
	return joinEscapes(out)
}

// maxEscapeEntries is as many entries as the predicate's schema takes.
const maxEscapeEntries = 1024

// joinEscapes adds up the counts of equal entries and sorts them, keeping
// the first maxEscapeEntries.
func joinEscapes(lists ...[]reports.EscapedProcess) []reports.EscapedProcess {
	type key struct {
		command string
		session bool
	}
	counts := map[key]int{}
	for _, l := range lists {
		for _, e := range l {
			counts[key{e.Command, e.NewSession}] += e.Count
		}
	}
	var out []reports.EscapedProcess
	for k, n := range counts {
		out = append(out, reports.EscapedProcess{Command: k.command, NewSession: k.session, Count: n})
	}
	slices.SortFunc(out, func(a, b reports.EscapedProcess) int {
		if c := strings.Compare(a.Command, b.Command); c != 0 {
			return c
		}
		switch {
		case a.NewSession == b.NewSession:
			return 0
		case a.NewSession:
			return 1
		}
		return -1
	})
	if len(out) > maxEscapeEntries {
		out = out[:maxEscapeEntries]
	}
	return out
}
