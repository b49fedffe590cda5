//go:build unix && !linux

package procs

import (
	"syscall"
)

// BecomeSubreaper does nothing: only Linux has child subreapers.
func BecomeSubreaper() error { return nil }

// ChildAttr puts a host child in a process group of its own (no
// parent-death signal outside Linux).
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// Stop kills the host's process group. Without /proc nothing outside the
// group is found, so no escape is reported.
func Stop(h Host) []Escape {
	_ = syscall.Kill(-h.PID, syscall.SIGKILL)
	return nil
}

// KillUsing does nothing: without /proc no environment can be read.
func KillUsing(string) int { return 0 }
