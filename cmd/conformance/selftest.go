package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// selftestCase is one run of the kill matrix: no fault (the baseline) or one fault.
type selftestCase struct {
	fault  mockhost.Fault // zero for the baseline
	report *reports.Report
	err    error
	output string
}

// killVerdict is a case's line in the kill matrix.
type killVerdict struct {
	status     string   // PASSED (baseline) | KILLED | SURVIVED | COLLATERAL | FALSE-FAIL | ERROR
	survivors  []string // requirements the fault breaks that passed
	collateral []string // requirements that failed though the fault does not break them
}

func cmdSelftest(c *cli, args []string) int {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	transport := fs.String("transport", "stdio", "how children reach mockhost: stdio (a mockhost child process) or in-process")
	jobs := fs.Int("jobs", runtime.NumCPU(), "faults run in parallel")
	only := multiFlag{}
	fs.Var(&only, "fault", "check only this fault (repeatable; default: every fault)")
	callTimeout := fs.Duration("call-timeout", 2*time.Second, "per-call timeout in the children")
	scope := fs.String("scope", scopeLevels, "what a fault's child runs: levels (every spec of the levels its requirements count in, so collateral failures anywhere there show) or breaks (the levels without a browser in full, elsewhere only the specs of the requirements it breaks)")
	keep := fs.String("keep", "", "keep the children's reports in this folder")
	if _, code := parseArgs(c, fs, args); code >= 0 {
		return code
	}
	if *transport != "stdio" && *transport != "in-process" {
		fmt.Fprintf(c.stderr, "conformance selftest: --transport must be stdio or in-process, not %q\n", *transport)
		return exitUsage
	}
	if *scope != scopeLevels && *scope != scopeBreaks {
		fmt.Fprintf(c.stderr, "conformance selftest: --scope must be %s or %s, not %q\n", scopeLevels, scopeBreaks, *scope)
		return exitUsage
	}
	if *jobs < 1 {
		*jobs = 1
	}
	faults := mockhost.Faults()
	if len(only) > 0 {
		set, err := mockhost.ParseFaults(only)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
			return exitUsage
		}
		var picked []mockhost.Fault
		for _, f := range faults {
			if set.Has(f.Name) {
				picked = append(picked, f)
			}
		}
		faults = picked
	}
	root := *keep
	if root == "" {
		dir, err := os.MkdirTemp("", "agentapp-selftest-")
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
			return exitHarness
		}
		defer os.RemoveAll(dir)
		root = dir
	}
	cases := make([]*selftestCase, 0, len(faults)+1)
	cases = append(cases, &selftestCase{})
	for _, f := range faults {
		cases = append(cases, &selftestCase{fault: f})
	}
	fmt.Fprintf(c.stdout, "selftest: baseline and %d faults over %s, %d at a time, scope %s\n", len(faults), *transport, *jobs, *scope)
	probe, err := buildProbeOnce()
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
		return exitHarness
	}
	if probe != "" {
		defer os.RemoveAll(filepath.Dir(probe))
	}
	runCases(c, cases, root, childOptions{transport: *transport, callTimeout: *callTimeout, scope: *scope, backendProbe: probe}, *jobs)
	cat := levels.Default()
	bad := printKillMatrix(c.stdout, cases)
	checks := len(cases)
	if len(only) == 0 {
		// With every fault run, each spec (not only each requirement) must
		// have failed under at least one of them.
		checks++
		if idle := unkilledSpecs(cases); len(idle) > 0 {
			fmt.Fprintf(c.stdout, "%d specs failed under no fault (a broken host could pass them):\n", len(idle))
			for _, s := range idle {
				fmt.Fprintf(c.stdout, "  %s\n", s)
			}
			bad++
		} else {
			fmt.Fprintln(c.stdout, "every spec failed under at least one fault")
		}
	}
	// Under an indiscriminate fault, no requirement resting on a refusal of
	// the kinds it gives or withholds regardless of what was planted may pass.
	for _, k := range cases {
		if len(k.fault.Indiscriminate) == 0 || k.report == nil {
			continue
		}
		checks++
		if passed, n := refusalPasses(k, cat); len(passed) > 0 {
			fmt.Fprintf(c.stdout, "FALSE-PASS  %s: %d requirements rest on a refusal it gives regardless, and these passed: %s\n",
				k.fault.Name, n, strings.Join(passed, " "))
			bad++
		} else {
			fmt.Fprintf(c.stdout, "no false pass under %s: none of the %d requirements resting on a refusal passed\n", k.fault.Name, n)
		}
	}
	// The closing line CI runners read.
	fmt.Fprintf(c.stdout, "selftest: %d passed, %d failed\n", checks-bad, bad)
	if bad > 0 {
		return exitFailed
	}
	return exitOK
}

