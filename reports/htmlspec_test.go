package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// xl is an excerpt line of a request (send) or answer (recv).
func xl(seq int, dir, method, id string, failed bool) ExcerptLine {
	return ExcerptLine{Seq: seq, Conn: 1, Dir: dir, Method: method, ID: id, Error: failed,
		Text: fmt.Sprintf("#%d conn 1 %s %s", seq, dir, method)}
}

// The exchange a failure is about: the last one whose method the message
// names, preferring one left unanswered or answered with an error; the
// spec's last exchange when the message names none, saying so; a method
// named only as part of a longer word does not count.
func TestFailedExchange(t *testing.T) {
	lines := []ExcerptLine{
		xl(1, "send", "app/install", "1", false), xl(2, "recv", "app/install", "1", true),
		xl(3, "send", "app/list", "2", false), xl(4, "recv", "app/list", "2", false),
		xl(5, "send", "app/install", "3", false), xl(6, "recv", "app/install", "3", false),
		xl(7, "send", "host/observe", "4", false),
		xl(8, "recv", "host/log", "", false),
		xl(9, "send", "app/uninstall", "5", false), xl(10, "recv", "app/uninstall", "5", false),
	}
	for _, c := range []struct {
		name, message string
		want          []int
		why           string
	}{
		{"named, answered with an error", "app/install was answered with an error where a result was expected: -32002", []int{1, 2}, "left unanswered or answered with an error"},
		{"named, answered", "app/list answered 3 apps, want 2", []int{3, 4}, "which the failure names"},
		{"named, unanswered", "timeout after 10s waiting for host/observe", []int{7}, "left unanswered"},
		{"named twice, the last", "app/list then app/uninstall kept the data", []int{9, 10}, "the last app/uninstall exchange"},
		{"not a word of its own", "app/installs and xapp/list", []int{9, 10}, "the spec's last exchange: the failure names none"},
		{"names nothing", "the snapshot had no host field", []int{9, 10}, "the spec's last exchange: the failure names none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			marked, why := failedExchange(lines, c.message)
			var got []int
			for i, l := range lines {
				if marked[i] {
					got = append(got, l.Seq)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("marked %v, want %v", got, c.want)
			}
			if !strings.Contains(why, c.why) || !strings.HasPrefix(why, fmt.Sprintf("marked: #%d", c.want[0])) {
				t.Errorf("says %q, want it to start with the seq and say %q", why, c.why)
			}
		})
	}
	if marked, why := failedExchange(nil, "app/list"); len(marked) != 0 || why != "" {
		t.Errorf("an empty excerpt marks %v, %q", marked, why)
	}
}

// A long excerpt keeps its first lines and its last (where a spec fails),
// within excerptTotalBytes, and counts what it left out between them.
func TestExcerptKeepsHeadAndTail(t *testing.T) {
	e := &Excerpt{From: 1, To: 500}
	for q := 1; q <= 500; q++ {
		e.add(ExcerptLine{Seq: q, Text: fmt.Sprintf("#%d %s", q, strings.Repeat("x", 90))})
	}
	total := 0
	for i, l := range e.Lines {
		total += len(l.Text)
		if i > 0 && l.Seq != e.Lines[i-1].Seq+1 && i != e.OmitAt {
			t.Errorf("line %d (#%d) follows #%d, with no omission marked there", i, l.Seq, e.Lines[i-1].Seq)
		}
	}
	if total > excerptTotalBytes {
		t.Errorf("the excerpt holds %d bytes, more than %d", total, excerptTotalBytes)
	}
	if e.Lines[0].Seq != 1 || e.Lines[len(e.Lines)-1].Seq != 500 {
		t.Errorf("the excerpt runs #%d to #%d, want #1 to #500", e.Lines[0].Seq, e.Lines[len(e.Lines)-1].Seq)
	}
	if e.OmitAt == 0 || e.Lines[e.OmitAt].Seq-e.Lines[e.OmitAt-1].Seq-1 != e.Omitted || len(e.Lines)+e.Omitted != 500 {
		t.Errorf("omitted %d lines at %d, which does not account for the gap", e.Omitted, e.OmitAt)
	}
	short := &Excerpt{From: 1, To: 3}
	for q := 1; q <= 3; q++ {
		short.add(ExcerptLine{Seq: q, Text: "#x"})
	}
	if len(short.Lines) != 3 || short.Omitted != 0 {
		t.Errorf("a short excerpt kept %d lines, omitted %d", len(short.Lines), short.Omitted)
	}
}

