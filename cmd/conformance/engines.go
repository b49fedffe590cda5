package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/procs"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// A run over several engines (--browser-engine chromium,webkit) judges the
// browser specs once per engine, as issue 26's Parity asks (Desktop P5:
// "Reuse the same contract in Tauri or runtime-backed shells"). Ginkgo
// runs its specs once per process, so the run re-executes itself once per
// engine: the first engine's child runs every selected spec, each later
// engine's child only the requirements whose specs opened the app surface
// in the first; the reports are merged as shards are, and reports.Settle
// decides every outcome (a requirement that fails on one engine fails).

// parseEngines reads --browser-engine: one engine or a comma-separated
// list of distinct ones, in the order the children run.
func parseEngines(s string) ([]browser.Engine, error) {
	var es []browser.Engine
	for _, name := range strings.Split(s, ",") {
		e, ok := browser.ParseEngine(name)
		if !ok {
			return nil, fmt.Errorf("--browser-engine %q: want chromium, webkit or both (chromium,webkit)", s)
		}
		if slices.Contains(es, e) {
			return nil, fmt.Errorf("--browser-engine %q: %s is named twice", s, e)
		}
		es = append(es, e)
	}
	return es, nil
}

// engineChildArgs are the arguments of the `conformance run` child that
// judges in engine, writing to out, with label filter filter: the parent's
// selection, host and faults, and neither signing nor --host-artifact
// (the parent signs the merged report).
func engineChildArgs(o *runOptions, engine browser.Engine, out, filter string) []string {
	args := []string{"run", "--browser-engine", string(engine), "--out", out,
		"--call-timeout", o.callTimeout.String(), "--start-timeout", o.startTimeout.String()}
	add := func(flag string, vals ...string) {
		for _, v := range vals {
			if v != "" {
				args = append(args, flag, v)
			}
		}
	}
	add("--host-cmd", o.hostCmd)
	add("--host-addr", o.hostAddr)
	add("--level", o.levels...)
	add("--label-filter", filter)
	add("--focus", o.focus...)
	add("--backend-probe", o.backendProbe)
	add("--fault", o.faults...)
	add("--variant", o.variants...)
	add("--expected-failures", o.expected)
	add("--shard", o.shardSpec)
	if o.browserAttempts > 0 {
		args = append(args, "--browser-attempts", fmt.Sprint(o.browserAttempts))
	}
	if o.trustHostBrowser {
		args = append(args, "--trust-host-browser")
	}
	if o.quiet {
		args = append(args, "--quiet")
	}
	return args
}

// browserRequirements are the ids of the requirements of rep with a
// browser spec (one that carries its engine), in report order.
func browserRequirements(rep *reports.Report) []string {
	var ids []string
	for _, rr := range rep.Requirements {
		for _, s := range rr.Specs {
			if s.Engine != "" {
				ids = append(ids, rr.ID)
				break
			}
		}
	}
	return ids
}

// laterEngineFilter is the label filter of a later engine's child: the
// user's filter restricted to the requirements with browser specs.
func laterEngineFilter(user string, ids []string) string {
	mine := "(" + strings.Join(ids, " || ") + ")"
	if strings.TrimSpace(user) == "" {
		return mine
	}
	return "(" + user + ") && " + mine
}

// certifyEngines runs one child per engine and writes the merged report.
func certifyEngines(c *cli, o *runOptions, cat *levels.Catalog, engines []browser.Engine) (*reports.Report, error) {
	rd, err := openReportDir(o.out)
	if err != nil {
		return nil, err
	}
	defer rd.abort() // a run that fails leaves the previous report as it was
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the conformance binary to run per engine: %w", err)
	}
	workDir, err := procs.MkdirTemp("agentapp-conformance-engines-")
	if err != nil {
		return nil, fmt.Errorf("making work folder: %w", err)
	}
	defer workDir.Remove()

	// Ctrl-C reaches this process only (each child has a process group of
	// its own): it is passed to the running child, which writes its report
	// as interrupted; no later engine starts, and what ran is merged.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	var children []*shardReport
	filter := o.labelFilter
	for i, e := range engines {
		if i > 0 {
			ids := browserRequirements(children[0].rep)
			if len(ids) == 0 {
				fmt.Fprintf(c.stdout, "engine %s: no browser spec ran on %s: nothing to judge again\n", e, engines[0])
				break
			}
			filter = laterEngineFilter(o.labelFilter, ids)
		}
		out := filepath.Join(workDir.Path, "engine-"+string(e))
		if !o.quiet {
			fmt.Fprintf(c.stdout, "=== engine %s\n", e)
		}
		rep, err := runEngineChild(c, self, engineChildArgs(o, e, out, filter), string(e), sigs)
		if err != nil {
			return nil, err
		}
		children = append(children, &shardReport{dir: out, file: filepath.Join(out, reports.ReportFile), rep: rep})
		if rep.Run.Status == reports.RunInterrupted {
			if later := engines[i+1:]; len(later) > 0 {
				fmt.Fprintf(c.stdout, "engine %s: interrupted; %v not started\n", e, later)
			}
			break
		}
	}

	offsets, err := joinTranscripts(filepath.Join(rd.dir(), reports.TranscriptFile), children)
	if err != nil {
		return nil, err
	}
	rep := mergeEngines(children, offsets)
	if err := reports.Settle(&rep.Results, cat); err != nil {
		return nil, fmt.Errorf("settling outcomes: %w", err)
	}
	if err := joinEngineLogs(filepath.Join(rd.dir(), "ginkgo.log"), children); err != nil {
		return nil, err
	}
	for i, ch := range children {
		dst := filepath.Join(rd.dir(), reports.ArtifactsDir, engineArtifactDir(i, ch.rep))
		if err := copyTree(filepath.Join(ch.dir, reports.ArtifactsDir), dst); err != nil {
			return nil, err
		}
	}
	if err := publishReport(c, o, rd, rep, cat); err != nil {
		return nil, err
	}
	return rep, nil
}

