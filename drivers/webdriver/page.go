package webdriver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
)

// Page is one WebDriver session as a browser.Page, or one window of a
// session another page opened, when the remote end serves a single
// session (tauri-driver, a WebKitWebDriver the operator runs): see
// [shared].
//
// WebDriver classic has no isolated worlds: every script runs in the main
// world of its frame, the page's own, after the page's scripts ran. A
// "world" here is an object the harness keeps under a property of the
// frame's window whose name is random per page (and so unknown to the
// page when its scripts run first), with the world's globals: Install
// runs a script with globalThis bound to it, and EvalIn evaluates there.
// A document that replaced the world's (a reload) gets the installed
// script again on the next EvalIn. The page's scripts still share the
// realm: they can replace the built-ins a script of the harness calls, so
// what is read here is evidence in the page's world (docs/decisions.md,
// "Host Bridge evidence on WebKit"). Inspect runs in the main world too.
type Page struct {
	b       *Browser
	srv     *Server // nil when attached to the operator's remote end
	sh      *shared // the session, which other pages may share
	win     string  // the page's window in a shared session; "" alone in it
	profile string
	key     string // the window property holding the worlds
	hosts   bool   // a window the host showed its page in: left open

	mu       sync.Mutex
	installs map[string]string // world -> source
	closed   bool
	// console is what the last Console read found.
	console        []browser.ConsoleLine
	consoleDropped int
}

func newPage(b *Browser, srv *Server, sh *shared, win, profile string) *Page {
	var r [8]byte
	_, _ = rand.Read(r[:])
	sh.pages++ // the caller holds sh.mu, or sh is new
	return &Page{b: b, srv: srv, sh: sh, win: win, profile: profile, key: "__agentapp_" + hex.EncodeToString(r[:]), installs: map[string]string{}}
}

// shared is a session and the pages open in it. A page alone in its
// session has no window handle and switches nothing. When a remote end
// serves one session at a time, a second page is a new window of an open
// page's session (W3C New Window): each page then holds the session, with
// its own window current, for each sequence of calls that needs a
// current window and frame ([Page.in]).
type shared struct {
	s *Session

	mu    sync.Mutex // held by the page whose calls run
	cur   string     // the window current in the session, as last switched
	pages int        // pages open in the session
}

// in runs fn holding p's session, with p's window current.
func (p *Page) in(ctx context.Context, fn func() error) error {
	p.sh.mu.Lock()
	defer p.sh.mu.Unlock()
	if p.win != "" && p.sh.cur != p.win {
		if err := p.sh.s.SwitchToWindow(ctx, p.win); err != nil {
			return fmt.Errorf("webdriver: switching to the page's window %s: %w", p.win, err)
		}
		p.sh.cur = p.win
	}
	return fn()
}

// Session is the WebDriver session the page is.
func (p *Page) Session() *Session { return p.sh.s }

// How often a call looks again for its frame, or for the blob.
const (
	evalPoll   = 25 * time.Millisecond
	resultPoll = 50 * time.Millisecond
)

func (p *Page) usable() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("webdriver: the page is closed")
	}
	return nil
}

// where describes the frame a prefix selects, for errors.
func where(prefix string) string {
	if prefix == "" {
		return "the top page"
	}
	return fmt.Sprintf("the frame at %q", prefix)
}

// Open navigates to url and waits, within ctx, until it has loaded. An
// answer of HTTP 400 or more is an error too, where the browser tells
// (Navigation Timing's responseStatus).
func (p *Page) Open(ctx context.Context, url string) error {
	if err := p.usable(); err != nil {
		return err
	}
	return p.in(ctx, func() error {
		if err := p.sh.s.Navigate(ctx, url); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("webdriver: open %s: the page did not load in time: %w", url, errors.Join(err, ctx.Err()))
			}
			return fmt.Errorf("webdriver: open %s: %w", url, err)
		}
		var status int
		if err := p.sh.s.ExecuteSync(ctx, `const e = performance.getEntriesByType("navigation")[0]; return (e && e.responseStatus) || 0;`, nil, &status); err == nil && status >= 400 {
			return fmt.Errorf("webdriver: open %s: HTTP %d", url, status)
		}
		// The console from now on, in every frame there is: a frame
		// that comes later is hooked when the harness installs a world
		// there (the probe's).
		_, _, _ = p.walk(ctx, "", false, func(browser.Frame) error { return p.hookConsole(ctx) })
		return nil
	})
}