// A card in report.html: passed and skipped cards are collapsed, failed
// ones open;
// the card names the requested levels it counts for (the level filter);
// each spec shows its duration; the clause comes before the transcript;
// the exchange that failed is marked and the mark explained; the filters
// are hidden until the script shows them, and the script runs by its hash.
func TestHTMLCards(t *testing.T) {
	r := testReport(t, 0)
	setSpec(t, r, "VERIFY-PACKAGE-HASH", Failed, "package/verify accepted a changed file")
	setSpec(t, r, "PROJ-CONTENTS", Skipped, "the host projects no services")
	setSpec(t, r, "READY-PER-ENTRY", NotApplicable, "the host takes no runtime-backed release: the control install was refused naming runtime_backed")
	var ex [2]int
	for _, rr := range r.Requirements {
		if rr.ID == "VERIFY-PACKAGE-HASH" {
			ex = rr.Specs[0].Exchanges
		}
	}
	excerpts := map[[2]int]*Excerpt{ex: {From: ex[0], To: ex[0] + 1, Lines: []ExcerptLine{
		xl(ex[0], "send", "package/verify", "7", false), xl(ex[0]+1, "recv", "package/verify", "7", false)}}}
	page := writeHTMLPage(t, r, HTMLOptions{Excerpts: excerpts})

	card := func(id string) string {
		t.Helper()
		i := strings.Index(page, `id="`+requirementAnchor(id)+`"`)
		if i < 0 {
			t.Fatalf("no card for %s", id)
		}
		c := page[i:]
		return c[:strings.Index(c, "</article>")]
	}
	failed, passed := card("VERIFY-PACKAGE-HASH"), card("PROTO-HELLO")
	if !strings.Contains(failed, "<details open>") || !strings.Contains(passed, "<details>") || !strings.Contains(card("PROJ-CONTENTS"), "<details>") {
		t.Error("want the failed card open, the passed and skipped cards collapsed")
	}
	cat := levels.Default()
	cr, _ := cat.Requirement("VERIFY-PACKAGE-HASH")
	var in []string
	for _, l := range r.Requested {
		if cat.InLevel(cr, l) {
			in = append(in, l)
		}
	}
	if len(in) < 2 || !strings.Contains(failed, `data-levels="`+strings.Join(in, " ")+`"`) {
		t.Errorf("the failed card does not name the requested levels it counts for: %.200s", failed)
	}
	durations := regexp.MustCompile(`<span class="spec-name">[^<]*</span> <span class="duration">\d+ ms</span>`).FindAllString(failed, -1)
	if len(durations) != 2 {
		t.Errorf("%d specs with a duration in the failed card, want its 2", len(durations))
	}
	clause, excerpt := strings.Index(failed, `class="clause"`), strings.Index(failed, `<pre class="excerpt">`)
	if clause < 0 || excerpt < 0 || clause > excerpt {
		t.Errorf("clause at %d, transcript at %d: want the clause first", clause, excerpt)
	}
	if !strings.Contains(failed, fmt.Sprintf(`<mark class="failed-exchange" data-seq="%d">`, ex[0])) ||
		!strings.Contains(failed, "the last package/verify exchange, which the failure names") {
		t.Error("the package/verify exchange is not marked and explained")
	}
	if !strings.Contains(page, `<form id="filters" class="filters" role="search" hidden>`) {
		t.Error("the filters are not hidden for a page without JavaScript")
	}
	for _, o := range []Outcome{Passed, Failed} {
		if !strings.Contains(page, fmt.Sprintf(`name="outcome" value="%s" checked`, o)) {
			t.Errorf("no filter for %s", o)
		}
	}
	if strings.Contains(page, `name="outcome" value="flaky"`) {
		t.Error("a filter for an outcome no requirement has")
	}
	if csp := pageCSP(t, page); !strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "form-action 'none'") {
		t.Errorf("CSP %q does not run the script by its hash or keeps forms from going anywhere", csp)
	}
}

