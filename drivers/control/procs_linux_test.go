//go:build linux

package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentapp/conformance/drivers/procs"
)

func init() {
	startHooks["setsid-grandchild"] = func() (int, error) { return startSleeper(os.Environ()) }
	// This sleeper scrubs its environment and its host outlives end of
	// input: only the parent chain finds it.
	startHooks["setsid-noenv-ignore-eof"] = func() (int, error) { return startSleeper(nil) }
	helperModes["harness"] = runHarness
}

// startSleeper starts this test binary sleeping in a session of its own,
// with env and the sleep behaviour, and lets it go.
func startSleeper(env []string) (int, error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(env, envBehaviour+"=sleep")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting the sleeper: %w", err)
	}
	pid := cmd.Process.Pid // Release clears it
	return pid, cmd.Process.Release()
}

// grandchildOf is the pid the host's hello carries as "grandchild".
func grandchildOf(t *testing.T, cl *Client) int {
	t.Helper()
	var hello struct {
		Grandchild int `json:"grandchild"`
	}
	if err := json.Unmarshal(cl.HelloRaw(), &hello); err != nil || hello.Grandchild == 0 {
		t.Fatalf("hello carries no grandchild pid: %s", cl.HelloRaw())
	}
	return hello.Grandchild
}

// waitState waits until pid is gone, or only a zombie when zombieOK.
func waitState(t *testing.T, pid int, zombieOK bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := procState(pid)
		if s == 0 || (zombieOK && s == 'Z') {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %d is still there (state %c)", what, pid, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A child of the host in a session of its own is killed when the host
// stops, reaped, and reported as an escape: found by the marker it
// inherited or, when it scrubbed its environment, as the host's descendant.
func TestStdioStopKillsAndReportsEscapes(t *testing.T) {
	for _, behaviour := range []string{"setsid-grandchild", "setsid-noenv-ignore-eof"} {
		t.Run(behaviour, func(t *testing.T) {
			c := StdioConnector(stdioCmd(behaviour), os.Stderr, fast).(*stdioConnector)
			c.grace = 100 * time.Millisecond
			cl := mustConnect(t, c, nil)
			gc := grandchildOf(t, cl)
			if sid, err := unix.Getsid(gc); err != nil || sid != gc {
				t.Fatalf("grandchild %d is in session %d (%v), want its own", gc, sid, err)
			}
			if err := cl.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			// Re-parented to this process (the subreaper), killed and reaped.
			waitState(t, gc, false, "escaped grandchild")
			es := c.Escaped()
			if len(es) != 1 || es[0].PID != gc || !es[0].NewSession || !strings.Contains(es[0].Command, filepath.Base(os.Args[0])) {
				t.Errorf("escapes %+v, want the grandchild %d in a session of its own", es, gc)
			}
		})
	}
}

// runHarness is a harness in a child process: it starts a host that
// outlives end of input, prints the host's pid and temp folder, and waits
// to be killed.
func runHarness() {
	cl, err := StdioConnector(stdioCmd("ignore-eof"), os.Stderr, fast).Connect(context.Background(), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := cl.tr.(*stdioTransport)
	fmt.Printf("%d %s\n", s.pid(), s.tmp.Path)
	time.Sleep(time.Minute)
}

// A host dies with its harness, even one killed with SIGKILL (the
// parent-death signal); the temp folder the killed harness left is swept
// by a later run once its lock is stale.
func TestHostDiesWithTheHarness(t *testing.T) {
	tmp := t.TempDir()
	harness := exec.Command(os.Args[0])
	harness.Env = append(os.Environ(), envBehaviour+"=harness", "TMPDIR="+tmp)
	harness.Stderr = os.Stderr
	out, err := harness.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.Start(); err != nil {
		t.Fatal(err)
	}
	var host int
	var dir string
	if _, err := fmt.Fscan(bufio.NewReader(out), &host, &dir); err != nil {
		_ = harness.Process.Kill()
		_ = harness.Wait()
		t.Fatalf("reading the host pid from the harness: %v", err)
	}
	if s := procState(host); s == 0 || s == 'Z' {
		t.Fatalf("host %d is not running (state %c)", host, s)
	}
	_ = harness.Process.Kill()
	_ = harness.Wait()
	// It ignores end of input for a minute: only the signal stops it now.
	waitState(t, host, true, "host of the killed harness")
	if procState(host) == 'Z' {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(host, &ws, syscall.WNOHANG, nil) // re-parented here when this process is a subreaper
	}

	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the killed harness's host folder: %v", err)
	}
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, procs.LockFile), old, old); err != nil {
		t.Fatal(err)
	}
	sw, err := procs.SweepStale(tmp)
	if err != nil || len(sw.Folders) != 1 || sw.Folders[0] != dir {
		t.Errorf("sweep removed %v (%v), want %s", sw.Folders, err, dir)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there (%v)", dir, err)
	}
}
