package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/onsi/ginkgo/v2"
)

// How long the harness gives the surface: the host page to load, the probe
// to appear in the app frame, one scenario to finish.
const (
	surfaceLoadTimeout = 10 * time.Second
	probeReadyTimeout  = 10 * time.Second
	scenarioTimeout    = 30 * time.Second
	// AnswerTimeout is how long a scenario waits for one bridge answer.
	AnswerTimeout = 3 * time.Second
)

// Surface is an entry the host mounted (app/launch), open in a fresh
// browser session of the harness's, with the probe loaded in its frame.
type Surface struct {
	tc     *TestContext
	AppID  string
	Entry  string
	Launch protocol.LaunchResult
	sess   browser.Page
	// HostURL is the address of the host page that mounts the entry: the
	// launch's url, or where the host's DevTools target is.
	HostURL string
	// appFrame is the address of the app's frame, once found.
	appFrame string
	// instance names the document of the app's frame the probe runs in
	// (hostbridge.ProbeInstance).
	instance string
	// reload, once set by AllowReload, is the decisions row and reading
	// under which the host may load the app's frame as a new document: a
	// scenario the reload cut short then runs again in the new document.
	reload [2]string
}

// AllowReload says that from now on the host may load the app's frame as a
// new document, by the reading of the docs/decisions.md row topic: after
// it accepted a host:navigate (Navigation requests), or after the user
// changed the locale (The active locale). A scenario the reload cuts short
// runs again in the new document, and the report records the reading.
func (s *Surface) AllowReload(topic, reading string) { s.reload = [2]string{topic, reading} }

// Frame is the URL prefix that selects the app's frame: its address once
// found (a host may serve its frame from its own origin), else the runtime
// origin.
func (s *Surface) Frame() string {
	if s.appFrame != "" {
		return s.appFrame
	}
	return strings.TrimSuffix(s.Launch.RuntimeOrigin, "/") + "/"
}

// findAppFrame looks for a frame below the top page at the runtime origin
// and keeps its address.
func (s *Surface) findAppFrame(ctx context.Context) {
	frames, err := s.sess.Frames(ctx)
	if err != nil {
		return
	}
	origin := strings.TrimSuffix(s.Launch.RuntimeOrigin, "/") + "/"
	for _, f := range frames {
		if f.ParentID != "" && strings.HasPrefix(f.URL, origin) {
			// The address up to its query: a frame the host reloads at
			// another route or query is still the app's frame.
			s.appFrame, _, _ = strings.Cut(f.URL, "#")
			s.appFrame, _, _ = strings.Cut(s.appFrame, "?")
			return
		}
	}
}