// A screenshot's name carries the attempt that took it; ArtifactsIn reads it
// and report.html labels the thumbnails "attempt 1", "attempt 2".
func TestArtifactAttemptLabels(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ArtifactsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, a := range []int{1, 2} {
		p := ArtifactsDir + "/" + ArtifactName("217-BRIDGE-SNAPSHOT", a, 1, ".png")
		if err := os.WriteFile(filepath.Join(dir, p), []byte("png"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	got := ArtifactsIn(dir, append(paths, "artifacts/old-1.png"))
	if len(got) != 2 || got[0].Attempt != 1 || got[1].Attempt != 2 {
		t.Fatalf("ArtifactsIn gave %+v, want attempts 1 and 2 (the missing file dropped)", got)
	}
	for p, want := range map[string]int{"a/x-attempt12-3.log": 12, "a/x-attempt0-1.png": 0, "a/x-1.png": 0, "a/attempt2-1.png/y": 0} {
		if n := ArtifactAttempt(p); n != want {
			t.Errorf("ArtifactAttempt(%q) = %d, want %d", p, n, want)
		}
	}
	r := testReport(t, 0)
	setSpec(t, r, "BRIDGE-SNAPSHOT", Failed, "no host:snapshot reached the app")
	r.Requirements[findReq(r, "BRIDGE-SNAPSHOT")].Specs[0].Artifacts = append(got, Artifact{Path: "artifacts/old-1.png", SHA256: sha("x"), Kind: ArtifactScreenshot})
	// The signed predicate takes the attempt, and only a plausible one.
	if err := ValidatePredicate(&Predicate{Results: r.Results}); err != nil {
		t.Errorf("a predicate with attempts does not validate: %v", err)
	}
	arts := r.Requirements[findReq(r, "BRIDGE-SNAPSHOT")].Specs[0].Artifacts
	arts[0].Attempt = MaxArtifactAttempt + 1
	if err := ValidatePredicate(&Predicate{Results: r.Results}); err == nil || !strings.Contains(err.Error(), "attempt") {
		t.Errorf("a predicate with attempt 100: %v, want refused for its attempt", err)
	}
	arts[0].Attempt = 1
	page := writeHTMLPage(t, r, HTMLOptions{})
	for _, want := range []string{
		`data-attempt="1"><figure><a href="artifacts/217-BRIDGE-SNAPSHOT-attempt1-1.png">`, `<figcaption>attempt 1, screenshot</figcaption>`,
		`data-attempt="2"><figure><a href="artifacts/217-BRIDGE-SNAPSHOT-attempt2-1.png">`, `<figcaption>attempt 2, screenshot</figcaption>`,
		`<li class="artifact" data-kind="screenshot"><figure><a href="artifacts/old-1.png">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// The header names the browser as text and, when the report has them as
// values, each engine with its version and protocol.
func TestHTMLBrowserEngine(t *testing.T) {
	r := testReport(t, 0)
	r.Environment.Browser = "Chromium 156.0.8078.108 (HeadlessChrome) over DevTools, launched headless (the harness's)"
	r.Environment.Browsers = []BrowserEnv{{Engine: "chromium", EngineVersion: "156.0.8078.108", Product: "Chromium", Version: "156.0.8078.108", Protocol: "devtools", Reached: "launched headless"}}
	page := writeHTMLPage(t, r, HTMLOptions{})
	for _, want := range []string{
		`<dd id="browser">Chromium 156.0.8078.108 (HeadlessChrome) over DevTools, launched headless (the harness&#39;s)</dd>`,
		`<dd id="browser-engine"><span data-engine="chromium">chromium 156.0.8078.108 over devtools</span></dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	r.Environment = Environment{OS: "linux"}
	if page := writeHTMLPage(t, r, HTMLOptions{}); strings.Contains(page, `id="browser`) {
		t.Error("a run without a browser names one")
	}
}
