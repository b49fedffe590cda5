package mockhost

import (
	_ "embed"
	"html/template"
)

// The host page and its bridge script (bridge.js, inlined with a CSP nonce).
var (
	//go:embed surface.html
	surfaceHTML string
	//go:embed bridge.js
	bridgeJS string
	// forgerJS is what forge-probe serves as the app's probe.js.
	//go:embed forger.js
	forgerJS string

	surfaceTemplate = template.Must(template.New("surface").Parse(surfaceHTML))
)

// pageConfig is what the bridge script knows: where its endpoints are, the
// token they need, the runtime origin it trusts and posts to, and which
// checks it makes. It holds no secret, session token or host path.
type pageConfig struct {
	Base          string `json:"base"`  // /surface/<hostToken>
	Token         string `json:"token"` // sent as SurfaceTokenHeader
	RuntimeOrigin string `json:"runtimeOrigin"`
	// CheckSource and CheckOrigin: a message counts as the app's only when
	// event.source is the app frame and event.origin the runtime origin
	// (spec 001, UI runtime).
	CheckSource bool `json:"checkSource"`
	CheckOrigin bool `json:"checkOrigin"`
	// ToastHTML inserts toasts as markup instead of text.
	ToastHTML bool `json:"toastHTML"`
	// Spin makes the page's script loop for ever (host-page-spins).
	Spin bool `json:"spin"`
}

// pagesSpin says whether the host's pages spin: the host page of a surface
// while it loads, the app center once it has loaded.
func (h *Host) pagesSpin() bool {
	// fault: host-page-spins — the host's pages run scripts that never yield: a surface's host page never finishes loading, the app center stops answering once loaded.
	return h.faults.Has("host-page-spins")
}

// pageData fills the host page of a surface.
type pageData struct {
	Title, AppID, EntryKey string
	Nonce                  string
	FrameURL               string
	Config                 pageConfig
	Script                 template.JS
	// Follow moves a web-view host's window where the host wants it.
	Follow template.JS
}

func (h *Host) pageData(l *launch, nonce string) pageData {
	cfg := pageConfig{Base: "/surface/" + l.hostToken, Token: l.hostToken, RuntimeOrigin: l.frameOrigin, CheckSource: true, CheckOrigin: true}
	// fault: bridge-trusts-any-source — the page does not compare event.source with the app frame (it still checks the origin).
	if h.faults.Has("bridge-trusts-any-source") {
		cfg.CheckSource = false
	}
	// fault: bridge-trusts-any-origin — the page does not compare event.origin with the runtime origin (it still checks the source).
	if h.faults.Has("bridge-trusts-any-origin") {
		cfg.CheckOrigin = false
	}
	// fault: toast-innerhtml — toast messages are inserted as markup (innerHTML).
	cfg.ToastHTML = h.faults.Has("toast-innerhtml")
	cfg.Spin = h.pagesSpin()
	script := template.JS(bridgeJS) // our own embedded script, trusted
	if h.forgesProbe() {
		script = ""
	}
	return pageData{
		Title: l.title, AppID: l.appID, EntryKey: l.entryKey, Nonce: nonce,
		FrameURL: l.frameURL(),
		Config:   cfg,
		Script:   script,
		Follow:   h.follow(),
	}
}

// forgesProbe: the host has no Host Bridge and forges the probe's findings.
func (h *Host) forgesProbe() bool {
	// fault: forge-probe — the host page has no Host Bridge at all; the app's probe.js it serves is a forger that writes the findings of a conforming host into the page and dispatches made-up host messages at the frame.
	return h.faults.Has("forge-probe") || h.faults.Has("forge-probe-devtools")
}
