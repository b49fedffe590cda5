//go:build linux

package browser

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// reap kills every process of the browser that used the profile directory
// dir, until a few passes in a row find none: helpers of a killed or
// crashed browser can outlive it, and one can fork as the first pass runs.
// It returns the number of processes it killed.
func reap(dir string) int {
	const (
		quietPasses = 3
		pause       = 10 * time.Millisecond
		limit       = 3 * time.Second
	)
	killed := 0
	deadline := time.Now().Add(limit)
	for quiet := 0; quiet < quietPasses && time.Now().Before(deadline); time.Sleep(pause) {
		pids := usingProfile(dir)
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(pids) == 0 {
			quiet++
		} else {
			quiet = 0
		}
		killed += len(pids)
	}
	return killed
}

// usingProfile lists the live processes of the browser with the profile
// dir: those whose command line has --user-data-dir=dir (Chromium passes
// it to its helpers, which rewrite their command line into one
// space-separated string), and those that inherited the environment
// marker (the crash handler, which gets no profile switch).
func usingProfile(dir string) []int {
	flag := []byte("--user-data-dir=" + dir)
	marker := []byte(profileEnv + "=" + dir)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		environ, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		if hasWord(cmdline, flag, " \x00") || hasWord(environ, marker, "\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}