// HostOrigin is the origin of the page that mounts the app.
func (s *Surface) HostOrigin() string {
	u, err := url.Parse(s.HostURL)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// browserSession opens a fresh browser context for the spec, closed when
// the spec ends. With no browser on the machine the spec is skipped with
// that reason: the levels that need it are then not passed.
func (tc *TestContext) browserSession() browser.Page {
	ginkgo.GinkgoHelper()
	tc.usedBrowser = true
	b, err := tc.browser()
	if errors.Is(err, browser.ErrNoBrowser) {
		tc.Skippedf("no browser to open the app surface in (install Debian's chromium, or give --browser-endpoint): %v", err)
	}
	if err != nil {
		tc.Errorf("the harness could not start its browser: %v", err)
	}
	ctx, cancel := context.WithTimeout(tc.ctx(), surfaceLoadTimeout)
	defer cancel()
	s, err := b.NewPage(ctx)
	if err != nil {
		tc.Errorf("the harness could not open a browser session: %v", err)
	}
	tc.resources.Track("browser session", func() error { _ = s.Close(); return nil })
	tc.surfaces = append(tc.surfaces, s)
	return s
}

// RequireMethod blocks the spec when the host does not announce method in
// its hello: it cannot be judged on what it does not implement.
func (tc *TestContext) RequireMethod(method string) {
	ginkgo.GinkgoHelper()
	h := tc.Host().Hello()
	for _, m := range h.Methods {
		if m == method {
			return
		}
	}
	tc.Blockedf("the host does not announce %s in conformance/hello, which this check needs", method)
}

// TryLaunch asks the host to mount entry of appID.
func (tc *TestContext) TryLaunch(appID, entry string) (protocol.LaunchResult, error) {
	ginkgo.GinkgoHelper()
	tc.RequireMethod(protocol.MethodLaunch)
	var lr protocol.LaunchResult
	err := tc.Call(protocol.MethodLaunch, protocol.LaunchParams{AppID: appID, EntryKey: entry}, &lr)
	return lr, err
}

// Launch mounts entry of appID and opens it in a fresh browser session,
// waiting for the probe in the app's frame. Each step is a precondition:
// a host that cannot mount a ready entry judges nothing about its bridge.
func (tc *TestContext) Launch(appID, entry string) *Surface {
	ginkgo.GinkgoHelper()
	return tc.launch(appID, entry, nil)
}

// LaunchBeside launches an entry as Launch does, and shows it where a user
// of the host would see it after prev: a host page the host names by URL
// opens in prev's browser session, with its cookies and storage (a fresh
// session would keep every app apart whatever the host does); a page of
// the host's own (a DevTools target, a window) is where the host put it.
// prev's page then shows the new surface.
func (tc *TestContext) LaunchBeside(prev *Surface, appID, entry string) *Surface {
	ginkgo.GinkgoHelper()
	return tc.launch(appID, entry, prev)
}

func (tc *TestContext) launch(appID, entry string, prev *Surface) *Surface {
	ginkgo.GinkgoHelper()
	tc.usedBrowser = true // a browser spec, even if the launch fails before a page opens
	s := &Surface{tc: tc, AppID: appID, Entry: entry}
	tc.Precondition("the ready entry "+entry+" of "+appID+" launches", func() {
		lr, err := tc.TryLaunch(appID, entry)
		if err != nil {
			tc.FailCall(protocol.MethodLaunch, err)
		}
		s.Launch = lr
	})
	if tc.surfaceGaveUp != "" {
		tc.Errorf("not attempted: %s", tc.surfaceGaveUp)
	}
	if at := s.Launch.Where(); prev != nil && at.URL != "" {
		s.sess = prev.sess
		tc.openURL(s.sess, at.URL, "the host page")
	} else {
		s.sess = tc.openPage(at, "the host page")
	}
	s.HostURL = s.Launch.URL
	if s.HostURL == "" {
		ctx, cancel := context.WithTimeout(tc.ctx(), surfaceLoadTimeout)
		defer cancel()
		if err := s.sess.Inspect(ctx, "", "location.href", &s.HostURL); err != nil {
			tc.surfaceMissed(fmt.Sprintf("reading the host page's address: %v", err))
		}
	}
	s.awaitProbe()
	tc.surfaceMisses = 0
	return s
}

// openPage opens a page the host named: its URL in a fresh browser
// session; or, when the host gave only a DevTools target (a browser
// runtime such as Electron), that target in the host's own browser; or,
// when it gave only a window of its own web view (a Tauri host), that
// window of the WebDriver session whose application is the host. A page
// that does not load ends the spec as an error (what names it, e.g. "the
// host page", leads the message).
func (tc *TestContext) openPage(at protocol.Where, what string) browser.Page {
	ginkgo.GinkgoHelper()
	tc.usedBrowser = true
	ctx, cancel := context.WithTimeout(tc.ctx(), surfaceLoadTimeout)
	defer cancel()
	switch {
	case at.URL != "":
		sess := tc.browserSession()
		tc.openURL(sess, at.URL, what)
		return sess
	case at.DevTools != nil:
		return tc.openDevToolsPage(ctx, at.DevTools, what)
	case at.Window != nil:
		return tc.openHostWindow(ctx, at.Window, what)
	}
	tc.Errorf("the host named neither a URL, a DevTools target nor a window for %s", what)
	return nil
}

// openURL loads url in sess; a page that does not load ends the spec as an
// error, what naming it.
func (tc *TestContext) openURL(sess browser.Page, url, what string) {
	ginkgo.GinkgoHelper()
	ctx, cancel := context.WithTimeout(tc.ctx(), surfaceLoadTimeout)
	defer cancel()
	if err := sess.Open(ctx, url); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			tc.markStuck(sess) // still loading: a screenshot would wait too
		}
		tc.surfaceMissed(fmt.Sprintf("%s %s did not load: %v", what, url, err))
	}
}

