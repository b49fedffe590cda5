package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Session is one spec's view of the browser: a fresh browser context (its
// own cookies, storage and cache, like an incognito window) with one page.
// Use a Session from one goroutine at a time; Console and ConsoleDropped
// may be called from any goroutine.
type Session struct {
	b    *Browser
	page *conn // set at creation

	mu      sync.Mutex
	bctx    cdp.BrowserContextID
	conns   map[target.ID]*conn // the page and its OOPIFs, attached or being attached
	seqs    map[cdp.FrameID]int
	nextSeq int
	console consoleLog
	closed  bool
	// borrowed is true for a page the browser's owner opened (AttachPage):
	// Close detaches from it and leaves it open.
	borrowed bool
}

// NewSession opens a fresh, isolated browser context with one blank page,
// within ctx.
func (b *Browser) NewSession(ctx context.Context) (*Session, error) {
	s := &Session{b: b, conns: map[target.ID]*conn{}, seqs: map[cdp.FrameID]int{}}
	if err := b.add(s); err != nil {
		return nil, err
	}
	page := newConn("", false)
	s.page = page
	var cc *chromedp.Context
	err := await(ctx, func() error {
		var err error
		cc, err = s.open(page, b.root, chromedp.WithNewBrowserContext())
		return err
	})
	if err == nil {
		s.mu.Lock()
		s.bctx = cc.BrowserContextID
		page.id = cc.Target.TargetID
		s.conns[page.id] = page
		s.mu.Unlock()
		page.t = cc.Target
		err = s.setup(ctx, page, page.t)
	}
	page.err = err
	close(page.ready)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("browser: new session: %w", err), s.Close())
	}
	return s, nil
}

// AttachPage opens a session on a page that is already open in the
// browser: the target targetID, which a browser-runtime host (Electron)
// named for the surface it mounted. The session shares that page's
// browser context with whatever else the host runs there; Close detaches
// and leaves the page open. Open may still navigate it.
func (b *Browser) AttachPage(ctx context.Context, targetID string) (*Session, error) {
	info, err := cdp.Call(ctx, b.cdp, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(targetID)})
	if err != nil {
		return nil, fmt.Errorf("browser: no target %q in the browser: %w", targetID, err)
	}
	if info.TargetInfo == nil || info.TargetInfo.Type != "page" {
		return nil, fmt.Errorf("browser: target %q is not a page", targetID)
	}
	s := &Session{b: b, conns: map[target.ID]*conn{}, seqs: map[cdp.FrameID]int{}, borrowed: true, bctx: info.TargetInfo.BrowserContextID}
	if err := b.add(s); err != nil {
		return nil, err
	}
	page := newConn(info.TargetInfo.TargetID, false)
	s.page = page
	s.mu.Lock()
	s.conns[page.id] = page
	s.mu.Unlock()
	var cc *chromedp.Context
	err = await(ctx, func() error {
		var err error
		cc, err = s.open(page, b.root, chromedp.WithTargetID(page.id))
		return err
	})
	if err == nil {
		page.t = cc.Target
		err = s.setup(ctx, page, page.t)
	}
	page.err = err
	close(page.ready)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("browser: attaching to page %s: %w", targetID, err), s.Close())
	}
	return s, nil
}

// usable returns an error once the session or its browser is closed.
func (s *Session) usable() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case s.b.isClosed():
		return errBrowserClosed
	case closed:
		return errSessionClosed
	}
	return nil
}

// Open navigates the page to url and waits, within ctx, until it has
// loaded (its load event, which waits for its frames). A response of
// HTTP 400 or more is an error too.
func (s *Session) Open(ctx context.Context, url string) error {
	if err := s.usable(); err != nil {
		return err
	}
	resp, err := chromedp.Run(bound(ctx, s.page.cctx), chromedp.NavigateResponse(url))
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("browser: open %s: the page did not load in time: %w", url, err)
	case err != nil:
		return fmt.Errorf("browser: open %s: %w", url, err)
	case resp != nil && resp.Status >= 400:
		return fmt.Errorf("browser: open %s: HTTP %d %s", url, resp.Status, resp.StatusText)
	}
	return nil
}

// AwaitLoaded waits, within ctx, until the page's document has loaded
// (readyState complete): for a page the browser's owner opened
// (AttachPage), which the session did not navigate itself.
func (s *Session) AwaitLoaded(ctx context.Context) error { return AwaitComplete(ctx, s) }

// Screenshot returns a PNG of the page's viewport.
func (s *Session) Screenshot(ctx context.Context) ([]byte, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	res, err := cdp.Call(ctx, s.page.t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	return res.Data, nil
}

// Console returns what the page and all its frames (OOPIFs included) said
// so far, at most 1000 lines; ConsoleDropped counts those beyond.
func (s *Session) Console() []ConsoleLine {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ConsoleLine(nil), s.console.lines...)
}

// ConsoleDropped is the number of console lines not kept because the
// session already held 1000.
func (s *Session) ConsoleDropped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.console.dropped
}

// markClosed flags the session closed and returns its conns, or false if
// it already was.
func (s *Session) markClosed() ([]*conn, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	s.closed = true
	conns := []*conn{s.page}
	for _, c := range s.conns {
		if c != s.page {
			conns = append(conns, c)
		}
	}
	return conns, true
}

// Close disposes of the session's browser context, which closes its page
// and frames without asking them (and kills their renderers, a spinning
// script and all), and detaches from them. It is idempotent.
func (s *Session) Close() error {
	conns, ok := s.markClosed()
	if !ok {
		return nil
	}
	defer s.b.forget(s)
	s.mu.Lock()
	bctx := s.bctx
	if s.borrowed {
		bctx = "" // the owner's context: only detach
	}
	s.mu.Unlock()
	var err error
	if bctx != "" {
		// The answer waits behind whatever the page sent before: a long
		// backlog from a page flooding the console takes a while.
		ctx, cancel := shortly(5 * time.Second)
		_, err = cdp.Call(ctx, s.b.cdp, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: bctx})
		cancel()
		if err != nil {
			err = fmt.Errorf("browser: closing the session: %w", err)
		}
	}
	// The targets are gone with the context; detaching frees the client's
	// side of them and needs no waiting for.
	for _, c := range conns {
		go s.detach(c)
	}
	return err
}

// abandon frees the session's resources without talking to the browser,
// which is gone.
func (s *Session) abandon() {
	conns, ok := s.markClosed()
	if !ok {
		return
	}
	for _, c := range conns {
		s.detach(c)
	}
}
