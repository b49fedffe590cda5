package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

const (
	// readerWorld names the isolated world AwaitResult and Inspect read
	// from, made on demand in each frame they read.
	readerWorld = "agentapp-probe-reader"

	// maxResultBytes caps the probe blob.
	maxResultBytes = 4 << 20

	// evalPoll and resultPoll are how often Eval looks for its frame and
	// AwaitResult for the blob.
	evalPoll   = 25 * time.Millisecond
	resultPoll = 50 * time.Millisecond
)

// readResultJS reads the probe blob. It runs in the isolated world, whose
// DOM bindings and built-ins the page's scripts cannot reach, so a page can
// write a blob but cannot change how it is read.
func readResultJS() string {
	return fmt.Sprintf(`(() => {
	const el = document.getElementById("probe-result");
	if (!el) return {state: "absent"};
	if (!el.hasAttribute("data-done")) return {state: "pending"};
	const text = el.textContent;
	if (text.length > %d) return {state: "too large", size: text.length};
	return {state: "done", text};
})()`, maxResultBytes)
}

// where describes the frame a prefix selects, for errors.
func where(prefix string) string {
	if prefix == "" {
		return "the top page"
	}
	return fmt.Sprintf("the frame at %q", prefix)
}

// Eval evaluates the JavaScript expression script in the main world (the
// page's own) of the first frame, in tree order, whose URL starts with
// frameURLPrefix ("" is the top page), awaits it if it is a promise, and
// JSON-decodes its value into out (which may be nil to drop it). It waits,
// within ctx, for such a frame to exist. An exception is an error.
//
// The page's own scripts share the main world: they can replace any
// built-in a script there calls and so make it return what they like.
// What the harness reads as evidence it reads with Inspect or EvalIn.
func (s *Session) Eval(ctx context.Context, frameURLPrefix, script string, out any) error {
	return s.eval(ctx, frameURLPrefix, "", script, out)
}

// Inspect evaluates script as Eval does, but in an isolated world the
// session makes in the frame (Page.createIsolatedWorld): it shares the
// frame's DOM but has its own globals, built-ins and DOM wrappers, which
// the page's scripts can neither reach nor replace, and its value comes
// back to the harness over DevTools, never through the page. The page can
// change its DOM; it cannot change how the DOM is read.
func (s *Session) Inspect(ctx context.Context, frameURLPrefix, script string, out any) error {
	return s.eval(ctx, frameURLPrefix, readerWorld, script, out)
}

// EvalIn evaluates script as Eval does, in the isolated world named world
// that Install put in the frame. It waits, within ctx, for that world.
func (s *Session) EvalIn(ctx context.Context, frameURLPrefix, world, script string, out any) error {
	if world == "" || world == readerWorld {
		return fmt.Errorf("browser: EvalIn needs the name of a world Install made, not %q", world)
	}
	return s.eval(ctx, frameURLPrefix, world, script, out)
}

// eval runs script in the world named world ("" the main world) of the
// frame prefix selects.
func (s *Session) eval(ctx context.Context, frameURLPrefix, world, script string, out any) error {
	at := where(frameURLPrefix)
	if world != "" {
		at += fmt.Sprintf(" (world %q)", world)
	}
	for polls := 1; ; polls++ {
		if err := s.usable(); err != nil {
			return err
		}
		s.mu.Lock()
		r, id, unique, why := s.world(frameURLPrefix, world)
		s.mu.Unlock()
		if why == "" && id == 0 && world == readerWorld {
			id, why = s.makeReader(ctx, r)
		}
		if why == "" {
			p := runtime.EvaluateParams{
				Expression:    script,
				ReturnByValue: new(true),
				AwaitPromise:  new(true),
			}
			if unique != "" {
				p.UniqueContextID = unique
			} else {
				p.ContextID = id
			}
			if d, ok := ctx.Deadline(); ok {
				// Stops a script that never yields, and so frees
				// the renderer, once the caller has given up.
				p.Timeout = runtime.TimeDelta(max(time.Until(d).Milliseconds(), 1))
			}
			res, err := cdp.Call(ctx, r.c.t, runtime.Evaluate, p)
			switch {
			case err == nil:
				return decodeValue(res, out, at)
			case ctx.Err() != nil:
				return fmt.Errorf("browser: eval in %s (%s): %w (no answer: the script did not finish, or the frame is busy)", at, r.URL, ctx.Err())
			case !notStarted(err):
				return fmt.Errorf("browser: eval in %s (%s): %w", at, r.URL, err)
			}
			why = fmt.Sprintf("the script context of %s went away", r.URL)
			if world == readerWorld {
				s.forget(r, id)
			}
		}
		if polls%20 == 0 {
			_ = s.discover(ctx)
		}
		if err := sleep(ctx, evalPoll); err != nil {
			return fmt.Errorf("browser: eval in %s: %w (%s)", at, err, why)
		}
	}
}