// openDevToolsPage attaches to the page of a DevTools target in the host's
// own browser runtime.
func (tc *TestContext) openDevToolsPage(ctx context.Context, dt *protocol.DevToolsTarget, what string) browser.Page {
	ginkgo.GinkgoHelper()
	if !tc.Config.Browser.trusts(dt.Endpoint) {
		tc.Blockedf("%s: the host named a browser of its own (DevTools %s): %v", what, dt.Endpoint, errUntrustedRuntime)
	}
	b, err := tc.runtimes.get(dt.Endpoint)
	if err != nil {
		tc.surfaceMissed(fmt.Sprintf("%s: cannot attach to the host's browser runtime: %v", what, err))
	}
	sess, err := b.AttachPage(ctx, dt.TargetID)
	if err != nil {
		tc.surfaceMissed(fmt.Sprintf("%s (DevTools target %s at %s): %v", what, dt.TargetID, dt.Endpoint, err))
	}
	return tc.awaitHostPage(ctx, sess, fmt.Sprintf("%s (DevTools target %s)", what, dt.TargetID))
}

// openHostWindow finds the window of the host's own web view that shows
// w.URL, in the WebDriver session whose application is the host
// (--webdriver-host): the harness navigates nothing there, and leaves the
// window open when the spec ends.
func (tc *TestContext) openHostWindow(ctx context.Context, w *protocol.HostWindow, what string) browser.Page {
	ginkgo.GinkgoHelper()
	if !tc.Config.Browser.WebDriverHost {
		tc.Blockedf("%s: the host showed it in a window of its own web view (%s): %v", what, w.URL, errNoHostSession)
	}
	d, err := tc.browser()
	if err != nil {
		tc.surfaceMissed(fmt.Sprintf("%s: the host's WebDriver session: %v", what, err))
	}
	hw, ok := d.(interface {
		HostWindow(ctx context.Context, address string) (browser.Page, error)
	})
	if !ok {
		tc.Errorf("%s: the run's browser (%s) holds no session of the host's", what, d.Describe())
	}
	sess, err := hw.HostWindow(ctx, w.URL)
	if err != nil {
		tc.surfaceMissed(fmt.Sprintf("%s (the host's window at %s): %v", what, w.URL, err))
	}
	return tc.awaitHostPage(ctx, sess, fmt.Sprintf("%s (the host's window at %s)", what, w.URL))
}

// awaitHostPage keeps a page the host opened for the spec and waits for it
// to load.
func (tc *TestContext) awaitHostPage(ctx context.Context, sess browser.Page, what string) browser.Page {
	ginkgo.GinkgoHelper()
	tc.resources.Track("browser session", func() error { _ = sess.Close(); return nil })
	tc.surfaces = append(tc.surfaces, sess)
	if err := sess.AwaitLoaded(ctx); err != nil {
		tc.surfaceMissed(fmt.Sprintf("%s did not load: %v", what, err))
	}
	return sess
}

// surfaceGiveUpAfter is how many mounts in a row may fail to load before
// the run stops opening surfaces: every later surface spec is an error at
// once, and the run goes on.
const surfaceGiveUpAfter = 2