// refusalPasses lists the requirements resting on a refusal of a kind the
// fault gives regardless (levels.Requirement.Refusal) that passed under
// it, and how many such requirements the run judged.
func refusalPasses(k *selftestCase, cat *levels.Catalog) (passed []string, n int) {
	out := map[string]reports.Outcome{}
	for _, r := range k.report.Requirements {
		out[r.ID] = r.Outcome
	}
	for _, r := range cat.Requirements() {
		o, ran := out[r.ID]
		if !ran || !restsOn(r, k.fault.Indiscriminate) {
			continue
		}
		n++
		if o == reports.Passed {
			passed = append(passed, r.ID)
		}
	}
	return passed, n
}

func restsOn(r levels.Requirement, kinds []levels.RefusalKind) bool {
	for _, k := range r.Refusal {
		if slices.Contains(kinds, k) {
			return true
		}
	}
	return false
}

// unkilledSpecs lists the baseline's specs that no fault run failed.
func unkilledSpecs(cases []*selftestCase) []string {
	killed := map[string]bool{}
	var all []string
	for _, k := range cases {
		if k.report == nil {
			continue
		}
		for _, r := range k.report.Requirements {
			for _, s := range r.Specs {
				if k.fault.Name == "" {
					all = append(all, s.Name)
				} else if s.Outcome == reports.Failed {
					killed[s.Name] = true
				}
			}
		}
	}
	var idle []string
	for _, s := range all {
		if !killed[s] {
			idle = append(idle, s)
		}
	}
	sort.Strings(idle)
	return idle
}

// runCases runs every case in its own child process, jobs at a time, the
// longest first (longestFirst), and prints a line per case as its child
// settles: its kill-matrix status, the fault and how long the child ran.
func runCases(c *cli, cases []*selftestCase, root string, o childOptions, jobs int) {
	queue := make(chan *selftestCase, len(cases))
	for _, k := range longestFirst(levels.Default(), cases) {
		queue <- k
	}
	close(queue)
	var wg sync.WaitGroup
	var mu sync.Mutex // one settled line at a time on stdout
	for range min(jobs, len(cases)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range queue {
				runCase(c, k, root, o, &mu)
			}
		}()
	}
	wg.Wait()
}

// longestFirst orders the cases by how much their child runs, most first,
// so that no long child starts last and runs alone: the baseline and the
// indiscriminate faults (every claimed level), then faults whose levels
// need a browser, then the rest; the catalog order within each.
func longestFirst(cat *levels.Catalog, cases []*selftestCase) []*selftestCase {
	cost := func(k *selftestCase) int {
		if k.fault.Name == "" || len(k.fault.Indiscriminate) > 0 {
			return 2
		}
		for _, id := range childLevels(cat, k.fault) {
			if l, ok := cat.Level(id); ok && l.Browser {
				return 1
			}
		}
		return 0
	}
	out := slices.Clone(cases)
	slices.SortStableFunc(out, func(a, b *selftestCase) int { return cost(b) - cost(a) })
	return out
}

