package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// builtBinary is the conformance command built once for the tests that run
// it as a child process (Ginkgo allows one suite run per process).
var builtBinary struct {
	once sync.Once
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.path != "" {
		_ = os.RemoveAll(filepath.Dir(builtBinary.path))
	}
	os.Exit(code)
}

// prebuiltEnv names a conformance binary built beforehand from this tree:
// `make test` builds bin/conformance once and hands it to the tests here.
const prebuiltEnv = "AGENTAPP_CONFORMANCE_BIN"

// buildBinary builds the conformance command once per test binary run (or
// takes the one $AGENTAPP_CONFORMANCE_BIN names). The tests that run it as
// a child process are the only ones -short leaves out.
func buildBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds and runs the harness binary")
	}
	if p := os.Getenv(prebuiltEnv); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatalf("$%s: %v", prebuiltEnv, err)
		}
		if _, err := os.Stat(abs); err != nil {
			t.Fatalf("$%s: %v", prebuiltEnv, err)
		}
		return abs
	}
	builtBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "conformance-bin-")
		if err != nil {
			builtBinary.err = err
			return
		}
		bin := filepath.Join(dir, "conformance")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			builtBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		builtBinary.path = bin
	})
	if builtBinary.err != nil {
		t.Fatal(builtBinary.err)
	}
	return builtBinary.path
}

// processesRunning lists the pids of processes whose executable is bin.
func processesRunning(t *testing.T, bin string) []int {
	t.Helper()
	return processesWhere(t, func(proc string) bool {
		exe, err := os.Readlink(filepath.Join(proc, "exe"))
		return err == nil && strings.TrimSuffix(exe, " (deleted)") == bin
	})
}

// processesWhere lists the processes whose /proc folder satisfies match.
func processesWhere(t *testing.T, match func(proc string) bool) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc to count processes: %v", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && match(filepath.Join("/proc", e.Name())) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestHostileHostsFailTheCheckAtHandAndLeaveNothingBehind runs the harness
// against mockhost over stdio with each hostile fault: the run must finish,
// the checks the host could not answer must be errors (never failures: the
// host was not seen breaking the clause), the exit code must say "could not
// judge", the report must say what was observed, and no child process or
// temp file may remain.
func TestHostileHostsFailTheCheckAtHandAndLeaveNothingBehind(t *testing.T) {
	bin := buildBinary(t)
	cases := []struct {
		fault, requirement, says string
	}{
		{"hang-on-readiness", "READY-STATUS", "did not answer app/readiness within"},
		{"crash-mid-uninstall", "UNINSTALL-KEEP-DATA", "app/uninstall"},
		{"garbage-on-list", "PROTO-RESET", "app/list"},
		{"flood-on-project", "PROJ-DETERMINISTIC", "package/project"},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			tmp := t.TempDir()
			out := filepath.Join(t.TempDir(), "report")
			// The requirement at hand is what the hostile answer meets:
			// its specs alone. The selection leaves the rest not-run, so a
			// level the error is in may say incomplete (exit 8) rather than
			// error (exit 7): either says the host could not be judged, and
			// never that it failed.
			cmd := exec.Command(bin, "run", "--quiet", "--level", "installable", "--level", "desktop-p0", "--out", out, "--call-timeout", "1s",
				"--label-filter", tc.requirement, "--host-cmd", bin+" mockhost --stdio --fault "+tc.fault)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			outText, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || (ee.ExitCode() != exitNotJudged && ee.ExitCode() != exitIncomplete) {
				t.Fatalf("want exit %d or %d (the host could not be judged), got %v\n%s", exitNotJudged, exitIncomplete, err, outText)
			}
			rep, err := reports.Load(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, r := range rep.Requirements {
				if r.ID != tc.requirement {
					continue
				}
				found = true
				if r.Outcome != reports.Error {
					t.Fatalf("%s is %s under %s", r.ID, r.Outcome, tc.fault)
				}
				if !strings.Contains(r.Reason, tc.says) {
					t.Errorf("%s reason %q does not say %q", r.ID, r.Reason, tc.says)
				}
			}
			if !found {
				t.Fatalf("%s missing from the report", tc.requirement)
			}
			for _, l := range rep.Levels {
				if l.Verdict == reports.LevelPassed || l.Verdict == reports.LevelFailed {
					t.Errorf("level %s is %s under %s: the host was never judged", l.ID, l.Verdict, tc.fault)
				}
			}
			if pids := processesRunning(t, bin); len(pids) > 0 {
				t.Errorf("processes left behind: %v", pids)
			}
			left, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range left {
				t.Errorf("temp file left behind: %s", e.Name())
			}
		})
	}
}
