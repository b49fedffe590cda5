package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// surfaceFilter selects the specs that open the app surface in a browser.
const surfaceFilter = "/^(BRIDGE|CENTER)-/"

// With no browser on the machine, every spec that opens a surface is
// skipped with that reason, and the level that needs them does not pass.
func TestSurfaceSpecsAreSkippedWithoutABrowser(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(bin, "run", "--quiet", "--out", out, "--level", "desktop-p2", "--label-filter", surfaceFilter)
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir()) // no chromium to be found
	_ = cmd.Run()
	rep, err := reports.Load(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, r := range rep.Requirements {
		if !strings.HasPrefix(r.ID, "BRIDGE-") && !strings.HasPrefix(r.ID, "CENTER-") {
			continue
		}
		for _, s := range r.Specs {
			if s.Outcome != reports.Skipped {
				t.Errorf("%s: spec %q is %s without a browser, want skipped", r.ID, s.Name, s.Outcome)
				continue
			}
			if s.Failure == nil || !strings.Contains(s.Failure.Message, "no browser") {
				t.Errorf("%s: skipped without naming the missing browser: %+v", r.ID, s.Failure)
			}
			skipped++
		}
	}
	if skipped == 0 {
		t.Fatal("no surface spec ran")
	}
	for _, l := range rep.Levels {
		if l.Verdict == reports.LevelPassed {
			t.Errorf("level %s passed with its browser specs skipped", l.ID)
		}
	}
}

// BenchmarkSurfaceRun times the browser specs against mockhost (one
// Chromium per run, a fresh context per spec), for the wall time the
// bridge suite adds; BenchmarkDesktopP0Run is the run without them.
func BenchmarkSurfaceRun(b *testing.B) {
	if _, err := exec.LookPath("chromium"); err != nil {
		b.Fatal("no chromium on PATH: `make chromium` installs Debian's")
	}
	bin := buildBinary(b)
	out := b.TempDir()
	for b.Loop() {
		code := runBinary(b, bin, "run", "--quiet", "--level", "desktop-p2", "--label-filter", surfaceFilter, "--out", out)
		if code != exitOK && code != exitIncomplete {
			b.Fatalf("exit %d", code)
		}
	}
}
