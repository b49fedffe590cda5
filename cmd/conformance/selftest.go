package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/procs"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// selftestCase is one child of selftest: no fault (the baseline), one
// fault (a line of the kill matrix) or one variant.
type selftestCase struct {
	fault mockhost.Fault // zero for the baseline and a variant
	// variant is set for a variant's case (variants.go).
	variant mockhost.Variant
	report  *reports.Report
	err     error
	output  string
	// judged, when set (selftest --level), are the requirements the
	// fault's breaks are judged on; nil: every one it breaks.
	judged map[string]bool
}

// breaks are the judged requirements the case's fault is meant to break:
// its kill verdict rests on them.
func (k *selftestCase) breaks() []string { return scoped(k.fault.Breaks, k.judged) }

// collateral are the judged requirements mockhost's collateral file
// records for the case's fault: they must fail too, or the file is stale.
func (k *selftestCase) collateral() []string { return scoped(k.fault.Collateral, k.judged) }

// killVerdict is a case's line in the kill matrix.
type killVerdict struct {
	status     string   // PASSED (baseline) | KILLED | STALE (killed, a recorded collateral passed) | SURVIVED | COLLATERAL | FALSE-FAIL | ERROR
	survivors  []string // requirements the fault is meant to break that passed
	collateral []string // requirements that failed though the fault neither breaks them nor records them as collateral
	stale      []string // requirements recorded as the fault's collateral that did not fail
	// unreported: the fault leaves a process behind (Escapes) and the
	// report names none; strays: the report names escaped processes though
	// the fault leaves none.
	unreported bool
	strays     []string
}

