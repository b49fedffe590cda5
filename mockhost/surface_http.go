package mockhost

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Endpoints of the host origin (the frame origin has only /app/):
//
//	GET  /surface/<hostToken>           the host page mounting the entry
//	POST /surface/<hostToken>/message   a message the page accepted from the frame; answers what to post back
//	POST /surface/<hostToken>/rejected  a message the page ignored ({type, reason, origin})
//	GET  /surface/<hostToken>/events    host pushes, as Server-Sent Events
//	GET  /center/<token>                the app center
//	GET  /window                        a web-view host's window with no app open (webview.go)
//	GET  /window/want                   where a web-view host wants its window
//
// The three bridge endpoints answer only the host page: a request must
// carry the host token in SurfaceTokenHeader and, when it has an Origin
// header (every POST does), the host origin. Anything else is 403 with no
// CORS header, so the app frame, another site, can neither call nor read
// them (spec 000, Host Bridge v1: apps "must not directly access host DOM
// ... or credentials").
const SurfaceTokenHeader = "X-Surface-Token"

// maxMessageBytes bounds a message the page forwards.
const maxMessageBytes = 256 << 10

// hostMux serves the host origin.
func (h *Host) hostMux(hostOrigin string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /surface/{token}", h.surfacePage)
	mux.HandleFunc("/surface/{token}/message", h.bridgeEndpoint(hostOrigin, http.MethodPost, h.postMessage))
	mux.HandleFunc("/surface/{token}/rejected", h.bridgeEndpoint(hostOrigin, http.MethodPost, h.postRejected))
	mux.HandleFunc("/surface/{token}/events", h.bridgeEndpoint(hostOrigin, http.MethodGet, h.events))
	mux.HandleFunc("GET /center/{token}", h.centerPage)
	if h.webview != nil {
		mux.HandleFunc("GET /window", h.serveHome)
		mux.HandleFunc("GET /window/want", h.webview.serveWant)
	}
	// Only a launch whose frame origin is the host origin is served here
	// (the frame-same-origin-as-host fault); otherwise 404.
	mux.HandleFunc("GET /app/{token}/{path...}", h.appFiles(hostOrigin))
	// fault: host-endpoints-open — a CORS middleware left on: every answer of the host origin, its pages included, is readable from any origin.
	if h.faults.Has("host-endpoints-open") {
		return onlyHost(hostOrigin, corsAnyOrigin(mux))
	}
	return onlyHost(hostOrigin, mux)
}

// corsAnyOrigin lets any origin read every answer (host-endpoints-open).
func corsAnyOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		next.ServeHTTP(w, r)
	})
}

// frameMux serves the app frame origin: static files and nothing else.
func (h *Host) frameMux(frameOrigin string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /app/{token}/{path...}", h.appFiles(frameOrigin))
	return onlyHost(frameOrigin, mux)
}