// makeReader creates the reader's isolated world in frame r and returns
// its context, or why it could not (yet).
func (s *Session) makeReader(ctx context.Context, r frameRef) (runtime.ExecutionContextID, string) {
	res, err := cdp.Call(ctx, r.c.t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID:   cdp.FrameID(r.ID),
		WorldName: readerWorld,
	})
	if err != nil {
		return 0, busy(ctx, r.URL, fmt.Sprintf("cannot read frame %s yet: %v", r.URL, err))
	}
	id := res.ExecutionContextID
	s.mu.Lock()
	if _, known := r.c.contexts[id]; !known { // else its creation event came first
		r.c.contexts[id] = execContext{frame: cdp.FrameID(r.ID), world: readerWorld}
	}
	s.mu.Unlock()
	return id, ""
}

// forget drops a context of r's target that failed.
func (s *Session) forget(r frameRef, id runtime.ExecutionContextID) {
	s.mu.Lock()
	delete(r.c.contexts, id)
	s.mu.Unlock()
}

// Install has the browser run source in the isolated world named world of
// the frame prefix selects, now, and again in each new document its
// target loads (a reload, a navigation the same renderer serves), before
// the document's own scripts (Page.addScriptToEvaluateOnNewDocument with
// runImmediately). The script runs in every frame of that target: a
// frame of the same site as its parent shares the parent's target. A
// world of the same name is installed once per target. The page's scripts
// cannot reach the world; EvalIn runs scripts in it.
func (s *Session) Install(ctx context.Context, frameURLPrefix, world, source string) error {
	if world == "" || world == readerWorld {
		return fmt.Errorf("browser: Install needs a world name of its own, not %q", world)
	}
	at := where(frameURLPrefix)
	for polls := 1; ; polls++ {
		if err := s.usable(); err != nil {
			return err
		}
		s.mu.Lock()
		r, _, _, why := s.world(frameURLPrefix, "")
		installed := why == "" && r.c.installed[world]
		s.mu.Unlock()
		if installed {
			return nil
		}
		if why == "" {
			_, err := cdp.Call(ctx, r.c.t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
				Source:         source,
				WorldName:      world,
				RunImmediately: new(true),
			})
			if err != nil {
				return fmt.Errorf("browser: installing world %q in %s (%s): %w", world, at, r.URL, err)
			}
			s.mu.Lock()
			if r.c.installed == nil {
				r.c.installed = map[string]bool{}
			}
			r.c.installed[world] = true
			s.mu.Unlock()
			return nil
		}
		if polls%20 == 0 {
			_ = s.discover(ctx)
		}
		if err := sleep(ctx, evalPoll); err != nil {
			return fmt.Errorf("browser: installing world %q in %s: %w (%s)", world, at, err, why)
		}
	}
}

// notStarted tells an evaluation the browser refused because its context
// was gone (so the script did not run, and trying again is safe) from one
// that failed after it started.
func notStarted(err error) bool {
	var e *cdproto.Error
	if !errors.As(err, &e) {
		return false
	}
	m := strings.ToLower(e.Message)
	return strings.Contains(m, "cannot find context") || strings.Contains(m, "cannot find default execution context") ||
		strings.Contains(m, "no execution context")
}