// surfaceMissed ends the spec as an error because the surface could not be
// used, and gives up on surfaces after surfaceGiveUpAfter in a row.
func (tc *TestContext) surfaceMissed(reason string) {
	ginkgo.GinkgoHelper()
	tc.surfaceMisses++
	if tc.surfaceMisses >= surfaceGiveUpAfter && tc.surfaceGaveUp == "" {
		tc.surfaceGaveUp = fmt.Sprintf("the host's app surface failed to load %d times in a row; last: %s", tc.surfaceMisses, reason)
	}
	tc.Errorf("%s", reason)
}

// awaitProbe puts the harness's probe (hostbridge.ProbeJS) in an isolated
// world of the app's frame and waits until it runs there. The probe is the
// harness's own code, out of the page's reach: nothing the host serves in
// the frame can write what it reports.
func (s *Surface) awaitProbe() {
	ginkgo.GinkgoHelper()
	deadline := time.Now().Add(probeReadyTimeout)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(s.tc.ctx(), time.Second)
		var ok bool
		if s.appFrame == "" {
			s.findAppFrame(ctx)
		}
		last = s.sess.Install(ctx, s.Frame(), hostbridge.ProbeWorld, hostbridge.ProbeJS)
		if last == nil {
			last = s.sess.EvalIn(ctx, s.Frame(), hostbridge.ProbeWorld, hostbridge.ProbeReady, &ok)
		}
		if last == nil && ok {
			last = s.sess.EvalIn(ctx, s.Frame(), hostbridge.ProbeWorld, hostbridge.ProbeInstance, &s.instance)
		}
		cancel()
		if last == nil && ok {
			return
		}
		if s.instance != "" {
			// Waiting again after a reload: the frame may have moved on
			// since it was found, so it is looked for afresh.
			s.appFrame = ""
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.tc.surfaceMissed(fmt.Sprintf("the harness's probe never ran in the app's frame (runtime origin %s) within %s: %v", s.Launch.RuntimeOrigin, probeReadyTimeout, last))
}

// ProbeRuns reports whether the harness's probe runs in the app's frame
// now (false when the frame left for another document).
func (s *Surface) ProbeRuns(ctx context.Context) bool {
	var ok bool
	return s.sess.EvalIn(ctx, s.Frame(), hostbridge.ProbeWorld, hostbridge.ProbeReady, &ok) == nil && ok
}

// Step is one step of a probe scenario (drivers/hostbridge/probe.js).
type Step map[string]any

// Send posts a bridge message from the app frame; members default to the
// standard envelope of the launched app and entry, and a nil member is
// left out.
func Send(msg map[string]any) Step { return Step{"send": msg} }

// Invoke posts capability:invoke.
func Invoke(requestID, capability, method string, args any) Step {
	p := map[string]any{"capability": capability, "method": method}
	if args != nil {
		p["args"] = args
	}
	return Send(map[string]any{"type": hostbridge.TypeInvoke, "requestId": requestID, "payload": p})
}

// Request posts an app -> host message of type t with a payload.
func Request(t, requestID string, payload any) Step {
	m := map[string]any{"type": t, "requestId": requestID}
	if payload != nil {
		m["payload"] = payload
	}
	return Send(m)
}

// AwaitAnswer waits for the answer to requestID (any type carrying it).
func AwaitAnswer(requestID string) Step { return AwaitAnswerWithin(requestID, AnswerTimeout) }

// AwaitAnswerWithin waits up to d for the answer to requestID.
func AwaitAnswerWithin(requestID string, d time.Duration) Step {
	return Step{"await": map[string]any{"requestId": requestID}, "timeoutMs": probeMillis(d)}
}

// AwaitType waits for a message of type t since the last send, or since
// the probe loaded when sinceStart.
func AwaitType(t string, sinceStart bool) Step {
	s := Step{"await": map[string]any{"type": t}, "timeoutMs": probeMillis(AnswerTimeout)}
	if sinceStart {
		s["since"] = "start"
	}
	return s
}

// AwaitCount waits until the frame has received n messages of type t in
// all.
func AwaitCount(t string, n int) Step {
	return Step{"await": map[string]any{"type": t, "atLeast": n}, "timeoutMs": probeMillis(AnswerTimeout), "since": "start"}
}

// Sleep waits d in the app's frame: a quiet period in which the host may
// send what needs no answer (or what it must not send at all). Specs name
// each quiet period they wait out.
func Sleep(d time.Duration) Step { return Step{"sleep": probeMillis(d)} }

// Collect reads what the app's frame has received so far, waiting for
// nothing more.
func Collect() Step { return Sleep(time.Millisecond) }

// Quiet periods the areas share.
const (
	// RefusalQuiet is how long a check waits, after sending what the host
	// must drop or refuse, before it reads that nothing came of it.
	RefusalQuiet = 300 * time.Millisecond
	// PushSettle is how long a check waits, after a message it awaited, for
	// the pushes that may follow it.
	PushSettle = 100 * time.Millisecond
)

// probeMillis is d as the probe reads it: whole milliseconds, the one place
// a duration leaves Go's time.Duration.
func probeMillis(d time.Duration) int64 { return d.Milliseconds() }

// ProbeResult is what the probe saw.
type ProbeResult struct {
	Steps []struct {
		Step   int    `json:"step"`
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	} `json:"steps"`
	Received    []Received          `json:"received"`
	Applied     []map[string]string `json:"applied"`
	Containment *Containment        `json:"containment"`
	Page        *ProbePage          `json:"page"`
	// Storage is what a keep or recall step found of a name in each
	// member of the frame's browser storage (localStorage, cookie,
	// indexedDB).
	Storage map[string]StorageRead `json:"storage"`
	// Untrusted counts message events a script of the frame made up
	// (dispatchEvent); the probe records none of them.
	Untrusted int `json:"untrusted"`
	// TooLarge is the size of a report the probe would not give.
	TooLarge int `json:"tooLarge"`
	Raw      []byte
}

// Received is one message the app frame received.
type Received struct {
	Origin     string          `json:"origin"`
	FromParent bool            `json:"fromParent"`
	Data       json.RawMessage `json:"data"`
}

// Message decodes a received message as a bridge message (false when it
// is not an object).
func (r Received) Message() (hostbridge.Message, bool) {
	var m hostbridge.Message
	d := json.NewDecoder(bytes.NewReader(r.Data))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return m, false
	}
	return m, true
}

