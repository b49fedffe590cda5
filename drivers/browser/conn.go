package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/inspector"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// conn is one DevTools target a session is attached to: its page, or an
// out-of-process iframe (OOPIF) of it. With site isolation a cross-site
// frame runs in another renderer, and DevTools shows it as a target of
// type "iframe" whose ID is the frame's ID: the page's target neither
// lists its frames nor runs its scripts.
type conn struct {
	id    target.ID
	oopif bool

	// Set under Session.mu before the attach runs.
	cctx   context.Context    // chromedp context naming the target
	cancel context.CancelFunc // detaches (never closes: the contexts detach on cancel)

	ready chan struct{} // closed once attached (t set) or failed (err set)
	t     *chromedp.Target
	err   error

	// Guarded by Session.mu.
	info     *target.Info // an OOPIF's target info: its URL and parent frame
	frames   map[cdp.FrameID]*frameState
	contexts map[runtime.ExecutionContextID]execContext
	gen      int // frame events seen, to tell whether a seed is current
	// installed names the worlds Install put in this target.
	installed map[string]bool
}

// execContext is a JavaScript context (a world of a frame) in a target.
type execContext struct {
	frame  cdp.FrameID
	unique string // system-unique ID, for Runtime.evaluate
	main   bool   // the frame's main world, where the page's own scripts run
	world  string // an isolated world's name ("" for the main world)
}

func newConn(id target.ID, oopif bool) *conn {
	return &conn{
		id:       id,
		oopif:    oopif,
		ready:    make(chan struct{}),
		frames:   map[cdp.FrameID]*frameState{},
		contexts: map[runtime.ExecutionContextID]execContext{},
	}
}

// attached reports, without waiting, whether the attach succeeded.
func (c *conn) attached() bool {
	select {
	case <-c.ready:
		return c.err == nil
	default:
		return false
	}
}

// open makes c's chromedp contexts under parent and attaches, creating the
// target if opts say so; the caller bounds the wait with await. The event
// loop of the target runs on a context of its own, ended only once the
// browser has confirmed the detach (or is gone): a target whose loop
// stopped first would let its messages fill the browser connection's
// queue and stall every session.
func (s *Session) open(c *conn, parent context.Context, opts ...chromedp.ContextOption) (*chromedp.Context, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errSessionClosed
	}
	opts = append(opts, chromedp.WithDetachOnCancel(), chromedp.WithListener(func(ev any) { s.onEvent(c, ev) }))
	cctx, cancel := chromedp.NewContext(parent, opts...)
	loop, drain := context.WithCancel(context.WithoutCancel(cctx))
	c.cctx, c.cancel = cctx, cancel
	s.mu.Unlock()

	err := chromedp.Do(loop)
	cc := chromedp.FromContext(cctx)
	if cc.Target == nil {
		drain()
	} else {
		go func() {
			if ch, err := chromedp.Detached(cctx); err == nil {
				select {
				case <-ch:
				case <-s.b.root.Done():
				}
			}
			drain()
		}()
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		// Close ran during the attach and could not see this target.
		ctx, cancel := shortly(2 * time.Second)
		defer cancel()
		if c == s.page && cc.BrowserContextID != "" && !s.borrowed {
			_, _ = cdp.Call(ctx, s.b.cdp, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: cc.BrowserContextID})
		} else {
			_, _ = cdp.Call(ctx, s.b.cdp, target.DetachFromTarget, target.DetachFromTargetParams{SessionID: cc.Target.SessionID})
		}
		return nil, errSessionClosed
	}
	return cc, nil
}

// setup quiets a freshly attached target and learns its frames. chromedp
// enables the DOM domain and, on each new document, asks for the whole
// tree from its event loop; a page that then never yields while it floods
// the console would wedge that loop and, through it, the browser
// connection. Nothing here uses the DOM domain, so it is turned off.
func (s *Session) setup(ctx context.Context, c *conn, t *chromedp.Target) error {
	for _, cmd := range []cdp.Command[cdp.Empty, cdp.Empty]{css.Disable, dom.Disable} {
		if _, err := cdp.Call(ctx, t, cmd, cdp.Empty{}); err != nil {
			return fmt.Errorf("%s: %w", cmd.Method, err)
		}
	}
	return s.seed(ctx, c, t)
}

