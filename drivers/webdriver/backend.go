package webdriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
)

// Options say which browser a [Browser] drives over WebDriver.
type Options struct {
	// Engine is the engine judged: browser.EngineWebKit (WebKitWebDriver
	// and MiniBrowser, or tauri-driver) or browser.EngineChromium
	// (chromedriver and Debian's chromium).
	Engine browser.Engine
	// URL attaches to a remote end somebody else runs (tauri-driver, a
	// WebKitWebDriver of the host under test); "" starts one per page as
	// needed.
	URL string
	// Driver is the driver binary to start (default WebKitWebDriver or
	// chromedriver); Binary the browser it drives (default MiniBrowser or
	// chromium).
	Driver, Binary string
	// Capabilities, when set, are what each new session asks for instead
	// of the engine's defaults (tauri-driver's tauri:options).
	Capabilities Capabilities
	// HostSession says the session's application is the host under test
	// (a Tauri host that tauri-driver starts): Launch opens one session
	// and keeps it until Close, each page is a new window of it, and
	// [Browser.HostWindow] finds the windows the host shows its pages in.
	// Capabilities name the host's application.
	HostSession bool
	// Log receives the drivers' output; nil discards it.
	Log io.Writer
}

// Browser is a browser reached over W3C WebDriver: one remote end the
// operator named, or remote ends the harness starts (WebKitWebDriver under
// xvfb-run) and keeps while idle, one per open page since WebKitWebDriver
// serves one session at a time. Each [Page] is a session: a fresh browser
// process, so a fresh profile.
type Browser struct {
	o Options

	mu     sync.Mutex
	idle   []*Server
	pages  map[*Page]struct{}
	closed bool
	info   browser.Info
	// host is the session whose application is the host (HostSession):
	// its first window, open until Close.
	host *Page
}

// startTimeout bounds starting a remote end and a session in it.
const startTimeout = 30 * time.Second

