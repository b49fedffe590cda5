package browser

import (
	"path/filepath"
	"strings"

	cdpbrowser "github.com/chromedp/cdproto/browser"
)

// Engine is the browser engine that renders the app surface, as a value a
// report names: this driver drives Chromium's (Blink, as in Chrome, Edge and
// Electron) over DevTools; another driver (WebKit over WebDriver) names its own.
type Engine string

// The engines the harness judges in: Chromium's (Blink, as in Chrome,
// Edge and Electron), every browser this package reaches, and WebKit's
// (WebKitGTK, the web view of Tauri on Linux), reached over WebDriver.
const (
	EngineChromium Engine = "chromium"
	EngineWebKit   Engine = "webkit"
)

// ParseEngine reads an engine's name as --browser-engine gives it.
func ParseEngine(name string) (Engine, bool) {
	switch e := Engine(strings.ToLower(strings.TrimSpace(name))); e {
	case EngineChromium, EngineWebKit:
		return e, true
	}
	return "", false
}

// The protocols: this package speaks the Chrome DevTools Protocol;
// drivers/webdriver speaks W3C WebDriver (classic).
const (
	ProtocolDevTools  = "devtools"
	ProtocolWebDriver = "webdriver"
)

// Info says which browser the harness judged in and how it reached it,
// from the browser's own answer to Browser.getVersion.
type Info struct {
	Engine        Engine // EngineChromium, EngineWebKit
	EngineVersion string // "156.0.8078.108": the engine's, from Browser.getVersion's product
	// Product and Version name the browser as its maker does: "Chromium",
	// "Chrome", "Electron 33.2.1" (whose engine version differs).
	Product string
	Version string
	// Build is the product token the browser answered without its
	// version: "HeadlessChrome", "Chrome".
	Build    string
	Protocol string // ProtocolDevTools, ProtocolWebDriver
	// Reached says how: "launched headless", "launched", "attached to ws://…".
	Reached string
}

// String names the browser for people and report.json's environment.browser:
// "Chromium 156.0.8078.108 (HeadlessChrome) over DevTools, launched headless";
// "Electron 33.2.1 (Chrome 130.0.6723.191) over DevTools, attached to ws://…";
// "MiniBrowser 2.50.6 (WebKit) over WebDriver, launched by WebKitWebDriver under xvfb-run".
func (i Info) String() string {
	engine := i.Build
	if i.Version != i.EngineVersion {
		engine = strings.TrimSpace(engine + " " + i.EngineVersion)
	}
	s := strings.TrimSpace(i.Product + " " + i.Version)
	if engine != "" {
		s += " (" + engine + ")"
	}
	over := "DevTools"
	if i.Protocol == ProtocolWebDriver {
		over = "WebDriver"
	}
	return s + " over " + over + ", " + i.Reached
}

// versionInfo reads Browser.getVersion's answer: its product token
// ("HeadlessChrome/156.0.8078.79") gives the engine's version and build;
// a user agent naming Electron makes the product Electron; a Chrome build
// run from a chromium binary (exe) is Chromium.
func versionInfo(v cdpbrowser.GetVersionResult, exe, reached string) Info {
	build, version, _ := strings.Cut(v.Product, "/")
	i := Info{Engine: EngineChromium, EngineVersion: version, Build: build, Protocol: ProtocolDevTools, Reached: reached,
		Product: strings.TrimPrefix(build, "Headless"), Version: version}
	if i.Product == "Chrome" && strings.Contains(strings.ToLower(filepath.Base(exe)), "chromium") {
		i.Product = "Chromium"
	}
	if _, rest, ok := strings.Cut(v.UserAgent, "Electron/"); ok {
		i.Product, _, _ = strings.Cut(rest, " ")
		i.Product, i.Version = "Electron", i.Product
	}
	return i
}

// Info says which browser b is and how the harness reached it.
func (b *Browser) Info() Info { return b.info }