// onlyHost answers only requests addressed to origin's host (a DNS
// rebinding defence: the servers are loopback only).
func onlyHost(origin string, next http.Handler) http.Handler {
	want := strings.TrimPrefix(origin, "http://")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Host, want) {
			http.Error(w, "misdirected request", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// surfacePage serves the host page of an open surface.
func (h *Host) surfacePage(w http.ResponseWriter, r *http.Request) {
	l := h.surf.byHostToken(r.PathValue("token"))
	if l == nil {
		http.NotFound(w, r)
		return
	}
	nonce := token()
	var b bytes.Buffer
	if err := surfaceTemplate.Execute(&b, h.pageData(l, nonce)); err != nil {
		http.Error(w, fmt.Sprintf("rendering the host page: %v", err), http.StatusInternalServerError)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	// The app's frame may navigate itself to other loopback origins: what
	// keeps a page of another origin from speaking for the app is the
	// bridge's origin check (spec 001, UI runtime), which the harness
	// exercises that way (docs/decisions.md, "Which origin check a spoofer
	// meets").
	hd.Set("Content-Security-Policy", fmt.Sprintf("default-src 'none'; script-src 'nonce-%s'; style-src 'nonce-%s'; "+
		"connect-src 'self'; frame-src %s http://127.0.0.1:* http://localhost:*; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", nonce, nonce, l.frameOrigin))
	pageHeaders(hd)
	_, _ = w.Write(b.Bytes())
}

// pageHeaders are set on every page the host origin serves.
func pageHeaders(hd http.Header) {
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Frame-Options", "DENY")
}

// bridgeEndpoint guards a bridge endpoint (see SurfaceTokenHeader) and
// hands the request to serve with its surface.
func (h *Host) bridgeEndpoint(hostOrigin, method string, serve func(http.ResponseWriter, *http.Request, *launch)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := r.PathValue("token")
		if !fromHostPage(r, hostOrigin, tok) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		l := h.surf.byHostToken(tok)
		if l == nil {
			http.NotFound(w, r)
			return
		}
		if r.Method != method {
			w.Header().Set("Allow", method)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		serve(w, r, l)
	}
}

// fromHostPage reports whether r comes from the host page of the surface
// tok names: the token in its header and, when the browser sent an Origin
// (always for POST), the host origin.
func fromHostPage(r *http.Request, hostOrigin, tok string) bool {
	origin := r.Header.Get("Origin")
	if origin == "" && r.Method != http.MethodGet || origin != "" && origin != hostOrigin {
		return false
	}
	got := r.Header.Get(SurfaceTokenHeader)
	return tok != "" && subtle.ConstantTimeCompare([]byte(got), []byte(tok)) == 1
}

// postMessage decides a message the page accepted from the app frame and
// answers what the page must post back and show.
func (h *Host) postMessage(w http.ResponseWriter, r *http.Request, l *launch) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxMessageBytes))
	if err != nil {
		http.Error(w, "message too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	writeJSON(w, h.bridge(l, body))
}

// postRejected records a message the page ignored: not from the app frame
// or not from the runtime origin (spec 001, UI runtime: untrusted messages
// "must be ignored or logged").
func (h *Host) postRejected(w http.ResponseWriter, r *http.Request, l *launch) {
	var rm protocol.RejectedMessage
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rm); err != nil || !knownRejection(rm.Reason) {
		http.Error(w, "want {type, reason, origin} with a known reason", http.StatusBadRequest)
		return
	}
	rm.Type, rm.Origin = clip(rm.Type, 200), clip(rm.Origin, 200)
	h.surf.reject(l.appID, rm)
	writeJSON(w, protocol.OK{OK: true})
}

func knownRejection(reason string) bool {
	switch reason {
	case protocol.RejectSource, protocol.RejectOrigin, protocol.RejectProtocol,
		protocol.RejectVersion, protocol.RejectAppID, protocol.RejectMalformed:
		return true
	}
	return false
}

// events streams the surface's host pushes (theme:update, host:visibility,
// host:snapshot) as Server-Sent Events, one message per "data:" line, until
// the surface or the request ends.
func (h *Host) events(w http.ResponseWriter, r *http.Request, l *launch) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	queue := maxQueuedEvents
	// fault: events-dropped-under-burst — a page's event stream holds 16 messages: facts that come faster than the page takes them are lost.
	if h.faults.Has("events-dropped-under-burst") {
		queue = 16
	}
	ch, cancel := l.subscribe(queue)
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	for {
		select {
		case m := <-ch:
			b, err := json.Marshal(m)
			if err != nil {
				continue
			}
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return
			}
			flusher.Flush()
		case <-l.done:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// appFiles serves the UI folder of the surface a frame token names, when
// the request reached the server of that surface's frame origin.
func (h *Host) appFiles(origin string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l := h.surf.byFrameToken(r.PathValue("token"))
		if l == nil || l.frameOrigin != origin {
			http.NotFound(w, r)
			return
		}
		if h.forgesProbe() && strings.HasSuffix(r.PathValue("path"), "probe.js") {
			w.Header().Set("Content-Type", contentType(".js"))
			_, _ = io.WriteString(w, forgerJS)
			return
		}
		f, err := l.ui.open(r.PathValue("path"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			http.NotFound(w, r)
			return
		}
		name := r.PathValue("path")
		if name == "" {
			name = l.ui.entry
		}
		hd := w.Header()
		hd.Set("Content-Type", contentType(name))
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Cache-Control", "no-store")
		// The frame connects to its own origin only: the App Server's port
		// and every other loopback service stay out of its reach (000 Host
		// Bridge v1: apps "must not see ... App Server transport").
		csp := "connect-src 'self'; frame-ancestors " + l.hostOrigin
		// fault: frame-connect-unrestricted — the app's document gets no connect-src: its frame can fetch and open WebSockets to any loopback port, the App Server's included.
		// A host with its endpoints open (host-endpoints-open) leaves the
		// frame unrestricted too: with connect-src 'self' the frame could
		// reach no endpoint, open or not, and the fault would break nothing.
		if h.faults.Has("frame-connect-unrestricted") || h.faults.Has("host-endpoints-open") {
			csp = "frame-ancestors " + l.hostOrigin
		}
		hd.Set("Content-Security-Policy", csp)
		if name == l.ui.entry && h.faults.Has("frame-gets-node-globals") {
			// fault: frame-gets-node-globals — the app's document gets a host preload, as an Electron window with nodeIntegration would: require, process and Buffer in its main world.
			b, err := io.ReadAll(io.LimitReader(f, maxMessageBytes))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			_, _ = io.WriteString(w, nodePreload+string(b))
			return
		}
		http.ServeContent(w, r, "", fi.ModTime(), f)
	}
}

// contentType names the media type of a UI file by its extension.
func contentType(name string) string {
	types := map[string]string{
		".html": "text/html; charset=utf-8", ".htm": "text/html; charset=utf-8",
		".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8", ".json": "application/json", ".map": "application/json",
		".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
		".gif": "image/gif", ".webp": "image/webp", ".ico": "image/x-icon", ".woff": "font/woff",
		".woff2": "font/woff2", ".txt": "text/plain; charset=utf-8", ".wasm": "application/wasm",
	}
	ext := strings.ToLower(path.Ext(name))
	if t, ok := types[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, fmt.Sprintf("encoding the answer: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// nodePreload is what frame-gets-node-globals puts before the app's
// document: Node's globals in the frame's main world.
const nodePreload = `<script>window.require = function require() {}; window.process = {versions: {node: "22.0.0"}}; window.Buffer = function Buffer() {};</script>`
