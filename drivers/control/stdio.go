//go:build unix

package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentapp/conformance/drivers/procs"
)

// Limits of a stdio host (docs/host-control-protocol.md, "Transports").
const (
	stdioGrace     = 2 * time.Second // time to exit after stdin closes
	stdioReap      = 5 * time.Second // time to be reaped after SIGKILL
	stderrCapBytes = 1 << 20         // host stderr passed through per connection
)

// StdioConnector starts `/bin/sh -c cmdline` in its own process group for
// every Connect and speaks the protocol on its stdin and stdout. The host's
// stderr goes to stderr (nil discards it), capped at 1 MiB per connection.
// Close closes the host's stdin, waits up to 2s for it to exit, then kills
// every process of the host (procs.Stop) and reaps it; the processes found
// outside its process group are kept for Escaped. On Linux the host dies
// with the harness (a parent-death signal). Options are optional; the
// last one given applies.
func StdioConnector(cmdline string, stderr io.Writer, opts ...Options) Connector {
	return &stdioConnector{cmdline: cmdline, stderr: stderr, grace: stdioGrace, escapes: &escapeLog{},
		base: &base{opts: resolveOptions(opts)}}
}

// ProcessWatcher is a connector that starts host processes.
type ProcessWatcher interface {
	// Escaped lists the processes of its hosts found outside their host's
	// process group when the host stopped (each was killed then), in the
	// order found.
	Escaped() []procs.Escape
}

type stdioConnector struct {
	cmdline string
	stderr  io.Writer
	grace   time.Duration
	escapes *escapeLog
	*base
}

func (c *stdioConnector) Escaped() []procs.Escape { return c.escapes.all() }

// escapeLog collects the escapes of every session of a connector.
type escapeLog struct {
	mu   sync.Mutex
	list []procs.Escape
}

func (l *escapeLog) add(es []procs.Escape) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, es...)
}

func (l *escapeLog) all() []procs.Escape {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]procs.Escape(nil), l.list...)
}

func (c *stdioConnector) Describe() string  { return "stdio: " + c.cmdline }
func (c *stdioConnector) Transport() string { return "stdio" }

func (c *stdioConnector) Connect(ctx context.Context, t *Transcript) (*Client, error) {
	s, err := startStdio(c.cmdline, c.stderr, c.grace)
	if err != nil {
		return nil, err
	}
	s.escapes = c.escapes
	return c.connect(ctx, s, t)
}

// stdioTransport is a host child process.
type stdioTransport struct {
	cmd    *exec.Cmd
	stdin  *os.File // the harness's write end of the host's stdin
	stdout *os.File // the harness's read end of the host's stdout
	stderr *os.File // the harness's read end of the host's stderr
	grace  time.Duration

	exited     chan struct{} // closed once the host is reaped
	waitErr    error         // set before exited closes
	stderrDone chan struct{}
	// lastWords keeps the end of what the host wrote on stderr, so that a
	// host that dies says why in the harness's message ("sh: my-host: not found").
	lastWords tail

	closeOnce, stopOnce sync.Once
	stopErr             error

	// tmp is the TMPDIR the host runs with: the harness owns it and removes
	// it once the host is reaped, so a host killed mid-answer leaves nothing.
	// Its path, in the host's environment, marks the host's processes.
	tmp *procs.TempDir
	// escapes receives the processes found outside the host's group at stop.
	escapes *escapeLog
}

func startStdio(cmdline string, stderr io.Writer, grace time.Duration) (*stdioTransport, error) {
	var files [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	closeAll := func() {
		for _, f := range files {
			if f != nil {
				_ = f.Close()
			}
		}
	}
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("starting host %q: creating pipes: %w", cmdline, err)
		}
		files[i], files[i+1] = r, w
	}
	tmp, err := procs.MkdirTemp("agentapp-host-")
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("starting host %q: making its temp folder: %w", cmdline, err)
	}
	// Best effort: where it fails (Linux before 3.4) a host's orphans go
	// to init, and are still found by the marker in their environment.
	_ = procs.BecomeSubreaper()
	cmd := exec.Command("/bin/sh", "-c", cmdline)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[3], files[5]
	cmd.SysProcAttr = procs.ChildAttr()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp.Path, procs.EnvHost+"="+tmp.Path)
	waited, err := procs.StartLocked(cmd)
	if err != nil {
		closeAll()
		_ = tmp.Remove()
		return nil, fmt.Errorf("starting host %q: %w", cmdline, err)
	}
	// The child holds its ends now; the harness keeps only its own.
	_ = files[0].Close()
	_ = files[3].Close()
	_ = files[5].Close()
	s := &stdioTransport{cmd: cmd, stdin: files[1], stdout: files[2], stderr: files[4], grace: grace,
		exited: make(chan struct{}), stderrDone: make(chan struct{}), tmp: tmp}
	go func() {
		s.waitErr = <-waited
		close(s.exited)
	}()
	go s.copyStderr(stderr)
	return s, nil
}

