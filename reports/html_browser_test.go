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

	"github.com/agentapp/conformance/levels"
)

// chromiumPath finds Debian's chromium (or $CHROMIUM). Without it the test
// skips, except under CI=true, where a missing browser is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts a browser (make test-quick leaves browsers out)")
	}
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
// or exception and fetches nothing but itself; it opens with what did not
// pass, worst first, each entry a working link to its card; a Desktop P0 run
// is sectioned by Desktop P0 alone; messages keep their lines in monospace;
// the counts cover the whole lattice; an interrupted run says so; and a
// screenshot is saved.
func TestHTMLInChromium(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	r := testReport(t, 0)
	r.Requested = []string{"desktop-p0"}
	r.Host.Name = `<script>alert("x")</script>mockhost`
	r.Environment.Browser = "chromium (test)"
	r.Run = RunStatus{Status: RunInterrupted, Reason: "interrupted by interrupt"}
	const diff = "readiness status was \"okay\"; expected one of ready, needs-setup\n  -want: ready\n  +got:  okay"
	setSpec(t, r, "READY-CAPABILITIES", Failed, diff)
	setSpec(t, r, "VERIFY-PACKAGE-HASH", Failed, "package/verify accepted a changed file")
	setSpec(t, r, "INSTALL-PINNED", Failed, "the installed app records no packageHash")
	setSpec(t, r, "CAT-METADATA", Error, "timeout after 10s waiting for app/list")
	setSpec(t, r, "BRIDGE-SNAPSHOT", Flaky, "the snapshot had no host field")
	setSpec(t, r, "READY-SECRETS", Blocked, "positive control failed: the untouched package was not ready")
	setSpec(t, r, "READY-STATUS", Interrupted, "interrupted by interrupt")
	setSpec(t, r, "PROJ-CONTENTS", Skipped, "the host projects no services")
	setSpec(t, r, "READY-PER-ENTRY", NotApplicable, "the host takes no runtime-backed release: the control install was refused naming runtime_backed")
	setSpec(t, r, "UNINSTALL-KEEP-DATA", NotRun, "not selected by --focus")
	page := writeReportHTML(t, dir, r)

	base, served := servePage(t, page)
	url := base + "/report.html"

	actx := newReportBrowser(t, exe)
	tctx, bl := openReportPage(t, actx, exe, url)

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
	notPassed, inP0 := 0, 0
	cat := levels.Default()
	for _, rr := range r.Requirements {
		want[rr.Outcome]++
		if rr.Outcome != Passed {
			notPassed++
		}
		if cr, ok := cat.Requirement(rr.ID); ok && cat.InLevel(cr, "desktop-p0") {
			inP0++
		}
	}
	// (d) Every outcome of the lattice is counted.
	if got := text("#count-total"); got != fmt.Sprint(len(r.Requirements)) {
		t.Errorf("#count-total shows %q, want %d", got, len(r.Requirements))
	}
	for _, o := range Outcomes() {
		if want[o] == 0 {
			t.Errorf("no requirement is %s: the report must exercise the whole lattice", o)
		}
		if got := text("#count-" + string(o)); got != fmt.Sprint(want[o]) {
			t.Errorf("#count-%s shows %q, want %d", o, got, want[o])
		}
	}
	for sel, n := range map[string]int{
		"article.req":                                 len(r.Requirements),
		`article.req[data-outcome="failed"]`:          want[Failed],
		"#levels .badge":                              len(r.Requested),
		`#levels .badge[data-verdict="failed"]`:       1,
		"#summary li":                                 notPassed,
		"#summary a[href]":                            notPassed,
		".detail":                                     notPassed,
		".detail pre.message":                         notPassed,
		".detail pre.excerpt":                         notPassed,
		"#run-incomplete":                             1,
		`section.group`:                               2,
		`section.group[data-group="desktop-p0"]`:      1,
		`section.group[data-group="other"]`:           1,
		`section.group[data-group="catalog"]`:         0,
		`section.group[data-group="installable"]`:     0,
		`section.group[data-group="desktop-p0"] .req`: inP0,
		`section.group[data-group="other"] .req`:      len(r.Requirements) - inP0,
		`section.group[data-group="other"] [data-requirement="INSTALL-PINNED"]`: 1,
		"script": 1,
	} {
		if got := count(sel); got != n {
			t.Errorf("%d elements match %s, want %d", got, sel, n)
		}
	}
	if got := text("#host"); !strings.Contains(got, `<script>alert("x")</script>mockhost`) {
		t.Errorf("host name shows as %q, want the hostile name as text", got)
	}
	if got := text("#run-incomplete"); !strings.Contains(got, "did not complete") || !strings.Contains(got, "interrupted by interrupt") {
		t.Errorf("the banner says %q, want that the run did not complete and why", got)
	}

	// (a) The summary is worst first, and each entry's link leads to the
	// card of its requirement, which comes after the summary.
	order := evalJS[[]string](tctx, t, `Array.from(document.querySelectorAll('#summary li')).map(li => li.dataset.outcome)`)
	rank := map[Outcome]int{}
	for i, o := range Outcomes() {
		rank[o] = i
	}
	for i := 1; i < len(order); i++ {
		if rank[Outcome(order[i])] < rank[Outcome(order[i-1])] {
			t.Errorf("summary lists %s after %s: %v", order[i], order[i-1], order)
		}
	}
	broken := evalJS[[]string](tctx, t, `Array.from(document.querySelectorAll('#summary a')).filter(a => {
		const h = a.getAttribute('href'), el = h.startsWith('#') && document.getElementById(h.slice(1));
		return !el || !el.matches('article.req') || el.dataset.requirement !== a.closest('li').dataset.requirement ||
			!(a.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
	}).map(a => a.getAttribute('href'))`)
	if len(broken) > 0 {
		t.Errorf("summary links with no card after them: %v", broken)
	}
	if err := chromedp.Do(tctx, chromedp.Click(chromedp.CSS(`#summary a[href="#req-CAT-METADATA"]`))); err != nil {
		t.Fatalf("following the summary link: %v", err)
	}
	target := evalJS[string](tctx, t, `(document.querySelector(':target') || {}).id || location.hash`)
	if target != "req-CAT-METADATA" {
		t.Errorf("the link to CAT-METADATA leads to %q", target)
	}
	colours := evalJS[map[string]string](tctx, t, `Object.fromEntries(Array.from(document.querySelectorAll('#summary li')).map(li =>
		[li.dataset.outcome, getComputedStyle(li.querySelector('.outcome')).backgroundColor]))`)
	seen := map[string]string{}
	for o, c := range colours {
		if other, dup := seen[c]; dup {
			t.Errorf("outcomes %s and %s look alike (%s)", o, other, c)
		}
		seen[c] = o
	}

	// (c) A multi-line message keeps its lines, in monospace.
	msg := evalJS[struct{ Text, WhiteSpace, Font string }](tctx, t, `(() => { const p = document.querySelector('#req-READY-CAPABILITIES pre.message'), s = getComputedStyle(p);
		return {Text: p.textContent, WhiteSpace: s.whiteSpace, Font: s.fontFamily}; })()`)
	if msg.Text != diff {
		t.Errorf("READY-CAPABILITIES message shows %q, want %q", msg.Text, diff)
	}
	if (msg.WhiteSpace != "pre" && msg.WhiteSpace != "pre-wrap") || !strings.Contains(msg.Font, "monospace") {
		t.Errorf("the message block has white-space %q, font %q: want whitespace kept, monospace", msg.WhiteSpace, msg.Font)
	}
	if got := strings.ToLower(text(`#req-BRIDGE-SNAPSHOT`)); !strings.Contains(got, "flaky") ||
		!strings.Contains(got, "passed when re-run") || !strings.Contains(got, "the snapshot had no host field") {
		t.Errorf("the flaky card shows %q, want it flaky, why, and the failure", got)
	}
	if got := text(`#req-READY-CAPABILITIES .detail`); !strings.Contains(got, "app/list") {
		t.Errorf("READY-CAPABILITIES shows %q, want its transcript excerpt", got)
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
	if got := served(); len(got) != 1 || got[0] != "/report.html" {
		t.Errorf("server saw requests %v, want only /report.html", got)
	}
}

// writeReportHTML writes r with its transcript into dir (WriteAll) and
// returns report.html's bytes.
func writeReportHTML(t *testing.T, dir string, r *Report) []byte {
	t.Helper()
	writeTranscript(t, dir, r)
	if _, err := WriteAll(dir, r, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// servePage serves page as /report.html on a loopback port until the test
// ends, and 404 for any other path; served lists the paths asked for.
func servePage(t *testing.T, page []byte) (base string, served func() []string) {
	t.Helper()
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		paths = append(paths, req.URL.Path)
		mu.Unlock()
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
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
	}
}

// evalJS evaluates js in the page and decodes its value.
func evalJS[T any](ctx context.Context, t *testing.T, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// newReportBrowser starts a headless Chromium allocator for the report page
// tests, with the flags this machine wants and a fresh profile; it ends
// with the test.
func newReportBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
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
	t.Cleanup(acancel)
	return actx
}

// openReportPage opens page in a new tab of the browser, logging console
// problems and requests in the returned log, and waits for the report's
// counts; the tab's context has a minute and ends with the test. before
// runs in the tab before the page loads (emulation settings).
func openReportPage(t *testing.T, actx context.Context, exe, page string, before ...func(context.Context) error) (context.Context, *browserLog) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // starts the browser, no timeout on this context
		t.Fatalf("starting %s: %v", exe, err)
	}
	bl := &browserLog{}
	if err := chromedp.Listen(ctx, bl.listen); err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(tcancel)
	if _, err := chromedp.Call(tctx, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range before {
		if err := f(tctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(tctx, chromedp.Navigate(page), chromedp.WaitReady(chromedp.CSS("#counts"))); err != nil {
		t.Fatalf("loading %s: %v", page, err)
	}
	return tctx, bl
}
