// Package control is the harness side of the host control protocol v1
// (docs/host-control-protocol.md): JSON-RPC 2.0 over Content-Length frames on
// a host's stdio, a TCP connection or an in-process pipe, with per-call
// timeouts, a frame size limit, schema checks of every result and a
// transcript of every frame.
package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/protocol"
)

// HarnessName is the name the harness gives in conformance/hello.
const HarnessName = "agentapp-conformance"

// Options are the limits the harness applies to a host (docs/host-control-protocol.md,
// "Timeouts and limits"). Zero fields take the defaults.
type Options struct {
	CallTimeout   time.Duration // per call; the context's deadline wins when earlier
	MaxFrameBytes int64         // largest frame accepted from the host
	// HarnessVersion is sent in conformance/hello; default: the build's module version.
	HarnessVersion string
	// DialWait is how long a TCP connector dials again a host that refuses
	// the connection, as one still starting does (a host that a WebDriver
	// session starts); 0 dials once.
	DialWait time.Duration
	// StartTimeout is how long a host just connected (a stdio host just
	// started) has to answer conformance/hello: its start is not a call
	// (an Electron shell takes seconds, any host longer on a loaded
	// machine). The longer of it and CallTimeout applies; 0: CallTimeout.
	StartTimeout time.Duration
}

// DefaultOptions returns 5s per call and 16 MiB per frame.
func DefaultOptions() Options {
	v := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return Options{CallTimeout: 5 * time.Second, MaxFrameBytes: 16 << 20, HarnessVersion: v}
}

// resolveOptions merges the last of opts over the defaults.
func resolveOptions(opts []Options) Options {
	o := DefaultOptions()
	if len(opts) == 0 {
		return o
	}
	last := opts[len(opts)-1]
	if last.CallTimeout > 0 {
		o.CallTimeout = last.CallTimeout
	}
	if last.MaxFrameBytes > 0 {
		o.MaxFrameBytes = last.MaxFrameBytes
	}
	o.DialWait = last.DialWait
	o.StartTimeout = last.StartTimeout
	if last.HarnessVersion != "" {
		o.HarnessVersion = last.HarnessVersion
	}
	return o
}

// transport is one connection to a host, whatever carries it.
type transport interface {
	io.ReadWriteCloser // Close closes the harness's ends only
	// exitNote says how the host went away ("host process exited with
	// status 3"), waiting at most wait for it to finish; "" when unknown.
	exitNote(wait time.Duration) string
	// terminate stops the host and releases everything; graceful lets it
	// exit on its own first. Idempotent.
	terminate(graceful bool) error
}

// Client is a connection to a host that has answered conformance/hello.
type Client struct {
	conn    *jsonrpc2.Conn
	codec   *codec
	tr      transport
	opts    Options
	schemas *protocol.Schemas
	nextID  atomic.Uint64

	hello    protocol.HelloResult
	helloRaw json.RawMessage
	helloErr error

	mu     sync.Mutex
	dead   error // why the client died; nil while alive
	closed bool
}

// connect runs the protocol over tr and says hello.
func connect(ctx context.Context, tr transport, t *Transcript, opts Options, schemas *protocol.Schemas) (*Client, error) {
	c := &Client{tr: tr, opts: opts, schemas: schemas}
	c.codec = newCodec(opts.MaxFrameBytes, t, t.openConn())
	stream := jsonrpc2.NewBufferedStream(tr, c.codec)
	c.conn = jsonrpc2.NewConn(context.Background(), stream, refuseHandler{},
		jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	raw, err := c.callWithin(ctx, max(opts.CallTimeout, opts.StartTimeout), protocol.MethodHello, protocol.HelloParams{
		HarnessName: HarnessName, HarnessVersion: opts.HarnessVersion, ProtocolVersion: protocol.Version,
	})
	var he *HostError
	var te *TransportError
	switch {
	case err == nil:
	case errors.As(err, &he), errors.As(err, &te) && te.Kind == KindSchema:
		// A bad hello fails the hello check only: keep the connection.
		c.helloErr = err
	default:
		_ = c.Close()
		return nil, err
	}
	c.helloRaw = raw
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &c.hello) // best effort when the schema check failed
	}
	return c, nil
}