// copyStderr passes the host's stderr through, up to stderrCapBytes, and
// drains the rest so that a flooding host never blocks on it nor fills memory.
func (s *stdioTransport) copyStderr(w io.Writer) {
	defer close(s.stderrDone)
	if w == nil {
		w = io.Discard
	}
	buf := make([]byte, 32<<10)
	var written int64
	truncated := false
	for {
		n, err := s.stderr.Read(buf)
		if n > 0 {
			s.lastWords.add(buf[:n])
			if keep := min(int64(n), stderrCapBytes-written); keep > 0 {
				_, _ = w.Write(buf[:keep])
				written += keep
			} else if !truncated {
				truncated = true
				_, _ = fmt.Fprintf(w, "\n[conformance: host stderr truncated after %d bytes]\n", stderrCapBytes)
			}
		}
		if err != nil {
			return
		}
	}
}

func (s *stdioTransport) Read(p []byte) (int, error)  { return s.stdout.Read(p) }
func (s *stdioTransport) Write(p []byte) (int, error) { return s.stdin.Write(p) }

// Close closes the harness's ends of stdin and stdout.
func (s *stdioTransport) Close() error {
	s.closeOnce.Do(func() {
		_ = s.stdin.Close()
		_ = s.stdout.Close()
	})
	return nil
}

func (s *stdioTransport) pid() int { return s.cmd.Process.Pid }

func (s *stdioTransport) exitNote(wait time.Duration) string {
	select {
	case <-s.exited:
	case <-time.After(wait):
		return ""
	}
	note := "host process exited with status 0"
	var ee *exec.ExitError
	switch {
	case errors.As(s.waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			note = fmt.Sprintf("host process was killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
		} else {
			note = fmt.Sprintf("host process exited with status %d", ee.ExitCode())
		}
	case s.waitErr != nil:
		note = fmt.Sprintf("host process ended (%v)", s.waitErr)
	}
	// Give the stderr reader a moment to take the host's last words.
	select {
	case <-s.stderrDone:
	case <-time.After(100 * time.Millisecond):
	}
	if last := s.lastWords.lastLine(); last != "" {
		note += fmt.Sprintf(" (its last line on stderr: %q)", last)
	}
	return note
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 1 << 10

func (t *tail) add(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = t.buf[over:]
	}
}

// lastLine is the last non-empty line kept, cut to 200 bytes.
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimRight(string(t.buf), "\r\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = last[:200] + "..."
	}
	return strings.ToValidUTF8(last, "?")
}

// terminate stops the host: with graceful, it sees end of input and gets the
// grace period; then every process of the host is killed (its process
// group, its descendants and whatever carries its marker) and the host
// reaped, so that no child it started outlives the session.
func (s *stdioTransport) terminate(graceful bool) error {
	s.stopOnce.Do(func() {
		_ = s.Close()
		if graceful {
			select {
			case <-s.exited:
			case <-time.After(s.grace):
			}
		}
		pgid := s.pid()
		escaped := procs.Stop(procs.Host{PID: pgid, Markers: []string{procs.EnvHost + "=" + s.tmp.Path, "TMPDIR=" + s.tmp.Path}})
		if s.escapes != nil {
			s.escapes.add(escaped)
		}
		select {
		case <-s.exited:
		case <-time.After(stdioReap):
			s.stopErr = fmt.Errorf("host process %d was not reaped within %s of SIGKILL", pgid, stdioReap)
		}
		// A process outside the group may still hold stderr open: stop
		// reading after a short while.
		select {
		case <-s.stderrDone:
		case <-time.After(time.Second):
		}
		_ = s.stderr.Close()
		<-s.stderrDone
		if err := s.tmp.Remove(); err != nil && s.stopErr == nil {
			s.stopErr = fmt.Errorf("removing the host's temp folder: %w", err)
		}
	})
	return s.stopErr
}
