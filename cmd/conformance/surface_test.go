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

// A host that is itself a browser runtime (Electron) answers app/launch
// and app/center with a DevTools endpoint and target: the harness drives
// the page the host opened, and judges it as it judges a URL. mockhost
// --devtools is such a host: every surface spec passes against it, and a
// fault is still caught there, so the specs judged that page and not some
// page of the harness's own.
func TestDevToolsHostIsJudgedOnItsOwnPage(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("no chromium on PATH: `make chromium` installs Debian's")
	}
	bin := buildBinary(t)
	run := func(fault, filter string, trust ...string) *reports.Report {
		t.Helper()
		host := bin + " mockhost --stdio --devtools"
		if fault != "" {
			host += " --fault " + fault
		}
		out := filepath.Join(t.TempDir(), "report")
		args := append([]string{"run", "--quiet", "--out", out, "--level", "desktop-p2",
			"--label-filter", filter, "--host-cmd", host,
			"--browser", "/bin/false"}, // no browser of the harness's own to fall back on
			trust...)
		cmd := exec.Command(bin, args...)
		_ = cmd.Run()
		rep, err := reports.Load(filepath.Join(out, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	outcomes := func(rep *reports.Report) map[string]reports.Outcome {
		m := map[string]reports.Outcome{}
		for _, r := range rep.Requirements {
			if strings.HasPrefix(r.ID, "BRIDGE-") || strings.HasPrefix(r.ID, "CENTER-") || strings.HasPrefix(r.ID, "LAUNCH-") {
				m[r.ID] = r.Outcome
			}
		}
		return m
	}
	// A browser the host names is the host's word: without the operator's
	// say-so the harness judges nothing in it.
	untrusted := run("", "BRIDGE-SNAPSHOT")
	if r := requirement(untrusted, "BRIDGE-SNAPSHOT"); r.Outcome != reports.Blocked || !strings.Contains(r.Reason, "--trust-host-browser") {
		t.Errorf("BRIDGE-SNAPSHOT in a browser the host named, untrusted: %s (%s), want blocked naming --trust-host-browser", r.Outcome, r.Reason)
	}
	trusted := run("", "/^(BRIDGE|CENTER|LAUNCH)-/", "--trust-host-browser")
	if b := trusted.Environment.Browser; !strings.Contains(b, "trusted with --trust-host-browser") || !strings.Contains(b, "isolated world") {
		t.Errorf("environment.browser %q does not say the verdicts rest on the host's own browser and where the evidence came from", b)
	}
	if bs := trusted.Environment.Browsers; len(bs) != 1 || bs[0].Engine != "chromium" || bs[0].Protocol != "devtools" || bs[0].EngineVersion == "" ||
		!strings.HasPrefix(bs[0].Reached, "attached to ws://127.0.0.1:") || !strings.Contains(trusted.Environment.Browser, bs[0].EngineVersion) {
		t.Errorf("environment.browsers %+v: want the host's Chromium, its engine version, over DevTools, attached on loopback", bs)
	}
	clean := outcomes(trusted)
	for _, id := range []string{"LAUNCH-GATED", "CENTER-BLOCKERS", "BRIDGE-SNAPSHOT", "BRIDGE-ORIGIN", "BRIDGE-SOURCE", "BRIDGE-NO-LEAK", "BRIDGE-CONTAINMENT", "BRIDGE-FAIL-CLOSED"} {
		if clean[id] != reports.Passed {
			t.Errorf("%s is %q against the DevTools host, want passed", id, clean[id])
		}
	}
	for id, o := range clean {
		if o != reports.Passed {
			t.Errorf("%s is %q against the clean DevTools host, want passed", id, o)
		}
	}
	// The fault's requirement alone: that its page was judged is the point.
	if got := outcomes(run("bridge-trusts-any-origin", "BRIDGE-ORIGIN", "--trust-host-browser"))["BRIDGE-ORIGIN"]; got != reports.Failed {
		t.Errorf("BRIDGE-ORIGIN is %q against the DevTools host with bridge-trusts-any-origin, want failed", got)
	}
	// The host's browser went with the host.
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "agentapp-mockhost-runtime-") {
			t.Errorf("a process of mockhost's browser runtime outlived the run: %s", strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

// requirement returns the report's result for id (empty when absent).
func requirement(rep *reports.Report, id string) reports.RequirementResult {
	for _, r := range rep.Requirements {
		if r.ID == id {
			return r
		}
	}
	return reports.RequirementResult{}
}

// An app center that loads and then stops answering (host-page-spins)
// ends CENTER-BLOCKERS as an error that says so, within the page's answer
// timeout: never a panic of the harness ("Test Panicked"), never a pass.
func TestCenterThatSpinsOnceLoadedIsAnError(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Fatal("no chromium on PATH: `make chromium` installs Debian's")
	}
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "report")
	runBinary(t, bin, "run", "--quiet", "--level", "desktop-p1", "--label-filter", "CENTER-BLOCKERS",
		"--fault", "host-page-spins", "--out", out)
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rep.Requirements {
		if r.ID != "CENTER-BLOCKERS" {
			continue
		}
		found = true
		if r.Outcome != reports.Error || len(r.Specs) != 1 || r.Specs[0].Failure == nil {
			t.Fatalf("CENTER-BLOCKERS is %s under host-page-spins: %+v", r.Outcome, r.Specs)
		}
		msg := r.Specs[0].Failure.Message
		if !strings.Contains(msg, "loaded, then did not answer a read of its text within 3s") || strings.Contains(strings.ToLower(msg), "panic") {
			t.Errorf("CENTER-BLOCKERS says %q; want the page that stopped answering, and no panic", msg)
		}
	}
	if !found {
		t.Fatal("CENTER-BLOCKERS missing from the report")
	}
	log, err := os.ReadFile(filepath.Join(out, "ginkgo.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "[PANICKED]") || strings.Contains(string(log), "Test Panicked") {
		t.Errorf("the harness panicked:\n%s", log)
	}
}
