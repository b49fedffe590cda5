package webdriver

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
)

// probeLike is a script installed in a world: it keeps a value in the
// world's globals and names the document it runs in.
const probeLike = `if (globalThis.probe) return;
globalThis.probe = {instance: String(Math.random()), seen: 0};
window.addEventListener("message", function (ev) { if (ev.isTrusted) globalThis.probe.seen++; });`

func TestBackendServesTheHarnessesPageOnBothEngines(t *testing.T) {
	for _, engine := range []browser.Engine{browser.EngineChromium, browser.EngineWebKit} {
		t.Run(string(engine), func(t *testing.T) {
			installed(t, map[browser.Engine]string{browser.EngineChromium: "chromedriver", browser.EngineWebKit: "WebKitWebDriver"}[engine])
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			b, err := Launch(ctx, Options{Engine: engine})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if i := b.Info(); i.Engine != engine || i.Protocol != browser.ProtocolWebDriver || i.Version == "" || !strings.Contains(b.Describe(), " over WebDriver, launched by ") {
				t.Fatalf("info %+v (%s): want engine %s over WebDriver with a version", i, b.Describe(), engine)
			}
			p, err := b.NewPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			host := crossSitePage(t)
			app := strings.Replace(strings.TrimSuffix(host, "/host"), "127.0.0.1", "localhost", 1) + "/app"
			if err := p.Open(ctx, host); err != nil {
				t.Fatal(err)
			}
			frames, err := p.Frames(ctx)
			if err != nil || len(frames) != 2 || frames[0].ParentID != "" || frames[1].ParentID != frames[0].ID || frames[1].URL != app {
				t.Fatalf("frames %+v (%v), want the top page and its frame at %s", frames, err, app)
			}
			if err := p.Install(ctx, app, "w", probeLike); err != nil {
				t.Fatal(err)
			}
			var first string
			if err := p.EvalIn(ctx, app, "w", "globalThis.probe.instance", &first); err != nil || first == "" {
				t.Fatalf("the world's value: %v, %q", err, first)
			}
			// The console: WebDriver has none, the page's documents
			// record theirs once the harness hooked them.
			if err := p.Eval(ctx, app, `console.warn("w-line", {a: 1}); document.body.appendChild(Object.assign(document.createElement("script"), {textContent: "throw new Error('late-boom')"})); 1`, nil); err != nil {
				t.Fatal(err)
			}
			if err := p.Eval(ctx, "", `console.log("top-line"); 1`, nil); err != nil {
				t.Fatal(err)
			}
			var said []string
			for end := time.Now().Add(5 * time.Second); len(said) < 3 && time.Now().Before(end); {
				said = nil
				for _, l := range p.Console() {
					said = append(said, l.Level+" "+l.Text+" @"+strings.TrimPrefix(l.FrameURL, host))
				}
			}
			if len(said) != 3 || said[0] != "log top-line @" || said[1] != `warning w-line {"a":1} @`+app || !strings.HasPrefix(said[2], "exception ") || !strings.Contains(said[2], "late-boom") {
				t.Fatalf("console %q, want the top page's log, the frame's warning and its uncaught error", said)
			}
			var hidden string
			if err := p.Eval(ctx, app, "typeof probe", &hidden); err != nil || hidden != "undefined" {
				t.Fatalf("the world's globals seen from the page: %v, %q, want undefined", err, hidden)
			}
			var seen int
			if err := p.Eval(ctx, app, `window.dispatchEvent(new MessageEvent("message", {data: 1})); 1`, nil); err != nil {
				t.Fatal(err)
			}
			if err := p.EvalIn(ctx, app, "w", "new Promise((r) => setTimeout(() => r(globalThis.probe.seen), 10))", &seen); err != nil || seen != 0 {
				t.Fatalf("a made-up message counted: %v, %d, want 0", err, seen)
			}
			g, err := p.Globals(ctx, app, []string{"appGlobal", "require", "fetch"})
			if err != nil || g["appGlobal"].Type != "number" || g["fetch"].Type != "function" || g["require"].Type != "" {
				t.Fatalf("globals %+v (%v): want appGlobal a number, fetch a function, no require", g, err)
			}
			if err := p.Eval(ctx, app, "location.reload(); true", nil); err != nil {
				t.Fatal(err)
			}
			var again string
			for again == "" || again == first {
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					t.Fatalf("the world after a reload: still %q: %v", again, err)
				}
				again = ""
				_ = p.EvalIn(ctx, app, "w", "globalThis.probe.instance", &again)
			}
			// A promise the frame's next document cuts short ends the
			// evaluation with an error naming that, not at the deadline.
			cut, cancel3 := context.WithTimeout(ctx, 20*time.Second)
			defer cancel3()
			err = p.EvalIn(cut, app, "w", "new Promise(() => setTimeout(() => location.reload(), 20))", nil)
			if err == nil || cut.Err() != nil || !strings.Contains(err.Error(), "new document") {
				t.Fatalf("a promise cut short by a reload: %v (deadline: %v), want an error naming the new document", err, cut.Err())
			}
			var rejected string
			if err := p.EvalIn(ctx, app, "w", "Promise.reject(new RangeError('late'))", &rejected); err == nil || !strings.Contains(err.Error(), "RangeError: late") {
				t.Fatalf("a rejected promise: %v, want its RangeError", err)
			}
			if err := p.Eval(ctx, "", `document.body.insertAdjacentHTML("beforeend", '<pre id="probe-result" data-done>{"ok": true}</pre>'); 1`, nil); err != nil {
				t.Fatal(err)
			}
			var blob struct{ OK bool }
			if err := p.AwaitResult(ctx, "", &blob); err != nil || !blob.OK {
				t.Fatalf("the blob: %v, %+v", err, blob)
			}
			if err := p.Eval(ctx, "", "throw new TypeError('no')", nil); err == nil || !strings.Contains(err.Error(), "TypeError: no") {
				t.Fatalf("a throwing script: %v, want its TypeError", err)
			}
			short, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel2()
			if err := p.Eval(short, "http://nowhere/", "1", nil); err == nil || !strings.Contains(err.Error(), "no frame's URL starts with") {
				t.Fatalf("a frame that is not there: %v, want it named", err)
			}
		})
	}
}

