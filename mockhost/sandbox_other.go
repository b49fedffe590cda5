//go:build !linux

package mockhost

import (
	"errors"
	"os/exec"
)

// sandbox says what one backend may reach (sandbox_linux.go).
type sandbox struct {
	readExec  []string
	readWrite []string
	denyNet   bool
	mayBind   bool
	off       bool
}

// startSandboxed fails closed where this host has no sandbox: a backend
// never runs unconfined.
func startSandboxed(cmd *exec.Cmd, sb sandbox) error {
	if sb.off {
		return cmd.Start()
	}
	return errors.New("this host sandboxes backend services with Landlock, which only Linux has")
}

// limitProcess has nothing to do where no backend runs (startSandboxed
// fails closed).
func limitProcess(int) error { return nil }
