package browser

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// Frame is one frame of a session's page, in tree order from the top.
type Frame struct {
	// ID is the DevTools frame ID; an OOPIF's is also its target's ID.
	ID string
	// ParentID is the parent frame's ID, "" for the top page.
	ParentID string
	// URL is the frame's document URL, with any fragment.
	URL string
	// Name is the frame's name attribute.
	Name string
	// OOPIF is true for a frame running in its own renderer process
	// (cross-site, with site isolation).
	OOPIF bool
}

// frameState is what a conn knows of one of its frames.
type frameState struct {
	id, parent cdp.FrameID
	url, name  string
}

// frameRef is a frame with the conn that owns it (whose renderer runs it).
type frameRef struct {
	Frame
	c   *conn
	seq int
}

// seqOf numbers frames in the order the session first saw them, which
// orders siblings (a frame keeps its number when it moves to an OOPIF
// target). Called under s.mu.
func (s *Session) seqOf(id cdp.FrameID) int {
	n, ok := s.seqs[id]
	if !ok {
		s.nextSeq++
		n = s.nextSeq
		s.seqs[id] = n
	}
	return n
}

// putFrame records a navigated (or newly attached) frame. Called under s.mu.
func (s *Session) putFrame(c *conn, f *cdp.Frame) {
	s.seqOf(f.ID)
	c.frames[f.ID] = &frameState{
		id:     f.ID,
		parent: f.ParentID,
		url:    f.URL + f.URLFragment,
		name:   f.Name,
	}
}

// dropFrame forgets a frame that left c, with its descendants in c when it
// was removed from the page (not just moved to another renderer). Called
// under s.mu.
func (s *Session) dropFrame(c *conn, id cdp.FrameID, subtree bool) {
	delete(c.frames, id)
	if subtree {
		s.dropChildren(c, id)
	}
}

// dropChildren forgets the frames below id in c. Called under s.mu.
func (s *Session) dropChildren(c *conn, id cdp.FrameID) {
	for _, f := range c.frames {
		if f.parent == id {
			s.dropFrame(c, f.id, true)
		}
	}
}

// addTree records a frame tree from Page.getFrameTree: replacing c's
// frames, or only adding those not known when events raced the answer.
// Called under s.mu.
func (s *Session) addTree(c *conn, tree *page.FrameTree, onlyNew bool) {
	if !onlyNew {
		clear(c.frames)
	}
	var walk func(t *page.FrameTree)
	walk = func(t *page.FrameTree) {
		if t == nil || t.Frame == nil {
			return
		}
		if _, known := c.frames[t.Frame.ID]; !known || !onlyNew {
			s.putFrame(c, t.Frame)
		}
		for _, child := range t.ChildFrames {
			walk(child)
		}
	}
	walk(tree)
}

// contextURL is the URL of the frame of JavaScript context id in c, or of
// c's root frame when id is 0 or unknown. Called under s.mu.
func (s *Session) contextURL(c *conn, id runtime.ExecutionContextID) string {
	if x, ok := c.contexts[id]; ok {
		if f, ok := c.frames[x.frame]; ok {
			return f.url
		}
	}
	for _, f := range c.frames {
		if f.parent == "" || (c.oopif && f.id == cdp.FrameID(c.id)) {
			return f.url
		}
	}
	if c.info != nil {
		return c.info.URL
	}
	return ""
}