// refuseHandler answers requests from the host: the harness serves no
// methods. It runs in the read loop (not async), so a host that floods
// requests and never reads the replies stalls its own answers, which then
// time out, instead of growing goroutines in the harness.
type refuseHandler struct{}

func (refuseHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		return
	}
	_ = conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: protocol.CodeMethodNotFound,
		Message: fmt.Sprintf("the harness serves no methods (%s)", req.Method)})
}

// Hello returns the host's conformance/hello answer as decoded at Connect
// (best effort when HelloErr is set).
func (c *Client) Hello() protocol.HelloResult { return c.hello }

// HelloRaw returns the hello answer as the host sent it.
func (c *Client) HelloRaw() json.RawMessage { return c.helloRaw }

// HelloErr is the host error or schema mismatch of the hello answer, if any.
func (c *Client) HelloErr() error { return c.helloErr }

// Alive reports whether the client can still call the host.
func (c *Client) Alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closed && c.dead == nil && c.codec.failed() == nil
}

// Close ends the session: the host sees its input end, gets a grace period
// to exit, and is then stopped for good. Close is idempotent.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	graceful := c.dead == nil
	c.mu.Unlock()
	_ = c.conn.Close()
	return c.tr.terminate(graceful)
}

// Call calls method with params and decodes the result into result (which
// may be nil, or a *json.RawMessage to keep the answer as sent). The call
// waits at most Options.CallTimeout or until ctx ends, whichever is first.
// The result is checked against the method's schema (protocol.Schemas)
// before it is decoded; a *json.RawMessage result receives the answer even
// when it fails its schema. Errors are *HostError or *TransportError; after a
// TransportError of any kind but KindSchema the client is dead.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	_, err := c.CallReading(ctx, method, params, result, protocol.ReadsAll)
	return err
}

// CallReading is Call for a check that reads only what reads covers
// (protocol.ReadsOf(result) when reads is nil: what result's type
// decodes). A schema violation where the check does not read leaves the
// answer usable to it: the result is decoded, and the violations let pass
// are returned, for the caller to report where the protocol's rule is
// judged (docs/host-control-protocol.md, "What one answer costs"). The
// error is Call's, a KindSchema error narrowed to the violations in what
// the check reads.
func (c *Client) CallReading(ctx context.Context, method string, params, result any, reads protocol.Reads) (unread []protocol.Violation, err error) {
	raw, err := c.call(ctx, method, params)
	var te *TransportError
	var se *protocol.SchemaError
	if errors.As(err, &te) && te.Kind == KindSchema && errors.As(err, &se) {
		if reads == nil {
			reads = protocol.ReadsOf(result)
		}
		if u := se.Only(func(v protocol.Violation) bool { return !reads.Covers(v) }); u != nil {
			unread = u.Violations
		}
		err = nil
		if read := se.Only(reads.Covers); read != nil {
			err = newTransportError(method, KindSchema, read.Error(),
				fmt.Sprintf("answer to %s does not match its schema: %v", method, read), read)
		}
	}
	if rm, ok := result.(*json.RawMessage); ok && rm != nil {
		// Kept even when it fails its schema: checks that need no parsed
		// value (the secret search) still run on it.
		*rm = append((*rm)[:0], raw...)
		return unread, err
	}
	if err != nil || result == nil {
		return unread, err
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return unread, newTransportError(method, KindSchema, err.Error(),
			fmt.Sprintf("answer to %s cannot be decoded: %v", method, err), err)
	}
	return unread, nil
}

type callResult struct {
	raw json.RawMessage
	err error
}

// call calls method within the per-call timeout.
func (c *Client) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.callWithin(ctx, c.opts.CallTimeout, method, params)
}

