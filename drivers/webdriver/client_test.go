package webdriver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeRemote is a WebDriver remote end that answers from a table and
// records what it was sent.
type fakeRemote struct {
	mu   sync.Mutex
	sent []string // "METHOD PATH BODY"
	// answers maps "METHOD PATH" to the HTTP status and body it answers.
	answers map[string]struct {
		status int
		body   string
	}
	hang chan struct{} // POST /session waits on it when set
}

func (f *fakeRemote) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.Path
	f.mu.Lock()
	f.sent = append(f.sent, key+" "+string(bytes.TrimSpace(body)))
	a, ok := f.answers[key]
	f.mu.Unlock()
	if key == "POST /session" && f.hang != nil {
		select {
		case <-f.hang:
		case <-r.Context().Done():
		}
		return
	}
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"value":{"error":"unknown command","message":"`+key+`"}}`)
		return
	}
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func (f *fakeRemote) answer(key string, status int, body string) {
	if f.answers == nil {
		f.answers = map[string]struct {
			status int
			body   string
		}{}
	}
	f.answers[key] = struct {
		status int
		body   string
	}{status, body}
}

func startFake(t *testing.T, f *fakeRemote) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return NewClient(srv.URL + "/")
}

func TestClientSendsTheW3CCommands(t *testing.T) {
	f := &fakeRemote{}
	f.answer("POST /session", 200, `{"value":{"sessionId":"s1","capabilities":{"browserName":"fake","browserVersion":"1.2"}}}`)
	f.answer("POST /session/s1/url", 200, `{"value":null}`)
	f.answer("POST /session/s1/execute/sync", 200, `{"value":{"n":3}}`)
	f.answer("POST /session/s1/execute/async", 200, `{"value":"later"}`)
	f.answer("POST /session/s1/frame", 200, `{"value":null}`)
	f.answer("POST /session/s1/frame/parent", 200, `{"value":null}`)
	f.answer("GET /session/s1/window/handles", 200, `{"value":["w1","w2"]}`)
	f.answer("GET /session/s1/screenshot", 200, `{"value":"iVBORw0KGgo="}`)
	f.answer("DELETE /session/s1", 200, `{"value":null}`)
	c := startFake(t, f)
	ctx := context.Background()

	s, err := c.NewSession(ctx, Capabilities{"browserName": "fake"})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID() != "s1" || s.Caps["browserVersion"] != "1.2" {
		t.Fatalf("session %q with capabilities %v, want s1 with browserVersion 1.2", s.ID(), s.Caps)
	}
	if err := s.Navigate(ctx, "http://127.0.0.1:1/x"); err != nil {
		t.Fatal(err)
	}
	var v struct{ N int }
	if err := s.ExecuteSync(ctx, "return {n: arguments[0]}", []any{3}, &v); err != nil || v.N != 3 {
		t.Fatalf("execute sync: %v, %+v", err, v)
	}
	var later string
	if err := s.ExecuteAsync(ctx, "arguments[0]('later')", nil, &later); err != nil || later != "later" {
		t.Fatalf("execute async: %v, %q", err, later)
	}
	if err := s.SwitchToFrame(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.SwitchToParent(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.SwitchToTop(ctx); err != nil {
		t.Fatal(err)
	}
	if hs, err := s.WindowHandles(ctx); err != nil || strings.Join(hs, ",") != "w1,w2" {
		t.Fatalf("window handles: %v, %v", err, hs)
	}
	if png, err := s.Screenshot(ctx); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v, %q", err, png)
	}
	if err := s.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`POST /session {"capabilities":{"alwaysMatch":{"browserName":"fake"}}}`,
		`POST /session/s1/url {"url":"http://127.0.0.1:1/x"}`,
		`POST /session/s1/execute/sync {"args":[3],"script":"return {n: arguments[0]}"}`,
		`POST /session/s1/execute/async {"args":[],"script":"arguments[0]('later')"}`,
		`POST /session/s1/frame {"id":1}`,
		`POST /session/s1/frame/parent {}`,
		`POST /session/s1/frame {"id":null}`,
		`GET /session/s1/window/handles `,
		`GET /session/s1/screenshot `,
		`DELETE /session/s1 `,
	}
	if got := strings.Join(f.sent, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("sent:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestClientDecodesTheRemoteEndsErrors(t *testing.T) {
	f := &fakeRemote{}
	f.answer("POST /session", 200, `{"value":{"sessionId":"s1","capabilities":{}}}`)
	f.answer("POST /session/s1/execute/sync", 500, `{"value":{"error":"javascript error","message":"boom","stacktrace":""}}`)
	f.answer("POST /session/s1/frame", 404, `{"value":{"error":"no such frame","message":"index 4"}}`)
	c := startFake(t, f)
	ctx := context.Background()
	s, err := c.NewSession(ctx, Capabilities{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.ExecuteSync(ctx, "throw 1", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeJavaScript || e.Message != "boom" || e.Status != 500 {
		t.Fatalf("execute: %v, want a javascript error 'boom' (HTTP 500)", err)
	}
	if err := s.SwitchToFrame(ctx, 4); !IsCode(err, CodeNoSuchFrame) {
		t.Fatalf("switch: %v, want no such frame", err)
	}
	if err := s.Navigate(ctx, "x"); !IsCode(err, "unknown command") {
		t.Fatalf("navigate to an unanswered path: %v, want unknown command", err)
	}
}

func TestClientBoundsASessionThatNeverStarts(t *testing.T) {
	f := &fakeRemote{hang: make(chan struct{})}
	defer close(f.hang)
	c := startFake(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := c.NewSession(ctx, Capabilities{})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "has it a display?") {
		t.Fatalf("a remote end that never answers: %v, want a deadline naming the likely cause", err)
	}
}

func TestClientRefusesWhatIsNoWebDriverAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "<html>not a driver</html>")
	}))
	defer srv.Close()
	_, err := NewClient(srv.URL).Status(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a WebDriver answer") {
		t.Fatalf("status from a web server: %v, want 'not a WebDriver answer'", err)
	}
}
