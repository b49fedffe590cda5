package browser

import (
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
)

func TestProductName(t *testing.T) {
	for _, c := range []struct {
		v    cdpbrowser.GetVersionResult
		exe  string
		want string
	}{
		{cdpbrowser.GetVersionResult{Product: "HeadlessChrome/156.0.8078.79"}, "/usr/bin/chromium", "Chromium 156.0.8078.79"},
		{cdpbrowser.GetVersionResult{Product: "Chrome/131.0.6778.33"}, "/usr/bin/google-chrome", "Chrome 131.0.6778.33"},
		{cdpbrowser.GetVersionResult{Product: "Chrome/130.0.6723.191", UserAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) host/1.0.0 Chrome/130.0.6723.191 Electron/33.2.1 Safari/537.36"}, "", "Electron 33.2.1 (Chrome 130.0.6723.191)"},
	} {
		if got := productName(c.v, c.exe); got != c.want {
			t.Errorf("productName(%+v, %q) = %q, want %q", c.v, c.exe, got, c.want)
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