// FrameFile is the address of a file of the app's UI, beside its entry.
func (s *Surface) FrameFile(name string) string {
	ginkgo.GinkgoHelper()
	r := s.Run(Step{"page": true})
	if r.Page == nil {
		s.TC().Errorf("the probe did not report its page")
	}
	base, err := url.Parse(r.Page.Href)
	if err != nil {
		s.TC().Errorf("the app frame's address %q: %v", r.Page.Href, err)
	}
	ref, _ := url.Parse(name)
	return base.ResolveReference(ref).String()
}

// Containment is what the probe reached of the host.
type Containment struct {
	Attempts map[string]Attempt
	Fetches  []Fetch
}

// Attempt is one reach for host internals.
type Attempt struct {
	Reached bool   `json:"reached"`
	Detail  string `json:"detail"`
}

// Fetch is one request the frame made to a host address.
type Fetch struct {
	URL     string `json:"url"`
	Reached bool   `json:"reached"`
	Status  int    `json:"status"`
	Body    string `json:"body"`
	Detail  string `json:"detail"`
}

// UnmarshalJSON splits the fetches from the named attempts.
func (c *Containment) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	c.Attempts = map[string]Attempt{}
	for k, v := range m {
		if k == "fetches" {
			if err := json.Unmarshal(v, &c.Fetches); err != nil {
				return fmt.Errorf("containment fetches: %w", err)
			}
			continue
		}
		var a Attempt
		if err := json.Unmarshal(v, &a); err != nil {
			return fmt.Errorf("containment attempt %s: %w", k, err)
		}
		c.Attempts[k] = a
	}
	return nil
}

