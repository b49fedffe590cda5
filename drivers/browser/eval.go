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
	// worldName names the isolated world AwaitResult reads the probe blob
	// from.
	worldName = "agentapp-probe-reader"

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
func (s *Session) Eval(ctx context.Context, frameURLPrefix, script string, out any) error {
	at := where(frameURLPrefix)
	for polls := 1; ; polls++ {
		if err := s.usable(); err != nil {
			return err
		}
		s.mu.Lock()
		r, _, unique, why := s.world(frameURLPrefix, false)
		s.mu.Unlock()
		if why == "" {
			p := runtime.EvaluateParams{
				Expression:      script,
				UniqueContextID: unique,
				ReturnByValue:   new(true),
				AwaitPromise:    new(true),
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
		}
		if polls%20 == 0 {
			_ = s.discover(ctx)
		}
		if err := sleep(ctx, evalPoll); err != nil {
			return fmt.Errorf("browser: eval in %s: %w (%s)", at, err, why)
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
	r, world, _, why := s.world(prefix, true)
	s.mu.Unlock()
	if why != "" {
		return false, "", why, false, nil
	}
	if world == 0 {
		res, err := cdp.Call(ctx, r.c.t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
			FrameID:   cdp.FrameID(r.ID),
			WorldName: worldName,
		})
		if err != nil {
			return false, "", busy(ctx, r.URL, fmt.Sprintf("cannot read frame %s yet: %v", r.URL, err)), false, nil
		}
		world = res.ExecutionContextID
		s.mu.Lock()
		if _, known := r.c.contexts[world]; !known { // else its creation event came first
			r.c.contexts[world] = execContext{frame: cdp.FrameID(r.ID), isolated: true}
		}
		s.mu.Unlock()
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
		s.mu.Lock()
		delete(r.c.contexts, world)
		s.mu.Unlock()
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