// Launch readies a browser over WebDriver and opens (and closes) one
// session to learn the browser's name and version. An error wraps
// browser.ErrNoBrowser when the driver or the browser is not installed.
func Launch(ctx context.Context, o Options) (*Browser, error) {
	switch o.Engine {
	case browser.EngineWebKit:
		o.Driver, o.Binary = or(o.Driver, "WebKitWebDriver"), or(o.Binary, MiniBrowser)
	case browser.EngineChromium:
		o.Driver, o.Binary = or(o.Driver, "chromedriver"), or(o.Binary, "chromium")
	default:
		return nil, fmt.Errorf("webdriver: no engine %q (want %s or %s)", o.Engine, browser.EngineChromium, browser.EngineWebKit)
	}
	if o.URL == "" && o.Capabilities == nil {
		if _, err := exec.LookPath(o.Binary); err != nil {
			return nil, fmt.Errorf("webdriver: %w: %v", browser.ErrNoBrowser, err)
		}
	}
	b := &Browser{o: o, pages: map[*Page]struct{}{}}
	b.info = browser.Info{Engine: o.Engine, Protocol: browser.ProtocolWebDriver, Reached: b.reached()}
	p, err := b.newPage(ctx)
	if err != nil {
		return nil, errors.Join(err, b.Close())
	}
	b.mu.Lock()
	b.info.Product, b.info.Version = capString(p.sh.s.Caps, "browserName"), capString(p.sh.s.Caps, "browserVersion")
	b.info.EngineVersion = b.info.Version
	if o.Engine == browser.EngineWebKit {
		// WebKitGTK's browsers (MiniBrowser, a Tauri app) give the
		// engine's version as theirs.
		b.info.Build = "WebKitGTK"
	}
	if o.HostSession {
		// The session is the host's application: it lives as long as b.
		b.host = p
		delete(b.pages, p)
		b.mu.Unlock()
		return b, nil
	}
	b.mu.Unlock()
	if err := p.Close(); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func capString(c Capabilities, name string) string {
	s, _ := c[name].(string)
	return s
}

// reached says how the harness reaches the remote end.
func (b *Browser) reached() string {
	if b.o.HostSession {
		return "the host's own application, started by a session of " + or(b.o.URL, filepath.Base(b.o.Driver))
	}
	if b.o.URL != "" {
		return "attached to " + b.o.URL
	}
	how := "launched by " + filepath.Base(b.o.Driver)
	if b.o.Engine == browser.EngineWebKit {
		how += " under xvfb-run"
	}
	return how
}

// Info says which browser b is and how the harness reached it.
func (b *Browser) Info() browser.Info {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.info
}

// Describe names the browser for reports (browser.Info.String).
func (b *Browser) Describe() string { return b.Info().String() }

// NewPage opens a session as a page.
func (b *Browser) NewPage(ctx context.Context) (browser.Page, error) {
	p, err := b.newPage(ctx)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// newPage takes an idle remote end (or starts one) and opens a session.
func (b *Browser) newPage(ctx context.Context) (*Page, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, startTimeout)
		defer cancel()
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errors.New("webdriver: the browser is closed")
	}
	if host := b.host; host != nil {
		// One application is the host: a second session would start a
		// second one.
		b.mu.Unlock()
		p, err := b.windowIn(ctx, host.sh)
		if err != nil {
			return nil, fmt.Errorf("webdriver: a new window of the host's session: %w", err)
		}
		return b.register(p)
	}
	var srv *Server
	if n := len(b.idle); n > 0 {
		srv, b.idle = b.idle[n-1], b.idle[:n-1]
	}
	b.mu.Unlock()
	url := b.o.URL
	if url == "" && srv == nil {
		var err error
		srv, err = StartServer(ctx, ServerOptions{Binary: b.o.Driver, Xvfb: b.o.Engine == browser.EngineWebKit, Log: b.o.Log})
		if err != nil {
			if errors.Is(err, ErrNoDriver) {
				err = fmt.Errorf("%w: %w", browser.ErrNoBrowser, err)
			}
			return nil, err
		}
	}
	if srv != nil {
		url = srv.URL
	}
	caps, profile, err := b.capabilities(srv)
	if err != nil {
		b.release(srv, false)
		return nil, err
	}
	s, err := NewClient(url).NewSession(ctx, caps)
	if err != nil && srv == nil && IsCode(err, CodeSessionNotCreated) {
		// The operator's remote end serves one session (tauri-driver):
		// a window of an open page's session.
		if p, werr := b.windowPage(ctx); p != nil || werr != nil {
			if werr != nil {
				return nil, fmt.Errorf("webdriver: a new %s session at %s: %w; a new window of the open session: %w", b.o.Engine, url, err, werr)
			}
			return b.register(p)
		}
	}
	if err != nil {
		b.release(srv, false)
		return nil, fmt.Errorf("webdriver: a new %s session at %s: %w", b.o.Engine, url, err)
	}
	p := newPage(b, srv, &shared{s: s}, "", profile)
	if err := s.Timeouts(ctx, scriptTimeout, pageLoadTimeout); err != nil {
		_ = p.Close()
		return nil, fmt.Errorf("webdriver: setting the session's timeouts: %w", err)
	}
	return b.register(p)
}

// register adds an open page to b, or closes it when b closed meanwhile.
func (b *Browser) register(p *Page) (*Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		go p.Close()
		return nil, errors.New("webdriver: the browser is closed")
	}
	b.pages[p] = struct{}{}
	return p, nil
}

// windowPage opens a page as a new window of an open page's session, or
// answers nil, nil when no page is open.
func (b *Browser) windowPage(ctx context.Context) (*Page, error) {
	b.mu.Lock()
	var sh *shared
	for p := range b.pages {
		if p.srv == nil {
			sh = p.sh
			break
		}
	}
	b.mu.Unlock()
	if sh == nil {
		return nil, nil
	}
	return b.windowIn(ctx, sh)
}

// windowIn opens a page as a new window of the session sh.
func (b *Browser) windowIn(ctx context.Context, sh *shared) (*Page, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if err := b.pinAlone(ctx, sh); err != nil {
		return nil, err
	}
	h, err := sh.s.NewWindow(ctx)
	if err != nil {
		return nil, err
	}
	return newPage(b, nil, sh, h, ""), nil
}

// pinAlone gives the page alone in sh so far (no handle: its window is the
// current one) its window's handle, before another window becomes current.
// The caller holds sh.mu.
func (b *Browser) pinAlone(ctx context.Context, sh *shared) error {
	b.mu.Lock()
	var alone *Page
	for p := range b.pages {
		if p.sh == sh && p.win == "" {
			alone = p
		}
	}
	if h := b.host; h != nil && h.sh == sh && h.win == "" {
		alone = h
	}
	b.mu.Unlock()
	if alone == nil {
		return nil
	}
	h, err := sh.s.WindowHandle(ctx)
	if err != nil {
		return fmt.Errorf("webdriver: the session's current window: %w", err)
	}
	alone.win, sh.cur = h, h
	return nil
}