// seed loads c's frame tree. Frame events that arrive while the answer is
// on its way are newer than it, so a seed that raced them is retried.
func (s *Session) seed(ctx context.Context, c *conn, t *chromedp.Target) error {
	for try := 0; ; try++ {
		s.mu.Lock()
		gen := c.gen
		s.mu.Unlock()
		tree, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return fmt.Errorf("%s: %w", page.GetFrameTree.Method, err)
		}
		s.mu.Lock()
		current := c.gen == gen
		if current || try == 2 {
			s.addTree(c, tree.FrameTree, !current)
		}
		s.mu.Unlock()
		if current || try == 2 {
			return nil
		}
	}
}

// attachFrame attaches to an OOPIF target on its own goroutine.
func (s *Session) attachFrame(c *conn) {
	s.mu.Lock()
	parent := s.page.cctx
	s.mu.Unlock()
	cc, err := s.open(c, parent, chromedp.WithTargetID(c.id))
	if err == nil {
		s.mu.Lock()
		cctx := c.cctx
		s.mu.Unlock()
		c.t = cc.Target
		// Bounded by the session: closing it cancels cctx.
		err = s.setup(cctx, c, c.t)
		if err != nil {
			err = fmt.Errorf("attaching to frame %s: %w", c.id, err)
		}
	}
	c.err = err
	close(c.ready)
}

