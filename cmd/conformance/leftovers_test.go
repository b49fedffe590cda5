package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// processesNaming lists the processes whose command line names dir (a
// browser's profile, a host's data folder).
func processesNaming(t *testing.T, dir string) []int {
	t.Helper()
	return processesWhere(t, func(proc string) bool {
		cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
		return err == nil && bytes.Contains(cmdline, []byte(dir))
	})
}

// A run of the data lifecycle specs whose host fails one of them (export
// then delete that keeps the data) leaves no process, browser profile,
// export, app data folder or scratch file behind (issue 11, Acceptance:
// "nothing left behind").
func TestADataLifecycleRunWithAFailingSpecLeavesNothingBehind(t *testing.T) {
	bin := buildBinary(t)
	// A short folder of its own: Chromium puts a socket in TMPDIR, and a
	// socket path may not be longer than 107 bytes.
	tmp, err := os.MkdirTemp("", "left-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	out := filepath.Join(t.TempDir(), "report")
	// The three requirements read below: one failing, two passing, each
	// with a browser, a data folder and an export of its own.
	cmd := exec.Command(bin, "run", "--quiet", "--level", "desktop-p4", "--focus", "Desktop P4: app storage",
		"--label-filter", "UNINSTALL-EXPORT || STORAGE-NAMESPACED || APP-DISABLE", "--out", out,
		"--host-cmd", bin+" mockhost --stdio --fault export-keeps-data")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	outText, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && judgedExit(ee.ExitCode())) {
		t.Fatalf("the run did not end with a verdict: %v\n%s", err, outText)
	}
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]reports.Outcome{"UNINSTALL-EXPORT": reports.Failed, "STORAGE-NAMESPACED": reports.Passed, "APP-DISABLE": reports.Passed}
	for _, r := range rep.Requirements {
		if o, ok := want[r.ID]; ok && r.Outcome != o {
			t.Errorf("%s is %s under export-keeps-data, want %s: %s", r.ID, r.Outcome, o, r.Reason)
		}
	}
	if pids := processesRunning(t, bin); len(pids) > 0 {
		t.Errorf("harness or host processes left behind: %v", pids)
	}
	if pids := processesNaming(t, tmp); len(pids) > 0 {
		t.Errorf("processes using the run's temp folder left behind (a browser?): %v", pids)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind in the temp folder: %s", e.Name())
	}
}