// runEngineChild runs one engine's `conformance run` with its console
// passed through, and loads its report. A signal on sigs is passed to the
// child, which ends as an interrupted run with its report written; a
// second one kills it. A child dies with the parent.
func runEngineChild(c *cli, self string, args []string, engine string, sigs <-chan os.Signal) (*reports.Report, error) {
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	cmd.SysProcAttr = procs.ChildAttr()
	waited, err := procs.StartLocked(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting the run on %s: %w", engine, err)
	}
	err = waitForwarding(cmd, waited, sigs)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && (judgedExit(ee.ExitCode()) || ee.ExitCode() == exitInterrupted)) {
		return nil, fmt.Errorf("the run on %s: %w", engine, err)
	}
	return loadEngineReport(args, engine)
}

// waitForwarding waits for a started child, passing it the first signal
// on sigs and killing it on the second.
func waitForwarding(cmd *exec.Cmd, waited <-chan error, sigs <-chan os.Signal) error {
	signalled := false
	for {
		select {
		case err := <-waited:
			return err
		case sig := <-sigs:
			if signalled {
				_ = cmd.Process.Kill()
			} else {
				_ = cmd.Process.Signal(sig)
			}
			signalled = true
		}
	}
}

// loadEngineReport loads the report of the child run with args.
func loadEngineReport(args []string, engine string) (*reports.Report, error) {
	rep, err := reports.Load(filepath.Join(args[slices.Index(args, "--out")+1], reports.ReportFile))
	if err != nil {
		return nil, fmt.Errorf("the run on %s: %w", engine, err)
	}
	return rep, nil
}

// engineArtifactDir is where child i's artifacts go under artifacts/: the
// first child's stay where they are, a later one's go under its engine's
// name, so two engines' screenshots of one spec never share a path.
func engineArtifactDir(i int, rep *reports.Report) string {
	if i == 0 {
		return ""
	}
	return childEngine(rep)
}

// childEngine is the engine a child judged in (its one browser's).
func childEngine(rep *reports.Report) string {
	if len(rep.Environment.Browsers) > 0 {
		return rep.Environment.Browsers[0].Engine
	}
	for _, rr := range rep.Requirements {
		for _, s := range rr.Specs {
			if s.Engine != "" {
				return s.Engine
			}
		}
	}
	return "engine"
}

// mergeEngines joins the engines' reports into one, unsettled: every spec
// of the first child, and each later child's browser specs (those carrying
// their engine; its browser-free specs ran on the first already), with
// their exchanges moved by the child's offset in the joined transcript and
// their artifacts by engineArtifactDir. Outcomes and reasons are left to
// reports.Settle, which names each engine's outcome (issue 26, Parity).
func mergeEngines(children []*shardReport, offsets []int) *reports.Report {
	first := children[0].rep
	rep := &reports.Report{Format: reports.FormatVersion, Results: first.Results}
	rep.Requirements = nil
	rep.Levels, rep.LevelsPassed = nil, nil
	rep.Environment.Browser, rep.Environment.Browsers = "", nil
	rep.Readings = nil
	var texts []string
	var parts []*reports.Report
	for _, ch := range children {
		r := ch.rep
		parts = append(parts, r)
		if r.Environment.Browser != "" {
			texts = append(texts, r.Environment.Browser)
		}
		rep.Environment.Browsers = append(rep.Environment.Browsers, r.Environment.Browsers...)
	}
	mergeRunFacts(rep, parts)
	rep.Environment.Browser = clipRunes(strings.Join(texts, "; "), maxBrowserText)
	for _, tmpl := range first.Requirements {
		rr := tmpl
		rr.Specs = nil
		for i, ch := range children {
			other := requirementOf(ch.rep, tmpl.ID)
			if other == nil {
				continue
			}
			for _, sp := range other.Specs {
				if i > 0 && sp.Engine == "" {
					continue
				}
				sp.Exchanges = moveExchanges(sp.Exchanges, offsets[i])
				sp.Artifacts = moveArtifacts(sp.Artifacts, engineArtifactDir(i, ch.rep))
				rr.Specs = append(rr.Specs, sp)
			}
		}
		if rr.Specs == nil {
			rr.Specs = []reports.SpecResult{}
		} else {
			rr.Outcome, rr.Reason = "", ""
		}
		rep.Requirements = append(rep.Requirements, rr)
	}
	return rep
}

// moveArtifacts puts artifact paths under artifacts/<sub>/ ("" moves none).
func moveArtifacts(as []reports.Artifact, sub string) []reports.Artifact {
	if sub == "" || len(as) == 0 {
		return as
	}
	out := make([]reports.Artifact, len(as))
	for i, a := range as {
		a.Path = reports.ArtifactsDir + "/" + sub + "/" + strings.TrimPrefix(a.Path, reports.ArtifactsDir+"/")
		out[i] = a
	}
	return out
}

// joinEngineLogs concatenates the children's ginkgo.log files, each under a
// line naming its engine.
func joinEngineLogs(dst string, children []*shardReport) error {
	var buf bytes.Buffer
	for _, ch := range children {
		b, err := os.ReadFile(filepath.Join(ch.dir, "ginkgo.log"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading ginkgo.log: %w", err)
		}
		fmt.Fprintf(&buf, "=== engine %s\n", childEngine(ch.rep))
		buf.Write(b)
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// copyTree copies the regular files under src to dst (a missing src copies
// nothing).
func copyTree(src, dst string) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}
