package browser

import (
	"context"
	"fmt"
	"time"
)

// Driver is a browser the harness judges the app surface in, whatever its
// engine and protocol: a Chromium over DevTools ([Browser]) or a browser
// over W3C WebDriver (drivers/webdriver). Specs share it and each opens its
// own [Page]. Its methods are safe for concurrent use.
type Driver interface {
	// NewPage opens a fresh, isolated page (its own cookies and storage),
	// within ctx.
	NewPage(ctx context.Context) (Page, error)
	// Info says which browser it is and how the harness reached it.
	Info() Info
	// Describe is Info as text, for reports.
	Describe() string
	// Close ends every page and the browser (or the connection to one the
	// harness did not start). It is idempotent.
	Close() error
}

// Page is one spec's page in a [Driver]: the narrow surface the specs
// use (navigate, pick a frame by URL prefix, run scripts in it or in a
// world of the harness's, read a blob, and a console, frames and a
// screenshot for the report). [Session] documents each method; a backend
// without isolated worlds says in its own documentation what stands for
// them.
type Page interface {
	Open(ctx context.Context, url string) error
	AwaitLoaded(ctx context.Context) error
	Eval(ctx context.Context, frameURLPrefix, script string, out any) error
	Inspect(ctx context.Context, frameURLPrefix, script string, out any) error
	EvalIn(ctx context.Context, frameURLPrefix, world, script string, out any) error
	Install(ctx context.Context, frameURLPrefix, world, source string) error
	Globals(ctx context.Context, frameURLPrefix string, names []string) (map[string]Global, error)
	Frames(ctx context.Context) ([]Frame, error)
	AwaitResult(ctx context.Context, frameURLPrefix string, out any) error
	Screenshot(ctx context.Context) ([]byte, error)
	Console() []ConsoleLine
	ConsoleDropped() int
	Close() error
}

// NewPage opens a new [Session] as a [Page].
func (b *Browser) NewPage(ctx context.Context) (Page, error) {
	s, err := b.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	return s, nil
}

var (
	_ Driver = (*Browser)(nil)
	_ Page   = (*Session)(nil)
)

// AwaitComplete waits, within ctx, until the top document of p has loaded
// (readyState complete), polling it with Eval: Page.AwaitLoaded of every
// backend. The initial about:blank of a page the host has just opened is
// complete before the host's own address commits: it does not count.
// awaitCompleteScript answers "complete" once a document other than the
// initial about:blank has loaded, else its state and address.
const awaitCompleteScript = `document.readyState === "complete" && location.href !== "about:blank" ? "complete" : document.readyState + " at " + location.href`

func AwaitComplete(ctx context.Context, p interface {
	Eval(ctx context.Context, frameURLPrefix, script string, out any) error
}) error {
	for {
		var state string
		err := p.Eval(ctx, "", awaitCompleteScript, &state)
		if err == nil && state == "complete" {
			return nil
		}
		if werr := sleep(ctx, 50*time.Millisecond); werr != nil {
			return fmt.Errorf("browser: the page did not load in time (readyState %q, %v): %w", state, err, werr)
		}
	}
}