// runCase runs one case's child and prints its settled line.
func runCase(c *cli, k *selftestCase, root string, o childOptions, mu *sync.Mutex) {
	start := time.Now()
	k.report, k.output, k.err = runChild(c.self, k.fault, root, o)
	took := time.Since(start).Round(100 * time.Millisecond)
	name := k.fault.Name
	if name == "" {
		name = "(no fault)"
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(c.stdout, "settled %-11s %s (%s)\n", judge(k).status, name, took)
}

// The selftest scopes: what a fault's child runs.
const (
	scopeLevels = "levels"
	scopeBreaks = "breaks"
)

// childOptions say how a child reaches mockhost and what it runs.
type childOptions struct {
	transport   string // stdio or in-process
	callTimeout time.Duration
	scope       string // scopeLevels or scopeBreaks
	// backendProbe is the backend-probe every child uses ("": each child
	// builds its own).
	backendProbe string
}

// buildProbeOnce builds backend-probe once for every child, into a folder
// of its own the caller removes. On a machine without a Go toolchain, or
// where the build fails, it returns "" and each child meets the same
// trouble and says why its backend specs are blocked, as a run does.
func buildProbeOnce() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "agentapp-selftest-probe-")
	if err != nil {
		return "", fmt.Errorf("making a folder for backend-probe: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin, err := platformconformance.BuildBackendProbe(ctx, goBin, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil
	}
	return bin, nil
}

// runChild runs `conformance run` against mockhost with one fault (or none)
// in a child process: Ginkgo allows one suite run per process.
func runChild(self string, f mockhost.Fault, root string, o childOptions) (*reports.Report, string, error) {
	transport, callTimeout := o.transport, o.callTimeout
	fault, name := f.Name, f.Name
	if name == "" {
		name = "baseline"
	}
	out := filepath.Join(root, name)
	args := []string{"run", "--quiet", "--out", out, "--call-timeout", callTimeout.String()}
	if o.backendProbe != "" {
		args = append(args, "--backend-probe", o.backendProbe)
	}
	for _, l := range childLevels(levels.Default(), f) {
		args = append(args, "--level", l)
	}
	if o.scope == scopeBreaks {
		if filter := breaksFilter(levels.Default(), f); filter != "" {
			args = append(args, "--label-filter", filter)
		}
	}
	switch {
	case transport == "stdio":
		hostCmd := shellQuote(self) + " mockhost --stdio"
		if fault != "" {
			hostCmd += " --fault " + fault
		}
		args = append(args, "--host-cmd", hostCmd)
	case fault != "":
		args = append(args, "--fault", fault)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	var buf limitedBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && judgedExit(ee.ExitCode())) {
		return nil, buf.String(), fmt.Errorf("child run %s: %w", name, err)
	}
	rep, lerr := reports.Load(filepath.Join(out, "report.json"))
	if lerr != nil {
		return nil, buf.String(), fmt.Errorf("child run %s: %w", name, lerr)
	}
	return rep, buf.String(), nil
}

// judge compares a case's failed requirements with what its fault breaks.
func judge(k *selftestCase) killVerdict {
	if k.err != nil {
		return killVerdict{status: "ERROR"}
	}
	failed := map[string]bool{}
	for _, r := range k.report.Requirements {
		if r.Outcome != reports.Passed && r.Outcome != reports.NotRun {
			failed[r.ID] = true
		}
	}
	breaks := map[string]bool{}
	for _, id := range k.fault.Breaks {
		breaks[id] = true
	}
	v := killVerdict{}
	for _, id := range k.fault.Breaks {
		if !failed[id] {
			v.survivors = append(v.survivors, id)
		}
	}
	for id := range failed {
		if !breaks[id] {
			v.collateral = append(v.collateral, id)
		}
	}
	sort.Strings(v.collateral)
	switch {
	case k.fault.Name == "" && len(v.collateral) > 0:
		v.status = "FALSE-FAIL"
	case k.fault.Name == "":
		v.status = "PASSED"
	case len(v.survivors) > 0:
		v.status = "SURVIVED"
	case len(v.collateral) > 0:
		v.status = "COLLATERAL"
	default:
		v.status = "KILLED"
	}
	return v
}