// StorageRead is the value one member of the frame's browser storage
// holds under a name ("" for none), and why the frame could not use it.
type StorageRead struct {
	Value  string `json:"value"`
	Detail string `json:"detail"`
}

// Keep has the probe keep value under name in each member of the frame's
// browser storage and read it back there; it returns what each member then
// held.
func (s *Surface) Keep(name, value string) map[string]StorageRead {
	ginkgo.GinkgoHelper()
	return s.storage(Step{"keep": map[string]string{"name": name, "value": value}})
}

// Recall has the probe read name in each member of the frame's browser
// storage.
func (s *Surface) Recall(name string) map[string]StorageRead {
	ginkgo.GinkgoHelper()
	return s.storage(Step{"recall": map[string]string{"name": name}})
}

// storage runs a keep or recall step. A probe that reports no storage is
// the harness's trouble: judged as "nothing held", it would pass a
// must-not on no evidence.
func (s *Surface) storage(step Step) map[string]StorageRead {
	ginkgo.GinkgoHelper()
	r := s.Run(step)
	if r.Storage == nil {
		s.tc.Errorf("the harness's probe reported nothing of the frame's browser storage: %s", Excerpt(r.Raw))
	}
	return r.Storage
}

// StorageMembers are the members of a frame's browser storage the probe
// keeps and recalls, in the order they are reported.
var StorageMembers = []string{"localStorage", "indexedDB", "cookie"}

// Holding splits the members of a keep or recall step into those that
// held value and, for the others, what they held or why the frame could
// not use them.
func Holding(read map[string]StorageRead, value string) (held, others []string) {
	for _, m := range StorageMembers {
		switch r := read[m]; {
		case r.Value == value:
			held = append(held, m)
		case r.Detail != "":
			others = append(others, m+" ("+r.Detail+")")
		default:
			others = append(others, fmt.Sprintf("%s (held %q)", m, r.Value))
		}
	}
	return held, others
}

// ProbePage is what the frame's own page holds.
type ProbePage struct {
	Href           string            `json:"href"`
	Referrer       string            `json:"referrer"`
	Cookie         string            `json:"cookie"`
	Name           string            `json:"name"`
	LocalStorage   map[string]string `json:"localStorage"`
	SessionStorage map[string]string `json:"sessionStorage"`
	HTML           string            `json:"html"`
}

// Run hands the probe a scenario and returns what it saw. A probe that
// cannot finish is an error of the spec: nothing was judged. After the
// spec allowed a reload (AllowReload), a scenario cut short because
// the app's frame loaded a new document runs once more there.
func (s *Surface) Run(steps ...Step) *ProbeResult {
	ginkgo.GinkgoHelper()
	r, err := s.TryRun(steps)
	if err != nil && s.reload[0] != "" && s.Reloaded() {
		r, err = s.TryRun(steps)
	}
	if err != nil {
		s.tc.Errorf("the harness's probe could not run its scenario in the app's frame: %v", err)
	}
	return r
}

// TryRun hands the probe a scenario once and returns what it saw; the
// error says the probe did not report (the frame went away under it, or
// the scenario did not finish in time). A report the harness cannot read
// ends the spec as an error.
func (s *Surface) TryRun(steps []Step) (*ProbeResult, error) {
	ginkgo.GinkgoHelper()
	sc, err := json.Marshal(map[string]any{"appId": s.AppID, "entryKey": s.Entry, "steps": steps})
	if err != nil {
		s.tc.Errorf("encoding the probe scenario: %v", err)
	}
	ctx, cancel := context.WithTimeout(s.tc.ctx(), scenarioTimeout)
	defer cancel()
	text, err := s.runScenario(ctx, sc)
	if err != nil {
		s.tc.lastProbe = []byte(fmt.Sprintf("the probe did not report: %v", err))
		return nil, err
	}
	raw := json.RawMessage(text)
	var r ProbeResult
	if err := json.Unmarshal(raw, &r); err != nil {
		s.tc.Errorf("the probe's report is not what the harness wrote it to give: %v", err)
	}
	if r.TooLarge > 0 {
		s.tc.Errorf("the probe's report is %d characters, more than the harness reads", r.TooLarge)
	}
	for _, st := range steps {
		if _, ok := st["contain"]; ok && r.Containment != nil {
			s.readContainedGlobals(ctx, r.Containment)
		}
	}
	r.Raw = raw
	s.tc.lastProbe = raw
	return &r, nil
}

