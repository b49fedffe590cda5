package procs

import (
	"os/exec"
	"runtime"
)

// StartLocked starts cmd from a goroutine locked to its OS thread, which
// then waits for cmd there and sends Wait's error on the channel returned.
// On Linux a Pdeathsig (ChildAttr) fires when the thread that forked the
// child ends, not the process (golang/go#27505); a locked thread runs no
// other goroutine, so nothing (a goroutine that exits locked, as the
// Landlock sandbox of the embedded mockhost does) can end it while the
// child lives.
func StartLocked(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, once the
		// child is reaped.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}
