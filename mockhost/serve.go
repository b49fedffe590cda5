package mockhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// session is one Serve connection. Requests are queued by the jsonrpc2 read
// loop and answered one at a time, in order, by a single worker, so the read
// loop always sees the peer hang up (even while a hostile fault blocks the
// worker).
type session struct {
	host   *Host
	stream *frameStream
	conn   *jsonrpc2.Conn

	mu    sync.Mutex
	queue []*jsonrpc2.Request
	wake  chan struct{}
	dead  bool // set by crash-mid-uninstall: no more work on this connection
}

// Handle implements jsonrpc2.Handler: it only queues the request.
func (s *session) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s.mu.Lock()
	s.queue = append(s.queue, req)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *session) next(ctx context.Context) (*jsonrpc2.Request, bool) {
	for {
		s.mu.Lock()
		if s.dead {
			s.mu.Unlock()
			return nil, false
		}
		if len(s.queue) > 0 {
			req := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return req, true
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, false
		case <-s.wake:
		}
	}
}

// work answers queued requests until the connection ends.
func (s *session) work(ctx context.Context) {
	for {
		req, ok := s.next(ctx)
		if !ok {
			return
		}
		result, rpcErr, answered := s.dispatch(ctx, req)
		if rpcErr == nil && !answered && changesApps(req.Method) {
			if err := s.host.syncCore(); err != nil {
				result, rpcErr = nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
			}
		}
		if answered || req.Notif {
			continue
		}
		if rpcErr != nil {
			_ = s.conn.ReplyWithError(ctx, req.ID, s.host.withDebugContext(rpcErr))
		} else {
			_ = s.conn.Reply(ctx, req.ID, result)
		}
		if req.Method == protocol.MethodShutdownHint {
			// host/shutdown: the harness is done with this connection.
			_ = s.conn.Close()
			return
		}
	}
}

// kill ends the connection abruptly and refuses any further work on it.
func (s *session) kill() {
	s.mu.Lock()
	s.dead = true
	s.queue = nil
	s.mu.Unlock()
	_ = s.stream.Close()
}

// Serve speaks protocol v1 on one connection until the peer closes it (or
// Close is called), then releases everything the connection held. Host
// state (installed apps, configuration) outlives the connection.
func (h *Host) Serve(conn io.ReadWriteCloser) error {
	s := &session{host: h, stream: newFrameStream(conn), wake: make(chan struct{}, 1)}
	if !h.addSession(s) {
		_ = conn.Close()
		return errors.New("mockhost: host is closed")
	}
	defer h.removeSession(s)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.conn = jsonrpc2.NewConn(ctx, s.stream, s, jsonrpc2.SetLogger(log.New(h.logw, "mockhost: ", 0)))

	done := make(chan struct{})
	go func() {
		defer close(done)
		s.work(ctx)
	}()
	<-s.conn.DisconnectNotify()
	cancel()
	<-done
	if err := s.stream.err(); err != nil {
		return fmt.Errorf("serving a connection: %w", err)
	}
	return nil
}

// stdio joins stdin and stdout into one connection.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return os.Stdin.Close() }

// ServeStdio serves one session on stdin/stdout (`conformance mockhost
// --stdio`). Under crash-mid-uninstall the process exits with status 3.
func ServeStdio(o Options) error {
	// A harness that hangs up mid-answer (flood-on-project) must make the
	// write fail, not kill the process before the temp dir is removed.
	signal.Ignore(syscall.SIGPIPE)
	// fault: leave-setsid-child — a process escapes the host's process group and is never stopped.
	if o.Faults.Has("leave-setsid-child") {
		if _, err := leaveSetsidChild(); err != nil {
			fmt.Fprintf(os.Stderr, "mockhost: leave-setsid-child: %v\n", err)
		}
	}
	h := NewWithOptions(o)
	defer h.Close()
	h.logw = os.Stderr
	h.exit = os.Exit
	return h.Serve(stdio{Reader: os.Stdin, Writer: os.Stdout})
}

// ServeTCP listens on addr (loopback only) and serves every connection with
// one Host. ready is called with the bound address once it accepts. It
// returns after SIGINT or SIGTERM (nil) or when accepting fails.
func ServeTCP(addr string, o Options, ready func(net.Addr)) error {
	addr, err := LoopbackAddr(addr)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	defer l.Close()
	h := NewWithOptions(o)
	defer h.Close()
	h.logw = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.WebView != "" {
		// A web-view host lives as long as its window's browser.
		exited, err := h.StartWebView()
		if err != nil {
			return err
		}
		go func() {
			<-exited
			stop()
		}()
	}
	go func() {
		<-ctx.Done()
		_ = l.Close()
	}()
	if ready != nil {
		ready(l.Addr())
	}
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("accepting on %s: %w", l.Addr(), err)
		}
		go func() {
			if err := h.Serve(c); err != nil {
				fmt.Fprintf(h.logw, "mockhost: %s: %v\n", c.RemoteAddr(), err)
			}
		}()
	}
}

// LoopbackAddr checks that addr names a loopback interface; an empty host
// means 127.0.0.1.
func LoopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", addr, err)
	}
	switch host {
	case "":
		host = "127.0.0.1"
	case "localhost":
	default:
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return "", fmt.Errorf("address %q: mockhost listens on loopback only (127.0.0.1, ::1 or localhost)", addr)
		}
	}
	return net.JoinHostPort(host, port), nil
}

// rpcError builds a JSON-RPC error, with findings as data when given.
func rpcError(code int64, msg string, data any) *jsonrpc2.Error {
	e := &jsonrpc2.Error{Code: code, Message: msg}
	if data != nil {
		raw, err := json.Marshal(data)
		if err == nil {
			m := json.RawMessage(raw)
			e.Data = &m
		}
	}
	return e
}
