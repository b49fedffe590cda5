package control

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

// fast keeps hanging-host tests short.
var fast = Options{CallTimeout: 300 * time.Millisecond}

type transportCase struct {
	name    string
	connect func(behaviour string) Connector
}

func transports() []transportCase { return transportsWith(fast) }

// patient is for tests that need every answer the test host gives, even on
// a loaded machine, and wait out no silence.
var patient = Options{CallTimeout: 10 * time.Second}

func transportsWith(o Options) []transportCase {
	return []transportCase{
		{"pipe", func(b string) Connector { return PipeConnector(pipeHost(b), o) }},
		{"stdio", func(b string) Connector { return StdioConnector(stdioCmd(b), io.Discard, o) }},
	}
}

func mustConnect(t testing.TB, c Connector, tr *Transcript) *Client {
	t.Helper()
	cl, err := c.Connect(context.Background(), tr)
	if err != nil {
		t.Fatalf("Connect(%s): %v", c.Describe(), err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

func TestHappyPath(t *testing.T) {
	for _, tc := range append(transports(), transportCase{"jsonrpc2-host", func(string) Connector {
		return PipeConnector(jsonrpc2Host, fast)
	}}) {
		t.Run(tc.name, func(t *testing.T) {
			cl := mustConnect(t, tc.connect("ok"), nil)
			if err := cl.HelloErr(); err != nil {
				t.Fatalf("HelloErr: %v", err)
			}
			h := cl.Hello()
			if h.Host.Name != "test-host" || h.Host.Kind != "reference" || h.ProtocolVersion != "1" || !h.Capabilities["storage"].Enabled {
				t.Errorf("hello decoded as %+v", h)
			}
			if !json.Valid(cl.HelloRaw()) || !strings.Contains(string(cl.HelloRaw()), `"test-host"`) {
				t.Errorf("HelloRaw = %s", cl.HelloRaw())
			}
			var list protocol.ListResult
			for range 3 {
				if err := cl.Call(context.Background(), protocol.MethodList, nil, &list); err != nil {
					t.Fatalf("app/list: %v", err)
				}
			}
			if list.Apps == nil || list.Retained == nil {
				t.Errorf("app/list decoded as %+v", list)
			}
			if !cl.Alive() {
				t.Error("client dead after good calls")
			}
			if err := cl.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if cl.Alive() {
				t.Error("client alive after Close")
			}
			var te *TransportError
			if err := cl.Call(context.Background(), protocol.MethodList, nil, nil); !errors.As(err, &te) || te.Kind != KindClosed ||
				!strings.Contains(err.Error(), "cannot call app/list: the client is closed") {
				t.Errorf("Call after Close = %v", err)
			}
		})
	}
}

func TestFailures(t *testing.T) {
	cases := []struct {
		behaviour, method string
		params            any
		kind              string
		msg               map[string]string // by transport; "" key for both
		alive             bool
	}{
		{"hang-on-list", protocol.MethodList, nil, KindTimeout,
			map[string]string{"": "host did not answer app/list within 300ms"}, false},
		{"garbage-on-list", protocol.MethodList, nil, KindMalformed,
			map[string]string{"": "answer to app/list is not JSON: invalid character 'x' looking for beginning of value"}, false},
		{"unframed-on-list", protocol.MethodList, nil, KindMalformed,
			map[string]string{"": `the host wrote "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"apps\":[],\"retained\":[]}}" where the answer to app/list was due: that is not a Content-Length frame`}, false},
		{"long-header", protocol.MethodList, nil, KindMalformed,
			map[string]string{"": "answer to app/list is not a Content-Length frame: a header line is longer than"}, false},
		{"flood-on-project", protocol.MethodProject, protocol.PackageParams{Path: "/tmp/p"}, KindOversize,
			map[string]string{"": "host sent a 104857600-byte frame for package/project; the limit is 16777216"}, false},
		{"crash-on-uninstall", protocol.MethodUninstall, protocol.UninstallParams{AppID: "a"}, KindClosed,
			map[string]string{
				"pipe":  "in-process host stopped serving while answering app/uninstall (after 17 of 200 bytes of a frame)",
				"stdio": "host process exited with status 3 while answering app/uninstall (after 17 of 200 bytes of a frame)"}, false},
		{"ok", protocol.MethodReadiness, protocol.ReadinessParams{AppID: "a"}, KindSchema,
			map[string]string{"": "answer to app/readiness does not match its schema: /status: value must be one of 'ready', "}, true},
	}
	for _, tc := range transports() {
		for _, c := range cases {
			t.Run(tc.name+"/"+c.behaviour, func(t *testing.T) {
				cl := mustConnect(t, tc.connect(c.behaviour), nil)
				err := cl.Call(context.Background(), c.method, c.params, nil)
				var te *TransportError
				if !errors.As(err, &te) {
					t.Fatalf("Call(%s) = %v, want a TransportError", c.method, err)
				}
				want := c.msg[tc.name]
				if want == "" {
					want = c.msg[""]
				}
				if te.Kind != c.kind || te.Method != c.method || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("Call(%s) = kind %q method %q\n  %v\nwant kind %q\n  %s...", c.method, te.Kind, te.Method, err, c.kind, want)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("message spans lines: %q", err)
				}
				if cl.Alive() != c.alive {
					t.Errorf("Alive() = %v after %s error, want %v", cl.Alive(), c.kind, c.alive)
				}
				next := cl.Call(context.Background(), protocol.MethodReset, nil, nil)
				if c.alive && next != nil {
					t.Errorf("call after a %s error: %v", c.kind, next)
				}
				if !c.alive && (!errors.As(next, &te) || te.Kind != KindClosed ||
					!strings.HasPrefix(next.Error(), "cannot call host/reset: the connection died earlier (")) {
					t.Errorf("call on a dead client = %v", next)
				}
			})
		}
	}
}

func TestHostError(t *testing.T) {
	cl := mustConnect(t, PipeConnector(pipeHost("ok"), fast), nil)
	err := cl.Call(context.Background(), protocol.MethodInstall, protocol.InstallParams{Path: "/tmp/p"}, nil)
	var he *HostError
	if !errors.As(err, &he) {
		t.Fatalf("Call = %v, want a HostError", err)
	}
	var data protocol.ErrorData
	if he.Code != protocol.CodeConsentRequired || he.Method != protocol.MethodInstall ||
		json.Unmarshal(he.Data, &data) != nil || len(data.Findings) != 1 || data.Findings[0].Field != "consent" {
		t.Errorf("HostError = %+v (data %s)", he, he.Data)
	}
	if want := "host answered app/install with error -32003 (consent required): install needs consent"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	err = cl.Call(context.Background(), "app/launch", nil, nil)
	if !errors.As(err, &he) || he.Code != protocol.CodeMethodNotFound {
		t.Errorf("reserved method: %v", err)
	}
	if !cl.Alive() {
		t.Error("a host error killed the client")
	}
}

func TestHelloProblemsStillConnect(t *testing.T) {
	for _, tc := range transports() {
		t.Run(tc.name, func(t *testing.T) {
			cl := mustConnect(t, tc.connect("bad-hello"), nil)
			var te *TransportError
			if err := cl.HelloErr(); !errors.As(err, &te) || te.Kind != KindSchema ||
				!strings.HasPrefix(err.Error(), "answer to conformance/hello does not match its schema: /host/kind: value must be one of") {
				t.Errorf("HelloErr = %v", err)
			}
			var se *protocol.SchemaError
			if !errors.As(cl.HelloErr(), &se) || se.Pointer != "/host/kind" {
				t.Errorf("HelloErr does not wrap the SchemaError: %#v", cl.HelloErr())
			}
			if cl.Hello().Host.Kind != "toaster" || cl.Hello().ProtocolVersion != "0" {
				t.Errorf("bad hello not kept: %+v", cl.Hello())
			}
			if err := cl.Call(context.Background(), protocol.MethodReset, nil, nil); err != nil {
				t.Errorf("call after a bad hello: %v", err)
			}

			cl = mustConnect(t, tc.connect("error-hello"), nil)
			var he *HostError
			if !errors.As(cl.HelloErr(), &he) || he.Code != protocol.CodeInternalError || he.Method != protocol.MethodHello {
				t.Errorf("HelloErr = %v", cl.HelloErr())
			}
		})
	}
}

func TestConnectFailures(t *testing.T) {
	ctx := context.Background()
	_, err := StdioConnector("echo starting >&2; exit 7", io.Discard, fast).Connect(ctx, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindClosed ||
		!strings.HasPrefix(err.Error(), `host process exited with status 7 (its last line on stderr: "starting") while answering conformance/hello`) {
		t.Errorf("exiting host: %v", err)
	}
	_, err = StdioConnector("exec sleep 30", io.Discard, fast).Connect(ctx, nil)
	if !errors.As(err, &te) || te.Kind != KindTimeout || err.Error() != "host did not answer conformance/hello within 300ms" {
		t.Errorf("silent host: %v", err)
	}
	// A host still starting past the per-call timeout: only a start
	// timeout lets it answer conformance/hello.
	_, err = StdioConnector(stdioCmd("slow-start"), io.Discard, fast).Connect(ctx, nil)
	if !errors.As(err, &te) || te.Kind != KindTimeout {
		t.Errorf("slow host, no start timeout: %v", err)
	}
	starting := fast
	starting.StartTimeout = 10 * time.Second
	cl, err := StdioConnector(stdioCmd("slow-start"), io.Discard, starting).Connect(ctx, nil)
	if err != nil || cl.HelloErr() != nil {
		t.Errorf("slow host given a start timeout: %v %v", err, cl.HelloErr())
	} else {
		_ = cl.Close()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = TCPConnector(addr, fast).Connect(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "connecting to host at "+addr) {
		t.Errorf("closed port: %v", err)
	}
}

// A host that a WebDriver session starts listens a moment after the run
// begins: with DialWait the connector dials again until it does; without,
// a refused dial fails at once.
func TestTCPDialWaitsForAHostStillStarting(t *testing.T) {
	// A free port may be taken by another process in the 300 ms it stays
	// closed: then the attempt proves nothing, and another port is tried.
	for range 3 {
		if dialWaitsOnAFreePort(t) {
			return
		}
	}
	t.Fatal("three free ports in a row were taken while closed: the test could not run")
}

// dialWaitsOnAFreePort runs TestTCPDialWaitsForAHostStillStarting on one
// free port, and reports false when another process took the port first.
func dialWaitsOnAFreePort(t *testing.T) bool {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx := context.Background()
	if _, err := TCPConnector(addr, fast).Connect(ctx, nil); err == nil {
		t.Fatal("connected to a closed port")
	}
	late := make(chan net.Listener, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			late <- nil
			return
		}
		late <- ln
		serveTestHosts(ln, "")
	}()
	o := fast
	o.DialWait = 10 * time.Second
	cl, err := TCPConnector(addr, o).Connect(ctx, nil)
	ln = <-late
	if ln == nil {
		return false
	}
	defer ln.Close()
	if err != nil {
		t.Fatalf("a host listening 300 ms late, DialWait 10s: %v", err)
	}
	if err := cl.Call(ctx, protocol.MethodList, nil, nil); err != nil {
		t.Fatalf("app/list: %v", err)
	}
	return true
}

// serveTestHosts serves the test host, with fault, on each connection ln
// accepts, until ln closes.
func serveTestHosts(ln net.Listener, fault string) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			serveTestHost(conn, conn, fault, func(int) {})
		}()
	}
}

func TestTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go serveTestHosts(ln, "crash-on-uninstall")
	c := TCPConnector(ln.Addr().String(), fast)
	if c.Transport() != "tcp" || !strings.Contains(c.Describe(), ln.Addr().String()) {
		t.Errorf("Transport %q Describe %q", c.Transport(), c.Describe())
	}
	cl := mustConnect(t, c, nil)
	if err := cl.Call(context.Background(), protocol.MethodList, nil, nil); err != nil {
		t.Fatalf("app/list over TCP: %v", err)
	}
	err = cl.Call(context.Background(), protocol.MethodUninstall, protocol.UninstallParams{AppID: "a"}, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindClosed ||
		!strings.HasPrefix(err.Error(), "host closed the connection while answering app/uninstall (after 17 of 200 bytes") {
		t.Errorf("crash over TCP: %v", err)
	}
}

func TestContextDeadlineAndCancel(t *testing.T) {
	c := PipeConnector(pipeHost("hang-on-list"), Options{CallTimeout: time.Minute})
	cl := mustConnect(t, c, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := cl.Call(ctx, protocol.MethodList, nil, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindTimeout || !strings.HasPrefix(err.Error(), "host did not answer app/list within ") ||
		strings.Contains(err.Error(), "1m0s") {
		t.Errorf("deadline: %v", err)
	}

	cl = mustConnect(t, c, nil)
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	err = cl.Call(ctx, protocol.MethodList, nil, nil)
	if !errors.As(err, &te) || te.Kind != KindClosed || !errors.Is(err, context.Canceled) ||
		err.Error() != "the harness cancelled app/list before the host answered" || cl.Alive() {
		t.Errorf("cancel: %v (alive %v)", err, cl.Alive())
	}
}

// A host that stops reading must not block the harness in its write.
func TestStuckWriteTimesOut(t *testing.T) {
	cl := mustConnect(t, StdioConnector(stdioCmd("stop-reading"), io.Discard, fast), nil)
	big := map[string]string{"blob": strings.Repeat("z", 1<<20)}
	err := cl.Call(context.Background(), "test/echo", big, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindTimeout {
		t.Errorf("Call to a host that stopped reading = %v", err)
	}
}

func TestHostDiesWhileIdle(t *testing.T) {
	cl := mustConnect(t, StdioConnector(stdioCmd("crash-after-hello"), io.Discard, fast), nil)
	err := cl.Call(context.Background(), protocol.MethodList, nil, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindClosed || !strings.Contains(err.Error(), "host process exited with status 5") ||
		!strings.Contains(err.Error(), "app/list") {
		t.Errorf("call after the host died: %v", err)
	}
}

func TestHostRequestsAreRefused(t *testing.T) {
	cl := mustConnect(t, PipeConnector(jsonrpc2Host, fast), nil)
	var out map[string]string
	if err := cl.Call(context.Background(), "test/ask-harness", nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out["harnessSaid"], "-32601") {
		t.Errorf("harness answered a host request with %q", out["harnessSaid"])
	}
}

func TestConcurrentCalls(t *testing.T) {
	cl := mustConnect(t, PipeConnector(jsonrpc2Host, fast), nil)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			var l protocol.ListResult
			errs <- cl.Call(context.Background(), protocol.MethodList, nil, &l)
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestDecodeMismatchIsSchemaKind(t *testing.T) {
	cl := mustConnect(t, PipeConnector(pipeHost("ok"), fast), nil)
	var wrong []int
	err := cl.Call(context.Background(), protocol.MethodList, nil, &wrong)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindSchema || !strings.HasPrefix(err.Error(), "answer to app/list cannot be decoded") || !cl.Alive() {
		t.Errorf("decode mismatch: %v", err)
	}
	if err := cl.Call(context.Background(), "x", func() {}, nil); err == nil || !strings.Contains(err.Error(), "encoding params of x") {
		t.Errorf("unencodable params: %v", err)
	}
}

func TestDefaultOptions(t *testing.T) {
	o := DefaultOptions()
	if o.CallTimeout != 5*time.Second || o.MaxFrameBytes != 16<<20 || o.HarnessVersion == "" {
		t.Errorf("DefaultOptions = %+v", o)
	}
	r := resolveOptions([]Options{{CallTimeout: time.Second}})
	if r.CallTimeout != time.Second || r.MaxFrameBytes != 16<<20 {
		t.Errorf("resolveOptions = %+v", r)
	}
}

// A schema violation where the check does not read leaves the answer
// usable to it: it is decoded, and the violation is handed back; where the
// check reads, it is a KindSchema error naming only what is read.
func TestCallReadingJudgesOnlyWhatIsRead(t *testing.T) {
	cl := mustConnect(t, PipeConnector(pipeHost("ok"), fast), nil)
	// The test host answers readiness with status "ok", outside the schema.
	var checksOnly struct {
		OK     bool                      `json:"ok"`
		Checks []protocol.ReadinessCheck `json:"checks"`
	}
	unread, err := cl.CallReading(context.Background(), protocol.MethodReadiness, protocol.ReadinessParams{AppID: "a"}, &checksOnly, nil)
	if err != nil || !checksOnly.OK || len(unread) != 1 || unread[0].Pointer != "/status" {
		t.Errorf("a check not reading status: err %v, decoded %+v, unread %v", err, checksOnly, unread)
	}
	var full protocol.ReadinessResult
	unread, err = cl.CallReading(context.Background(), protocol.MethodReadiness, protocol.ReadinessParams{AppID: "a"}, &full, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Kind != KindSchema || !strings.HasPrefix(err.Error(), "answer to app/readiness does not match its schema: /status: ") || len(unread) != 0 {
		t.Errorf("a check reading status: err %v, unread %v", err, unread)
	}
	var raw json.RawMessage
	if _, err := cl.CallReading(context.Background(), protocol.MethodReadiness, protocol.ReadinessParams{AppID: "a"}, &raw, protocol.Reads{"/checks"}); err != nil || !strings.Contains(string(raw), `"status":"ok"`) {
		t.Errorf("a raw answer read at /checks: err %v, raw %s", err, raw)
	}
}
