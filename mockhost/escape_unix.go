//go:build unix

package mockhost

import (
	"fmt"
	"os/exec"
	"syscall"
)

// leaveSetsidChild starts `sleep 300` in a session of its own, with no
// stdio, and lets it go (leave-setsid-child): it is out of the host's
// process group, so killing the group does not stop it. It returns its pid.
func leaveSetsidChild() (int, error) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		return 0, fmt.Errorf("finding sleep: %w", err)
	}
	cmd := exec.Command(sleep, "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %w", sleep, err)
	}
	pid := cmd.Process.Pid
	return pid, cmd.Process.Release()
}
