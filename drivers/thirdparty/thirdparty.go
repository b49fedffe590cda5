// Package thirdparty is a page of a third origin the harness serves on
// loopback for the Host Bridge specs (spec 001, UI runtime: "event.source
// must be the current app frame, event.origin must match runtime origin").
// Loaded in a frame, the page posts the bridge message it finds in its URL
// fragment to window.top and reports, as the probe does, in
// #probe-result[data-done]. It is the spoofer: a frame nested in the app's,
// or the app's own frame after it navigated away, that a host must not obey.
package thirdparty

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// spoofPage posts the JSON message of its fragment to the top window.
const spoofPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>third origin</title></head>
<body><pre id="probe-result"></pre>
<script>
(function () {
  var out = {origin: location.origin, posted: false};
  try {
    var msg = JSON.parse(decodeURIComponent(location.hash.slice(1)));
    window.top.postMessage(msg, "*");
    out.posted = true;
  } catch (e) { out.error = String(e); }
  var el = document.getElementById("probe-result");
  el.textContent = JSON.stringify(out);
  el.setAttribute("data-done", "1");
})();
</script></body></html>
`

// Server serves the third-origin page.
type Server struct {
	srv *http.Server
	url string
}

// Start serves the page on a fresh loopback port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("thirdparty: listening on loopback: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /spoof.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte(spoofPage))
	})
	s := &Server{
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second},
		url: "http://" + ln.Addr().String(),
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Origin is the page's origin, e.g. http://127.0.0.1:41234.
func (s *Server) Origin() string { return s.url }

// SpoofURL is the page's address, without the fragment the message goes in.
func (s *Server) SpoofURL() string { return s.url + "/spoof.html" }

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("thirdparty: closing: %w", err)
	}
	return nil
}