// frameRefs lists every frame the session knows, in tree order: the top
// page, then depth-first, siblings in the order they appeared. An OOPIF
// still being attached is listed from its target info. Called under s.mu.
func (s *Session) frameRefs() []frameRef {
	all := map[cdp.FrameID]frameRef{}
	put := func(r frameRef) {
		id := cdp.FrameID(r.ID)
		// A frame changing renderers can show in two targets for a
		// moment; the OOPIF named after it owns it.
		if prev, ok := all[id]; ok && cdp.FrameID(prev.c.id) == id {
			return
		}
		all[id] = r
	}
	for _, c := range s.conns {
		if c.oopif && (!c.attached() || len(c.frames) == 0) {
			if c.info != nil {
				put(frameRef{Frame: Frame{ID: string(c.id), ParentID: string(c.info.ParentFrameID), URL: c.info.URL, OOPIF: true}, c: c, seq: s.seqOf(cdp.FrameID(c.id))})
			}
			continue
		}
		for _, f := range c.frames {
			put(frameRef{
				Frame: Frame{ID: string(f.id), ParentID: string(f.parent), URL: f.url, Name: f.name, OOPIF: c.oopif},
				c:     c,
				seq:   s.seqOf(f.id),
			})
		}
	}
	children := map[string][]frameRef{}
	var roots []frameRef
	for _, r := range all {
		if _, ok := all[cdp.FrameID(r.ParentID)]; r.ParentID == "" || !ok {
			roots = append(roots, r)
			continue
		}
		children[r.ParentID] = append(children[r.ParentID], r)
	}
	order := func(rs []frameRef) {
		sort.Slice(rs, func(i, j int) bool {
			// The top page first, then frames whose parent is unknown.
			if (rs[i].ParentID == "") != (rs[j].ParentID == "") {
				return rs[i].ParentID == ""
			}
			return rs[i].seq < rs[j].seq
		})
	}
	order(roots)
	out := make([]frameRef, 0, len(all))
	var walk func(r frameRef)
	walk = func(r frameRef) {
		out = append(out, r)
		kids := children[r.ID]
		order(kids)
		for _, k := range kids {
			walk(k)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

// find returns the first frame whose URL starts with prefix, or why there
// is none. Called under s.mu.
func (s *Session) find(prefix string) (frameRef, string) {
	refs := s.frameRefs()
	for _, r := range refs {
		if strings.HasPrefix(r.URL, prefix) {
			return r, ""
		}
	}
	urls := make([]string, 0, len(refs))
	for _, r := range refs {
		if len(urls) == 5 {
			urls = append(urls, "…")
			break
		}
		urls = append(urls, fmt.Sprintf("%q", r.URL))
	}
	return frameRef{}, fmt.Sprintf("no frame's URL starts with %q (frames: %s)", prefix, strings.Join(urls, ", "))
}

// world finds the frame for prefix and a JavaScript context of it in its
// target: the main world when name is "", else the isolated world of that
// name; why says what is missing. The reader's world (readerWorld) is made
// on demand, so for it a missing context is no reason: the caller creates
// it. Called under s.mu.
func (s *Session) world(prefix, name string) (r frameRef, id runtime.ExecutionContextID, unique string, why string) {
	r, why = s.find(prefix)
	if why != "" {
		return r, 0, "", why
	}
	select {
	case <-r.c.ready:
		if r.c.err != nil {
			return r, 0, "", fmt.Sprintf("frame %s could not be reached: %v", r.URL, r.c.err)
		}
	default:
		return r, 0, "", fmt.Sprintf("frame %s is still being attached", r.URL)
	}
	for cid, x := range r.c.contexts {
		if x.frame == cdp.FrameID(r.ID) && ((name == "" && x.main) || (name != "" && x.world == name)) {
			return r, cid, x.unique, ""
		}
	}
	switch name {
	case "":
		return r, 0, "", fmt.Sprintf("frame %s has no script context yet", r.URL)
	case readerWorld:
		return r, 0, "", "" // the caller creates the world
	}
	return r, 0, "", fmt.Sprintf("frame %s has no world %q yet (the script installed for it has not run there)", r.URL, name)
}

// Frames lists the frames of the session's page in tree order, the top
// page first, including cross-site frames in their own processes. It waits,
// within ctx, for such frames still being attached.
func (s *Session) Frames(ctx context.Context) ([]Frame, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := s.discover(ctx); err != nil {
		return nil, fmt.Errorf("browser: listing frames: %w", err)
	}
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		select {
		case <-c.ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("browser: listing frames: %w (frame %s is still being attached)", ctx.Err(), c.id)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	refs := s.frameRefs()
	out := make([]Frame, len(refs))
	for i, r := range refs {
		out[i] = r.Frame
	}
	return out, nil
}
