package mockhost

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/procs"
)

// webView is the one window of a host whose web view a WebDriver session
// started, as tauri-driver starts a Tauri app: the host shows each page it
// names (a surface, the app center) by moving that window there, and
// answers app/launch and app/center with the window's address
// (protocol.HostWindow), never a URL for the harness to open. The window's
// documents follow the host by long-polling GET /window/want
// (webViewFollowJS), which no timer throttling of a hidden window delays:
// a Tauri host would call its window's navigate instead.
type webView struct {
	binary string
	args   []string

	mu      sync.Mutex
	want    string        // the address the window should show
	home    string        // the window's page while nothing is shown
	changed chan struct{} // closed when want changes
	at      string        // where the window last said it is, once loaded
	arrived chan struct{} // closed when the window says where it is
}

// webViewFollowJS moves the window to the address the host wants: as soon
// as the document runs it (the page's last script), it asks where the
// window should be, giving where it is (which tells the host the window
// arrived), and the answer comes when they differ (or after wantHold, to
// ask again). It does not wait for the load event: a frame whose load
// stalls would hold the window on that page for good, and every later
// page the host names would never be shown. Nor does it stop once it has
// asked for a navigation: one the web view dropped is asked for again.
const webViewFollowJS = `(() => {
  const here = location.href.split("#")[0];
  const follow = async () => {
    for (;;) {
      try {
        const r = await fetch("/window/want?at=" + encodeURIComponent(here), {cache: "no-store"});
        const want = (await r.text()).trim();
        if (want && want.split("#")[0] !== here) {
          location.replace(want);
          // A navigation WebKit dropped (asked while this document was
          // still loading, on a loaded machine) leaves the window here:
          // ask again, unless the new page has taken over by then.
          await new Promise((ok) => setTimeout(ok, 1000));
        }
      } catch (e) {
        await new Promise((ok) => setTimeout(ok, 200));
      }
    }
  };
  follow();
})();`

// arriveWithin bounds how long app/launch and app/center wait for the
// window to show their page before they answer: under the harness's
// default call timeout (5 s), so a slow window is judged by the harness's
// wait for it, not taken as a host that did not answer.
const arriveWithin = 4 * time.Second

// wantHold is how long GET /window/want holds an answer that would not
// move the window.
const wantHold = 20 * time.Second

// webViewHome is the window's page while it shows no surface: the host's
// own main window.
var webViewHome = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>agentapp-mockhost</title></head>
<body><p>agentapp-mockhost: no app open</p><script nonce="{{.Nonce}}">{{.Follow}}</script></body></html>
`))

// newWebView is o's web view, or nil when o asks for none.
func newWebView(o Options) *webView {
	if o.WebView == "" {
		return nil
	}
	return &webView{binary: o.WebView, args: o.WebViewArgs}
}

// show moves the window to address and waits, within arriveWithin, until
// the window says it loaded the page there, as a host answers once its
// window shows what it was asked to. A window that never loaded a page of
// the host's is not waited for.
func (v *webView) show(address string) {
	v.mu.Lock()
	v.move(address)
	v.mu.Unlock()
	deadline := time.NewTimer(arriveWithin)
	defer deadline.Stop()
	for {
		v.mu.Lock()
		at := v.at
		if v.arrived == nil {
			v.arrived = make(chan struct{})
		}
		arrived := v.arrived
		v.mu.Unlock()
		if at == address || at == "" {
			return
		}
		select {
		case <-arrived:
		case <-deadline.C:
			return
		}
	}
}

// reset moves the window home (host/reset: no surface stays mounted).
func (v *webView) reset() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.move(v.home)
}

// move sets want and wakes the documents waiting on it. Called under v.mu.
func (v *webView) move(address string) {
	v.want = address
	if v.changed != nil {
		close(v.changed)
	}
	v.changed = make(chan struct{})
}

// follow is the script a page of the window carries, or "" outside
// web-view mode.
func (h *Host) follow() template.JS {
	if h.webview == nil {
		return ""
	}
	return template.JS(webViewFollowJS)
}

// serveWant answers where the window should be, once that is not at
// (the document asking), or after wantHold.
func (v *webView) serveWant(w http.ResponseWriter, r *http.Request) {
	at := r.URL.Query().Get("at")
	v.mu.Lock()
	v.at = at
	if v.arrived != nil {
		close(v.arrived)
	}
	v.arrived = make(chan struct{})
	v.mu.Unlock()
	hold := time.NewTimer(wantHold)
	defer hold.Stop()
	var want string
	for {
		v.mu.Lock()
		want = v.want
		if v.changed == nil {
			v.changed = make(chan struct{})
		}
		changed := v.changed
		v.mu.Unlock()
		if want != at {
			break
		}
		select {
		case <-changed:
			continue
		case <-hold.C:
		case <-r.Context().Done():
			return
		}
		break
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = io.WriteString(w, want)
}

// serveHome serves the window's home page.
func (h *Host) serveHome(w http.ResponseWriter, _ *http.Request) {
	nonce := token()
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", fmt.Sprintf("default-src 'none'; script-src 'nonce-%s'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'", nonce))
	pageHeaders(hd)
	_ = webViewHome.Execute(w, struct {
		Nonce  string
		Follow template.JS
	}{nonce, h.follow()})
}

// StartWebView starts the host's web view: the surface servers, then the
// browser binary with its args and the window's home page last, as a Tauri
// app opens its main window. The returned channel gets the browser's exit;
// the browser dies with this process (procs.ChildAttr).
func (h *Host) StartWebView() (<-chan error, error) {
	v := h.webview
	if v == nil {
		return nil, errors.New("mockhost: not a web-view host (Options.WebView)")
	}
	hostOrigin, err := h.surf.startHost(h.hostMux)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	v.home = hostOrigin + "/window"
	v.move(v.home)
	v.mu.Unlock()
	cmd := exec.Command(v.binary, append(append([]string{}, v.args...), v.home)...)
	cmd.SysProcAttr = procs.ChildAttr()
	cmd.Stdout, cmd.Stderr = h.logw, h.logw
	done, err := procs.StartLocked(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting the host's web view %s: %w", v.binary, err)
	}
	return done, nil
}
