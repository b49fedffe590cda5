//go:build unix && !mutation

package mockhost

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// leave-setsid-child's process runs in a session and a process group of
// its own, so killing the host's group would not stop it.
func TestLeaveSetsidChildEscapesTheGroup(t *testing.T) {
	pid, err := leaveSetsidChild()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(pid, &ws, 0, nil)
	})
	if sid, err := unix.Getsid(pid); err != nil || sid != pid {
		t.Errorf("child %d is in session %d (%v), want a session of its own", pid, sid, err)
	}
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid == syscall.Getpgrp() {
		t.Errorf("child %d is in process group %d (%v), the host's", pid, pgid, err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("child %d is not running: %v", pid, err)
	}
}
