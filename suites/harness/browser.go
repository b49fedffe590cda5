package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/webdriver"
)

// BrowserConfig says which browser the surface specs use: Debian's
// Chromium (or Binary) launched by the harness, or a running browser
// runtime's DevTools endpoint (an Electron host started with
// --remote-debugging-port).
type BrowserConfig struct {
	Binary   string
	Endpoint string
	// Engine is the engine the surface specs judge in: "" or chromium is
	// Chromium over DevTools (Binary or Endpoint), or over WebDriver when
	// WebDriver is set; webkit is WebKitGTK over WebDriver (the harness
	// starts WebKitWebDriver under xvfb-run, or attaches to WebDriver).
	Engine browser.Engine
	// WebDriver is the address of a running W3C WebDriver remote end
	// (tauri-driver, WebKitWebDriver, chromedriver) to judge in.
	WebDriver string
	// WebDriverCapabilities, when set, are what each WebDriver session
	// asks for instead of the engine's defaults (tauri-driver's
	// tauri:options naming the Tauri app).
	WebDriverCapabilities map[string]any
	// WebDriverHost says the WebDriver session's application is the host
	// under test (a Tauri host tauri-driver starts, named by
	// WebDriverCapabilities): the run starts that session before it
	// connects to the host, keeps it to the end, and finds the windows the
	// host names in app/launch and app/center there (--webdriver-host).
	WebDriverHost bool
	// TrustHostRuntime lets the harness judge the app surface in a
	// browser runtime the host names in app/launch or app/center that is
	// not Endpoint (--trust-host-browser). A browser the host controls can
	// show the harness whatever the host likes, so by default the harness
	// attaches only to a browser it launched or the operator named.
	TrustHostRuntime bool
}

// browserStartTimeout bounds the browser's start.
const browserStartTimeout = 30 * time.Second

// browserStarter starts the run's one browser on first use and keeps the
// outcome: a run without a browser tries once.
type browserStarter struct {
	once sync.Once
	b    browser.Driver
	err  error
}

func (s *browserStarter) get(cfg BrowserConfig) (browser.Driver, error) {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), browserStartTimeout)
		defer cancel()
		// Each branch keeps a nil Driver on error, never a nil pointer in one.
		switch {
		case cfg.overWebDriver():
			if b, err := webdriver.Launch(ctx, webdriver.Options{Engine: cfg.engine(), URL: cfg.WebDriver, Binary: cfg.Binary, Capabilities: cfg.WebDriverCapabilities, HostSession: cfg.WebDriverHost}); err != nil {
				s.err = err
			} else {
				s.b = b
			}
		case cfg.Endpoint != "":
			if b, err := browser.Attach(ctx, cfg.Endpoint); err != nil {
				s.err = err
			} else {
				s.b = b
			}
		default:
			if b, err := browser.LaunchChromium(ctx, browser.Options{Binary: cfg.Binary}); err != nil {
				s.err = err
			} else {
				s.b = b
			}
		}
	})
	return s.b, s.err
}

// engine is the engine the run judges in.
func (cfg BrowserConfig) engine() browser.Engine {
	if cfg.Engine == "" {
		return browser.EngineChromium
	}
	return cfg.Engine
}

// overWebDriver says the run reaches its browser over W3C WebDriver.
func (cfg BrowserConfig) overWebDriver() bool {
	return cfg.WebDriver != "" || cfg.WebDriverHost || cfg.engine() != browser.EngineChromium
}

// text says which browser the run judged in, for the report, or ""
// when none started.
func (s *browserStarter) text(cfg BrowserConfig) string {
	if s.b == nil {
		return ""
	}
	who := "the harness's"
	switch {
	case cfg.WebDriverHost:
		who = "the host's own web view, in the session --webdriver-capabilities asked for"
	case cfg.Endpoint != "" || cfg.WebDriver != "":
		who = "named by the operator"
	}
	return fmt.Sprintf("%s (%s); %s", s.b.Describe(), who, probeEvidence(s.b.Info().Protocol))
}

