package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/agentapp/conformance/drivers/procs"
)

// Browser is one browser: a Chromium process LaunchChromium started, or a
// DevTools endpoint Attach connected to. Specs share it and each opens its
// own [Session]. Its methods are safe for concurrent use.
type Browser struct {
	info     Info
	launched bool
	pid      int    // the launched process; 0 when attached
	profile  string // the launched profile directory; "" when attached
	// profileDir holds the profile's owner lock (procs.SweepStale).
	profileDir *procs.TempDir

	root context.Context   // chromedp context owning the connection
	cdp  *chromedp.Browser // the connection, set once connected
	stop func()            // cancels root and the allocator; a launched browser is killed and reaped
	log  *syncWriter

	mu       sync.Mutex
	sessions map[*Session]struct{}
	closed   bool
	closeErr error
}

// LaunchChromium starts one browser process with a fresh temporary profile
// and connects to it over a pipe. The launch is bounded by ctx; the
// process lives until Close. An error wraps ErrNoBrowser when there is no
// browser binary to start.
func LaunchChromium(ctx context.Context, o Options) (*Browser, error) {
	exe, err := findBinary(o.Binary)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("browser: launching %s: %w", exe, err)
	}
	out := o.Log
	if out == nil {
		out = io.Discard
	}
	log := &syncWriter{w: out}
	pd, err := procs.MkdirTemp("agentapp-browser-")
	if err != nil {
		return nil, fmt.Errorf("browser: profile directory: %w", err)
	}
	dir := pd.Path
	if err := os.Mkdir(filepath.Join(dir, profileTmp), 0o700); err != nil {
		_ = pd.Remove()
		return nil, fmt.Errorf("browser: profile directory: %w", err)
	}
	opts, err := allocatorOptions(exe, dir, o, log)
	if err != nil {
		_ = pd.Remove()
		return nil, err
	}
	alloc, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	b := newBrowser(log, true, alloc, acancel)
	b.profile, b.profileDir = dir, pd
	if err := b.connect(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("browser: launching %s: %w", exe, err), b.Close())
	}
	if p := b.cdp.Process(); p != nil {
		b.pid = p.Pid
	}
	how := "launched"
	if !o.Visible {
		how += " headless"
	}
	if err := b.describe(ctx, exe, how); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// Attach connects to a browser that is already running with a DevTools
// endpoint: ws://HOST:PORT/devtools/browser/ID, or ws:// or http://HOST:PORT
// to look the address up. This is how the harness drives an Electron host
// started with --remote-debugging-port. Close disconnects and leaves the
// browser running.
func Attach(ctx context.Context, wsEndpoint string) (*Browser, error) {
	log := &syncWriter{w: io.Discard}
	var opts []remote.Option
	if strings.Contains(wsEndpoint, "/devtools/browser/") {
		opts = append(opts, remote.NoModifyURL)
	}
	alloc, acancel := remote.NewAllocator(context.Background(), wsEndpoint, opts...)
	b := newBrowser(log, false, alloc, acancel)
	if err := b.connect(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("browser: attaching to %s: %w", wsEndpoint, err), b.Close())
	}
	if err := b.describe(ctx, "", "attached to "+wsEndpoint); err != nil {
		return nil, errors.Join(err, b.Close())
	}
	return b, nil
}

// newBrowser makes the root chromedp context on the allocator context
// alloc; nothing starts yet.
func newBrowser(log *syncWriter, launched bool, alloc context.Context, acancel context.CancelFunc) *Browser {
	root, rcancel := chromedp.NewContext(alloc, chromedp.WithLogf(log.logf), chromedp.WithErrorf(log.logf))
	b := &Browser{launched: launched, root: root, log: log, sessions: map[*Session]struct{}{}}
	b.stop = func() {
		rcancel() // kills a launched browser and waits for the process
		acancel()
		if c := chromedp.FromContext(alloc); c != nil && c.Allocator != nil {
			c.Allocator.Wait()
		}
	}
	return b
}

// connect starts the browser (or dials it) and opens the browser-level
// connection, without opening a tab. Only ctx bounds the wait: the first
// chromedp run binds the browser's life to the context it runs on.
func (b *Browser) connect(ctx context.Context) error {
	var conn *chromedp.Browser
	err := await(ctx, func() error {
		if _, err := chromedp.Targets(b.root); err != nil {
			return err
		}
		conn = chromedp.FromContext(b.root).Browser
		return nil
	})
	if err != nil {
		return err
	}
	b.cdp = conn
	return nil
}

// describe asks the browser for its version (Browser.getVersion) and
// records it with how the harness reached it (Info).
func (b *Browser) describe(ctx context.Context, exe, how string) error {
	v, err := cdp.Call(ctx, b.cdp, cdpbrowser.GetVersion, cdp.Empty{})
	if err != nil {
		return fmt.Errorf("browser: asking the browser for its version: %w", err)
	}
	b.info = versionInfo(v, exe, how)
	return nil
}

// Describe names the browser, its engine's version, the protocol and how
// the harness reached it, for reports: "Chromium 156.0.8078.79
// (HeadlessChrome) over DevTools, launched headless" (Info.String).
func (b *Browser) Describe() string { return b.info.String() }

// Close ends every session and the connection. A launched browser is
// killed, its leftover helper processes too, and its profile directory
// removed, also when it had crashed; an attached browser keeps running,
// minus the sessions the harness opened in it. Close is idempotent.
func (b *Browser) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return b.closeErr
	}
	b.closed = true
	sessions := make([]*Session, 0, len(b.sessions))
	for s := range b.sessions {
		sessions = append(sessions, s)
	}
	b.mu.Unlock()

	var errs []error
	if !b.launched {
		// Leave the remote browser as it was found.
		for _, s := range sessions {
			if err := s.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		b.stop()
	} else {
		b.stop()
		for _, s := range sessions {
			s.abandon()
		}
		if n := reap(b.profile); n > 0 {
			b.log.logf("killed %d leftover browser processes", n)
		}
		if err := removeAll(b.profile); err != nil {
			errs = append(errs, fmt.Errorf("browser: removing the profile directory: %w", err))
		}
		_ = b.profileDir.Remove() // releases the lock; a later run sweeps what is left
	}
	b.mu.Lock()
	b.closeErr = errors.Join(errs...)
	b.mu.Unlock()
	return b.closeErr
}

// removeAll removes dir, retrying for a while: a dying helper process can
// still write into it.
func removeAll(dir string) error {
	var err error
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err = os.RemoveAll(dir); err == nil || time.Now().After(deadline) {
			return err
		}
		reap(dir)
	}
}

// add registers a new session, unless the browser is closed.
func (b *Browser) add(s *Session) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errBrowserClosed
	}
	b.sessions[s] = struct{}{}
	return nil
}

// forget unregisters a closed session.
func (b *Browser) forget(s *Session) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.sessions, s)
}

// isClosed reports whether Close has begun.
func (b *Browser) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

var (
	errBrowserClosed = errors.New("browser: the browser is closed")
	errSessionClosed = errors.New("browser: the session is closed")
)
