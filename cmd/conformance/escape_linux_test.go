//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/procs"
	"github.com/agentapp/conformance/reports"
)

// hostProcesses lists the live processes of hosts that ran in tmp: those
// carrying the host marker of a folder there.
func hostProcesses(t *testing.T, tmp string) []int {
	t.Helper()
	marker := []byte(procs.EnvHost + "=" + tmp + string(filepath.Separator))
	return processesWhere(t, func(proc string) bool {
		env, err := os.ReadFile(filepath.Join(proc, "environ"))
		return err == nil && bytes.Contains(env, marker)
	})
}

// waitNoHostProcesses waits (boundedly) until no host process of tmp runs.
func waitNoHostProcesses(t *testing.T, tmp string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := hostProcesses(t, tmp)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("host processes still running: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A host that forks a process into a session of its own
// (leave-setsid-child) does not leave it running: the run kills it when
// the host stops, and the report and the summary name it as the host's
// finding.
func TestAnEscapedHostProcessIsKilledAndReported(t *testing.T) {
	bin := buildBinary(t)
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(bin, "run", "--quiet", "--level", "catalog", "--label-filter", "PROTO-HELLO", "--out", out,
		"--host-cmd", bin+" mockhost --stdio --fault leave-setsid-child")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	text, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && judgedExit(ee.ExitCode())) {
		t.Fatalf("the run did not end with a verdict: %v\n%s", err, text)
	}
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	es := rep.Run.EscapedProcesses
	if len(es) != 1 || !strings.HasSuffix(es[0].Command, "sleep 300") || !es[0].NewSession || es[0].Count < 1 {
		t.Errorf("report run.escapedProcesses %+v, want the host's `sleep 300` in a session of its own", es)
	}
	if !strings.Contains(string(text), "host finding:") || !strings.Contains(string(text), "sleep 300") {
		t.Errorf("the summary does not name the escaped process:\n%s", text)
	}
	for _, r := range rep.Requirements {
		if r.ID == "PROTO-HELLO" && r.Outcome != reports.Passed {
			t.Errorf("PROTO-HELLO is %s: the fault breaks no requirement", r.Outcome)
		}
	}
	waitNoHostProcesses(t, tmp)
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind in the temp folder: %s", e.Name())
	}
}

// A run killed with SIGKILL takes its host with it (a parent-death
// signal); the temp folders it leaves are removed by the next run once
// they are stale.
func TestAKilledRunsLeftoversGoWithTheNextRun(t *testing.T) {
	bin := buildBinary(t)
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)
	// READY-STATUS asks for readiness, which this host never answers: the
	// run is mid-spec, its host up, when it is killed.
	killed := exec.Command(bin, "run", "--quiet", "--level", "desktop-p0", "--label-filter", "READY-STATUS", "--call-timeout", "60s",
		"--out", filepath.Join(t.TempDir(), "killed"), "--host-cmd", bin+" mockhost --stdio --fault hang-on-readiness")
	killed.Env = env
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(hostProcesses(t, tmp)) == 0 {
		if time.Now().After(deadline) {
			_ = killed.Process.Kill()
			_ = killed.Wait()
			t.Fatal("the run started no host")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = killed.Process.Kill()
	_ = killed.Wait()
	waitNoHostProcesses(t, tmp)

	left, err := filepath.Glob(filepath.Join(tmp, procs.Prefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	old := time.Now().Add(-2 * time.Minute)
	for _, dir := range left {
		kinds = append(kinds, strings.TrimRight(filepath.Base(dir), "0123456789"))
		if err := os.Chtimes(filepath.Join(dir, procs.LockFile), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(kinds, " ") != "agentapp-conformance- agentapp-host-" {
		t.Fatalf("the killed run left %v, want its work and host folders", left)
	}

	next := exec.Command(bin, "run", "--quiet", "--level", "catalog", "--label-filter", "PROTO-HELLO",
		"--out", filepath.Join(t.TempDir(), "next"), "--host-cmd", bin+" mockhost --stdio")
	next.Env = env
	text, err := next.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && judgedExit(ee.ExitCode())) {
		t.Fatalf("the next run did not end with a verdict: %v\n%s", err, text)
	}
	if !strings.Contains(string(text), "removed 2 temp folders of runs that were killed") {
		t.Errorf("the next run does not say what it removed:\n%s", text)
	}
	rest, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rest {
		t.Errorf("left behind in the temp folder: %s", e.Name())
	}
}