// windowPoll is how often HostWindow looks again for the host's window.
const windowPoll = 100 * time.Millisecond

// HostWindow finds, within ctx, the window of the host's session
// (Options.HostSession) whose top document is at address, its fragment
// aside, waiting for the host to show it there, and gives it as a page
// the harness leaves open: closing the page closes no window of the
// host's. An error names the address each window showed at the last look.
func (b *Browser) HostWindow(ctx context.Context, address string) (browser.Page, error) {
	b.mu.Lock()
	host := b.host
	b.mu.Unlock()
	if host == nil {
		return nil, errors.New("webdriver: the harness holds no session whose application is the host (HostSession)")
	}
	want := withoutFragment(address)
	for {
		h, seen, err := b.findWindow(ctx, host.sh, want)
		if h != "" {
			host.sh.mu.Lock()
			p := newPage(b, nil, host.sh, h, "")
			host.sh.mu.Unlock()
			p.hosts = true
			return b.register(p)
		}
		if werr := sleep(ctx, windowPoll); werr != nil {
			if err == nil {
				err = fmt.Errorf("the windows show %s", strings.Join(seen, ", "))
			}
			return nil, fmt.Errorf("webdriver: no window of the host's session shows %s: %w", address, err)
		}
	}
}

// findWindow looks once, window by window, for the one at want, and says
// what each showed.
func (b *Browser) findWindow(ctx context.Context, sh *shared, want string) (string, []string, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if err := b.pinAlone(ctx, sh); err != nil {
		return "", nil, err
	}
	handles, err := sh.s.WindowHandles(ctx)
	if err != nil {
		return "", nil, err
	}
	var seen []string
	for _, h := range handles {
		if err := sh.s.SwitchToWindow(ctx, h); err != nil {
			continue // closed meanwhile
		}
		sh.cur = h
		at, err := sh.s.CurrentURL(ctx)
		if err != nil {
			continue
		}
		if withoutFragment(at) == want {
			return h, nil, nil
		}
		seen = append(seen, fmt.Sprintf("%q", at))
	}
	return "", seen, nil
}

// withoutFragment is address without its #fragment.
func withoutFragment(address string) string {
	s, _, _ := strings.Cut(address, "#")
	return s
}

// Timeouts every session gets; each call is bounded by its context too.
const (
	scriptTimeout   = 60 * time.Second
	pageLoadTimeout = 30 * time.Second
)

// capabilities are what a new session asks for, and the fresh profile
// folder a Chromium session gets (removed with the page).
func (b *Browser) capabilities(srv *Server) (Capabilities, string, error) {
	switch {
	case b.o.Capabilities != nil:
		return b.o.Capabilities, "", nil
	case b.o.Engine == browser.EngineWebKit:
		return WebKitCapabilities(b.o.Binary), "", nil
	}
	parent := ""
	if srv != nil {
		parent = srv.dir.Path
	}
	dir, err := os.MkdirTemp(parent, "profile-")
	if err != nil {
		return nil, "", fmt.Errorf("webdriver: a profile folder: %w", err)
	}
	bin, err := exec.LookPath(b.o.Binary)
	if err != nil {
		bin = b.o.Binary
	}
	return ChromeCapabilities(bin, dir), dir, nil
}

// release hands back a page's remote end: kept for the next page when its
// session ended cleanly, else killed.
func (b *Browser) release(srv *Server, clean bool) {
	if srv == nil {
		return
	}
	b.mu.Lock()
	if clean && !b.closed {
		b.idle = append(b.idle, srv)
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	srv.Close()
}

// forget unregisters a closed page.
func (b *Browser) forget(p *Page) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pages, p)
}

// Close ends every page and kills every remote end the harness started;
// a remote end the operator named keeps running. It is idempotent.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	pages := make([]*Page, 0, len(b.pages)+1)
	for p := range b.pages {
		pages = append(pages, p)
	}
	if b.host != nil {
		pages = append(pages, b.host) // last: its session ends the host
	}
	idle := b.idle
	b.idle = nil
	b.mu.Unlock()
	var errs []error
	for _, p := range pages {
		if err := p.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range idle {
		s.Close()
	}
	return errors.Join(errs...)
}

var _ browser.Driver = (*Browser)(nil)
