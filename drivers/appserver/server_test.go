package appserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// client is a host's App Server client, for the tests.
type client struct {
	conn   *jsonrpc2.Conn
	mu     sync.Mutex
	events []EventParams
}

func (c *client) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == MethodEvent && req.Params != nil {
		var p EventParams
		_ = json.Unmarshal(*req.Params, &p)
		c.mu.Lock()
		c.events = append(c.events, p)
		c.mu.Unlock()
	}
}

func (c *client) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.events)
}

func (c *client) got() []EventParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]EventParams(nil), c.events...)
}

func dial(t *testing.T, rwc io.ReadWriteCloser) *client {
	t.Helper()
	c := &client{}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(rwc), c)
	t.Cleanup(func() { _ = c.conn.Close() })
	return c
}

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func connect(t *testing.T, s *Server) *client {
	t.Helper()
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	return dial(t, nc)
}

func call(t *testing.T, c *client, method string, params, out any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return c.conn.Call(ctx, method, params, out)
}

func handshake(t *testing.T, c *client) {
	t.Helper()
	if err := call(t, c, MethodInitialize, map[string]any{"clientInfo": map[string]any{"name": "test"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.conn.Notify(context.Background(), MethodInitialized, nil); err != nil {
		t.Fatal(err)
	}
}

// A session and a turn after the handshake: the turn's events arrive in
// order, numbered, the result last; the server recorded both directions.
func TestATurnStreamsItsEventsInOrder(t *testing.T) {
	s := start(t)
	c := connect(t, s)
	handshake(t, c)
	var sess struct{ SessionID string }
	if err := call(t, c, MethodSessionStart, map[string]any{"appId": "a", "workspaceId": "w"}, &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("session: %v %+v", err, sess)
	}
	var turn struct{ TurnID string }
	if err := call(t, c, MethodTurnStart, map[string]any{"sessionId": sess.SessionID, "input": "x"}, &turn); err != nil || turn.TurnID == "" {
		t.Fatalf("turn: %v %+v", err, turn)
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(c.got()) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	ev := c.got()
	if len(ev) != 4 || ev[3].Type != "result" || ev[3].Subtype != "success" {
		t.Fatalf("events %+v", ev)
	}
	for i, e := range ev {
		if e.Sequence != i+1 || e.SessionID != sess.SessionID || e.TurnID != turn.TurnID {
			t.Errorf("event %d: %+v", i, e)
		}
	}
	var methods []string
	for _, m := range s.Messages() {
		methods = append(methods, m.Dir+" "+m.Method)
	}
	got := strings.Join(methods, "\n")
	for _, want := range []string{FromHost + " initialize", FromHost + " initialized", FromHost + " agentSession/start", ToHost + " agentSession/event"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
}

// A business method before initialized is refused with CodeNotInitialized.
func TestABusinessMethodBeforeTheHandshakeIsRefused(t *testing.T) {
	c := connect(t, start(t))
	err := call(t, c, MethodSessionStart, map[string]any{}, nil)
	var e *jsonrpc2.Error
	if !asRPC(err, &e) || e.Code != CodeNotInitialized {
		t.Fatalf("got %v, want code %d", err, CodeNotInitialized)
	}
	if err := call(t, c, MethodInitialize, map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := call(t, c, MethodSessionStart, map[string]any{}, nil); !asRPC(err, &e) || e.Code != CodeNotInitialized {
		t.Fatalf("after initialize without initialized: %v", err)
	}
}

func asRPC(err error, e **jsonrpc2.Error) bool {
	x, ok := err.(*jsonrpc2.Error)
	*e = x
	return ok
}

// Each way of being unavailable: the client sees it fail, never an answer.
func TestUnavailableModes(t *testing.T) {
	for _, m := range []Mode{Refuse, Hang, Garbage} {
		t.Run(m.String(), func(t *testing.T) {
			s := start(t)
			s.SetMode(m)
			nc, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			c := dial(t, nc)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			var out json.RawMessage
			if err := c.conn.Call(ctx, MethodInitialize, map[string]any{}, &out); err == nil {
				t.Fatalf("initialize answered %s under %s", out, m)
			}
		})
	}
}

// DropMidTurn closes the connection after the first event of a turn.
func TestDropMidTurn(t *testing.T) {
	s := start(t)
	c := connect(t, s)
	handshake(t, c)
	var sess struct{ SessionID string }
	if err := call(t, c, MethodSessionStart, map[string]any{}, &sess); err != nil {
		t.Fatal(err)
	}
	s.SetMode(DropMidTurn)
	if err := call(t, c, MethodTurnStart, map[string]any{"sessionId": sess.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.conn.DisconnectNotify():
	case <-time.After(3 * time.Second):
		t.Fatal("the connection stayed open")
	}
	if n := len(c.got()); n != 1 {
		t.Errorf("%d events before the drop, want 1", n)
	}
}

// The relay carries JSON lines both ways between stdio and the server.
func TestRelayCarriesStdio(t *testing.T) {
	s := start(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := Relay(ctx, s.Addr(), in, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"serverInfo"`) {
		t.Fatalf("relayed answer %q", out.String())
	}
}

// A cancelled turn stops streaming and ends with result cancelled; a
// cancel of no running turn is refused.
func TestCancelEndsTheTurn(t *testing.T) {
	s := start(t)
	s.SetScript(LongTurn())
	c := connect(t, s)
	handshake(t, c)
	var sess struct{ SessionID string }
	if err := call(t, c, MethodSessionStart, map[string]any{}, &sess); err != nil {
		t.Fatal(err)
	}
	var turn struct{ TurnID string }
	if err := call(t, c, MethodTurnStart, map[string]any{"sessionId": sess.SessionID}, &turn); err != nil {
		t.Fatal(err)
	}
	time.Sleep(450 * time.Millisecond)
	if err := call(t, c, MethodTurnCancel, map[string]any{"sessionId": sess.SessionID, "turnId": turn.TurnID}, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	ev := c.got()
	if len(ev) == 0 || len(ev) > 5 || ev[len(ev)-1].Type != "result" || ev[len(ev)-1].Subtype != "cancelled" {
		t.Fatalf("events after cancel: %+v", ev)
	}
	if err := call(t, c, MethodTurnCancel, map[string]any{"turnId": turn.TurnID}, nil); err == nil {
		t.Error("a second cancel of the ended turn was accepted")
	}
}

// BenchmarkEventThroughput measures facts per second from the App Server
// to a client: one turn of b.N deltas with no pause.
func BenchmarkEventThroughput(b *testing.B) {
	s, err := Start(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sc := NewScript()
	sc.EventGap = 0
	sc.Turn = make([]Event, b.N)
	for i := range sc.Turn {
		sc.Turn[i] = Event{Type: "assistant:delta", Payload: map[string]any{"text": "x"}}
	}
	s.SetScript(sc)
	nc, err := net.Dial("tcp", s.Addr())
	if err != nil {
		b.Fatal(err)
	}
	c := &client{}
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(nc), c)
	defer c.conn.Close()
	ctx := context.Background()
	_ = c.conn.Call(ctx, MethodInitialize, map[string]any{}, nil)
	_ = c.conn.Notify(ctx, MethodInitialized, nil)
	var sess struct{ SessionID string }
	_ = c.conn.Call(ctx, MethodSessionStart, map[string]any{}, &sess)
	b.ResetTimer()
	_ = c.conn.Call(ctx, MethodTurnStart, map[string]any{"sessionId": sess.SessionID}, nil)
	for c.count() < b.N {
		time.Sleep(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// A browser's fetch or WebSocket handshake on the App Server's port is
// recorded as a stray request, and the host's JSON-RPC client beside it
// is served as before.
func TestAnHTTPRequestOnThePortIsAStray(t *testing.T) {
	s := start(t)
	c := connect(t, s)
	for _, req := range []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\n\r\n", "POST /rpc HTTP/1.1\r\n\r\n"} {
		nc, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(nc, req); err != nil {
			t.Fatal(err)
		}
		// The server closes the stray connection: reading ends.
		_ = nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := io.ReadAll(nc); err != nil {
			t.Fatalf("the server did not close the connection of %q: %v", req, err)
		}
		_ = nc.Close()
	}
	handshake(t, c)
	got := s.Strays()
	want := []string{"GET / HTTP/1.1", "GET /ws HTTP/1.1", "POST /rpc HTTP/1.1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("strays %q, want %q", got, want)
	}
	if n := len(s.Messages()); n < 2 {
		t.Fatalf("the host's handshake beside the strays was recorded as %d messages", n)
	}
	s.Reset()
	if got := s.Strays(); len(got) != 0 {
		t.Fatalf("after Reset the strays are %q", got)
	}
}
