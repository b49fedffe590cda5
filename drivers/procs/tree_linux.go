//go:build linux

package procs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Limits of a stop: a few passes in a row must find nothing, as a process
// can fork while a pass kills.
const (
	quietPasses = 3
	pause       = 10 * time.Millisecond
	stopLimit   = 5 * time.Second
)

var subreaper struct {
	once sync.Once
	err  error
}

// BecomeSubreaper makes this process the child subreaper of its
// descendants: an orphan among them is re-parented here, not to init, so it
// stays in view. It is done once; later calls return the first result.
func BecomeSubreaper() error {
	subreaper.once.Do(func() {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			subreaper.err = fmt.Errorf("becoming a child subreaper: %w", err)
		}
	})
	return subreaper.err
}

// ChildAttr puts a host child in a process group of its own and has the
// kernel SIGKILL it when the thread that started it ends, which is when
// the harness dies if the child was started with StartLocked.
func ChildAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// proc is one line of /proc/PID/stat, and the command line of a process
// found outside its host's group.
type proc struct {
	pid, ppid, pgid, sid int
	state                byte // 'Z' for a zombie
	command              string
}

// readProc reads /proc/PID/stat; false when the process is gone.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid pgrp session ...: comm may hold anything, so
	// the fields after it start at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0][0]}
	for k, dst := range []*int{&p.ppid, &p.pgid, &p.sid} {
		n, err := strconv.Atoi(string(f[k+1]))
		if err != nil {
			return proc{}, false
		}
		*dst = n
	}
	return p, true
}

// allProcs lists every process /proc shows.
func allProcs() []proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// hasMarker reports whether the environment pid started with holds one of
// markers (readable for processes of this user only).
func hasMarker(pid int, markers []string) bool {
	if len(markers) == 0 {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if slices.Contains(markers, string(kv)) {
			return true
		}
	}
	return false
}

// commandOf is the command line of pid, space-separated, cut to 200 bytes.
func commandOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		b, _ = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		b = bytes.TrimSpace(b)
	}
	b = bytes.ReplaceAll(b, []byte{0}, []byte{' '})
	if len(b) > 200 {
		b = append(b[:200:200], "..."...)
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// live lists the live processes of host h: its group, the processes
// carrying one of its markers, and every descendant of those and of h.PID.
func live(h Host, self int) []proc {
	all := allProcs()
	children := map[int][]proc{}
	for _, p := range all {
		children[p.ppid] = append(children[p.ppid], p)
	}
	in := map[int]bool{}
	var out, queue []proc
	add := func(p proc) {
		if in[p.pid] || p.pid == self || p.state == 'Z' {
			return
		}
		in[p.pid] = true
		out = append(out, p)
		queue = append(queue, p)
	}
	for _, p := range all {
		if p.pid == h.PID || p.pgid == h.PID || hasMarker(p.pid, h.Markers) {
			add(p)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p.pid] {
			add(c)
		}
	}
	return out
}

// Stop kills every process of host h (its process group, its descendants,
// and the processes carrying its markers, wherever they moved) until a few
// passes in a row find none, reaps the ones re-parented to this process,
// and returns those that were outside the host's group. h.PID itself is
// killed but left to its starter to reap.
func Stop(h Host) []Escape {
	self := os.Getpid()
	mySID, _ := unix.Getsid(0)
	seen := map[int]proc{}
	var order []int
	deadline := time.Now().Add(stopLimit)
	for pass, quiet := 0, 0; quiet < quietPasses && time.Now().Before(deadline); pass++ {
		found := live(h, self)
		if pass == 0 {
			// The group as a whole first: the scan above ran while the
			// host may still have held its children.
			_ = unix.Kill(-h.PID, unix.SIGKILL)
		}
		for _, p := range found {
			if _, ok := seen[p.pid]; !ok {
				if p.pgid != h.PID {
					p.command = commandOf(p.pid)
				}
				seen[p.pid] = p
				order = append(order, p.pid)
			}
			_ = unix.Kill(p.pid, unix.SIGKILL)
		}
		reapHost(h, self, seen)
		if len(found) == 0 {
			quiet++
		} else {
			quiet = 0
		}
		time.Sleep(pause)
	}
	// The last ones killed may take a moment to become zombies.
	for reapHost(h, self, seen) > 0 && time.Now().Before(deadline) {
		time.Sleep(pause)
	}
	var escaped []Escape
	for _, pid := range order {
		if p := seen[pid]; p.pgid != h.PID {
			escaped = append(escaped, Escape{PID: pid, Command: p.command, NewSession: p.sid != mySID})
		}
	}
	return escaped
}

// reapHost reaps the zombies among the host's processes that were
// re-parented to this process (the subreaper), and returns how many it
// reaped or saw still running here: while that is not 0, more may come
// (a reaped zombie's own zombie children are re-parented here next). Only
// processes of the host are waited for, never a child another part of
// the harness started and waits for itself; h.PID is left to its starter.
func reapHost(h Host, self int, seen map[int]proc) int {
	pending := 0
	for _, p := range allProcs() {
		if p.ppid != self || p.pid == h.PID {
			continue
		}
		_, ours := seen[p.pid]
		if !ours && p.pgid != h.PID {
			continue
		}
		pending++
		if p.state == 'Z' {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
		}
	}
	return pending
}

// KillUsing kills every process whose environment names dir, or a path
// below it, in one of dirVars (the processes of a run that is gone), until
// a few passes in a row find none, reaps those re-parented here, and
// returns how many it killed.
func KillUsing(dir string) int {
	dir = filepath.Clean(dir)
	self := os.Getpid()
	seen := map[int]proc{}
	deadline := time.Now().Add(stopLimit)
	for quiet := 0; quiet < quietPasses && time.Now().Before(deadline); time.Sleep(pause) {
		n := 0
		for _, p := range allProcs() {
			if p.pid == self || p.state == 'Z' || !usesDir(p.pid, dir) {
				continue
			}
			seen[p.pid] = p
			_ = unix.Kill(p.pid, unix.SIGKILL)
			n++
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	for reapHost(Host{PID: -1}, self, seen) > 0 && time.Now().Before(deadline) {
		time.Sleep(pause)
	}
	return len(seen)
}

// dirVars are the environment variables that tie a process to a run's
// temp folder: a host's, and a launched browser's profile (never PWD: a
// shell of someone looking into the folder is no process of the run).
var dirVars = []string{"TMPDIR", EnvHost, EnvBrowserProfile}

// usesDir reports whether one of dirVars in the environment of pid is dir
// or a path below it.
func usesDir(pid int, dir string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		k, v, ok := bytes.Cut(kv, []byte{'='})
		if ok && slices.Contains(dirVars, string(k)) && (string(v) == dir || bytes.HasPrefix(v, []byte(dir+"/"))) {
			return true
		}
	}
	return false
}
