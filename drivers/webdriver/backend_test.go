package webdriver

import (
	"context"
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
