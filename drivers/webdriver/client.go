package webdriver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client speaks W3C WebDriver (classic, https://www.w3.org/TR/webdriver2/)
// to one remote end: chromedriver, WebKitWebDriver or tauri-driver. Every
// call is bounded by its context and, when the context has no deadline,
// by CallTimeout: a remote end that never answers (WebKitWebDriver
// without a display hangs on New Session) fails the call, naming it.
type Client struct {
	base string
	http *http.Client
}

// CallTimeout bounds a call whose context has no deadline.
const CallTimeout = 30 * time.Second

// maxAnswer caps an answer's body: a screenshot or a probe report.
const maxAnswer = 64 << 20

// NewClient returns a client of the remote end at base
// ("http://127.0.0.1:4444"; a trailing slash is dropped).
func NewClient(base string) *Client {
	return &Client{base: strings.TrimSuffix(base, "/"), http: &http.Client{}}
}

// URL is the remote end's address.
func (c *Client) URL() string { return c.base }

// Error is an error the remote end answered (§6.6 Errors): its HTTP
// status, error code ("no such frame", "javascript error", ...) and
// message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("webdriver: %s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// Error codes the client tells apart (§6.6).
const (
	CodeNoSuchFrame   = "no such frame"
	CodeJavaScript    = "javascript error"
	CodeScriptTimeout = "script timeout"
	CodeNoSuchWindow  = "no such window"
	CodeInvalidArg    = "invalid argument"
	CodeUnexpectedAlt = "unexpected alert open"
	// CodeSessionNotCreated is what a remote end that serves one session
	// at a time answers a second one.
	CodeSessionNotCreated = "session not created"
)

// IsCode reports whether err is a remote end's error with code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// do sends one command and decodes the answer's value into out (nil
// drops it).
func (c *Client) do(ctx context.Context, method, path string, body any, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, CallTimeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("webdriver: %s %s: encoding the parameters: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("webdriver: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("webdriver: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("webdriver: %s %s: reading the answer: %w", method, path, err)
	}
	if len(raw) > maxAnswer {
		return fmt.Errorf("webdriver: %s %s: the answer is more than %d bytes", method, path, maxAnswer)
	}
	var env struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("webdriver: %s %s: HTTP %d, not a WebDriver answer: %.200q", method, path, res.StatusCode, raw)
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(env.Value, &e)
		if e.Error == "" {
			e.Error = "unknown error"
		}
		return fmt.Errorf("webdriver: %s %s: %w", method, path, &Error{Status: res.StatusCode, Code: e.Error, Message: e.Message})
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(env.Value, out); err != nil {
		return fmt.Errorf("webdriver: %s %s: decoding %.200s: %w", method, path, env.Value, err)
	}
	return nil
}

// Status is the remote end's readiness (§8.3 Status).
type Status struct {
	Ready   bool   `json:"ready"`
	Message string `json:"message"`
}

// Status asks whether the remote end can create a session.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.do(ctx, http.MethodGet, "/status", nil, &s)
	return s, err
}

// Capabilities are what a new session asks for or was given: W3C names
// (browserName, ...) and vendor extensions (goog:chromeOptions,
// webkitgtk:browserOptions).
type Capabilities map[string]any

// Session is one WebDriver session. Its methods talk to the current
// browsing context the remote end keeps (SwitchFrame moves it); use it
// from one goroutine at a time.
type Session struct {
	c  *Client
	id string
	// Caps are the capabilities the remote end gave the session.
	Caps Capabilities
}

// NewSession asks for a session matching caps (§8.1, alwaysMatch).
func (c *Client) NewSession(ctx context.Context, caps Capabilities) (*Session, error) {
	var v struct {
		SessionID    string       `json:"sessionId"`
		Capabilities Capabilities `json:"capabilities"`
	}
	body := map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}}
	if err := c.do(ctx, http.MethodPost, "/session", body, &v); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (the remote end did not start a session in time: has it a display?)", err)
		}
		return nil, err
	}
	if v.SessionID == "" {
		return nil, errors.New("webdriver: POST /session: the answer has no sessionId")
	}
	return &Session{c: c, id: v.SessionID, Caps: v.Capabilities}, nil
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

func (s *Session) do(ctx context.Context, method, path string, body, out any) error {
	return s.c.do(ctx, method, "/session/"+s.id+path, body, out)
}