// detach cancels c's contexts, which detaches from its target if it is
// still attached, and waits for that.
func (s *Session) detach(c *conn) {
	s.mu.Lock()
	cancel := c.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// track notes a target the page's session discovered; a new cross-site
// iframe of this session (or one whose attach failed) gets a conn,
// attached in the background. Called under s.mu.
func (s *Session) track(info *target.Info) {
	if info == nil || info.Type != "iframe" || s.bctx == "" || info.BrowserContextID != s.bctx || s.closed {
		return
	}
	if c, ok := s.conns[info.TargetID]; ok {
		select {
		case <-c.ready:
			if c.err == nil {
				c.info = info
				return
			}
			// The attach failed (the frame may have been busy or
			// changing documents): try again.
			go s.detach(c)
		default:
			c.info = info
			return
		}
	}
	c := newConn(info.TargetID, true)
	c.info = info
	s.conns[c.id] = c
	s.seqOf(cdp.FrameID(c.id))
	go s.attachFrame(c)
}

// untrack forgets a target that is gone. Called under s.mu.
func (s *Session) untrack(id target.ID) {
	c, ok := s.conns[id]
	if !ok || c == s.page {
		return
	}
	delete(s.conns, id)
	go s.detach(c)
}

// discover asks the browser for its targets, to catch an iframe target
// whose creation event was missed and to drop those that are gone.
func (s *Session) discover(ctx context.Context) error {
	res, err := cdp.Call(ctx, s.b.cdp, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	alive := map[target.ID]bool{}
	for _, info := range res.TargetInfos {
		alive[info.TargetID] = true
		s.track(info)
	}
	for id, c := range s.conns {
		if c.oopif && !alive[id] {
			s.untrack(id)
		}
	}
	return nil
}

// onEvent handles an event of target c. It runs on chromedp's event loop
// of the target, so it only records and never waits for the browser.
func (s *Session) onEvent(c *conn, ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := ev.(*runtime.EventConsoleAPICalled); ok && s.console.full() {
		s.console.dropped++ // the cheap path for a page flooding its console
		return
	}
	switch e := ev.(type) {
	case *runtime.EventExecutionContextCreated:
		var aux struct {
			IsDefault bool        `json:"isDefault"`
			Type      string      `json:"type"`
			FrameID   cdp.FrameID `json:"frameId"`
		}
		if len(e.Context.AuxData) > 0 && json.Unmarshal(e.Context.AuxData, &aux) == nil && aux.FrameID != "" {
			c.contexts[e.Context.ID] = execContext{
				frame:  aux.FrameID,
				unique: e.Context.UniqueID,
				main:   aux.IsDefault,
			}
			if aux.Type == "isolated" {
				x := c.contexts[e.Context.ID]
				x.world = e.Context.Name
				c.contexts[e.Context.ID] = x
			}
		}
	case *runtime.EventExecutionContextDestroyed:
		for id, x := range c.contexts {
			if x.unique == e.ExecutionContextUniqueID {
				delete(c.contexts, id)
			}
		}
	case *runtime.EventExecutionContextsCleared:
		clear(c.contexts)
	case *runtime.EventConsoleAPICalled:
		s.console.add(ConsoleLine{Level: string(e.Type), Text: argsText(e.Args), FrameURL: s.contextURL(c, e.ExecutionContextID)})
	case *runtime.EventExceptionThrown:
		var id runtime.ExecutionContextID
		if e.ExceptionDetails != nil {
			id = e.ExceptionDetails.ExecutionContextID
		}
		s.console.add(ConsoleLine{Level: "exception", Text: exceptionText(e.ExceptionDetails), FrameURL: s.contextURL(c, id)})
	case *cdplog.EventEntryAdded:
		if x := e.Entry; x != nil {
			text := x.Text
			if x.URL != "" && !strings.Contains(text, x.URL) {
				text += " (" + x.URL + ")"
			}
			s.console.add(ConsoleLine{Level: string(x.Level), Text: text, FrameURL: s.contextURL(c, 0)})
		}
	case *inspector.EventTargetCrashed:
		s.console.add(ConsoleLine{Level: "crash", Text: "the renderer crashed", FrameURL: s.contextURL(c, 0)})
	case *page.EventJavascriptDialogOpening:
		s.console.add(ConsoleLine{Level: "dialog", Text: fmt.Sprintf("%s: %s", e.Type, e.Message), FrameURL: e.URL})
		go s.dismiss(c, e.Type)
	case *page.EventFrameNavigated:
		if f := e.Frame; f != nil {
			c.gen++
			// A new document has none of the old one's frames: Chromium
			// reports no detach for the in-process ones, and one left
			// behind at the same address would be taken for the new
			// document's (as Puppeteer's frame manager, it forgets them).
			s.dropChildren(c, f.ID)
			s.putFrame(c, f)
		}
	case *page.EventFrameAttached:
		c.gen++
		if _, ok := c.frames[e.FrameID]; !ok {
			s.putFrame(c, &cdp.Frame{ID: e.FrameID, ParentID: e.ParentFrameID})
		}
	case *page.EventFrameDetached:
		c.gen++
		// A "swap" moves the frame to another renderer: its new target
		// reports it from now on.
		s.dropFrame(c, e.FrameID, e.Reason != page.FrameDetachedReasonSwap)
	case *page.EventNavigatedWithinDocument:
		c.gen++
		if f, ok := c.frames[e.FrameID]; ok {
			f.url = e.URL
		}
	case *target.EventTargetCreated:
		s.track(e.TargetInfo)
	case *target.EventTargetInfoChanged:
		s.track(e.TargetInfo)
	case *target.EventTargetDestroyed:
		s.untrack(e.TargetID)
	}
}

// dismiss answers a JavaScript dialog so that the page does not stall: it
// dismisses alert, confirm and prompt, and accepts beforeunload so that
// leaving or closing the page is never vetoed.
func (s *Session) dismiss(c *conn, typ page.DialogType) {
	ctx, cancel := shortly(2 * time.Second)
	defer cancel()
	p := page.HandleJavaScriptDialogParams{Accept: typ == page.DialogTypeBeforeunload}
	for _, x := range []*conn{c, s.page} {
		select {
		case <-x.ready:
		case <-ctx.Done():
			return
		}
		if x.err != nil {
			continue
		}
		if _, err := cdp.Call(ctx, x.t, page.HandleJavaScriptDialog, p); err == nil {
			return
		}
	}
}