// AwaitLoaded waits, within ctx, until the top document has loaded.
func (p *Page) AwaitLoaded(ctx context.Context) error { return browser.AwaitComplete(ctx, p) }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// frameInfoJS is what the walk asks each frame.
const frameInfoJS = `return {url: location.href, name: String(window.name), n: window.frames.length};`

// walk visits the frames in tree order (the top page, then depth first,
// siblings in document order), switching into each. With stop it stops
// in the first frame whose URL starts with prefix, which stays current,
// and reports it found; else it lists them all and leaves the current
// context anywhere. each, when set, runs in every frame visited.
func (p *Page) walk(ctx context.Context, prefix string, stop bool, each func(browser.Frame) error) ([]browser.Frame, bool, error) {
	if err := p.sh.s.SwitchToTop(ctx); err != nil {
		return nil, false, err
	}
	var out []browser.Frame
	var visit func(id, parent string) (bool, error)
	visit = func(id, parent string) (bool, error) {
		var info struct {
			URL  string `json:"url"`
			Name string `json:"name"`
			N    int    `json:"n"`
		}
		if err := p.sh.s.ExecuteSync(ctx, frameInfoJS, nil, &info); err != nil {
			return false, err
		}
		f := browser.Frame{ID: id, ParentID: parent, URL: info.URL, Name: info.Name}
		out = append(out, f)
		if each != nil {
			if err := each(f); err != nil {
				return false, err
			}
		}
		if stop && strings.HasPrefix(info.URL, prefix) {
			return true, nil
		}
		for i := range info.N {
			if err := p.sh.s.SwitchToFrame(ctx, i); err != nil {
				if IsCode(err, CodeNoSuchFrame) {
					continue // it went away meanwhile
				}
				return false, err
			}
			found, err := visit(id+"."+strconv.Itoa(i), id)
			if err != nil || found {
				return found, err
			}
			if err := p.sh.s.SwitchToParent(ctx); err != nil {
				return false, err
			}
		}
		return false, nil
	}
	found, err := visit("frame", "")
	return out, found, err
}

// selectFrame makes the first frame whose URL starts with prefix current,
// or says why it could not (yet).
func (p *Page) selectFrame(ctx context.Context, prefix string) (string, error) {
	frames, found, err := p.walk(ctx, prefix, true, nil)
	if err != nil {
		return "", err
	}
	if found {
		return "", nil
	}
	urls := make([]string, 0, len(frames))
	for _, f := range frames {
		urls = append(urls, strconv.Quote(f.URL))
	}
	return fmt.Sprintf("no frame's URL starts with %q (frames: %s)", prefix, strings.Join(urls, ", ")), nil
}

// inFrame runs fn holding p's session, with the first frame whose URL
// starts with prefix current; when there is none yet, why says so and fn
// does not run.
func (p *Page) inFrame(ctx context.Context, prefix string, why *string, fn func() error) error {
	return p.in(ctx, func() error {
		missing, err := p.selectFrame(ctx, prefix)
		if missing != "" {
			*why = missing
		}
		if err != nil || missing != "" {
			return err
		}
		return fn()
	})
}

