package suites

import (
	"context"
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
