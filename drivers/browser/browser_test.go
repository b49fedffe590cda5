package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// shared is the one browser most tests use; TestMain closes it.
var shared struct {
	once sync.Once
	b    *Browser
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.b != nil {
		if err := shared.b.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "closing the shared browser:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// skipWithoutBrowser skips when err says there is no browser (failing
// instead under CI=true, where one must be installed).
func skipWithoutBrowser(tb testing.TB, err error) {
	tb.Helper()
	if errors.Is(err, ErrNoBrowser) {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true but %v (run `make chromium`)", err)
		}
		tb.Skip(err)
	}
}

// launch starts a browser of the test's own, closed at the end.
func launch(tb testing.TB) *Browser {
	tb.Helper()
	if testing.Short() {
		tb.Skip("-short: starts a browser (make test-quick leaves browsers out)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := LaunchChromium(ctx, Options{})
	skipWithoutBrowser(tb, err)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = b.Close() })
	return b
}

// sharedBrowser returns the browser the tests share.
func sharedBrowser(tb testing.TB) *Browser {
	tb.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		shared.b, shared.err = LaunchChromium(ctx, Options{})
	})
	skipWithoutBrowser(tb, shared.err)
	if shared.err != nil {
		tb.Fatal(shared.err)
	}
	return shared.b
}

// session opens a session on b, closed at the end of the test.
func session(tb testing.TB, b *Browser) *Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := b.NewSession(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// serve serves h on loopback and returns its origin under the name host
// ("127.0.0.1" or "localhost": two sites, so a frame of one in a page of
// the other is cross-site).
func serve(tb testing.TB, host string, h http.HandlerFunc) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = ln
	srv.Start()
	tb.Cleanup(srv.Close)
	return fmt.Sprintf("http://%s:%d", host, ln.Addr().(*net.TCPAddr).Port)
}

// html serves fixed pages by path.
func html(pages map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, p)
	}
}

// within is a context for one call of the test.
func within(tb testing.TB, d time.Duration) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

// appSite serves the app: /app writes a console line, mounts a same-site
// child frame, fakes the DOM functions in its main world, and writes the
// probe blob after a short while.
func appSite(tb testing.TB) string {
	return serve(tb, "localhost", html(map[string]string{
		"/app": `<!doctype html><title>app</title><body>
<iframe src="/inner"></iframe>
<script>
window.appValue = 42;
console.log("app says", "hello");
const real = document.getElementById.bind(document);
setTimeout(() => {
	const el = document.createElement("pre");
	el.id = "probe-result";
	el.textContent = JSON.stringify({ok: true, origin: String(self.origin), n: 3});
	el.setAttribute("data-done", "");
	document.body.append(el);
	// A page can replace its own DOM functions; the reader must not care.
	document.getElementById = () => ({textContent: '{"ok":false}', hasAttribute: () => true});
}, 150);
</script>`,
		"/inner": `<!doctype html><title>inner</title><script>window.inner = "yes"</script>`,
	}))
}

// hostSite serves /host, which mounts app in a sandboxed frame.
func hostSite(tb testing.TB, app string) string {
	return serve(tb, "127.0.0.1", html(map[string]string{
		"/host": fmt.Sprintf(`<!doctype html><title>host</title><body>
<h1>host</h1><iframe sandbox="allow-scripts" src="%s/app"></iframe>`, app),
	}))
}

