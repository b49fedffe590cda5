package webdriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/agentapp/conformance/drivers/procs"
)

// ErrNoDriver is returned, wrapped, by StartServer when the driver binary
// (or xvfb-run, for one that needs a display) is not installed.
var ErrNoDriver = errors.New("no WebDriver remote end installed")

// ServerOptions say how to start a remote end.
type ServerOptions struct {
	// Binary is the driver: "WebKitWebDriver", "chromedriver", a path or a
	// name looked up in PATH.
	Binary string
	// Xvfb runs it under `xvfb-run -a` (a virtual display): WebKitWebDriver
	// starts a browser that needs one.
	Xvfb bool
	// Log receives the driver's output; nil discards it.
	Log io.Writer
	// Args, when set, are the driver's arguments for the free port it is
	// to listen on (default --port=PORT): tauri-driver wants
	// --port PORT --native-port OTHER, its WebKitWebDriver's.
	Args func(port int) ([]string, error)
}

// TauriDriverArgs are tauri-driver's arguments: port, and another free
// port for the WebKitWebDriver it starts (its default, 4445, is shared by
// every tauri-driver on the machine).
func TauriDriverArgs(port int) ([]string, error) {
	native, err := freePort()
	if err != nil {
		return nil, err
	}
	return []string{"--port", strconv.Itoa(port), "--native-port", strconv.Itoa(native)}, nil
}

// Server is a remote end the harness started; Close kills it and every
// process it started (the browser and, under xvfb-run, the X server).
type Server struct {
	URL  string
	cmd  *exec.Cmd
	dir  *procs.TempDir
	done <-chan error

	once sync.Once
}

// serverStartTimeout bounds how long a started driver may take to say
// it is ready (GET /status) when ctx has no deadline.
const serverStartTimeout = 20 * time.Second

// StartServer starts a remote end on a free loopback port and waits,
// within ctx, until its /status answers. Its processes carry a temporary
// folder of their own (TMPDIR and procs.EnvBrowserProfile), by which
// Close finds them all, also those that left its process group.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	exe, err := exec.LookPath(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("webdriver: %w: %v", ErrNoDriver, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := []string{exe, "--port=" + strconv.Itoa(port)}
	if o.Args != nil {
		more, err := o.Args(port)
		if err != nil {
			return nil, err
		}
		args = append([]string{exe}, more...)
	}
	if o.Xvfb {
		xvfb, err := exec.LookPath("xvfb-run")
		if err != nil {
			return nil, fmt.Errorf("webdriver: %w: %s needs a display: %v", ErrNoDriver, filepath.Base(exe), err)
		}
		args = append([]string{xvfb, "-a"}, args...)
	}
	dir, err := procs.MkdirTemp(procs.Prefix + "webdriver-")
	if err != nil {
		return nil, fmt.Errorf("webdriver: the driver's folder: %w", err)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "TMPDIR="+dir.Path, procs.EnvBrowserProfile+"="+dir.Path)
	cmd.SysProcAttr = procs.ChildAttr()
	out := o.Log
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	done, err := procs.StartLocked(cmd)
	if err != nil {
		_ = dir.Remove()
		return nil, fmt.Errorf("webdriver: starting %s: %w", exe, err)
	}
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, dir: dir, done: done}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, serverStartTimeout)
		defer cancel()
	}
	if err := s.awaitReady(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("webdriver: %s did not become ready: %w", filepath.Base(exe), err)
	}
	return s, nil
}

// awaitReady polls /status until the remote end answers ready.
func (s *Server) awaitReady(ctx context.Context) error {
	c := NewClient(s.URL)
	var last error
	for {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := c.Status(pctx)
		cancel()
		switch {
		case err == nil && st.Ready:
			return nil
		case err == nil:
			last = fmt.Errorf("not ready: %s", st.Message)
		default:
			last = err
		}
		select {
		case err := <-s.done:
			return fmt.Errorf("it exited (%v); last: %v", err, last)
		case <-ctx.Done():
			return fmt.Errorf("%w; last: %v", ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close kills the driver's process group and every process carrying its
// folder, reaps the driver and removes the folder. It is idempotent.
func (s *Server) Close() {
	s.once.Do(func() {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
		procs.KillUsing(s.dir.Path)
		_ = s.dir.Remove()
	})
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the driver binds it; the driver then exits and
// StartServer says so.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("webdriver: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
