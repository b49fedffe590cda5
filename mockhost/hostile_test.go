//go:build !mutation

package mockhost

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// rawConn is the harness end of a pipe whose other end a Host serves.
type rawConn struct {
	t    *testing.T
	c    net.Conn
	r    *bufio.Reader
	done chan error // receives Serve's result
	seq  int
}

func serveRaw(t *testing.T, faults ...string) *rawConn {
	t.Helper()
	fs, err := ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	h := New(fs)
	t.Cleanup(func() { _ = h.Close() })
	harness, host := net.Pipe()
	rc := &rawConn{t: t, c: harness, r: bufio.NewReader(harness), done: make(chan error, 1)}
	go func() { rc.done <- h.Serve(host) }()
	t.Cleanup(func() { _ = harness.Close() })
	return rc
}

// send writes one request frame.
func (rc *rawConn) send(method string, params any) {
	rc.t.Helper()
	rc.seq++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rc.seq, "method": method, "params": params})
	if _, err := fmt.Fprintf(rc.c, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		rc.t.Fatalf("sending %s: %v", method, err)
	}
}

// header reads one frame header and returns its Content-Length.
func (rc *rawConn) header() (int64, error) {
	n := int64(-1)
	for {
		line, err := rc.r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return n, nil
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.ParseInt(v, 10, 64); err != nil {
				return 0, err
			}
		}
	}
}

// frame reads one whole frame body.
func (rc *rawConn) frame() ([]byte, error) {
	n, err := rc.header()
	if err != nil {
		return nil, err
	}
	body := make([]byte, n)
	_, err = io.ReadFull(rc.r, body)
	return body, err
}

// closed waits for Serve to return after the connection went away.
func (rc *rawConn) served() {
	rc.t.Helper()
	select {
	case <-rc.done:
	case <-time.After(10 * time.Second):
		rc.t.Fatal("Serve did not return after the connection closed")
	}
}

func TestHangOnReadinessNeverAnswers(t *testing.T) {
	x := startWith(t, control.Options{CallTimeout: 200 * time.Millisecond}, "hang-on-readiness")
	_, err := x.readiness(protocol.ReadinessParams{Path: app(t, "")})
	var te *control.TransportError
	if !errors.As(err, &te) || te.Kind != control.KindTimeout {
		t.Fatalf("readiness under hang-on-readiness: %v, want a timeout", err)
	}
	_ = x.c.Close()
	select {
	case <-x.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve kept running after the connection closed")
	}
}

func TestCrashMidUninstallClosesTheConnection(t *testing.T) {
	x := start(t, "crash-mid-uninstall")
	if _, err := x.install(app(t, ""), nil, true); err != nil {
		t.Fatal(err)
	}
	err := x.call(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
	var te *control.TransportError
	if !errors.As(err, &te) || (te.Kind != control.KindClosed && te.Kind != control.KindMalformed) {
		t.Fatalf("uninstall under crash-mid-uninstall: %v, want the connection to die", err)
	}
	select {
	case <-x.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve kept running after the crash")
	}
}

func TestCrashWritesHalfAnAnswer(t *testing.T) {
	rc := serveRaw(t, "crash-mid-uninstall")
	rc.send(protocol.MethodInstall, protocol.InstallParams{Path: app(t, ""), Consent: protocol.Consent{Granted: true}})
	if _, err := rc.frame(); err != nil {
		t.Fatal(err)
	}
	rc.send(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"})
	n, err := rc.header()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc.r)
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		t.Fatal(err)
	}
	if int64(len(got)) >= n || len(got) == 0 {
		t.Fatalf("announced %d bytes and sent %d, want a strict half", n, len(got))
	}
	rc.served()
}

func TestGarbageOnListIsNotJSON(t *testing.T) {
	rc := serveRaw(t, "garbage-on-list")
	rc.send(protocol.MethodList, nil)
	body, err := rc.frame()
	if err != nil {
		t.Fatal(err)
	}
	if len(body) == 0 || json.Valid(body) {
		t.Fatalf("app/list body %q is JSON", body)
	}
	_ = rc.c.Close()
	rc.served()
}

func TestFloodOnProjectAnnouncesMoreThanTheLimit(t *testing.T) {
	rc := serveRaw(t, "flood-on-project")
	rc.send(protocol.MethodProject, protocol.PackageParams{Path: app(t, "")})
	n, err := rc.header()
	if err != nil {
		t.Fatal(err)
	}
	if n <= 16<<20 {
		t.Fatalf("flood announces %d bytes, want more than 16 MiB", n)
	}
	head := make([]byte, 64)
	if _, err := io.ReadFull(rc.r, head); err != nil || !strings.HasPrefix(string(head), `{"jsonrpc":"2.0"`) {
		t.Fatalf("flood starts with %q (%v)", head, err)
	}
	_ = rc.c.Close() // the peer gives up: the flood must stop and Serve return
	rc.served()
}

func TestHealthyHostAnswersBadFrames(t *testing.T) {
	rc := serveRaw(t)
	if _, err := fmt.Fprintf(rc.c, "Content-Length: 5\r\n\r\nnope!"); err != nil {
		t.Fatal(err)
	}
	body, err := rc.frame()
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		ID    any `json:"id"`
		Error struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.ID != nil || resp.Error.Code != protocol.CodeParseError {
		t.Fatalf("answer to a non-JSON frame: %s (%v)", body, err)
	}
	rc.send(protocol.MethodList, nil)
	if body, err = rc.frame(); err != nil || !strings.Contains(string(body), `"apps":[]`) {
		t.Fatalf("host stopped answering after a bad frame: %s (%v)", body, err)
	}
	_ = rc.c.Close()
	rc.served()
}

// TestHostileFaultsAreTested keeps this file in step with Faults().
func TestHostileFaultsAreTested(t *testing.T) {
	// host-page-spins and the forgers are tested with the other surface faults (surface_faults_test.go).
	tested := map[string]bool{"hang-on-readiness": true, "crash-mid-uninstall": true, "garbage-on-list": true, "flood-on-project": true, "host-page-spins": true,
		"forge-probe": true, "forge-probe-devtools": true, "leave-setsid-child": true} // leave-setsid-child: escape_unix_test.go
	for _, f := range Faults() {
		if f.Hostile != tested[f.Name] {
			t.Errorf("hostile fault %s has no test here (or a tested fault is not hostile)", f.Name)
		}
	}
}