// A host page on 127.0.0.1 mounts the app from localhost in a sandboxed
// frame: with site isolation it runs in its own process (an "iframe"
// target). The session sees it and its same-site child in Frames, runs
// scripts in each, reads the probe blob from it although the page faked
// its DOM functions, and hears its console.
func TestCrossSiteFrame(t *testing.T) {
	b := sharedBrowser(t)
	app := appSite(t)
	host := hostSite(t, app)
	s := session(t, b)
	if err := s.Open(within(t, 5*time.Second), host+"/host"); err != nil {
		t.Fatal(err)
	}

	var got struct {
		OK     bool   `json:"ok"`
		Origin string `json:"origin"`
		N      int    `json:"n"`
	}
	if err := s.AwaitResult(within(t, 5*time.Second), app+"/app", &got); err != nil {
		t.Fatal(err)
	}
	if !got.OK || got.N != 3 || got.Origin != "null" {
		t.Errorf("probe result %+v, want ok, n 3 and the opaque origin of a sandboxed frame", got)
	}
	var faked string
	if err := s.Eval(within(t, 2*time.Second), app+"/app", `document.getElementById("probe-result").textContent`, &faked); err != nil {
		t.Fatal(err)
	}
	if faked != `{"ok":false}` {
		t.Errorf("the main world reads %q: the page's fake did not take, so the test proves nothing", faked)
	}

	frames, err := s.Frames(within(t, 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 3 {
		t.Fatalf("frames %+v, want host, app and inner", frames)
	}
	top, appF, inner := frames[0], frames[1], frames[2]
	if top.URL != host+"/host" || top.ParentID != "" || top.OOPIF {
		t.Errorf("top frame %+v", top)
	}
	if appF.URL != app+"/app" || appF.ParentID != top.ID || !appF.OOPIF {
		t.Errorf("app frame %+v, want a cross-site OOPIF under %s", appF, top.ID)
	}
	if inner.URL != app+"/inner" || inner.ParentID != appF.ID || !inner.OOPIF {
		t.Errorf("inner frame %+v, want a child of the app frame in its process", inner)
	}

	for _, c := range []struct {
		prefix, script string
		want           any
	}{
		{"", "document.title", "host"},
		{host, "document.title", "host"},
		{app + "/app", "window.appValue", float64(42)},
		{app + "/inner", "window.inner", "yes"},
		{app, "document.title", "app"}, // the first frame in tree order
		{app + "/app", "new Promise(r => setTimeout(() => r(7), 30))", float64(7)},
	} {
		var v any
		if err := s.Eval(within(t, 2*time.Second), c.prefix, c.script, &v); err != nil {
			t.Errorf("Eval(%q, %q): %v", c.prefix, c.script, err)
		} else if v != c.want {
			t.Errorf("Eval(%q, %q) = %v, want %v", c.prefix, c.script, v, c.want)
		}
	}
	if err := s.Eval(within(t, 2*time.Second), app+"/app", `(() => { throw new Error("boom") })()`, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("a throwing script gave %v, want an error with the exception", err)
	}
	start := time.Now()
	err = s.Eval(within(t, 300*time.Millisecond), "http://nowhere.invalid/", "1", nil)
	if err == nil || !strings.Contains(err.Error(), "no frame's URL starts with") || time.Since(start) > time.Second {
		t.Errorf("Eval in a missing frame: %v after %v, want a clear error at the deadline", err, time.Since(start))
	}

	found := false
	for _, l := range s.Console() {
		if l.Level == "log" && l.Text == "app says hello" && l.FrameURL == app+"/app" {
			found = true
		}
	}
	if !found {
		t.Errorf("console %+v lacks the app frame's line", s.Console())
	}
	png, err := s.Screenshot(within(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("the screenshot is not a PNG (%d bytes)", len(png))
	}
}

// A world Install puts in a cross-site frame runs the harness's script out
// of the page's reach: the page sees none of its globals and cannot change
// what it returns, and the world comes back after the frame reloads.
// Inspect reads the DOM through built-ins the page replaced, and Globals
// sees what the main world offers without running the page's code.
func TestInstalledWorldIsOutOfThePagesReach(t *testing.T) {
	b := sharedBrowser(t)
	app := serve(t, "localhost", html(map[string]string{
		"/app": `<!doctype html><title>app</title><body><p id="p">real</p>
<script>
window.require = function () {};
let secretBinding = 1;
Object.defineProperty(window, "__TAURI__", {get() { return undefined; }, configurable: true});
window.process = null;
JSON.stringify = () => '"forged"';
document.getElementById = () => ({textContent: "forged"});
window.probeSeen = typeof globalThis.harnessProbe;
</script>`,
	}))
	host := hostSite(t, app)
	s := session(t, b)
	if err := s.Open(within(t, 5*time.Second), host+"/host"); err != nil {
		t.Fatal(err)
	}
	const world = "test-probe"
	src := `globalThis.harnessProbe = {loads: (globalThis.harnessProbe ? globalThis.harnessProbe.loads : 0) + 1,
		read: () => JSON.stringify({text: document.getElementById("p").textContent})};`
	if err := s.Install(within(t, 5*time.Second), app+"/app", world, src); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := s.EvalIn(within(t, 5*time.Second), app+"/app", world, "harnessProbe.read()", &got); err != nil {
		t.Fatal(err)
	}
	if got != `{"text":"real"}` {
		t.Errorf("the installed world read %q: the page's replaced built-ins reached it", got)
	}
	var seen string
	if err := s.Eval(within(t, 2*time.Second), app+"/app", "window.probeSeen + '/' + typeof globalThis.harnessProbe", &seen); err != nil {
		t.Fatal(err)
	}
	if seen != "undefined/undefined" {
		t.Errorf("the page sees the installed world: %q", seen)
	}
	var text string
	if err := s.Inspect(within(t, 2*time.Second), app+"/app", `document.getElementById("p").textContent`, &text); err != nil || text != "real" {
		t.Errorf("Inspect read %q (%v), want the DOM's own text", text, err)
	}
	held, err := s.Globals(within(t, 2*time.Second), app+"/app", []string{"require", "secretBinding", "__TAURI__", "process", "Buffer"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Global{"require": {Type: "function"}, "secretBinding": {Type: "binding"}, "__TAURI__": {Type: "accessor"}, "process": {Type: "object", Null: true}}
	if fmt.Sprint(held) != fmt.Sprint(want) {
		t.Errorf("Globals = %v, want %v", held, want)
	}

	// A reload brings a new document: the world is installed there again
	// before the page's scripts run.
	if err := s.EvalIn(within(t, 2*time.Second), app+"/app", world, "harnessProbe.old = true", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Eval(within(t, 2*time.Second), app+"/app", "location.reload(); true", nil); err != nil {
		t.Fatal(err)
	}
	ctx := within(t, 5*time.Second)
	for {
		var fresh bool
		err := s.EvalIn(ctx, app+"/app", world, "harnessProbe.old === undefined && harnessProbe.loads === 1", &fresh)
		if err == nil && fresh {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no installed world in the reloaded frame: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A page opened in a session that showed another one holds only the new
// document's frames: the old document's same-site frame at the same
// address (Chromium reports no detach for it) is not taken for the new
// one's, so Eval reaches the frame the page shows now.
func TestANewDocumentForgetsTheOldOnesFrames(t *testing.T) {
	b := sharedBrowser(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/page/{n}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>page</title><iframe src="/child/%s"></iframe>`, r.PathValue("n"))
	})
	mux.HandleFunc("/child/{n}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>child</title><script>window.n = %q</script>`, r.PathValue("n"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := session(t, b)
	for _, n := range []string{"1", "2"} {
		if err := s.Open(within(t, 5*time.Second), srv.URL+"/page/"+n); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.Eval(within(t, 5*time.Second), srv.URL+"/child/", "window.n", &got); err != nil || got != n {
			t.Errorf("after opening page %s, the frame at /child/ says %q (%v), want %s", n, got, err, n)
		}
		frames, err := s.Frames(within(t, 2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if len(frames) != 2 {
			t.Errorf("after opening page %s: frames %+v, want the page and its one child", n, frames)
		}
	}
}

// A page the host has just opened sits at its initial about:blank, already
// complete, until the host's address commits: AwaitLoaded waits past it
// (the app center read as an empty page was a flake under load).
func TestAwaitLoadedWaitsPastTheInitialBlankPage(t *testing.T) {
	s := session(t, sharedBrowser(t))
	if err := s.AwaitLoaded(within(t, 300*time.Millisecond)); err == nil || !strings.Contains(err.Error(), "about:blank") {
		t.Fatalf("AwaitLoaded on the initial about:blank: %v, want it to time out naming about:blank", err)
	}
	host := hostSite(t, appSite(t))
	if err := s.Open(within(t, 5*time.Second), host+"/host"); err != nil {
		t.Fatal(err)
	}
	if err := s.AwaitLoaded(within(t, 5*time.Second)); err != nil {
		t.Fatalf("AwaitLoaded once the host page loaded: %v", err)
	}
}