// printKillMatrix prints a line per case and returns how many cases failed.
func printKillMatrix(w io.Writer, cases []*selftestCase) int {
	bad := 0
	killed := 0
	for _, k := range cases {
		v := judge(k)
		name := k.fault.Name
		if name == "" {
			name = "(no fault)"
		}
		fmt.Fprintf(w, "%-11s %-30s %s\n", v.status, name, strings.Join(k.fault.Breaks, " "))
		switch v.status {
		case "KILLED":
			killed++
		case "PASSED":
		default:
			bad++
		}
		if len(v.survivors) > 0 {
			fmt.Fprintf(w, "            passed though the fault breaks them: %s\n", strings.Join(v.survivors, " "))
		}
		if len(v.collateral) > 0 {
			fmt.Fprintf(w, "            failed though the fault does not break them: %s\n", strings.Join(v.collateral, " "))
			for _, id := range v.collateral {
				if msg := failureOf(k.report, id); msg != "" {
					fmt.Fprintf(w, "              %s: %s\n", id, truncateLine(firstLine(msg), 240))
				}
			}
		}
		if k.err != nil {
			fmt.Fprintf(w, "            %v\n%s\n", k.err, indent(lastLines(k.output, 20), "            | "))
		}
	}
	fmt.Fprintf(w, "\nkill matrix: %d of %d faults killed, %d problems\n", killed, len(cases)-1, bad)
	return bad
}

func failureOf(rep *reports.Report, id string) string {
	if rep == nil {
		return ""
	}
	for _, r := range rep.Requirements {
		if r.ID == id {
			return r.Reason
		}
	}
	return ""
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// limitedBuffer keeps the last 64 KiB a child printed.
type limitedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - 64<<10; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// judgedExit reports whether a child run's exit code means it wrote a
// report: a level failed, could not be judged, or was incomplete.
func judgedExit(code int) bool {
	return code == exitFailed || code == exitNotJudged || code == exitIncomplete
}

// childLevels are the levels a selftest child certifies: every level the
// harness judges without a browser, and the levels mockhost claims for the
// baseline or, for a fault, the levels of the requirements it breaks. A
// fault of the browser-free levels does not pay for the browser specs
// (their collateral is still seen by the baseline and the faults there).
func childLevels(cat *levels.Catalog, f mockhost.Fault) []string {
	var want []string
	for _, id := range cat.JudgedLevels() {
		if l, ok := cat.Level(id); ok && !l.Browser {
			want = append(want, id)
		}
	}
	add := func(ids ...string) {
		for _, id := range ids {
			if !slices.Contains(want, id) {
				want = append(want, id)
			}
		}
	}
	if f.Name == "" || len(f.Indiscriminate) > 0 {
		// The baseline, and a fault whose refusals no spec may rest on,
		// run everything mockhost claims and every level a fault breaks
		// something in (a fault's requirement must pass without it).
		add(mockhost.ClaimedLevels()...)
		for _, g := range mockhost.Faults() {
			for _, id := range g.Breaks {
				if r, ok := cat.Requirement(id); ok {
					add(r.Levels...)
				}
			}
		}
		return want
	}
	for _, id := range f.Breaks {
		if r, ok := cat.Requirement(id); ok {
			add(r.Levels...)
		}
	}
	return want
}

// breaksFilter is the label filter of a fault's child in the breaks scope:
// every spec of the levels that need no browser (cheap, and where most
// collateral failures show), and elsewhere only the specs of the
// requirements the fault breaks. The baseline and a fault whose refusals no
// spec may rest on run everything ("").
func breaksFilter(cat *levels.Catalog, f mockhost.Fault) string {
	if f.Name == "" || len(f.Indiscriminate) > 0 {
		return ""
	}
	var parts []string
	for _, id := range cat.JudgedLevels() {
		if l, ok := cat.Level(id); ok && !l.Browser {
			parts = append(parts, id)
		}
	}
	return strings.Join(append(parts, f.Breaks...), " || ")
}
