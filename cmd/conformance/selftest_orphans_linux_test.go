package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A selftest that is killed takes its children with it: each child run
// gets a parent-death signal, so none runs on for minutes unowned.
func TestKilledSelftestLeavesNoChild(t *testing.T) {
	bin := buildBinary(t)
	mark := fmt.Sprintf("AGENTAPP_TEST_MARK=%d", time.Now().UnixNano())
	cmd := exec.Command(bin, "selftest", "--transport", "stdio", "--level", "installable", "--fault", "hang-on-readiness")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marked := func() []string {
		var out []string
		envs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, e := range envs {
			b, err := os.ReadFile(e)
			if err != nil || !strings.Contains(string(b), mark) {
				continue
			}
			pid := filepath.Base(filepath.Dir(e))
			if pid == fmt.Sprint(cmd.Process.Pid) {
				continue
			}
			cl, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
			out = append(out, pid+" "+strings.ReplaceAll(string(cl), "\x00", " "))
		}
		return out
	}
	childRuns := func() bool {
		for _, p := range marked() {
			if strings.Contains(p, " run --quiet ") {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(60 * time.Second)
	for !childRuns() {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("selftest started no child run within 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for {
		left := marked()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children outlived the killed selftest:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