// runScenario runs the encoded scenario sc in the probe and returns its
// report.
func (s *Surface) runScenario(ctx context.Context, sc []byte) (string, error) {
	var text string
	err := s.sess.EvalIn(ctx, s.Frame(), hostbridge.ProbeWorld, hostbridge.ProbeRun+"("+string(sc)+")", &text)
	return text, err
}

// Reloaded waits for the probe in the app's frame again and reports
// whether it now runs in another document than before: the frame was
// Reloaded (what the probe recorded there is gone). The frame is looked
// for afresh, as a host may load the entry or route at another address.
func (s *Surface) Reloaded() bool {
	ginkgo.GinkgoHelper()
	before := s.instance
	s.appFrame = ""
	s.awaitProbe()
	if s.instance == before {
		return false
	}
	if s.reload[0] != "" {
		s.tc.Reading(s.reload[0], s.reload[1])
	}
	return true
}

// containedGlobals are the main-world globals through which an app's
// frame would reach Node, Electron or Tauri (spec 000, Host Bridge v1: the
// frame "must not directly access ... Tauri, Node"), by attempt name.
var containedGlobals = map[string][]string{
	"require":     {"require"},
	"process":     {"process"},
	"nodeGlobals": {"Buffer", "global", "module"},
	"electron":    {"ipcRenderer", "electron", "__electron_preload__"},
	"tauri":       {"__TAURI__", "__TAURI_INTERNALS__", "__TAURI_IPC__", "__TAURI_METADATA__"},
}

// readContainedGlobals adds to c what the frame's main world offers of
// containedGlobals. The probe's world cannot see the page's globals, so
// the harness reads them over DevTools, where the page cannot answer for
// itself.
func (s *Surface) readContainedGlobals(ctx context.Context, c *Containment) {
	ginkgo.GinkgoHelper()
	var names []string
	for _, ns := range containedGlobals {
		names = append(names, ns...)
	}
	held, err := s.sess.Globals(ctx, s.Frame(), names)
	if err != nil {
		s.tc.Errorf("reading the app frame's globals: %v", err)
	}
	for attempt, ns := range containedGlobals {
		a := Attempt{Detail: "absent"}
		for _, n := range ns {
			if g, ok := held[n]; ok && g.Type != "undefined" && !g.Null {
				a = Attempt{Reached: true, Detail: n + " is a " + g.Type}
				break
			}
		}
		c.Attempts[attempt] = a
	}
}

// Host evaluates script in an isolated world of the host page: the
// harness's own view of what the host shows the user, which no script of
// the page can answer for.
func (s *Surface) Host(script string, out any) {
	ginkgo.GinkgoHelper()
	ctx, cancel := context.WithTimeout(s.tc.ctx(), 5*time.Second)
	defer cancel()
	if err := s.sess.Inspect(ctx, "", script, out); err != nil {
		s.tc.Errorf("reading the host page: %v", err)
	}
}

// FromHost lists the messages the frame received from the host page, in
// order.
func (r *ProbeResult) FromHost() []hostbridge.Message {
	var out []hostbridge.Message
	for _, rc := range r.Received {
		if !rc.FromParent {
			continue
		}
		if m, ok := rc.Message(); ok {
			out = append(out, m)
		}
	}
	return out
}