// probeEvidence says where the Host Bridge verdicts come from: an isolated
// world over DevTools; over WebDriver, which has none, the app frame's own
// world (docs/decisions.md, "Host Bridge evidence on WebKit").
func probeEvidence(protocol string) string {
	if protocol == browser.ProtocolWebDriver {
		return "evidence: the harness's probe in the page's world of the app's frame, injected after the page's scripts, over WebDriver"
	}
	return "evidence: the harness's probe in an isolated world, over DevTools"
}

// sameEndpoint reports whether two DevTools addresses name the same
// browser: the same host and port (one may be the ws:// address that
// http://HOST:PORT/json/version gives).
func sameEndpoint(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host != "" && strings.EqualFold(ua.Host, ub.Host)
}

func (s *browserStarter) close() {
	if s.b != nil {
		_ = s.b.Close()
		s.b = nil
	}
}

// browser returns the run's browser, starting it on first use.
func (tc *TestContext) browser() (browser.Driver, error) {
	return tc.browserOnce.get(tc.Config.Browser)
}

// browsersUsed describes the browsers the run judged in, as text and as
// the engine and version each named.
func (tc *TestContext) browsersUsed() ([]string, []browser.Info) {
	var out []string
	var infos []browser.Info
	if d := tc.browserOnce.text(tc.Config.Browser); d != "" {
		out = append(out, d)
		infos = append(infos, tc.browserOnce.b.Info())
	}
	texts, more := tc.runtimes.text(tc.Config.Browser)
	return append(out, texts...), append(infos, more...)
}

// runtimeBrowsers are the browser runtimes hosts named in DevTools
// answers (app/launch, app/center), attached on first use and kept by
// endpoint until the run ends. An endpoint must be on loopback: the
// harness dials nothing else a host names.
type runtimeBrowsers struct {
	mu sync.Mutex
	m  map[string]*browser.Browser
}

// errUntrustedRuntime is why the harness does not attach to a browser the
// host names: see BrowserConfig.TrustHostRuntime.
var errUntrustedRuntime = errors.New("the harness judges the app surface only in a browser it launched or the operator named (--browser-endpoint): " +
	"a browser the host controls can show it whatever the host likes. Name it with --browser-endpoint, or pass --trust-host-browser to judge in it anyway (the report says so)")

// errNoHostSession is why the harness cannot judge a window the host names
// without --webdriver-host.
var errNoHostSession = errors.New("the harness finds a host's own window only in the WebDriver session whose application is the host: " +
	"run with --webdriver-host and --webdriver-capabilities naming the host's application (tauri-driver's tauri:options), and --host-addr where it listens")

// trusts reports whether the harness may judge in the browser at endpoint.
func (cfg BrowserConfig) trusts(endpoint string) bool {
	return cfg.TrustHostRuntime || (cfg.Endpoint != "" && sameEndpoint(cfg.Endpoint, endpoint))
}

// text lists the host runtimes the run judged in, for the report, by
// endpoint.
func (r *runtimeBrowsers) text(cfg BrowserConfig) ([]string, []browser.Info) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	var infos []browser.Info
	for _, e := range slices.Sorted(maps.Keys(r.m)) {
		b := r.m[e]
		infos = append(infos, b.Info())
		who := "the host's own runtime, trusted with --trust-host-browser"
		if cfg.Endpoint != "" && sameEndpoint(cfg.Endpoint, e) {
			who = "the host's runtime, named by the operator"
		}
		out = append(out, fmt.Sprintf("%s (%s); %s", b.Describe(), who, probeEvidence(browser.ProtocolDevTools)))
	}
	return out, infos
}

func (r *runtimeBrowsers) get(endpoint string) (*browser.Browser, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
		return nil, fmt.Errorf("the DevTools endpoint %q is not a ws:// or wss:// URL", endpoint)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("the DevTools endpoint %q is not on loopback; the harness attaches to loopback endpoints only", endpoint)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.m[endpoint]; b != nil {
		return b, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserStartTimeout)
	defer cancel()
	b, err := browser.Attach(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	if r.m == nil {
		r.m = map[string]*browser.Browser{}
	}
	r.m[endpoint] = b
	return b, nil
}

func (r *runtimeBrowsers) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for e, b := range r.m {
		_ = b.Close()
		delete(r.m, e)
	}
}
