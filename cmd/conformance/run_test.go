package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentapp/conformance/reports"
)

// runBinary runs the built harness with args and returns its exit code.
func runBinary(t testing.TB, bin string, args ...string) int {
	t.Helper()
	cmd := exec.Command(bin, args...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	t.Fatalf("%v: %v\n%s", args, err, out)
	return -1
}

// withoutTimes drops every member that legitimately differs between two runs:
// times and durations, and the transcript positions of a spec's exchanges
// (a spec that waits for the host by reading it again, as the workflow and
// App Server specs do, makes as many exchanges as the wait takes).
func withoutTimes(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "startedAt", "finishedAt", "durationMs", "exchanges":
				continue
			}
			out[k] = withoutTimes(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutTimes(e)
		}
		return out
	}
	return v
}

func loadPredicate(t *testing.T, dir string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.statement.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Predicate any `json:"predicate"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	return st.Predicate
}

// TestTwoRunsGivePredicatesThatDifferOnlyInTimes runs the harness twice
// against the embedded mockhost, side by side (each run waits on its host
// more than it computes), at installable and desktop-p1: the package
// pipeline, readiness, launch gating and the app center, browser pages
// included. The signed predicate must be the same but for times and
// durations, and both levels must pass. Spec names are the same in every
// run by TestCoverageDocIsCurrent (docs/coverage.md lists them all); every
// level passing is the selftest baseline's to prove (make test runs it).
func TestTwoRunsGivePredicatesThatDifferOnlyInTimes(t *testing.T) {
	bin := buildBinary(t)
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	want := []string{"installable", "desktop-p1"}
	codes := make([]int, 2)
	var wg sync.WaitGroup
	for i, out := range []string{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = exitCodeOfChild(exec.Command(bin, "run", "--quiet", "--out", out, "--level", want[0], "--level", want[1]))
		}()
	}
	wg.Wait()
	for i, out := range []string{a, b} {
		if codes[i] != exitOK {
			t.Fatalf("run into %s: exit %d", out, codes[i])
		}
	}
	if d := cmp.Diff(withoutTimes(loadPredicate(t, a)), withoutTimes(loadPredicate(t, b))); d != "" {
		t.Fatalf("predicates differ beyond times and durations (-a +b):\n%s", d)
	}
	rep, err := reports.Load(filepath.Join(a, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range want {
		if !slices.Contains(rep.LevelsPassed, l) {
			t.Errorf("levels passed = %v, want %s among them", rep.LevelsPassed, l)
		}
	}
}

// exitCodeOfChild runs cmd and returns its exit code (-1 when it could not
// run at all); safe to call from a goroutine, unlike runBinary.
func exitCodeOfChild(cmd *exec.Cmd) int {
	err := cmd.Run()
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// BenchmarkDesktopP0Run is the wall time of a whole Desktop P0 run against
// the embedded mockhost, as a user runs it (a child process each time).
func BenchmarkDesktopP0Run(b *testing.B) {
	bin := buildBinary(b)
	out := b.TempDir()
	for b.Loop() {
		if code := runBinary(b, bin, "run", "--quiet", "--level", "desktop-p0", "--out", out); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}

// TestProgressLinesAgreeWithTheReport checks the line printed as each
// requirement settles against report.json, under a fault that fails only
// the second of a table's specs.
func TestProgressLinesAgreeWithTheReport(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "r")
	// One level holds the fault's requirement: the console and the report
	// are what is compared, not how many levels ran.
	stdout, err := exec.Command(bin, "run", "--fault", "exec-worker-on-project", "--level", "desktop-p0", "--out", out).Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailed {
		t.Fatalf("want exit %d, got %v", exitFailed, err)
	}
	rep, err := reports.Load(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	printed := map[string]string{}
	for _, line := range strings.Split(string(stdout), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "PASSED" || f[0] == "FAILED" || f[0] == "WARN" || f[0] == "SKIPPED" || f[0] == "NOT-RUN" ||
			f[0] == "ERROR" || f[0] == "BLOCKED" || f[0] == "INTERRUPTED") {
			printed[f[1]] = f[0]
		}
	}
	for _, r := range rep.Requirements {
		want := strings.ToUpper(string(r.Outcome))
		if r.Outcome == reports.Failed && (r.Strength == "should" || r.Strength == "may") {
			want = "WARN"
		}
		if printed[r.ID] != want {
			t.Errorf("%s: printed %q, report says %s", r.ID, printed[r.ID], r.Outcome)
		}
	}
	if printed["P0-NO-APP-CODE"] != "FAILED" {
		t.Errorf("P0-NO-APP-CODE printed %q under exec-worker-on-project", printed["P0-NO-APP-CODE"])
	}
}

// TestRunOverTCP certifies `conformance mockhost --tcp` through --host-addr.
func TestRunOverTCP(t *testing.T) {
	bin := buildBinary(t)
	host := exec.Command(bin, "mockhost", "--tcp", "127.0.0.1:0")
	stderr, err := host.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = host.Process.Kill()
		_ = host.Wait()
	}()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the listening line: %v", err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "listening on"))
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("mockhost said %q", line)
	}
	out := filepath.Join(t.TempDir(), "tcp")
	// The transport is what is judged here: the levels without a browser
	// are enough (TestTwoRunsGivePredicatesThatDifferOnlyInTimes runs
	// every level).
	if code := runBinary(t, bin, "run", "--quiet", "--host-addr", addr, "--out", out, "--level", "installable", "--level", "desktop-p0"); code != exitOK {
		t.Fatalf("run over TCP: exit %d", code)
	}
	rep, err := reports.Load(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Host.Transport != "tcp" || !cmp.Equal(rep.LevelsPassed, []string{"installable", "desktop-p0"}, cmpopts.SortSlices(func(a, b string) bool { return a < b })) {
		t.Errorf("transport %q, levels passed %v", rep.Host.Transport, rep.LevelsPassed)
	}
}

// TestLeakedSecretsNeverReachTheReport runs against a host that leaks the
// planted secrets: the leak must fail its specs, and no file of the report
// may carry a canary value.
func TestLeakedSecretsNeverReachTheReport(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "r")
	// Desktop P0 is where both requirements count (with installable, where
	// PROJ-NO-SECRETS does too): every file of that run is searched.
	if code := runBinary(t, bin, "run", "--quiet", "--out", out, "--level", "installable", "--level", "desktop-p0",
		"--fault", "projection-embeds-secrets", "--fault", "readiness-echoes-secret"); code != exitFailed {
		t.Fatalf("exit %d, want %d", code, exitFailed)
	}
	canary := regexp.MustCompile(`canary-[0-9a-f]{32}`)
	files, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	// Nor a folder of the machine that built the harness.
	tree, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if canary.Match(b) {
			t.Errorf("%s carries a planted secret value", f.Name())
		}
		if strings.Contains(string(b), tree+"/") {
			t.Errorf("%s carries the build machine's path %s", f.Name(), tree)
		}
	}
	rep, err := reports.Load(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Requirements {
		if (r.ID == "PROJ-NO-SECRETS" || r.ID == "READY-NO-SECRET-LEAK") && r.Outcome != reports.Failed {
			t.Errorf("%s is %s against a leaking host", r.ID, r.Outcome)
		}
	}
}