// Answer returns the host's answer to requestID (host:response, host:error
// or a snapshot carrying it).
func (r *ProbeResult) Answer(requestID string) (hostbridge.Message, bool) {
	for _, m := range r.FromHost() {
		if m.RequestID == requestID && m.Type != "" {
			return m, true
		}
	}
	return hostbridge.Message{}, false
}

// OfType lists the host's messages of type t.
func (r *ProbeResult) OfType(t string) []hostbridge.Message {
	var out []hostbridge.Message
	for _, m := range r.FromHost() {
		if m.Type == t {
			out = append(out, m)
		}
	}
	return out
}

// StepFailed says whether step i of the scenario did not complete (an
// await that timed out).
func (r *ProbeResult) StepFailed(i int) bool {
	for _, s := range r.Steps {
		if s.Step == i {
			return !s.OK
		}
	}
	return true
}

// Observe asks the host what it recorded of appID's surface.
func (tc *TestContext) Observe(appID string) protocol.ObserveResult {
	ginkgo.GinkgoHelper()
	tc.RequireMethod(protocol.MethodObserve)
	var r protocol.ObserveResult
	tc.MustCall(protocol.MethodObserve, protocol.ObserveParams{AppID: appID}, &r)
	return r
}

// Executed reports whether the host's record shows requestID allowed.
func Executed(o protocol.ObserveResult, requestID string) bool {
	for _, c := range o.Calls {
		if c.RequestID == requestID && c.Decision == protocol.DecisionAllowed {
			return true
		}
	}
	return false
}

// CallOf returns the host's record of requestID.
func CallOf(o protocol.ObserveResult, requestID string) (protocol.BridgeCall, bool) {
	for _, c := range o.Calls {
		if c.RequestID == requestID {
			return c, true
		}
	}
	return protocol.BridgeCall{}, false
}

// HostSet changes host state as a user would (host/set).
func (tc *TestContext) HostSet(p protocol.SetParams) {
	ginkgo.GinkgoHelper()
	tc.RequireMethod(protocol.MethodSet)
	tc.MustCall(protocol.MethodSet, p, &protocol.OK{})
}

// PageText opens the page the host named (a URL, a DevTools target or a
// window of its own)
// and returns the text a user sees there. A page that loads and then stops
// answering (its script never yields) ends the spec as an error within
// pageAnswerTimeout, and counts as a surface that failed to load
// (surfaceMissed), as a page that never loads does: the run gives up on
// them in bounded time.
func PageText(tc *TestContext, at protocol.Where) string {
	ginkgo.GinkgoHelper()
	if tc.surfaceGaveUp != "" {
		tc.Errorf("not attempted: %s", tc.surfaceGaveUp)
	}
	what := "the page " + at.URL
	switch {
	case at.URL != "":
	case at.DevTools != nil:
		what = "the page of DevTools target " + at.DevTools.TargetID
	case at.Window != nil:
		what = "the host's window at " + at.Window.URL
	}
	sess := tc.openPage(at, "the page")
	ctx, cancel := context.WithTimeout(tc.ctx(), pageAnswerTimeout)
	defer cancel()
	var text string
	if err := sess.Inspect(ctx, "", "document.body ? document.body.innerText : ''", &text); err != nil {
		tc.markStuck(sess)
		tc.surfaceMissed(fmt.Sprintf("%s loaded, then did not answer a read of its text within %s: %v", what, pageAnswerTimeout, err))
	}
	tc.surfaceMisses = 0
	return text
}

// TC is the spec's context the surface was opened in.
func (s *Surface) TC() *TestContext { return s.tc }

// Session is the browser session the surface is open in.
func (s *Surface) Session() browser.Page { return s.sess }

// pageAnswerTimeout is how long a loaded page may take to answer one read:
// milliseconds on a page that yields, for ever on one that spins.
const pageAnswerTimeout = 3 * time.Second
