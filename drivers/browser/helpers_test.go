package browser

import (
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
)

// Browser.getVersion's answer names the engine, its version and the
// product; String says it in one line.
func TestVersionInfo(t *testing.T) {
	const electronUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) host/1.0.0 Chrome/130.0.6723.191 Electron/33.2.1 Safari/537.36"
	for _, c := range []struct {
		v       cdpbrowser.GetVersionResult
		exe     string
		reached string
		want    Info
		text    string
	}{
		{cdpbrowser.GetVersionResult{Product: "HeadlessChrome/156.0.8078.79"}, "/usr/bin/chromium", "launched headless",
			Info{Engine: EngineChromium, EngineVersion: "156.0.8078.79", Product: "Chromium", Version: "156.0.8078.79", Build: "HeadlessChrome", Protocol: ProtocolDevTools, Reached: "launched headless"},
			"Chromium 156.0.8078.79 (HeadlessChrome) over DevTools, launched headless"},
		{cdpbrowser.GetVersionResult{Product: "Chrome/131.0.6778.33"}, "/usr/bin/google-chrome", "launched",
			Info{Engine: EngineChromium, EngineVersion: "131.0.6778.33", Product: "Chrome", Version: "131.0.6778.33", Build: "Chrome", Protocol: ProtocolDevTools, Reached: "launched"},
			"Chrome 131.0.6778.33 (Chrome) over DevTools, launched"},
		{cdpbrowser.GetVersionResult{Product: "Chrome/130.0.6723.191", UserAgent: electronUA}, "", "attached to ws://127.0.0.1:9222/devtools/browser/ab-12",
			Info{Engine: EngineChromium, EngineVersion: "130.0.6723.191", Product: "Electron", Version: "33.2.1", Build: "Chrome", Protocol: ProtocolDevTools, Reached: "attached to ws://127.0.0.1:9222/devtools/browser/ab-12"},
			"Electron 33.2.1 (Chrome 130.0.6723.191) over DevTools, attached to ws://127.0.0.1:9222/devtools/browser/ab-12"},
	} {
		got := versionInfo(c.v, c.exe, c.reached)
		if got != c.want {
			t.Errorf("versionInfo(%+v, %q) = %+v, want %+v", c.v, c.exe, got, c.want)
		}
		if got.String() != c.text {
			t.Errorf("String() = %q, want %q", got.String(), c.text)
		}
	}
}

func TestHasWord(t *testing.T) {
	const dir = "--user-data-dir=/tmp/agentapp-browser-12"
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"chromium\x00" + dir + "\x00about:blank\x00", true},
		{"chromium --type=renderer " + dir + " --no-sandbox", true},
		{dir, true},
		{"chromium\x00" + dir + "3\x00", false},
		{"chromium\x00x" + dir + "\x00", false},
		{"chromium\x00" + dir + "3\x00" + dir, true},
	} {
		if got := hasWord([]byte(c.s), []byte(dir), " \x00"); got != c.want {
			t.Errorf("hasWord(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestConsoleCap(t *testing.T) {
	var c consoleLog
	for i := 0; i < maxConsoleLines+5; i++ {
		c.add(ConsoleLine{Level: "log", Text: strings.Repeat("é", maxLineBytes)})
	}
	if len(c.lines) != maxConsoleLines || c.dropped != 5 {
		t.Errorf("%d lines, %d dropped", len(c.lines), c.dropped)
	}
	if l := c.lines[0].Text; len(l) > maxLineBytes || !strings.HasSuffix(l, "…") || !strings.HasPrefix(l, "éé") {
		t.Errorf("a long line is kept as %d bytes ending %q", len(l), l[len(l)-8:])
	}
}
