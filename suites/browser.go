package suites

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
)

// BrowserConfig says which browser the surface specs use: Debian's
// Chromium (or Binary) launched by the harness, or a running browser
// runtime's DevTools endpoint (an Electron host started with
// --remote-debugging-port).
type BrowserConfig struct {
	Binary   string
	Endpoint string
}

// browserStartTimeout bounds the browser's start.
const browserStartTimeout = 30 * time.Second

// browserStarter starts the run's one browser on first use and keeps the
// outcome: a run without a browser tries once.
type browserStarter struct {
	once sync.Once
	b    *browser.Browser
	err  error
}

func (s *browserStarter) get(cfg BrowserConfig) (*browser.Browser, error) {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), browserStartTimeout)
		defer cancel()
		if cfg.Endpoint != "" {
			s.b, s.err = browser.Attach(ctx, cfg.Endpoint)
			return
		}
		s.b, s.err = browser.LaunchChromium(ctx, browser.Options{Binary: cfg.Binary})
	})
	return s.b, s.err
}

func (s *browserStarter) close() {
	if s.b != nil {
		_ = s.b.Close()
		s.b = nil
	}
}

// browser returns the run's browser, starting it on first use.
func (tc *TestContext) browser() (*browser.Browser, error) {
	return tc.browserOnce.get(tc.Config.Browser)
}

// runtimeBrowsers are the browser runtimes hosts named in DevTools
// answers (app/launch, app/center), attached on first use and kept by
// endpoint until the run ends. An endpoint must be on loopback: the
// harness dials nothing else a host names.
type runtimeBrowsers struct {
	mu sync.Mutex
	m  map[string]*browser.Browser
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