// decodeValue turns an evaluation result into out.
func decodeValue(res runtime.EvaluateResult, out any, at string) error {
	if res.ExceptionDetails != nil {
		return fmt.Errorf("browser: eval in %s: %s", at, exceptionText(res.ExceptionDetails))
	}
	if out == nil {
		return nil
	}
	v := res.Result
	switch {
	case v == nil || v.Type == runtime.RemoteObjectTypeUndefined:
		return json.Unmarshal([]byte("null"), out)
	case v.UnserializableValue != "":
		return fmt.Errorf("browser: eval in %s: the value %s is not JSON", at, v.UnserializableValue)
	case len(v.Value) == 0:
		return fmt.Errorf("browser: eval in %s: a %s cannot be returned as JSON", at, v.Type)
	}
	if err := json.Unmarshal(v.Value, out); err != nil {
		return fmt.Errorf("browser: eval in %s: decoding %.200s: %w", at, v.Value, err)
	}
	return nil
}

// AwaitResult waits, within ctx, until the document of the first frame
// whose URL starts with frameURLPrefix has an element #probe-result with
// the attribute data-done, and JSON-decodes its text into out (which may
// be nil to only check that it is JSON). The blob is read from an isolated
// world, so the page's scripts cannot fake the reading.
func (s *Session) AwaitResult(ctx context.Context, frameURLPrefix string, out any) error {
	at := where(frameURLPrefix)
	// For the error: the last state the frame reported, and the last
	// reason for not reading it since.
	var seen, last string
	for polls := 1; ; polls++ {
		if err := s.usable(); err != nil {
			return err
		}
		done, text, why, answered, err := s.readResult(ctx, frameURLPrefix)
		if answered {
			seen, last = why, ""
		} else if why != "" {
			last = why
		}
		if err != nil {
			return fmt.Errorf("browser: awaiting #probe-result[data-done] in %s: %w", at, err)
		}
		if done {
			if out == nil {
				if !json.Valid([]byte(text)) {
					return fmt.Errorf("browser: the probe result in %s is not JSON: %.200q", at, text)
				}
				return nil
			}
			if err := json.Unmarshal([]byte(text), out); err != nil {
				return fmt.Errorf("browser: the probe result in %s: %w (%.200q)", at, err, text)
			}
			return nil
		}
		if polls%10 == 0 {
			_ = s.discover(ctx)
		}
		if err := sleep(ctx, resultPoll); err != nil {
			return fmt.Errorf("browser: awaiting #probe-result[data-done] in %s: %w (%s)", at, err, lastSeen(seen, last))
		}
	}
}

// lastSeen words what AwaitResult saw before it gave up.
func lastSeen(seen, last string) string {
	switch {
	case seen == "":
		return "last seen: " + last
	case last == "":
		return "last seen: " + seen
	}
	return "last seen: " + seen + "; then: " + last
}

// readResult looks at the probe blob once. It returns the blob when it is
// done, else why not yet, and whether the frame's document answered; err
// only for what waiting will not mend.
func (s *Session) readResult(ctx context.Context, prefix string) (done bool, text, why string, answered bool, err error) {
	s.mu.Lock()
	r, world, _, why := s.world(prefix, readerWorld)
	s.mu.Unlock()
	if why != "" {
		return false, "", why, false, nil
	}
	if world == 0 {
		if world, why = s.makeReader(ctx, r); why != "" {
			return false, "", why, false, nil
		}
	}
	res, err := cdp.Call(ctx, r.c.t, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    readResultJS(),
		ContextID:     world,
		ReturnByValue: new(true),
		Silent:        new(true),
	})
	if err == nil && res.ExceptionDetails != nil {
		err = errors.New(exceptionText(res.ExceptionDetails))
	}
	if err != nil {
		s.forget(r, world)
		return false, "", busy(ctx, r.URL, fmt.Sprintf("reading frame %s failed: %v", r.URL, err)), false, nil
	}
	var blob struct {
		State string `json:"state"`
		Text  string `json:"text"`
		Size  int    `json:"size"`
	}
	if res.Result != nil {
		_ = json.Unmarshal(res.Result.Value, &blob)
	}
	switch blob.State {
	case "done":
		return true, blob.Text, "", true, nil
	case "absent":
		return false, "", fmt.Sprintf("frame %s has no #probe-result", r.URL), true, nil
	case "pending":
		return false, "", fmt.Sprintf("frame %s has #probe-result without data-done", r.URL), true, nil
	case "too large":
		return false, "", "", true, fmt.Errorf("the probe result in frame %s is %d characters, more than %d", r.URL, blob.Size, maxResultBytes)
	}
	return false, "", fmt.Sprintf("frame %s answered %.100s", r.URL, res.Result.Value), false, nil
}

