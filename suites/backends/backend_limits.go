package backends

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The resource limits of a backend as the harness sees them from its own
// machine (docs/decisions.md "Backend sandbox"): the soft limits in
// /proc/PID/limits, compared with the harness's own, and the limits of the
// cgroup the process is in when it is not the harness's.

// limitNames are the rows of /proc/PID/limits judged, by their label.
var limitNames = []string{"Max cpu time", "Max file size", "Max data size", "Max address space",
	"Max open files", "Max processes", "Max resident set", "Max locked memory"}

// unlimited is the soft limit "unlimited".
const unlimited = ^uint64(0)

// procLimits reads the soft limits of process pid ("self" for the
// harness), by label.
func procLimits(pid string) (map[string]uint64, error) {
	f, err := os.Open(filepath.Join("/proc", pid, "limits"))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	out := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for _, name := range limitNames {
			rest, ok := strings.CutPrefix(line, name)
			if !ok {
				continue
			}
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				continue
			}
			if fields[0] == "unlimited" {
				out[name] = unlimited
			} else if n, err := strconv.ParseUint(fields[0], 10, 64); err == nil {
				out[name] = n
			}
		}
	}
	return out, sc.Err()
}

// tighterLimits lists the limits of the backend lower than the harness's.
func tighterLimits(backend, harness map[string]uint64) []string {
	var out []string
	for _, name := range limitNames {
		b, okB := backend[name]
		h, okH := harness[name]
		if okB && okH && b < h {
			out = append(out, fmt.Sprintf("%s %d (the harness: %s)", strings.ToLower(name), b, limitText(h)))
		}
	}
	return out
}

func limitText(v uint64) string {
	if v == unlimited {
		return "unlimited"
	}
	return strconv.FormatUint(v, 10)
}

// cgroupLimits reads the cgroup v2 of process pid and the limits set on
// it (memory.max, pids.max, cpu.max other than "max"); path is "" when the
// harness cannot read it.
func cgroupLimits(pid string) (path string, set []string) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "cgroup"))
	if err != nil {
		return "", nil
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return "", nil
	}
	for _, file := range []string{"memory.max", "pids.max", "cpu.max"} {
		v, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", path, file))
		if err == nil && !strings.HasPrefix(strings.TrimSpace(string(v)), "max") {
			set = append(set, file+" "+strings.TrimSpace(string(v)))
		}
	}
	return path, set
}
