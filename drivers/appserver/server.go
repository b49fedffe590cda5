// Package appserver is the App Server the harness plays on loopback (spec
// 000 "Agent Task Runtime Control Plane"; 001 the App Server bridge
// profile): a JSON-RPC 2.0 peer a host reaches as it reaches its own,
// over a loopback socket or, through `conformance appserver-relay`, as a
// sidecar speaking JSON lines on stdio. It records every message both ways
// for the run's transcript, answers from the script a spec gives it, and
// can be made unavailable: refusing, hanging, dropping mid-turn, answering
// garbage.
package appserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Mode is how the server behaves towards the host.
type Mode int

// Modes.
const (
	Serve       Mode = iota // answer from the script
	Refuse                  // close every connection at once
	Hang                    // read requests and never answer (until MaxHang)
	Garbage                 // answer every request with bytes that are not JSON
	DropMidTurn             // close the connection after the first event of a turn
)

func (m Mode) String() string {
	return [...]string{"serve", "refuse", "hang", "garbage", "drop-mid-turn"}[m]
}

// MaxHang bounds how long a hanging server holds a request.
const MaxHang = 30 * time.Second

// Directions of a recorded message.
const (
	FromHost = "host->appserver"
	ToHost   = "appserver->host"
)

// Message is one JSON-RPC message on one connection, as recorded.
type Message struct {
	Conn   int             `json:"conn"`
	Dir    string          `json:"dir"`
	Method string          `json:"method,omitempty"`
	ID     string          `json:"id,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *jsonrpc2.Error `json:"error,omitempty"`
	At     time.Time       `json:"at"`
}

// IsNotification reports whether m is a notification (no id, a method).
func (m Message) IsNotification() bool { return m.ID == "" && m.Method != "" }

// Server is the fake App Server on 127.0.0.1.
type Server struct {
	ln     net.Listener
	record func(Message)

	mu      sync.Mutex
	mode    Mode
	script  *Script
	msgs    []Message
	conns   map[int]*peer
	strays  []string // HTTP request lines that reached the port (Strays)
	nextID  int
	closed  bool
	stopped chan struct{}
}

// peer is one host connection.
type peer struct {
	id   int
	raw  net.Conn
	gone chan struct{} // closed by close
	once sync.Once
	// initialize and initialized record the connection's handshake
	// (guarded by Server.mu): it outlives a change of script.
	initialize, initialized bool
}

// close drops the connection and ends a hanging answer on it.
func (p *peer) close() {
	p.once.Do(func() { close(p.gone) })
	_ = p.raw.Close()
}

// Start listens on a free loopback port. record (may be nil) is told of
// every message, for the run's transcript.
func Start(record func(Message)) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("app server: listening on loopback: %w", err)
	}
	s := &Server{ln: ln, record: record, conns: map[int]*peer{}, stopped: make(chan struct{}), script: NewScript()}
	go s.accept()
	return s, nil
}

// Addr is the loopback address the host dials (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// SetMode changes how the server behaves from now on.
func (s *Server) SetMode(m Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

// SetScript replaces what the server answers with.
func (s *Server) SetScript(sc *Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = sc
}

// Script is what the server answers now.
func (s *Server) Script() *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script
}

// Reset forgets the messages seen, drops every connection, and goes back
// to serving a fresh default script: the start of a spec.
func (s *Server) Reset() {
	s.mu.Lock()
	conns := s.conns
	s.conns = map[int]*peer{}
	s.msgs, s.strays, s.mode, s.script = nil, nil, Serve, NewScript()
	s.mu.Unlock()
	for _, p := range conns {
		p.close()
	}
}

// DropConnections closes every connection the host has open, as an App
// Server that restarted would; mode, script and messages stay.
func (s *Server) DropConnections() {
	s.mu.Lock()
	conns := s.conns
	s.conns = map[int]*peer{}
	s.mu.Unlock()
	for _, p := range conns {
		p.close()
	}
}

// Messages returns what was said on every connection so far, in order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Close stops listening and drops every connection.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	conns := s.conns
	s.conns = map[int]*peer{}
	close(s.stopped)
	s.mu.Unlock()
	err := s.ln.Close()
	for _, p := range conns {
		p.close()
	}
	return err
}

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed || s.mode == Refuse {
			s.mu.Unlock()
			_ = c.Close()
			continue
		}
		s.nextID++
		p := &peer{id: s.nextID, raw: c, gone: make(chan struct{})}
		s.conns[p.id] = p
		s.mu.Unlock()
		go s.serve(p)
	}
}

// serve speaks JSON-RPC on one connection, unless its first bytes are an
// HTTP request (a browser's fetch or WebSocket handshake, never the host's
// client): that is recorded as a stray request and the connection closed.
func (s *Server) serve(p *peer) {
	in := bufio.NewReader(p.raw)
	if first, err := in.Peek(len(httpMethodPrefix)); err == nil && isHTTPStart(first) {
		line, _ := in.ReadString('\n')
		s.mu.Lock()
		delete(s.conns, p.id)
		s.strays = append(s.strays, strings.TrimSpace(line))
		s.mu.Unlock()
		p.close()
		return
	}
	stream := jsonrpc2.NewPlainObjectStream(peekedConn{Conn: p.raw, r: in})
	// Requests are handled in the order they arrive (initialized
	// before the business method that follows it); a hanging answer
	// holds the connection, as a hung server does.
	conn := jsonrpc2.NewConn(context.Background(), stream, handler{s: s, p: p}, jsonrpc2.SetLogger(log.New(io.Discard, "", 0)),
		jsonrpc2.OnRecv(func(req *jsonrpc2.Request, resp *jsonrpc2.Response) { s.log(p, FromHost, req, resp) }),
		jsonrpc2.OnSend(func(req *jsonrpc2.Request, resp *jsonrpc2.Response) { s.log(p, ToHost, req, resp) }))
	<-conn.DisconnectNotify()
	s.mu.Lock()
	delete(s.conns, p.id)
	s.mu.Unlock()
}

// httpMethodPrefix is as many bytes as isHTTPStart reads.
const httpMethodPrefix = "OPTIONS "

// isHTTPStart reports whether a connection's first bytes begin an HTTP
// request line ("GET / HTTP/1.1", a WebSocket handshake included).
func isHTTPStart(b []byte) bool {
	for _, m := range []string{"GET ", "POST ", "PUT ", "HEAD ", "OPTIONS ", "DELETE ", "PATCH ", "CONNECT "} {
		if strings.HasPrefix(string(b), m) {
			return true
		}
	}
	return false
}

// peekedConn reads a connection through the reader that peeked at it.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// Strays are the request lines of HTTP requests that reached the server's
// port since the last Reset: a browser frame's fetch or WebSocket aimed at
// the App Server's transport (001 UI runtime: "Host Bridge never exposes
// App Server transport").
func (s *Server) Strays() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.strays...)
}

// log records one message.
func (s *Server) log(p *peer, dir string, req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	m := Message{Conn: p.id, Dir: dir, At: time.Now().UTC()}
	switch {
	case req != nil:
		m.Method = req.Method
		if !req.Notif {
			m.ID = req.ID.String()
		}
		if req.Params != nil {
			m.Params = append(json.RawMessage(nil), *req.Params...)
		}
	case resp != nil:
		m.ID = resp.ID.String()
		if resp.Result != nil {
			m.Result = append(json.RawMessage(nil), *resp.Result...)
		}
		m.Error = resp.Error
	}
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	record := s.record
	s.mu.Unlock()
	if record != nil {
		record(m)
	}
}

// state reads the mode and script under the lock.
func (s *Server) state() (Mode, *Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode, s.script
}

// handler answers one connection's requests.
type handler struct {
	s *Server
	p *peer
	// conn is the connection the request came on: the handler's own, not
	// p.conn, which the accepting goroutine may not have set yet.
	conn *jsonrpc2.Conn
}

func (h handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	h.conn = conn
	mode, sc := h.s.state()
	if sc != nil && sc.SilentOn != "" && req.Method == sc.SilentOn {
		mode = Hang
	}
	switch mode {
	case Hang:
		select {
		case <-time.After(MaxHang):
		case <-h.p.gone:
		case <-h.s.stopped:
		}
		return
	case Garbage:
		if !req.Notif {
			_, _ = h.p.raw.Write([]byte("\x00\xff not json {{{\n"))
		}
		return
	case Refuse:
		h.p.close()
		return
	}
	result, rpcErr := sc.handle(ctx, h, req)
	if req.Notif {
		return
	}
	if rpcErr != nil {
		_ = conn.ReplyWithError(ctx, req.ID, rpcErr)
		return
	}
	_ = conn.Reply(ctx, req.ID, result)
}

// notify sends a notification to the host on this connection.
func (h handler) notify(ctx context.Context, method string, params any) error {
	return h.conn.Notify(ctx, method, params)
}

// drop closes this connection (DropMidTurn).
func (h handler) drop() { h.p.close() }