func cmdSelftest(c *cli, args []string) int {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	transport := fs.String("transport", "stdio", "how children reach mockhost: stdio (a mockhost child process) or in-process")
	jobs := fs.Int("jobs", runtime.NumCPU(), "faults run in parallel")
	only := multiFlag{}
	fs.Var(&only, "fault", "check only this fault (repeatable; default: every fault)")
	onlyVariants := multiFlag{}
	fs.Var(&onlyVariants, "variant", "check only this variant (repeatable; default: every variant unless --fault names faults); with no --fault, no fault and no baseline run")
	onlyLevels := multiFlag{}
	fs.Var(&onlyLevels, "level", "restrict every child to this `LEVEL` (repeatable): only faults breaking a requirement of these levels run, judged on those requirements alone (a cheap selftest for the edit loop)")
	callTimeout := fs.Duration("call-timeout", 2*time.Second, "per-call timeout in the children")
	scope := fs.String("scope", scopeLevels, "what a fault's child runs: levels (every spec of the levels its requirements count in, so collateral failures anywhere there show) or breaks (only the specs of the requirements it breaks and of its recorded collateral)")
	writeCollateral := fs.Bool("write-collateral", false, "rewrite the entries of the faults run in "+mockhost.CollateralFile+" (run from the checkout's root) to the requirements that failed outside their Breaks, then judge on them")
	keep := fs.String("keep", "", "keep the children's reports in this `DIR` (DIR/baseline, DIR/FAULT; merge --kill-matrix reads them)")
	shardSpec := fs.String("shard", "", "run only shard `I/N` of the faults (the k-th, 0-based, is in shard (k mod N)+1) and the baseline, which every shard runs; merge --kill-matrix joins the shards' --keep folders")
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
	sh, err := parseShard(*shardSpec)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
		return exitUsage
	}
	if *jobs < 1 {
		*jobs = 1
	}
	cat := levels.Default()
	opts := childOptions{transport: *transport, callTimeout: *callTimeout, scope: *scope}
	if len(onlyLevels) > 0 {
		want, err := cat.ParseLevels(onlyLevels)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance selftest: --level: %v\n", err)
			return exitUsage
		}
		opts.levels = restrictLevels(childLevels(cat, mockhost.Fault{}), want)
		if len(opts.levels) == 0 {
			fmt.Fprintf(c.stderr, "conformance selftest: --level %s: the baseline runs none of these levels\n", strings.Join(onlyLevels, " "))
			return exitUsage
		}
	}
	judged := judgedRequirements(cat, opts.levels)
	faults := mockhost.Faults()
	if len(only) > 0 {
		set, err := mockhost.ParseFaults(only)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
			return exitUsage
		}
		faults = slices.DeleteFunc(faults, func(f mockhost.Fault) bool { return !set.Has(f.Name) })
	}
	// --variant alone checks variants only: no fault, and no baseline to
	// judge faults against.
	variantsOnly := len(onlyVariants) > 0 && len(only) == 0
	if variantsOnly {
		faults = nil
	}
	if judged != nil {
		// Only the faults with something to break in the levels run, and
		// those that leave a process behind (their child runs one spec).
		faults = slices.DeleteFunc(faults, func(f mockhost.Fault) bool { return len(scoped(f.Fails(), judged)) == 0 && !f.Escapes })
	}
	if *transport == "in-process" {
		faults = slices.DeleteFunc(faults, func(f mockhost.Fault) bool {
			if f.Escapes {
				fmt.Fprintf(c.stdout, "selftest: %s not run: in-process the host is the harness itself, with no process of its own to leave one behind\n", f.Name)
			}
			return f.Escapes
		})
	}
	variants, err := selectVariants(onlyVariants, only, cat, judged)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
		return exitUsage
	}
	var mine []mockhost.Fault
	for k, f := range faults {
		if sh.owns(k) {
			mine = append(mine, f)
		}
	}
	var mineVariants []mockhost.Variant
	for k, v := range variants {
		if sh.owns(len(faults) + k) {
			mineVariants = append(mineVariants, v)
		}
	}
	sweepStale(c, "selftest")
	root := *keep
	if root == "" {
		dir, err := procs.MkdirTemp("agentapp-selftest-")
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
			return exitHarness
		}
		defer dir.Remove()
		root = dir.Path
	}
	// The baseline runs in every shard: each judges its collateral
	// failures against it.
	var cases []*selftestCase
	if !variantsOnly {
		cases = append(cases, &selftestCase{judged: judged})
	}
	for _, f := range mine {
		cases = append(cases, &selftestCase{fault: f, judged: judged})
	}
	for _, v := range mineVariants {
		cases = append(cases, &selftestCase{variant: v, judged: judged})
	}
	part := ""
	if sh != nil {
		part = fmt.Sprintf(" (shard %d/%d of %d faults and %d variants)", sh.index, sh.total, len(faults), len(variants))
	}
	what := fmt.Sprintf("baseline, %d faults and %d variants", len(mine), len(mineVariants))
	if variantsOnly {
		what = fmt.Sprintf("%d variants", len(mineVariants))
	}
	fmt.Fprintf(c.stdout, "selftest: %s%s over %s, %d at a time, scope %s\n", what, part, *transport, *jobs, *scope)
	probe, probeBin, err := buildProbeOnce()
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance selftest: %v\n", err)
		return exitHarness
	}
	if probe != nil {
		defer probe.Remove()
		opts.backendProbe = probeBin
	}
	runCases(c, cases, root, opts, *jobs)
	if *writeCollateral {
		n, err := rewriteCollateral(mockhost.CollateralFile, cases)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance selftest: --write-collateral: %v\n", err)
			return exitHarness
		}
		fmt.Fprintf(c.stdout, "selftest: rewrote the collateral of %d faults in %s (rebuild conformance to embed it)\n", n, mockhost.CollateralFile)
	}
	ks := killMatrixScope{everyFault: len(only) == 0 && !variantsOnly && sh == nil && judged == nil}
	switch {
	case sh != nil:
		ks.skipped = fmt.Sprintf("it needs every fault and shard %d/%d ran some (merge --kill-matrix the shards' --keep folders)", sh.index, sh.total)
	case judged != nil && len(only) == 0 && !variantsOnly:
		ks.skipped = levelsSkip
	}
	return judgeKillMatrix(c.stdout, cases, cat, ks)
}

// levelsSkip says why a --level selftest makes no every-spec check.
const levelsSkip = "it needs every fault and --level ran only those breaking a requirement of its levels"

// restrictLevels keeps the levels of have that are in want, in have's order.
func restrictLevels(have, want []string) []string {
	var out []string
	for _, l := range have {
		if slices.Contains(want, l) {
			out = append(out, l)
		}
	}
	return out
}