// Frames lists the page's frames in tree order, the top page first.
func (p *Page) Frames(ctx context.Context) ([]browser.Frame, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var frames []browser.Frame
	err := p.in(ctx, func() (err error) {
		frames, _, err = p.walk(ctx, "", false, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("webdriver: listing frames: %w", err)
	}
	return frames, nil
}

// evalJS runs body (a function body returning the value) with globalThis
// bound to the world arguments[1] of the root arguments[0] (the window
// when no world is named) and answers {state, value, error} at once;
// "absent" when the frame's document has no such world. A value that is a
// promise is not awaited in the script: it settles into a slot of the
// root, and the answer is {state: "pending", slot}, which pollJS reads.
// So a document that replaces the frame's while the promise is pending
// shows as a slot gone at the next poll, where an asynchronous script
// (execute/async) would wait out its timeout on WebKitWebDriver.
const evalJS = `const key = arguments[0], world = arguments[1];
let g = window;
if (world) {
  const d = Object.getOwnPropertyDescriptor(window, key);
  g = d && d.value[world];
  if (!g) return {state: "absent"};
}
const text = (e) => String(e && e.stack ? (e.name + ": " + e.message) : e);
let v, then;
try {
  v = (function (globalThis) { %s
  }).call(g, g);
  then = v !== null && (typeof v === "object" || typeof v === "function") ? v.then : undefined;
} catch (e) { return {state: "error", error: text(e)}; }
if (typeof then !== "function") return {state: "done", value: v === undefined ? null : v};
let d = Object.getOwnPropertyDescriptor(window, key);
if (!d) { Object.defineProperty(window, key, {value: Object.create(null)}); d = Object.getOwnPropertyDescriptor(window, key); }
const slots = d.value[" slots"] || (d.value[" slots"] = Object.create(null));
const slot = String(Date.now()) + String(Math.random()).slice(2);
slots[slot] = {state: "pending"};
Promise.resolve(v).then((v) => { slots[slot] = {state: "done", value: v === undefined ? null : v}; },
  (e) => { slots[slot] = {state: "error", error: text(e)}; });
return {state: "pending", slot: slot};`

// pollJS answers the slot arguments[1] of the root arguments[0] as evalJS
// left it, dropping it once settled; {state: "gone"} when the document has
// no such slot (it replaced the one the script ran in).
const pollJS = `const d = Object.getOwnPropertyDescriptor(window, arguments[0]);
const slots = d && d.value[" slots"];
const a = slots && slots[arguments[1]];
if (!a) return {state: "gone"};
if (a.state !== "pending") delete slots[arguments[1]];
return a;`

// expressionBody turns an expression into a function body that returns
// it; asStatements takes the last statement of a script of several
// ("location.href = x; true") as its value, as Runtime.evaluate would, and
// runs a single statement ("throw x") for no value.
func expressionBody(script string, asStatements bool) string {
	if !asStatements {
		return "return (\n" + script + "\n);"
	}
	t := strings.TrimRight(strings.TrimSpace(script), ";")
	i := strings.LastIndex(t, ";")
	if i < 0 {
		return t + ";\nreturn undefined;"
	}
	return t[:i+1] + "\nreturn (\n" + t[i+1:] + "\n);"
}

// evalAnswer is what evalJS and pollJS answer.
type evalAnswer struct {
	State string          `json:"state"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
	Slot  string          `json:"slot"`
}

// runIn evaluates script in the current frame's world ("" the main world)
// and, when its value is a promise, polls until it settles.
func (p *Page) runIn(ctx context.Context, world, script string) (evalAnswer, error) {
	var a evalAnswer
	err := p.sh.s.ExecuteSync(ctx, fmt.Sprintf(evalJS, expressionBody(script, false)), []any{p.key, world}, &a)
	if IsCode(err, CodeJavaScript) {
		// The script did not compile as an expression: statements.
		a = evalAnswer{}
		err = p.sh.s.ExecuteSync(ctx, fmt.Sprintf(evalJS, expressionBody(script, true)), []any{p.key, world}, &a)
	}
	if err != nil || a.State != "pending" {
		return a, err
	}
	return p.await(ctx, a.Slot)
}

// await polls the slot of a pending evaluation until it settles, within
// ctx: soon at first (most promises settle in a few milliseconds), then
// every evalPoll.
func (p *Page) await(ctx context.Context, slot string) (evalAnswer, error) {
	for wait := time.Millisecond; ; wait = min(2*wait, evalPoll) {
		if err := sleep(ctx, wait); err != nil {
			return evalAnswer{}, err
		}
		var a evalAnswer
		if err := p.sh.s.ExecuteSync(ctx, pollJS, []any{p.key, slot}, &a); err != nil {
			return a, err
		}
		switch a.State {
		case "pending":
		case "gone":
			return evalAnswer{State: "error", Error: "the frame loaded a new document before the script's promise settled"}, nil
		default:
			return a, nil
		}
	}
}

// Eval evaluates the expression script in the main world of the first
// frame whose URL starts with frameURLPrefix, awaiting a promise, and
// JSON-decodes its value into out (nil drops it). It waits, within ctx,
// for such a frame.
func (p *Page) Eval(ctx context.Context, frameURLPrefix, script string, out any) error {
	return p.eval(ctx, frameURLPrefix, "", script, out)
}

// Inspect is Eval: WebDriver classic has no world out of the page's reach.
func (p *Page) Inspect(ctx context.Context, frameURLPrefix, script string, out any) error {
	return p.eval(ctx, frameURLPrefix, "", script, out)
}

// EvalIn evaluates script as Eval does in the world named world that
// Install made in the frame, installing it again in a document that lacks
// it.
func (p *Page) EvalIn(ctx context.Context, frameURLPrefix, world, script string, out any) error {
	if world == "" {
		return errors.New("webdriver: EvalIn needs the name of a world Install made")
	}
	return p.eval(ctx, frameURLPrefix, world, script, out)
}

func (p *Page) eval(ctx context.Context, prefix, world, script string, out any) error {
	at := where(prefix)
	if world != "" {
		at += fmt.Sprintf(" (world %q)", world)
	}
	why := "nothing yet"
	for {
		if err := p.usable(); err != nil {
			return err
		}
		var a evalAnswer
		ran := false
		err := p.inFrame(ctx, prefix, &why, func() (err error) {
			if a, err = p.runIn(ctx, world, script); err == nil && a.State == "absent" {
				why = "the frame has no world " + strconv.Quote(world) + " yet"
				return p.reinstall(ctx, world)
			}
			ran = err == nil
			return err
		})
		if ran {
			return decode(a, out, at)
		}
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("webdriver: eval in %s: %w (no answer: the script did not finish, or the frame is busy; last seen: %s)", at, ctx.Err(), why)
			}
			if !retryable(err) {
				return fmt.Errorf("webdriver: eval in %s: %w", at, err)
			}
			why = err.Error()
		}
		if err := sleep(ctx, evalPoll); err != nil {
			return fmt.Errorf("webdriver: eval in %s: %w (%s)", at, err, why)
		}
	}
}

// retryable tells the errors of a frame that moved on under a call (it
// navigated, went away, or showed a dialog the session dismissed) from
// the others.
func retryable(err error) bool {
	return IsCode(err, CodeNoSuchFrame) || IsCode(err, CodeNoSuchWindow) || IsCode(err, CodeUnexpectedAlt) || IsCode(err, "stale element reference")
}

// decode turns an answer into out.
func decode(a evalAnswer, out any, at string) error {
	switch a.State {
	case "done":
	case "error":
		return fmt.Errorf("webdriver: eval in %s: %s", at, a.Error)
	default:
		return fmt.Errorf("webdriver: eval in %s: the harness's wrapper answered %q", at, a.State)
	}
	if out == nil {
		return nil
	}
	v := a.Value
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	if err := json.Unmarshal(v, out); err != nil {
		return fmt.Errorf("webdriver: eval in %s: decoding %.200s: %w", at, v, err)
	}
	return nil
}

// installJS makes world (arguments[1]) under the root arguments[0] of the
// current frame's window, once per document, and runs the source there.
const installJS = `const key = arguments[0], world = arguments[1];
let d = Object.getOwnPropertyDescriptor(window, key);
if (!d) { Object.defineProperty(window, key, {value: Object.create(null)}); d = Object.getOwnPropertyDescriptor(window, key); }
if (d.value[world]) return false;
const g = Object.create(null);
d.value[world] = g;
(function (globalThis) { %s
}).call(g, g);
return true;`

// Install runs source in the world named world of the frame prefix
// selects, now, and again in a later document of a frame that lacks the
// world when EvalIn looks there. It runs after the document's own
// scripts: WebDriver classic cannot run a script earlier.
func (p *Page) Install(ctx context.Context, frameURLPrefix, world, source string) error {
	if world == "" {
		return errors.New("webdriver: Install needs a world name of its own")
	}
	p.mu.Lock()
	p.installs[world] = source
	p.mu.Unlock()
	at := where(frameURLPrefix)
	why := "nothing yet"
	for {
		if err := p.usable(); err != nil {
			return err
		}
		done := false
		err := p.inFrame(ctx, frameURLPrefix, &why, func() error {
			err := p.install(ctx, world, source)
			done = err == nil
			return err
		})
		if done {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("webdriver: installing world %q in %s: %w (last seen: %s)", world, at, ctx.Err(), why)
			}
			if !retryable(err) {
				return fmt.Errorf("webdriver: installing world %q in %s: %w", world, at, err)
			}
			why = err.Error()
		}
		if err := sleep(ctx, evalPoll); err != nil {
			return fmt.Errorf("webdriver: installing world %q in %s: %w (%s)", world, at, err, why)
		}
	}
}

// install runs the installer in the current frame, hooking its console
// first (best effort: the console is not what the installer waits for).
func (p *Page) install(ctx context.Context, world, source string) error {
	_ = p.hookConsole(ctx)
	return p.sh.s.ExecuteSync(ctx, fmt.Sprintf(installJS, source), []any{p.key, world}, nil)
}

// reinstall puts an installed world in the current frame's new document.
func (p *Page) reinstall(ctx context.Context, world string) error {
	p.mu.Lock()
	source, ok := p.installs[world]
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("webdriver: no world %q was installed", world)
	}
	return p.install(ctx, world, source)
}

// identifier is a name Globals can put in a script.
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// Globals reports which of names the main world of the frame holds:
// properties of its window (own or inherited, read from their property
// descriptors, so no getter of the page's runs) and its script-level
// bindings (typeof NAME).
func (p *Page) Globals(ctx context.Context, frameURLPrefix string, names []string) (map[string]browser.Global, error) {
	var js strings.Builder
	js.WriteString(`(() => { const out = {};
const own = (n) => { for (let o = window; o; o = Object.getPrototypeOf(o)) { const d = Object.getOwnPropertyDescriptor(o, n);
  if (d) { out[n] = ("value" in d) ? {type: typeof d.value, null: d.value === null} : {type: "accessor"}; return true; } } return false; };
`)
	for _, n := range names {
		if !identifier.MatchString(n) {
			return nil, fmt.Errorf("webdriver: globals: %q is not a name", n)
		}
		fmt.Fprintf(&js, "if (!own(%q)) { try { if (typeof %s !== \"undefined\") out[%q] = {type: \"binding\"}; } catch (e) { out[%q] = {type: \"binding\"}; } }\n", n, n, n, n)
	}
	js.WriteString("return out; })()")
	var raw map[string]struct {
		Type string `json:"type"`
		Null bool   `json:"null"`
	}
	if err := p.Eval(ctx, frameURLPrefix, js.String(), &raw); err != nil {
		return nil, fmt.Errorf("webdriver: globals of %s: %w", where(frameURLPrefix), err)
	}
	out := make(map[string]browser.Global, len(raw))
	for n, g := range raw {
		out[n] = browser.Global{Type: g.Type, Null: g.Null}
	}
	return out, nil
}

// AwaitResult waits, within ctx, until the first frame whose URL starts
// with frameURLPrefix has #probe-result[data-done], and JSON-decodes its
// text into out (nil only checks it is JSON). It is read in the page's
// world.
func (p *Page) AwaitResult(ctx context.Context, frameURLPrefix string, out any) error {
	at := where(frameURLPrefix)
	last := "nothing yet"
	for {
		var blob struct {
			State string `json:"state"`
			Text  string `json:"text"`
			Size  int    `json:"size"`
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.Eval(pctx, frameURLPrefix, browser.ReadResultScript(), &blob)
		cancel()
		switch {
		case err != nil:
			last = err.Error()
		case blob.State == "done":
			if out == nil {
				if !json.Valid([]byte(blob.Text)) {
					return fmt.Errorf("webdriver: the probe result in %s is not JSON: %.200q", at, blob.Text)
				}
				return nil
			}
			if err := json.Unmarshal([]byte(blob.Text), out); err != nil {
				return fmt.Errorf("webdriver: the probe result in %s: %w (%.200q)", at, err, blob.Text)
			}
			return nil
		case blob.State == "too large":
			return fmt.Errorf("webdriver: the probe result in %s is %d characters, too many", at, blob.Size)
		default:
			last = "#probe-result is " + blob.State
		}
		if err := sleep(ctx, resultPoll); err != nil {
			return fmt.Errorf("webdriver: awaiting #probe-result[data-done] in %s: %w (last seen: %s)", at, err, last)
		}
	}
}

// Screenshot returns a PNG of the top-level page's viewport.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	if err := p.usable(); err != nil {
		return nil, err
	}
	var png []byte
	err := p.in(ctx, func() (err error) {
		png, err = p.sh.s.Screenshot(ctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("webdriver: screenshot: %w", err)
	}
	return png, nil
}

// consoleJS makes the current document record, from now on and once per
// document, what it says on the console (each console method's call) and
// its uncaught errors and rejections, capped, under the page's root:
// WebDriver classic has no console of its own to read.
const consoleJS = `const key = arguments[0], max = arguments[1], cap = arguments[2];
let d = Object.getOwnPropertyDescriptor(window, key);
if (!d) { Object.defineProperty(window, key, {value: Object.create(null)}); d = Object.getOwnPropertyDescriptor(window, key); }
const root = d.value;
if (root[" console"]) return false;
const log = {lines: [], dropped: 0};
root[" console"] = log;
const text = (args) => Array.prototype.map.call(args, (a) => {
  if (typeof a === "string") return a;
  try { const j = JSON.stringify(a); return j === undefined ? String(a) : j; } catch (e) { return String(a); }
}).join(" ");
const add = (level, t) => { if (log.lines.length >= max) { log.dropped++; return; } log.lines.push({level: level, text: String(t).slice(0, cap)}); };
for (const m of ["log", "info", "warn", "error", "debug", "trace", "dir"]) {
  const orig = console[m];
  if (typeof orig !== "function") continue;
  console[m] = function () { try { add(m === "warn" ? "warning" : m, text(arguments)); } catch (e) {} return orig.apply(this, arguments); };
}
window.addEventListener("error", (e) => add("exception", String(e.message) + (e.error && e.error.stack ? "\n" + e.error.stack : "")));
window.addEventListener("unhandledrejection", (e) => add("exception", "Uncaught (in promise) " + (e.reason && e.reason.stack ? e.reason.stack : String(e.reason))));
return true;`

// readConsoleJS answers what consoleJS recorded in the current document.
const readConsoleJS = `const d = Object.getOwnPropertyDescriptor(window, arguments[0]);
const log = d && d.value[" console"];
return log ? {lines: log.lines, dropped: log.dropped} : null;`

// hookConsole runs consoleJS in the current frame.
func (p *Page) hookConsole(ctx context.Context) error {
	return p.sh.s.ExecuteSync(ctx, consoleJS, []any{p.key, consoleLines, consoleLineBytes}, nil)
}

// What a page's documents keep of their console (browser keeps as much).
const (
	consoleLines     = 1000
	consoleLineBytes = 4096
	consoleReadLimit = 3 * time.Second
)

// Console is what the page's documents said on the console since the
// harness hooked each (when it opened the page, or installed a world in
// a frame that came later), read from every frame there is
// now: a document that went away (a reload) took its lines with it, and
// what a document said before it was hooked is not seen. A page that
// does not answer within a few seconds gives what the last read gave.
func (p *Page) Console() []browser.ConsoleLine {
	if p.usable() != nil {
		return p.lastConsole()
	}
	ctx, cancel := context.WithTimeout(context.Background(), consoleReadLimit)
	defer cancel()
	var lines []browser.ConsoleLine
	dropped := 0
	err := p.in(ctx, func() error {
		_, _, err := p.walk(ctx, "", false, func(f browser.Frame) error {
			var log *struct {
				Lines []struct {
					Level string `json:"level"`
					Text  string `json:"text"`
				} `json:"lines"`
				Dropped int `json:"dropped"`
			}
			if err := p.sh.s.ExecuteSync(ctx, readConsoleJS, []any{p.key}, &log); err != nil || log == nil {
				return nil // a frame that went away, or that was never hooked
			}
			for _, l := range log.Lines {
				lines = append(lines, browser.ConsoleLine{Level: l.Level, Text: l.Text, FrameURL: f.URL})
			}
			dropped += log.Dropped
			return nil
		})
		return err
	})
	if err != nil {
		return p.lastConsole()
	}
	p.mu.Lock()
	p.console, p.consoleDropped = lines, dropped
	p.mu.Unlock()
	return lines
}

func (p *Page) lastConsole() []browser.ConsoleLine {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.console
}

// ConsoleDropped is how many lines the documents counted past what they
// keep, at the last read (Console).
func (p *Page) ConsoleDropped() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.consoleDropped
}

// Close deletes the session, which ends its browser; its remote end
// serves the next page, or is killed when the session would not end (a
// page that spins). It is idempotent.
func (p *Page) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	defer p.b.forget(p)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.sh.mu.Lock()
	p.sh.pages--
	others := p.sh.pages > 0
	p.sh.mu.Unlock()
	if p.hosts {
		return nil // the host's window, the host's to close
	}
	if others {
		// Other pages use the session: close this page's window only.
		err := p.in(ctx, func() error {
			p.sh.cur = ""
			return p.sh.s.CloseWindow(ctx)
		})
		if err != nil {
			return fmt.Errorf("webdriver: closing the page's window: %w", err)
		}
		return nil
	}
	err := p.sh.s.Delete(ctx)
	p.b.release(p.srv, err == nil)
	if p.profile != "" {
		_ = os.RemoveAll(p.profile)
	}
	if err != nil && p.srv == nil {
		return fmt.Errorf("webdriver: closing the session: %w", err)
	}
	return nil
}

var _ browser.Page = (*Page)(nil)
