//go:build !mutation

package mockhost

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// surfaceExtra is the frontmatter of the tiny app the surface tests mount:
// it declares five capabilities app-wide, lime.agent for its tasks entry,
// two sites to link to, and a UI.
const surfaceExtra = "homepage: https://tiny.example.org/home\n" +
	"documentation: https://docs.tiny.example.org/guide\n" +
	"requires:\n  capabilities:\n    lime.ui: current\n    lime.storage: current\n" +
	"    lime.cloudSession: current\n    lime.secrets: current\n    lime.evidence: current\n" +
	"runtimePackage:\n  ui:\n    path: ./dist/ui\n    entry: index.html\n" +
	"entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n    requiredCapabilities: [lime.ui]\n" +
	"  - key: tasks\n    kind: page\n    title: Tasks\n    route: /tasks\n    requiredCapabilities: [lime.agent, lime.artifacts]\n"

const surfaceIndex = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Tiny</title></head><body>tiny ui</body></html>\n"

// surfaceApp writes the tiny app with a UI (and a file outside the UI).
func surfaceApp(t testing.TB, name string) string {
	t.Helper()
	return pkg(t, name, map[string]string{
		"APP.md":             strings.Replace(manifest(withDefaults(surfaceExtra)), "name: tiny-app", "name: "+name, 1),
		"dist/ui/index.html": surfaceIndex,
		"dist/ui/js/app.js":  "console.log('tiny');\n",
		"dist/ui/report.txt": "report\n",
		"outside.txt":        "outside the UI folder\n",
	})
}

// agentOff is a profile with lime.agent disabled: tasks cannot launch.
func agentOff() map[string]protocol.Capability {
	return map[string]protocol.Capability{"lime.agent": {Version: "0.10.0", Enabled: false}}
}

// surface is a launched entry seen from its host page.
type surface struct {
	t      testing.TB
	x      *harness
	dir    string // the package folder
	res    protocol.LaunchResult
	host   string // host origin
	token  string
	base   string // host origin + /surface/<token>
	page   string // host page HTML
	frame  string // the frame's src
	client *http.Client
}

// mount installs the tiny app (as name, from a fresh folder) and launches entry.
func (x *harness) mount(name, entry string) *surface {
	x.t.Helper()
	dir := surfaceApp(x.t, name)
	if _, err := x.install(dir, nil, true); err != nil {
		x.t.Fatalf("installing %s: %v", name, err)
	}
	s := x.launchEntry(name, entry)
	s.dir = dir
	return s
}