// A remote end the operator runs may serve one session at a time
// (tauri-driver, WebKitWebDriver): a second page open at once is a window
// of the first page's session, and each page keeps its own document, its
// worlds and its frames, whichever closes first.
func TestPagesShareTheOneSessionOfAnAttachedRemoteEnd(t *testing.T) {
	installed(t, "WebKitWebDriver")
	installed(t, MiniBrowser)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := StartServer(ctx, ServerOptions{Binary: "WebKitWebDriver", Xvfb: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	pagesShareOneSession(ctx, t, Options{Engine: browser.EngineWebKit, URL: srv.URL})
}

// tauriDriver is where `make deps` installs tauri-driver (npm ci in
// drivers/webdriver/tauri-driver).
const tauriDriver = "tauri-driver/node_modules/.bin/tauri-driver"

// The Tauri path: tauri-driver starts the application its session's
// tauri:options name (WebKitGTK's MiniBrowser here, where a Tauri host
// team names its host) under its own WebKitWebDriver, which serves one
// session; the harness's pages share it.
func TestTauriDriverServesTheHarnessesPages(t *testing.T) {
	installed(t, tauriDriver)
	mini := installed(t, MiniBrowser)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	log, err := os.Create(filepath.Join(t.TempDir(), "tauri-driver.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	srv, err := StartServer(ctx, ServerOptions{Binary: tauriDriver, Xvfb: true, Args: TauriDriverArgs, Log: log})
	if err != nil {
		out, _ := os.ReadFile(log.Name())
		t.Fatalf("%v\n%s", err, out)
	}
	defer srv.Close()
	caps := Capabilities{"tauri:options": map[string]any{"application": mini, "args": []string{"--automation"}}}
	pagesShareOneSession(ctx, t, Options{Engine: browser.EngineWebKit, URL: srv.URL, Capabilities: caps})
}

// pagesShareOneSession opens three pages at once through the remote end o
// attaches to, which serves one session, and checks each keeps its own
// document, world and frame whichever closes first.
func pagesShareOneSession(ctx context.Context, t *testing.T, o Options) {
	t.Helper()
	b, err := Launch(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	host := crossSitePage(t)
	app := strings.Replace(strings.TrimSuffix(host, "/host"), "127.0.0.1", "localhost", 1) + "/app"
	var pages []browser.Page
	for i := range 3 {
		p, err := b.NewPage(ctx)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		defer p.Close()
		if err := p.Open(ctx, host+"?n="+strconv.Itoa(i)); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if err := p.Install(ctx, app, "w", "globalThis.n = "+strconv.Itoa(i)+";"); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		pages = append(pages, p)
	}
	ids := map[string]bool{}
	for _, p := range pages {
		ids[p.(*Page).Session().ID()] = true
	}
	if len(ids) != 1 {
		t.Fatalf("%d sessions for 3 pages: the remote end serves one, the pages should share it", len(ids))
	}
	check := func(i int, p browser.Page) {
		t.Helper()
		var top string
		var n int
		if err := p.Eval(ctx, "", "location.search", &top); err != nil || top != "?n="+strconv.Itoa(i) {
			t.Fatalf("page %d's top document: %v, %q", i, err, top)
		}
		if err := p.EvalIn(ctx, app, "w", "new Promise((r) => setTimeout(() => r(globalThis.n), 5))", &n); err != nil || n != i {
			t.Fatalf("page %d's world in its frame: %v, %d", i, err, n)
		}
	}
	for _, i := range []int{2, 0, 1, 0} {
		check(i, pages[i])
	}
	if err := pages[0].Close(); err != nil { // the page that opened the session
		t.Fatal(err)
	}
	check(2, pages[2])
	check(1, pages[1])
	if err := pages[2].Close(); err != nil {
		t.Fatal(err)
	}
	check(1, pages[1])
	if err := pages[1].Close(); err != nil {
		t.Fatal(err)
	}
	p, err := b.NewPage(ctx) // the session ended with its last page
	if err != nil {
		t.Fatalf("a page after every page closed: %v", err)
	}
	p.Close()
}