// callWithin is call with timeout in place of the per-call timeout.
func (c *Client) callWithin(ctx context.Context, timeout time.Duration, method string, params any) (json.RawMessage, error) {
	if err := c.unusable(method); err != nil {
		return nil, err
	}
	var p any
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("control: encoding params of %s: %w", method, err)
		}
		p = json.RawMessage(b)
	}
	limit := timeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < limit {
		limit = max(time.Until(dl).Round(time.Millisecond), 0)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id := jsonrpc2.ID{Num: c.nextID.Add(1)} // ids start at 1
	done := make(chan callResult, 1)
	go func() {
		var raw json.RawMessage
		err := c.conn.Call(cctx, method, p, &raw, jsonrpc2.PickID(id))
		done <- callResult{raw, err}
	}()
	var r callResult
	select {
	case r = <-done:
	case <-cctx.Done(): // also when the send itself is stuck on a host that does not read
		select {
		case r = <-done:
		default:
			r = callResult{err: cctx.Err()}
		}
	}
	if r.err != nil {
		return nil, c.failure(ctx, method, limit, r.err)
	}
	if _, ok := c.schemas.Result(method); ok {
		if err := c.schemas.ValidateResult(method, r.raw); err != nil {
			return r.raw, newTransportError(method, KindSchema, err.Error(),
				fmt.Sprintf("answer to %s does not match its schema: %v", method, err), err)
		}
	}
	return r.raw, nil
}

// unusable explains why no call can be made, or returns nil.
func (c *Client) unusable(method string) error {
	c.mu.Lock()
	dead, closed := c.dead, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return newTransportError(method, KindClosed, "client closed",
			fmt.Sprintf("cannot call %s: the client is closed", method), nil)
	case dead != nil:
		return newTransportError(method, KindClosed, dead.Error(),
			fmt.Sprintf("cannot call %s: the connection died earlier (%v); reconnect", method, dead), dead)
	}
	return nil
}

// failure turns an error of a call into a HostError or TransportError and
// kills the client when the error is fatal.
func (c *Client) failure(ctx context.Context, method string, limit time.Duration, err error) error {
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		he := &HostError{Method: method, Code: rpcErr.Code, Message: rpcErr.Message}
		if rpcErr.Data != nil {
			he.Data = append(json.RawMessage(nil), *rpcErr.Data...)
		}
		return he
	}
	var te *TransportError
	switch {
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != context.Canceled:
		te = newTransportError(method, KindTimeout, limit.String(),
			fmt.Sprintf("host did not answer %s within %s", method, limit), err)
	case errors.Is(err, context.Canceled):
		te = newTransportError(method, KindClosed, "cancelled by the harness",
			fmt.Sprintf("the harness cancelled %s before the host answered", method), err)
	default:
		if err := c.unusable(method); err != nil {
			return err // another call or Close got there first
		}
		// A failed write usually means the reader is about to see why.
		select {
		case <-c.conn.DisconnectNotify():
		case <-time.After(200 * time.Millisecond):
		}
		fe := c.codec.failed()
		if fe == nil {
			fe = &frameError{kind: KindClosed, detail: err.Error()}
		}
		te = c.describe(fe, method)
	}
	c.die(te)
	return te
}

// describe turns a read failure during a call to method into a
// one-sentence TransportError.
func (c *Client) describe(fe *frameError, method string) *TransportError {
	switch fe.kind {
	case KindOversize:
		return newTransportError(method, KindOversize, fe.detail,
			fmt.Sprintf("host sent a %d-byte frame for %s; the limit is %d", fe.size, method, fe.limit), fe)
	case KindMalformed:
		if len(fe.stray) > 0 {
			return newTransportError(method, KindMalformed, fe.detail,
				fmt.Sprintf("the host wrote %s where the answer to %s was due: that is not a Content-Length frame (the protocol channel, stdout for a stdio host, carries frames only; write logs to stderr)",
					quoteStart(bytes.TrimRight(fe.stray, "\r\n")), method), fe)
		}
		return newTransportError(method, KindMalformed, fe.detail,
			fmt.Sprintf("answer to %s %s: %s", method, fe.what, fe.detail), fe)
	}
	who := "host closed the connection"
	if note := c.tr.exitNote(time.Second); note != "" {
		who = note
	}
	msg := who + " while answering " + method
	if fe.size > 0 {
		msg += fmt.Sprintf(" (after %d of %d bytes of a frame)", fe.got, fe.size)
	}
	return newTransportError(method, KindClosed, fe.detail, msg, fe)
}

// die marks the client dead and stops the host at once: a host that failed
// once is not trusted for the next spec.
func (c *Client) die(err error) {
	c.mu.Lock()
	if c.dead == nil {
		c.dead = err
	}
	c.mu.Unlock()
	_ = c.conn.Close()
	_ = c.tr.terminate(false)
}