// judgedRequirements is the set of requirements a selftest restricted to
// levels judges faults on; nil (no restriction) judges every break.
func judgedRequirements(cat *levels.Catalog, lv []string) map[string]bool {
	if len(lv) == 0 {
		return nil
	}
	ids := map[string]bool{}
	for _, r := range cat.ForLevels(lv) {
		ids[r.ID] = true
	}
	return ids
}

// scoped are the requirements of ids that are judged.
func scoped(ids []string, judged map[string]bool) []string {
	if judged == nil {
		return ids
	}
	var out []string
	for _, id := range ids {
		if judged[id] {
			out = append(out, id)
		}
	}
	return out
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
// so that no long child starts last and runs alone: the baseline, the
// indiscriminate faults (every claimed level) and the hostile ones (each
// call they spoil waits out the call timeout), then faults whose levels
// need a browser, then the rest; within each, the fault that breaks more
// requirements (more specs to run) first.
func longestFirst(cat *levels.Catalog, cases []*selftestCase) []*selftestCase {
	cost := func(k *selftestCase) int {
		if escapesOnly(k.fault) {
			return 0 // one spec (escapeChildFilter)
		}
		lv := childLevels(cat, k.fault)
		switch {
		case k.variant.Name != "":
			lv = variantLevels(cat, k.variant, nil)
		case k.fault.Name == "" || len(k.fault.Indiscriminate) > 0 || k.fault.Hostile:
			return 2
		}
		for _, id := range lv {
			if l, ok := cat.Level(id); ok && l.Browser {
				return 1
			}
		}
		return 0
	}
	out := slices.Clone(cases)
	slices.SortStableFunc(out, func(a, b *selftestCase) int {
		if c := cost(b) - cost(a); c != 0 {
			return c
		}
		return len(b.fault.Fails()) + len(b.variant.Touches) - len(a.fault.Fails()) - len(a.variant.Touches)
	})
	return out
}

// runCase runs one case's child and prints its settled line.
func runCase(c *cli, k *selftestCase, root string, o childOptions, mu *sync.Mutex) {
	start := time.Now()
	if k.variant.Name != "" {
		k.report, k.output, k.err = runVariantChild(c.self, k.variant, root, o)
	} else {
		k.report, k.output, k.err = runChild(c.self, k.fault, root, o)
	}
	took := time.Since(start).Round(100 * time.Millisecond)
	name, status := k.fault.Name, ""
	switch {
	case k.variant.Name != "":
		name, status = "variant "+k.variant.Name, judgeVariant(k, levels.Default()).status
	case name == "":
		name, status = "(no fault)", judge(k).status
	default:
		status = judge(k).status
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(c.stdout, "settled %-11s %s (%s)\n", status, name, took)
}

// What the child of a fault that breaks nothing and only leaves a process
// behind (mockhost.Fault.Escapes) runs: one cheap spec that starts the host.
const (
	escapeChildLevel  = "catalog"
	escapeChildFilter = "PROTO-HELLO"
)

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
	// levels, when set (selftest --level), restrict every child to them.
	levels []string
	// backendProbe is the backend-probe every child uses ("": each child
	// builds its own).
	backendProbe string
}

// buildProbeOnce builds backend-probe once for every child, into a temp
// folder of its own the caller removes; it returns the folder and the
// binary. On a machine without a Go toolchain, or where the build fails,
// it returns nil and each child meets the same trouble and says why its
// backend specs are blocked, as a run does.
func buildProbeOnce() (*procs.TempDir, string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, "", nil
	}
	dir, err := procs.MkdirTemp("agentapp-selftest-probe-")
	if err != nil {
		return nil, "", fmt.Errorf("making a folder for backend-probe: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin, err := platformconformance.BuildBackendProbe(ctx, goBin, dir.Path)
	if err != nil {
		_ = dir.Remove()
		return nil, "", nil
	}
	return dir, bin, nil
}

// runVariantChild runs `conformance run` against mockhost with one variant
// in a child process, over the requirements it touches (variantArgs).
func runVariantChild(self string, v mockhost.Variant, root string, o childOptions) (*reports.Report, string, error) {
	out := filepath.Join(root, variantDir(v.Name))
	args := []string{"run", "--quiet", "--out", out, "--call-timeout", o.callTimeout.String()}
	if o.backendProbe != "" {
		args = append(args, "--backend-probe", o.backendProbe)
	}
	args = append(args, variantArgs(levels.Default(), v, o)...)
	if o.transport == "stdio" {
		args = append(args, "--host-cmd", shellQuote(self)+" mockhost --stdio --variant "+v.Name)
	} else {
		args = append(args, "--variant", v.Name)
	}
	return runConformance(self, args, out, "variant "+v.Name)
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
	lv := childLevels(levels.Default(), f)
	if escapesOnly(f) {
		// It breaks nothing and leaves a process as the host starts: one
		// spec starts the host, which is all it needs.
		lv = []string{escapeChildLevel}
	} else if len(o.levels) > 0 {
		// A fault's break may count in a restricted level through a level
		// below it (levels are cumulative): then the child runs them all.
		if lv = restrictLevels(lv, o.levels); len(lv) == 0 {
			lv = o.levels
		}
	}
	for _, l := range lv {
		args = append(args, "--level", l)
	}
	switch {
	case escapesOnly(f):
		args = append(args, "--label-filter", escapeChildFilter)
	case o.scope == scopeBreaks:
		if filter := breaksFilter(f); filter != "" {
			args = append(args, "--label-filter", filter)
		}
		// A fault's child in this scope runs the browser specs of what the
		// fault breaks, which are to fail: a second attempt would only
		// wait again. The baseline, which must pass, keeps its retry.
		if fault != "" {
			args = append(args, "--browser-attempts", "1")
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
	return runConformance(self, args, out, name)
}

// childTimeout is how long one selftest child may run.
const childTimeout = 20 * time.Minute

// runConformance runs `conformance run` with args in a child process and
// loads the report it wrote to out; name says which child it was.
func runConformance(self string, args []string, out, name string) (*reports.Report, string, error) {
	// A whole certification (the baseline, every-reading) takes about 4
	// minutes alone here and over 9 beside two other children and other
	// work on 2 cores: the bound catches a hung child, not a slow one.
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	var buf limitedBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	// A child dies with selftest (a parent-death signal), so a selftest
	// that is killed leaves no run behind.
	cmd.SysProcAttr = procs.ChildAttr()
	waited, err := procs.StartLocked(cmd)
	if err == nil {
		err = <-waited
	}
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
// baseline or, for a fault, the levels of the requirements that must fail
// under it (Fault.Fails). A fault of the browser-free levels does not pay
// for the browser specs (their collateral is still seen by the baseline and
// the faults there).
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
	if f.Name == "" {
		// The baseline runs everything mockhost claims and every level a
		// fault breaks something in (a fault's requirement must pass
		// without it).
		add(mockhost.ClaimedLevels()...)
		for _, g := range mockhost.Faults() {
			for _, id := range g.Fails() {
				if r, ok := cat.Requirement(id); ok {
					add(r.Levels...)
				}
			}
		}
		return want
	}
	for _, id := range f.Fails() {
		if r, ok := cat.Requirement(id); ok {
			add(r.Levels...)
		}
	}
	return want
}

// escapesOnly reports whether a fault breaks nothing and only leaves a
// process behind (mockhost.Fault.Escapes).
func escapesOnly(f mockhost.Fault) bool { return f.Escapes && len(f.Fails()) == 0 }

// breaksFilter is the label filter of a fault's child in the breaks scope:
// the specs of the requirements the fault is meant to break (its Breaks),
// nothing else. So the child proves the kill; its recorded collateral, and
// any new one, show only in --scope levels, which --write-collateral is run
// with (a collateral is no verdict of the suite's: no verdict may rest on
// another requirement's failure). The baseline runs everything (""). A
// fault whose refusals no spec may rest on runs what it breaks (every
// requirement resting on those refusals, which the false-pass check reads)
// and its recorded collateral: the specs it was seen to fail, so the specs
// it alone kills are still counted, without a whole certification beside
// the baseline's (about 300 s of child time each, 2026-11-28).
func breaksFilter(f mockhost.Fault) string {
	switch {
	case f.Name == "":
		return ""
	case len(f.Indiscriminate) > 0:
		return strings.Join(f.Fails(), " || ")
	}
	return strings.Join(f.Breaks, " || ")
}