// busy explains a failed read: a frame that did not answer before ctx
// ended is busy, else the failure says why.
func busy(ctx context.Context, url, why string) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("frame %s did not answer: is a script of it busy?", url)
	}
	return why
}

// Global is what a frame's main world holds under one global name.
type Global struct {
	// Type is the value's JavaScript type ("function", "object", ...), or
	// "accessor" for a getter, which the harness does not call.
	Type string
	// Null is true for an object-typed null.
	Null bool
}

// Globals reports which of names the main world of the frame prefix
// selects holds: properties of its global object (own or inherited) and
// its script-level let, const and class bindings. It inspects the world
// over DevTools (Runtime.getProperties, Runtime.globalLexicalScopeNames)
// without running any of the page's code, so the page cannot answer for
// itself: it can only really remove what it offers.
func (s *Session) Globals(ctx context.Context, frameURLPrefix string, names []string) (map[string]Global, error) {
	at := where(frameURLPrefix)
	for polls := 1; ; polls++ {
		if err := s.usable(); err != nil {
			return nil, err
		}
		s.mu.Lock()
		r, id, _, why := s.world(frameURLPrefix, "")
		s.mu.Unlock()
		if why == "" {
			out, err := s.globals(ctx, r, id, names)
			if err == nil || !notStarted(err) {
				if err != nil {
					return nil, fmt.Errorf("browser: globals of %s (%s): %w", at, r.URL, err)
				}
				return out, nil
			}
			why = fmt.Sprintf("the script context of %s went away", r.URL)
		}
		if polls%20 == 0 {
			_ = s.discover(ctx)
		}
		if err := sleep(ctx, evalPoll); err != nil {
			return nil, fmt.Errorf("browser: globals of %s: %w (%s)", at, err, why)
		}
	}
}

// globals reads names from context id of r's target.
func (s *Session) globals(ctx context.Context, r frameRef, id runtime.ExecutionContextID, names []string) (map[string]Global, error) {
	// "this" in global code is the global object; no binding of the page's
	// can stand for it (globalThis and window can be reassigned).
	res, err := cdp.Call(ctx, r.c.t, runtime.Evaluate, runtime.EvaluateParams{Expression: "this", ContextID: id, Silent: new(true)})
	if err != nil {
		return nil, err
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return nil, errors.New("the global object has no handle")
	}
	obj := res.Result.ObjectID
	defer func() {
		ctx, cancel := shortly(time.Second)
		defer cancel()
		_, _ = cdp.Call(ctx, r.c.t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj})
	}()
	props, err := cdp.Call(ctx, r.c.t, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: obj, OwnProperties: new(false)})
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]Global{}
	for _, p := range props.Result {
		if p == nil || !want[p.Name] {
			continue
		}
		if _, seen := out[p.Name]; seen {
			continue // the own property, listed first, wins
		}
		switch {
		case p.Value != nil:
			out[p.Name] = Global{Type: string(p.Value.Type), Null: p.Value.Subtype == runtime.RemoteObjectSubtypeNull}
		case p.Get != nil || p.Set != nil:
			out[p.Name] = Global{Type: "accessor"}
		}
	}
	lex, err := cdp.Call(ctx, r.c.t, runtime.GlobalLexicalScopeNames, runtime.GlobalLexicalScopeNamesParams{ExecutionContextID: id})
	if err != nil {
		return nil, err
	}
	for _, n := range lex.Names {
		if want[n] {
			if _, seen := out[n]; !seen {
				out[n] = Global{Type: "binding"}
			}
		}
	}
	return out, nil
}
