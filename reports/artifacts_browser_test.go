package reports

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A failed spec's screenshot shows in report.html in headless Chromium
// under the page's Content-Security-Policy, opened from disk (file:) as a
// person opens it and served over HTTP as a CI server serves it: the
// thumbnail loads, is at most 480px wide and links to the file; the log
// is a link; the page loads nothing else and logs no error (a CSP
// violation would be one).
func TestHTMLArtifactsInChromium(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	r := artifactReport(t, dir)
	writeTranscript(t, dir, r)
	if _, err := WriteAll(dir, r, WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	var served []string
	var smu sync.Mutex
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		smu.Lock()
		served = append(served, req.URL.Path)
		smu.Unlock()
		files.ServeHTTP(w, req)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	actx := newReportBrowser(t, exe)

	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, HTMLFile))}).String()
	for _, page := range []string{fileURL, srv.URL + "/" + HTMLFile} {
		base := page[:strings.LastIndex(page, "/")+1]
		t.Run(strings.SplitN(page, ":", 2)[0], func(t *testing.T) {
			tctx, bl := openReportPage(t, actx, exe, page)
			// The thumbnail loads lazily: bring it into view, wait for it.
			if err := chromedp.Do(tctx, chromedp.ScrollIntoView(chromedp.CSS(".artifacts img"))); err != nil {
				t.Fatal(err)
			}
			type shot struct {
				Complete       bool
				Natural, Shown float64
				Link           string
			}
			var s shot
			for i := 0; i < 100; i++ {
				s = evalJS[shot](tctx, t, `(() => { const i = document.querySelector('#req-READY-CAPABILITIES .artifacts img');
					return {Complete: i.complete, Natural: i.naturalWidth, Shown: i.getBoundingClientRect().width, Link: i.closest('a').href}; })()`)
				if s.Complete && s.Natural > 0 {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if s.Natural != 800 {
				t.Errorf("the screenshot did not load under the page's CSP: %+v", s)
			}
			if s.Shown <= 0 || s.Shown > 480 {
				t.Errorf("the thumbnail is %vpx wide, want at most 480", s.Shown)
			}
			if want := base + "artifacts/012-BRIDGE-SNAPSHOT-1.png"; s.Link != want {
				t.Errorf("the thumbnail links to %s, want %s", s.Link, want)
			}
			logs := evalJS[[]string](tctx, t, `Array.from(document.querySelectorAll('#req-READY-CAPABILITIES .artifacts [data-kind="log"] a')).map(a => a.href)`)
			if len(logs) != 1 || logs[0] != base+"artifacts/012-BRIDGE-SNAPSHOT-1.log" {
				t.Errorf("log links %v", logs)
			}

			bl.mu.Lock()
			defer bl.mu.Unlock()
			for _, p := range bl.problems {
				t.Errorf("browser: %s", p)
			}
			for _, u := range bl.requests {
				if u != page && u != base+"artifacts/012-BRIDGE-SNAPSHOT-1.png" && !strings.HasPrefix(u, "data:") {
					t.Errorf("the page fetched %s", u)
				}
			}
		})
	}
	smu.Lock()
	defer smu.Unlock()
	if strings.Join(served, " ") != "/report.html /artifacts/012-BRIDGE-SNAPSHOT-1.png" {
		t.Errorf("server saw requests %v, want the page and its screenshot", served)
	}
}