// Timeouts sets the session's script, page load and implicit wait
// timeouts (§9.3); a zero duration leaves that one as it is.
func (s *Session) Timeouts(ctx context.Context, script, pageLoad time.Duration) error {
	t := map[string]any{}
	if script > 0 {
		t["script"] = script.Milliseconds()
	}
	if pageLoad > 0 {
		t["pageLoad"] = pageLoad.Milliseconds()
	}
	return s.do(ctx, http.MethodPost, "/timeouts", t, nil)
}

// Navigate loads url in the top-level browsing context and waits for it
// as the session's page load strategy says (§10.1).
func (s *Session) Navigate(ctx context.Context, url string) error {
	return s.do(ctx, http.MethodPost, "/url", map[string]string{"url": url}, nil)
}

// CurrentURL is the top-level browsing context's address (§10.2).
func (s *Session) CurrentURL(ctx context.Context) (string, error) {
	var u string
	err := s.do(ctx, http.MethodGet, "/url", nil, &u)
	return u, err
}

// ExecuteSync runs script as the body of a function with args (§13.2.1)
// in the current browsing context and decodes what it returns into out.
func (s *Session) ExecuteSync(ctx context.Context, script string, args []any, out any) error {
	return s.execute(ctx, "/execute/sync", script, args, out)
}

// ExecuteAsync runs script as ExecuteSync does with a callback as its
// last argument, and decodes the value it is called with (§13.2.2).
func (s *Session) ExecuteAsync(ctx context.Context, script string, args []any, out any) error {
	return s.execute(ctx, "/execute/async", script, args, out)
}

func (s *Session) execute(ctx context.Context, path, script string, args []any, out any) error {
	if args == nil {
		args = []any{}
	}
	return s.do(ctx, http.MethodPost, path, map[string]any{"script": script, "args": args}, out)
}

// SwitchToTop makes the top-level browsing context current (§11.7, id null).
func (s *Session) SwitchToTop(ctx context.Context) error {
	return s.do(ctx, http.MethodPost, "/frame", map[string]any{"id": nil}, nil)
}

// SwitchToFrame makes the index-th child browsing context of the current
// one current (§11.7, id a number).
func (s *Session) SwitchToFrame(ctx context.Context, index int) error {
	return s.do(ctx, http.MethodPost, "/frame", map[string]any{"id": index}, nil)
}

// SwitchToParent makes the current context's parent current (§11.8).
func (s *Session) SwitchToParent(ctx context.Context) error {
	return s.do(ctx, http.MethodPost, "/frame/parent", map[string]any{}, nil)
}

// WindowHandles lists the session's top-level browsing contexts (§11.4).
func (s *Session) WindowHandles(ctx context.Context) ([]string, error) {
	var hs []string
	err := s.do(ctx, http.MethodGet, "/window/handles", nil, &hs)
	return hs, err
}

// WindowHandle is the current top-level browsing context (§11.1).
func (s *Session) WindowHandle(ctx context.Context) (string, error) {
	var h string
	err := s.do(ctx, http.MethodGet, "/window", nil, &h)
	return h, err
}

// SwitchToWindow makes the top-level browsing context handle current
// (§11.3).
func (s *Session) SwitchToWindow(ctx context.Context, handle string) error {
	return s.do(ctx, http.MethodPost, "/window", map[string]string{"handle": handle}, nil)
}

// NewWindow opens a top-level browsing context in the session, a tab
// where the browser has them (§11.5), and returns its handle; the current
// one stays current.
func (s *Session) NewWindow(ctx context.Context) (string, error) {
	var v struct {
		Handle string `json:"handle"`
	}
	if err := s.do(ctx, http.MethodPost, "/window/new", map[string]string{"type": "tab"}, &v); err != nil {
		return "", err
	}
	if v.Handle == "" {
		return "", errors.New("webdriver: POST /window/new: the answer has no handle")
	}
	return v.Handle, nil
}

// CloseWindow closes the current top-level browsing context (§11.2).
func (s *Session) CloseWindow(ctx context.Context) error {
	return s.do(ctx, http.MethodDelete, "/window", nil, nil)
}

// Screenshot returns a PNG of the top-level browsing context's viewport
// (§17.1).
func (s *Session) Screenshot(ctx context.Context) ([]byte, error) {
	var b64 string
	if err := s.do(ctx, http.MethodGet, "/screenshot", nil, &b64); err != nil {
		return nil, err
	}
	png, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("webdriver: the screenshot is not base64: %w", err)
	}
	return png, nil
}

// Delete ends the session and closes its windows (§8.2).
func (s *Session) Delete(ctx context.Context) error {
	return s.do(ctx, http.MethodDelete, "", nil, nil)
}