// launchEntry launches an installed app's entry and reads its host page.
func (x *harness) launchEntry(appID, entry string) *surface {
	x.t.Helper()
	s := &surface{t: x.t, x: x, client: &http.Client{Timeout: 10 * time.Second}}
	x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: appID, EntryKey: entry}, &s.res)
	u, err := url.Parse(s.res.URL)
	if err != nil {
		x.t.Fatalf("launch URL %q: %v", s.res.URL, err)
	}
	s.host = u.Scheme + "://" + u.Host
	s.token = u.Path[strings.LastIndex(u.Path, "/")+1:]
	s.base = s.res.URL
	status, body, _ := s.get(s.res.URL)
	if status != http.StatusOK {
		x.t.Fatalf("host page: %d %s", status, body)
	}
	s.page = body
	m := regexp.MustCompile(`id="app-frame"[^>]* src="([^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		x.t.Fatalf("host page has no app frame: %s", body)
	}
	s.frame = strings.ReplaceAll(m[1], "&amp;", "&")
	return s
}

// get fetches a URL and returns status, body and headers.
func (s *surface) get(u string) (int, string, http.Header) {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.do(req)
}

func (s *surface) do(req *http.Request) (int, string, http.Header) {
	s.t.Helper()
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp.StatusCode, string(b), resp.Header
}

// endpoint calls a bridge endpoint as origin (none when "") with the
// token (none when "").
func (s *surface) endpoint(method, path, origin, tok, body string) (int, string, http.Header) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if tok != "" {
		req.Header.Set(SurfaceTokenHeader, tok)
	}
	return s.do(req)
}

// answerSeen is a decoded page answer.
type answerSeen struct {
	Post   []hostbridge.Message `json:"post"`
	Toast  *toast               `json:"toast"`
	Reload string               `json:"reload"`
	Log    string               `json:"log"`
}

// sendRaw posts a raw message body as the host page does.
func (s *surface) sendRaw(body string) answerSeen {
	s.t.Helper()
	status, out, _ := s.endpoint(http.MethodPost, "/message", s.host, s.token, body)
	if status != http.StatusOK {
		s.t.Fatalf("POST message: %d %s", status, out)
	}
	var a answerSeen
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		s.t.Fatalf("page answer %s: %v", out, err)
	}
	return a
}

// send posts an envelope of the launched app with the given members.
func (s *surface) send(typ, rid string, payload any) answerSeen {
	s.t.Helper()
	return s.sendRaw(raw(s.envelope(typ, rid, payload)))
}

func (s *surface) envelope(typ, rid string, payload any) map[string]any {
	m := map[string]any{"protocol": hostbridge.Protocol, "version": 1, "type": typ, "appId": s.appID(), "entryKey": "main"}
	if rid != "" {
		m["requestId"] = rid
	}
	if payload != nil {
		m["payload"] = payload
	}
	return m
}

func (s *surface) appID() string {
	m := regexp.MustCompile(`data-app-id="([^"]+)"`).FindStringSubmatch(s.page)
	if m == nil {
		s.t.Fatal("host page names no app")
	}
	return m[1]
}

// invoke calls a capability and returns the single answer.
func (s *surface) invoke(rid, capability, method string, args any) hostbridge.Message {
	s.t.Helper()
	return s.only(s.send(hostbridge.TypeInvoke, rid, map[string]any{"capability": capability, "method": method, "args": args}))
}

// only is the single message of an answer.
func (s *surface) only(a answerSeen) hostbridge.Message {
	s.t.Helper()
	if len(a.Post) != 1 {
		s.t.Fatalf("want one message, got %s", raw(a))
	}
	return a.Post[0]
}

// observe asks host/observe about the surface's app.
func (s *surface) observe() protocol.ObserveResult {
	s.t.Helper()
	var r protocol.ObserveResult
	s.x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: s.appID()}, &r)
	return r
}

// events opens the surface's event stream; messages arrive on the channel,
// which is closed when the stream ends.
func (s *surface) events() <-chan hostbridge.Message {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.base+"/events", nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set(SurfaceTokenHeader, s.token)
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		s.t.Fatalf("GET events: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		s.t.Fatalf("GET events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s.t.Cleanup(func() { _ = resp.Body.Close() })
	ch := make(chan hostbridge.Message, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m hostbridge.Message
			if json.Unmarshal([]byte(data), &m) == nil {
				ch <- m
			}
		}
	}()
	return ch
}

// next waits for the next pushed message ("" type when none comes).
func next(ch <-chan hostbridge.Message, wait time.Duration) hostbridge.Message {
	select {
	case m := <-ch:
		return m
	case <-time.After(wait):
		return hostbridge.Message{}
	}
}

// payload decodes a message's payload.
func payload(t *testing.T, m hostbridge.Message) map[string]any {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(m.Payload, &p); err != nil {
		t.Fatalf("payload of %s: %v (%s)", m.Type, err, m.Payload)
	}
	return p
}

// hostErrorData is the raw data of a control error.
func hostErrorData(err error) (int64, string, string) {
	var he *control.HostError
	if errors.As(err, &he) {
		return he.Code, he.Message, string(he.Data)
	}
	return 0, "", ""
}

// linkOut adds dist/ui/<name> to a package, a link to a file outside the
// UI folder.
func linkOut(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.Symlink(filepath.Join("..", "..", "outside.txt"), filepath.Join(dir, "dist", "ui", name)); err != nil {
		t.Fatal(err)
	}
}
