package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// runWithBaseline runs the catalog level with fault and the baseline
// file body, and returns the exit code, stdout and the report.
func runWithBaseline(t *testing.T, fault, baseline string) (int, string, *reports.Report) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "expected.yaml")
	if err := os.WriteFile(file, []byte(baseline), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--quiet", "--level", "catalog", "--expected-failures", file}
	if fault != "" {
		args = append(args, "--fault", fault)
	}
	return consoleRun(t, args...)
}

// A known failure listed in the baseline does not fail the run, yet the
// report still shows it failed, its level failed, and the baseline it ran
// under.
func TestAnExpectedFailureDoesNotFailTheRunButStaysInTheReport(t *testing.T) {
	code, stdout, rep := runWithBaseline(t, "allow-bypass-permissions", "CAT-NO-BYPASS-PERMISSIONS: \"HOST-1: fixed in 2.4\"\n")
	if code != exitOK {
		t.Errorf("exit %d with the failure listed, want %d\n%s", code, exitOK, stdout)
	}
	if !strings.Contains(stdout, "expected failure: CAT-NO-BYPASS-PERMISSIONS still fails (HOST-1: fixed in 2.4)") {
		t.Errorf("stdout does not say the listed failure still fails:\n%s", stdout)
	}
	for _, r := range rep.Requirements {
		if r.ID == "CAT-NO-BYPASS-PERMISSIONS" && r.Outcome != reports.Failed {
			t.Errorf("the report says %s is %s; a baseline never turns a failure into a pass", r.ID, r.Outcome)
		}
	}
	for _, l := range rep.Levels {
		if l.ID == "catalog" && l.Verdict != reports.LevelFailed {
			t.Errorf("level catalog is %s in the report, want failed", l.Verdict)
		}
	}
	if len(rep.Run.ExpectedFailures) != 1 || rep.Run.ExpectedFailures[0].Reason != "HOST-1: fixed in 2.4" {
		t.Errorf("the report records the baseline as %+v", rep.Run.ExpectedFailures)
	}
}

// A failure not in the baseline still fails the run.
func TestAnUnlistedFailureStillFailsTheRun(t *testing.T) {
	code, stdout, _ := runWithBaseline(t, "allow-bypass-permissions", "CAT-DISCOVER-APPMD: \"something else\"\n")
	if code != exitFailed {
		t.Errorf("exit %d, want %d: an unlisted failure fails the run\n%s", code, exitFailed, stdout)
	}
}

// A listed requirement that passes now is stale: it fails the run, so
// that a baseline only shrinks.
func TestAStaleExpectedFailureFailsTheRun(t *testing.T) {
	code, stdout, _ := runWithBaseline(t, "", "CAT-NO-BYPASS-PERMISSIONS: \"HOST-1: fixed in 2.4\"\n")
	if code != exitFailed {
		t.Errorf("exit %d, want %d for a stale entry", code, exitFailed)
	}
	if !strings.Contains(stdout, "stale expected failure: CAT-NO-BYPASS-PERMISSIONS passes now; remove it from ") {
		t.Errorf("stdout does not name the stale entry:\n%s", stdout)
	}
}

// A bad baseline is refused before anything runs, in one line naming the
// file, the line and what is wrong.
func TestABadBaselineIsRefusedNamingFileAndLine(t *testing.T) {
	for name, tc := range map[string]struct{ body, says string }{
		"unknown id":   {"CAT-NO-SUCH: why\n", `:1: "CAT-NO-SUCH" is no requirement id`},
		"no reason":    {"CAT-DISCOVER-APPMD: \"\"\n", ":1: CAT-DISCOVER-APPMD: give the reason"},
		"listed twice": {"CAT-DISCOVER-APPMD: a\nCAT-DISCOVER-APPMD: b\n", "CAT-DISCOVER-APPMD"},
		"a list":       {"- CAT-DISCOVER-APPMD\n", ":1: want a mapping"},
		"empty":        {"", "empty"},
		"not yaml":     {"a: [\n", "expected.yaml"},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "expected.yaml")
			if err := os.WriteFile(file, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "run", "--out", filepath.Join(t.TempDir(), "r"), "--expected-failures", file)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--expected-failures "+file) || !strings.Contains(stderr, tc.says) {
				t.Errorf("stderr %q: want one line naming %s and saying %q", stderr, file, tc.says)
			}
		})
	}
}
