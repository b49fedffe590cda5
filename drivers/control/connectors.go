package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Connector opens sessions with one host.
type Connector interface {
	// Connect opens a connection, recording its frames into t (which may be
	// nil), and says conformance/hello. A hello that the host answers with
	// an error or that fails its schema still connects (see
	// Client.HelloErr); a transport failure returns the error.
	Connect(ctx context.Context, t *Transcript) (*Client, error)
	// Describe names the host for humans, e.g. `stdio: conformance mockhost --stdio`.
	Describe() string
	// Transport is "stdio", "tcp" or "in-process" (the report's host.transport).
	Transport() string
}

// base holds what every connector shares: options and the compiled schemas.
type base struct {
	opts    Options
	once    sync.Once
	schemas *protocol.Schemas
	err     error
}

func (b *base) connect(ctx context.Context, tr transport, t *Transcript) (*Client, error) {
	b.once.Do(func() { b.schemas, b.err = protocol.LoadSchemas() })
	if b.err != nil {
		_ = tr.terminate(false)
		return nil, fmt.Errorf("loading protocol schemas: %w", b.err)
	}
	return connect(ctx, tr, t, b.opts, b.schemas)
}

// TCPConnector connects to a host listening at addr (host:port), with a 5s
// dial timeout. Options are optional; the last one given applies.
func TCPConnector(addr string, opts ...Options) Connector {
	return &tcpConnector{addr: addr, base: &base{opts: resolveOptions(opts)}}
}

type tcpConnector struct {
	addr string
	*base
}

func (c *tcpConnector) Describe() string  { return "tcp: " + c.addr }
func (c *tcpConnector) Transport() string { return "tcp" }

func (c *tcpConnector) Connect(ctx context.Context, t *Transcript) (*Client, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	until := time.Now().Add(c.opts.DialWait)
	for {
		conn, err := d.DialContext(ctx, "tcp", c.addr)
		if err == nil {
			return c.connect(ctx, &netTransport{Conn: conn}, t)
		}
		if !errors.Is(err, syscall.ECONNREFUSED) || !time.Now().Before(until) {
			return nil, fmt.Errorf("connecting to host at %s: %w", c.addr, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("connecting to host at %s: %w", c.addr, errors.Join(err, ctx.Err()))
		case <-time.After(dialAgain):
		}
	}
}

// dialAgain is how soon a refused dial is tried again within DialWait.
const dialAgain = 100 * time.Millisecond

// netTransport is a TCP connection: the host's exit is not observable.
type netTransport struct {
	net.Conn
}

func (n *netTransport) exitNote(time.Duration) string { return "" }
func (n *netTransport) terminate(bool) error {
	_ = n.Close()
	return nil
}

// PipeConnector runs a host in-process: serve gets the host's end of a
// net.Pipe and runs in its own goroutine until the connection closes.
// Options are optional; the last one given applies.
func PipeConnector(serve func(conn io.ReadWriteCloser), opts ...Options) Connector {
	return &pipeConnector{serve: serve, base: &base{opts: resolveOptions(opts)}}
}

type pipeConnector struct {
	serve func(conn io.ReadWriteCloser)
	*base
}

func (c *pipeConnector) Describe() string  { return "in-process pipe" }
func (c *pipeConnector) Transport() string { return "in-process" }

func (c *pipeConnector) Connect(ctx context.Context, t *Transcript) (*Client, error) {
	harness, host := net.Pipe()
	p := &pipeTransport{Conn: harness, host: host, done: make(chan struct{})}
	go p.run(c.serve)
	return c.connect(ctx, p, t)
}

// pipeServeGrace bounds how long Close waits for an in-process host to
// return after its connection closed.
const pipeServeGrace = 2 * time.Second

type pipeTransport struct {
	net.Conn          // the harness's end
	host     net.Conn // the host's end
	done     chan struct{}
	panicked any // set before done closes
	stopOnce sync.Once
	stopErr  error
}

func (p *pipeTransport) run(serve func(io.ReadWriteCloser)) {
	defer close(p.done)
	defer func() {
		if v := recover(); v != nil {
			p.panicked = v
		}
		_ = p.host.Close()
	}()
	serve(p.host)
}

func (p *pipeTransport) exitNote(wait time.Duration) string {
	select {
	case <-p.done:
	case <-time.After(wait):
		return ""
	}
	if p.panicked != nil {
		return fmt.Sprintf("in-process host panicked (%v)", p.panicked)
	}
	return "in-process host stopped serving"
}

func (p *pipeTransport) terminate(bool) error {
	p.stopOnce.Do(func() {
		_ = p.Close()
		_ = p.host.Close()
		select {
		case <-p.done:
		case <-time.After(pipeServeGrace):
			p.stopErr = fmt.Errorf("in-process host did not return within %s after its connection closed", pipeServeGrace)
		}
	})
	return p.stopErr
}
