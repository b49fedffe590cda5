package reports

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium (or $CHROMIUM). Without it the test
// skips, except under CI=true, where a missing browser is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no chromium at %s (set CHROMIUM or run `make deps`): %v", p, err)
		}
		t.Skipf("no chromium at %s (set CHROMIUM or install Debian's chromium): %v", p, err)
	}
	return p
}

// browserLog collects what the page must not do.
type browserLog struct {
	mu       sync.Mutex
	problems []string
	requests []string
}

func (b *browserLog) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == "error" || e.Type == "assert" {
			b.problems = append(b.problems, fmt.Sprintf("console.%s called", e.Type))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Text)
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError {
			b.problems = append(b.problems, fmt.Sprintf("log error (%s): %s", e.Entry.Source, e.Entry.Text))
		}
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, e.Request.URL)
	}
}

// report.html in a real headless Chromium: it loads with no console error
// or exception, fetches nothing but itself, shows the report's counts, and
// a screenshot is saved.
func TestHTMLInChromium(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	r := testReport(t, 0)
	r.Host.Name = `<script>alert("x")</script>mockhost`
	r.Environment.Browser = "chromium (test)"
	setSpec(t, r, "READY-CAPABILITIES", Failed, `readiness status was "okay"; expected one of ready, needs-setup`)
	setSpec(t, r, "VERIFY-PACKAGE-HASH", Failed, "package/verify accepted a changed file")
	setSpec(t, r, "PROJ-CONTENTS", Skipped, "the host projects no services")
	writeTranscript(t, dir, r)
	if _, err := WriteAll(dir, r, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}

	var served []string
	var smu sync.Mutex
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		smu.Lock()
		served = append(served, req.URL.Path)
		smu.Unlock()
		if req.URL.Path != "/report.html" {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	url := srv.URL + "/report.html"

	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	defer acancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser, no timeout on this context
		t.Fatalf("starting %s: %v", exe, err)
	}
	var bl browserLog
	if err := chromedp.Listen(ctx, bl.listen); err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()
	if _, err := chromedp.Call(tctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("#counts"))); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}

	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(tctx, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
		if err != nil {
			t.Fatalf("counting %s: %v", sel, err)
		}
		return n
	}
	want := map[Outcome]int{}
	for _, rr := range r.Requirements {
		want[rr.Outcome]++
	}
	for sel, n := range map[string]int{
		"#count-total": len(r.Requirements), "#count-passed": want[Passed], "#count-failed": want[Failed],
		"#count-skipped": want[Skipped], "#count-not-run": want[NotRun],
	} {
		if got := text(sel); got != fmt.Sprint(n) {
			t.Errorf("%s shows %q, want %d", sel, got, n)
		}
	}
	for sel, n := range map[string]int{
		"article.req":                           len(r.Requirements),
		`article.req[data-outcome="failed"]`:    2,
		"#levels .badge":                        len(r.Requested),
		`#levels .badge[data-verdict="passed"]`: len(r.LevelsPassed),
		".failure":                              2,
		".failure pre.excerpt":                  2,
		"script":                                0,
	} {
		if got := count(sel); got != n {
			t.Errorf("%d elements match %s, want %d", got, sel, n)
		}
	}
	if got := text("#host"); !strings.Contains(got, `<script>alert("x")</script>mockhost`) {
		t.Errorf("host name shows as %q, want the hostile name as text", got)
	}
	if got := text(`article[data-requirement="READY-CAPABILITIES"] .failure`); !strings.Contains(got, `readiness status was "okay"`) || !strings.Contains(got, "app/list") {
		t.Errorf("READY-CAPABILITIES failure shows %q, want its message and transcript excerpt", got)
	}

	png, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	shots := []string{filepath.Join(t.TempDir(), "report.png")}
	if d := os.Getenv("REPORT_SCREENSHOT_DIR"); d != "" {
		shots = append(shots, filepath.Join(d, "report.png"))
	}
	for _, p := range shots {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}

	bl.mu.Lock()
	defer bl.mu.Unlock()
	for _, p := range bl.problems {
		t.Errorf("browser: %s", p)
	}
	for _, u := range bl.requests {
		if u != url && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page fetched %s", u)
		}
	}
	smu.Lock()
	defer smu.Unlock()
	if len(served) != 1 || served[0] != "/report.html" {
		t.Errorf("server saw requests %v, want only /report.html", served)
	}
}
