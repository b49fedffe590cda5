package reports

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

func writeHTMLPage(t *testing.T, r *Report, opts HTMLOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r, opts); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Host-controlled strings are hostile: they render as text, and the page
// references nothing outside itself; its only links are to its own cards.
func TestHTMLEscapesAndSelfContained(t *testing.T) {
	r := testReport(t, 0)
	r.Host.Name = `<script>alert("name")</script>`
	r.Host.Version = `1.0" onmouseover="alert(1)`
	setSpec(t, r, "READY-CAPABILITIES", Failed, `</pre><img src="https://evil.example/x.png">`)
	setSpec(t, r, "CAT-METADATA", Error, `<a href="https://evil.example/">click</a>`)
	r.Run = RunStatus{Status: RunHostUnreachable, Reason: `cannot reach the host (stdio: <b>my-host</b>)`}
	recompute(t, r)
	ex := map[[2]int]*Excerpt{}
	for _, rr := range r.Requirements {
		if rr.ID == "READY-CAPABILITIES" {
			ex[rr.Specs[0].Exchanges] = &Excerpt{From: 1, To: 2, Lines: []ExcerptLine{{Seq: 1, Conn: 1, Dir: "recv", Text: `#1 conn 1 recv {"x":"<script>bad()</script>"}`}}}
		}
	}
	page := writeHTMLPage(t, r, HTMLOptions{Excerpts: ex})
	// The one script is the page's own, run by its hash.
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 || !strings.Contains(page, "<script>"+reportJS+"</script>") {
		t.Errorf("report.html has %d script elements; want only its own report.js", n)
	}
	if strings.Contains(page, `<img src="https://evil`) || strings.Contains(page, `<a href="https://evil`) {
		t.Error("failure message rendered as HTML")
	}
	if strings.Contains(page, "<b>my-host</b>") || !strings.Contains(page, "&lt;b&gt;my-host&lt;/b&gt;") {
		t.Error("run reason is not shown escaped")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt;") {
		t.Error("host name is not shown escaped")
	}
	if !strings.Contains(page, "&lt;script&gt;bad()&lt;/script&gt;") {
		t.Error("transcript excerpt is not shown escaped")
	}
	// No attribute loads anything from elsewhere; links stay in the page.
	ids := pageIDs(page)
	ext := regexp.MustCompile(`(?i)(src|href|action|srcset|poster|data)\s*=\s*"([^"]*)"`)
	links := 0
	for _, m := range ext.FindAllStringSubmatch(page, -1) {
		switch {
		case m[1] == "href" && strings.HasPrefix(m[2], "#") && ids[m[2][1:]]:
			links++
		case m[1] == "href" && m[2] == "data:,":
		default:
			t.Errorf("page references %s=%q", m[1], m[2])
		}
	}
	if links != 2 {
		t.Errorf("%d links to cards, want 2 (one per requirement that did not pass)", links)
	}
	if !strings.Contains(page, "Content-Security-Policy") || !strings.Contains(page, "default-src &#39;none&#39;") && !strings.Contains(page, "default-src 'none'") {
		t.Error("no Content-Security-Policy forbidding fetches")
	}
}

func pageIDs(page string) map[string]bool {
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[html.UnescapeString(m[1])] = true
	}
	return ids
}

var (
	summaryItem = regexp.MustCompile(`<li class="outcome-([a-z-]+)" data-requirement="([^"]+)" data-outcome="([a-z-]+)"><a href="#([^"]+)">`)
	cardTag     = regexp.MustCompile(`<article class="req outcome-([a-z-]+)" id="([^"]+)" data-requirement="([^"]+)"`)
	groupTag    = regexp.MustCompile(`<section class="group" data-group="([^"]+)">`)
)

// (a) Everything that did not pass is listed first, worst first, each
// entry linking to its card.
func TestHTMLSummaryWorstFirst(t *testing.T) {
	r, _ := latticeReport(t)
	page := writeHTMLPage(t, r, HTMLOptions{})
	summary := page[:strings.Index(page, `<section class="group"`)]
	items := summaryItem.FindAllStringSubmatch(summary, -1)
	want := map[string]Outcome{}
	for _, rr := range r.Requirements {
		if rr.Outcome != Passed {
			want[rr.ID] = rr.Outcome
		}
	}
	if len(items) != len(want) {
		t.Errorf("summary lists %d requirements, want the %d that did not pass", len(items), len(want))
	}
	rank := map[Outcome]int{}
	for i, o := range Outcomes() {
		rank[o] = i
	}
	cards := map[string]string{} // card id -> requirement
	for _, m := range cardTag.FindAllStringSubmatch(page, -1) {
		cards[m[2]] = m[3]
	}
	seen := map[Outcome]bool{}
	prev := -1
	for _, m := range items {
		id, o, target := m[2], Outcome(m[3]), m[4]
		seen[o] = true
		if want[id] != o {
			t.Errorf("summary lists %s as %s, want %s", id, o, want[id])
		}
		if rank[o] < prev {
			t.Errorf("summary lists %s (%s) after a better outcome", id, o)
		}
		prev = rank[o]
		if target != "req-"+id || cards[target] != id {
			t.Errorf("summary entry %s links to #%s, whose card is %q", id, target, cards[target])
		}
	}
	if len(items) > 0 && items[0][2] != "READY-CAPABILITIES" {
		t.Errorf("summary starts with %s, want READY-CAPABILITIES: a failure that fails a level before warnings and preconditions", items[0][2])
	}
	for _, o := range Outcomes()[:len(Outcomes())-1] {
		if !seen[o] {
			t.Errorf("no %s requirement in the summary: the report must exercise the whole lattice", o)
		}
	}
	if len(cards) != len(r.Requirements) {
		t.Errorf("%d cards with an id, want one per requirement (%d)", len(cards), len(r.Requirements))
	}
	if !strings.Contains(page, "warning: a should or may never fails a level") {
		t.Error("the failed should INSTALL-PINNED is not marked a warning")
	}

	all := writeHTMLPage(t, testReport(t, 0), HTMLOptions{})
	if summaryItem.MatchString(all) || !strings.Contains(all, `id="summary-none"`) {
		t.Error("a run where everything passed lists requirements as not passed")
	}
}

// A card's id survives any requirement id: link and target agree.
func TestHTMLAnchorIDs(t *testing.T) {
	for id, want := range map[string]string{
		"READY-CAPABILITIES": "req-READY-CAPABILITIES",
		"a b\"<x>_":          "req-a_20b_22_3cx_3e_5f",
		"a_20b":              "req-a_5f20b",
	} {
		if got := requirementAnchor(id); got != want {
			t.Errorf("requirementAnchor(%q) = %q, want %q", id, got, want)
		}
	}
}

// (b) Requirements sit under the requested levels only: each under the
// first requested level it counts for, the rest last.
func TestHTMLSectionsByRequestedLevel(t *testing.T) {
	cat := levels.Default()
	for _, tc := range []struct {
		requested []string
		groups    []string
		under     map[string]string
	}{
		{[]string{"desktop-p0"}, []string{"desktop-p0", "other"},
			map[string]string{"CAT-METADATA": "desktop-p0", "READY-CAPABILITIES": "desktop-p0", "INSTALL-PINNED": "other"}},
		{[]string{"catalog", "installable", "desktop-p0"}, []string{"catalog", "installable", "desktop-p0", "other"},
			map[string]string{"PROTO-RESET": "catalog", "CAT-METADATA": "catalog", "VERIFY-PACKAGE-HASH": "installable",
				"INSTALL-PINNED": "installable", "READY-CAPABILITIES": "desktop-p0"}},
	} {
		t.Run(strings.Join(tc.requested, "+"), func(t *testing.T) {
			r := testReport(t, 0)
			r.Requested = tc.requested
			recompute(t, r)
			page := writeHTMLPage(t, r, HTMLOptions{})
			var groups []string
			under := map[string]string{}
			sections := groupTag.FindAllStringSubmatchIndex(page, -1)
			for i, s := range sections {
				g := page[s[2]:s[3]]
				groups = append(groups, g)
				end := len(page)
				if i+1 < len(sections) {
					end = sections[i+1][0]
				}
				for _, m := range cardTag.FindAllStringSubmatch(page[s[0]:end], -1) {
					under[m[3]] = g
				}
			}
			if strings.Join(groups, ",") != strings.Join(tc.groups, ",") {
				t.Errorf("sections %v, want %v", groups, tc.groups)
			}
			if len(under) != len(r.Requirements) {
				t.Errorf("%d requirements in sections, want %d", len(under), len(r.Requirements))
			}
			for id, g := range tc.under {
				if under[id] != g {
					t.Errorf("%s is under %q, want %q", id, under[id], g)
				}
			}
			for id, g := range under {
				cr, _ := cat.Requirement(id)
				if g == "other" {
					for _, l := range tc.requested {
						if cat.InLevel(cr, l) {
							t.Errorf("%s counts for %s but is under other requirements", id, l)
						}
					}
				} else if !cat.InLevel(cr, g) {
					t.Errorf("%s is under %s, which it does not count for", id, g)
				}
			}
			for _, l := range cat.Levels() {
				if strings.Contains(page, `data-group="`+l.ID+`"`) != slices.Contains(tc.requested, l.ID) {
					t.Errorf("section for level %s: present %v, requested %v", l.ID, !slices.Contains(tc.requested, l.ID), slices.Contains(tc.requested, l.ID))
				}
			}
		})
	}
}

// (c) A multi-line message keeps its lines in a <pre>; (d) every outcome
// is counted, the new verdicts are badges of their own, and a run that did
// not complete says so.
func TestHTMLMessagesCountsVerdictsBanner(t *testing.T) {
	r, _ := latticeReport(t)
	page := writeHTMLPage(t, r, HTMLOptions{})
	card := func(id string) string {
		j := strings.Index(page, `id="req-`+id+`"`)
		if j < 0 {
			t.Fatalf("no card for %s", id)
		}
		c := page[j:]
		return c[:strings.Index(c, "</article>")]
	}
	pre := regexp.MustCompile(`(?s)<pre class="message">(.*?)</pre>`)
	m := pre.FindStringSubmatch(card("READY-CAPABILITIES"))
	if want := "status was okay\nsecond line <b>\n-want ready\n+got okay"; m == nil || html.UnescapeString(m[1]) != want {
		t.Errorf("the multi-line message of READY-CAPABILITIES is not in a <pre class=\"message\"> with its lines: %q", m)
	}
	for _, id := range []string{"VERIFY-PACKAGE-HASH", "BRIDGE-SNAPSHOT", "CAT-METADATA", "READY-STATUS", "PROJ-CONTENTS", "UNINSTALL-KEEP-DATA"} {
		if !pre.MatchString(card(id)) {
			t.Errorf("card of %s shows no message of its spec", id)
		}
	}

	n := map[Outcome]int{}
	for _, rr := range r.Requirements {
		n[rr.Outcome]++
	}
	if !strings.Contains(page, fmt.Sprintf(`<strong id="count-total">%d</strong>`, len(r.Requirements))) {
		t.Error("count-total is wrong")
	}
	for _, o := range Outcomes() {
		if n[o] == 0 {
			t.Errorf("no requirement is %s: the report must exercise the whole lattice", o)
		}
		if !strings.Contains(page, fmt.Sprintf(`<strong id="count-%s">%d</strong>`, o, n[o])) {
			t.Errorf("count-%s does not show %d", o, n[o])
		}
	}

	css := reportCSS
	for _, v := range []Verdict{LevelFailed, LevelError, LevelIncomplete, LevelInterrupted, LevelPassed, LevelNotJudged} {
		if !strings.Contains(css, ".verdict-"+string(v)+" .verdict{") {
			t.Errorf("report.css has no style for verdict %s", v)
		}
	}
	colour := regexp.MustCompile(`\.verdict-([a-z-]+) \.verdict\{background:([^}]+)\}`)
	by := map[string]string{}
	for _, m := range colour.FindAllStringSubmatch(css, -1) {
		if other, dup := by[m[2]]; dup {
			t.Errorf("verdicts %s and %s share the colour %s", other, m[1], m[2])
		}
		by[m[2]] = m[1]
	}
	for _, o := range Outcomes() {
		if !strings.Contains(css, ".outcome-"+string(o)+"{") {
			t.Errorf("report.css has no style for outcome %s", o)
		}
	}
	// Badges show every requested level's verdict as Settle decided it.
	for _, l := range r.Levels {
		if !strings.Contains(page, fmt.Sprintf(`class="badge verdict-%s" data-level="%s" data-verdict="%s"`, l.Verdict, l.ID, l.Verdict)) {
			t.Errorf("no badge for level %s %s", l.ID, l.Verdict)
		}
	}

	if !strings.Contains(page, `id="run-incomplete"`) || !strings.Contains(page, "This run did not complete (interrupted).") ||
		!strings.Contains(page, `<p id="run-reason">interrupted by interrupt</p>`) {
		t.Error("an interrupted run shows no banner with its reason")
	}
	done := writeHTMLPage(t, testReport(t, 0), HTMLOptions{})
	if strings.Contains(done, `id="run-incomplete"`) {
		t.Error("a complete run shows the banner of a run that did not complete")
	}
}

// The new verdicts show on badges: a report whose levels are error,
// incomplete and interrupted.
func TestHTMLVerdictBadges(t *testing.T) {
	for _, tc := range []struct {
		id      string
		outcome Outcome
		verdict Verdict
	}{
		{"CAT-METADATA", Blocked, LevelError},
		{"CAT-METADATA", Flaky, LevelError},
		{"CAT-METADATA", Skipped, LevelIncomplete},
		{"CAT-METADATA", Interrupted, LevelInterrupted},
		{"CAT-METADATA", Failed, LevelFailed},
	} {
		r := testReport(t, 0)
		setSpec(t, r, tc.id, tc.outcome, "x")
		page := writeHTMLPage(t, r, HTMLOptions{})
		if !strings.Contains(page, `class="badge verdict-`+string(tc.verdict)+`" data-level="catalog"`) {
			t.Errorf("%s %s: no catalog badge %s", tc.id, tc.outcome, tc.verdict)
		}
	}
}

// A flaky requirement shows as flaky, never as passed: counted, in the
// summary between error and blocked, its card saying what flaky means and
// what it does to its levels, in a colour of its own.
func TestHTMLFlaky(t *testing.T) {
	r, _ := latticeReport(t)
	page := writeHTMLPage(t, r, HTMLOptions{})
	if !strings.Contains(page, `<strong id="count-flaky">1</strong>flaky</li>`) {
		t.Error("the counts do not show one flaky requirement")
	}
	items := summaryItem.FindAllStringSubmatch(page, -1)
	var order []string
	for _, m := range items {
		order = append(order, m[3])
	}
	fl := slices.Index(order, "flaky")
	if fl < 0 || slices.Index(order, "error") > fl || slices.Index(order, "blocked") < fl {
		t.Errorf("summary outcomes %v: want flaky after error and before blocked", order)
	}
	j := strings.Index(page, `<article class="req outcome-flaky" id="req-BRIDGE-SNAPSHOT"`)
	if j < 0 {
		t.Fatal("no flaky card for BRIDGE-SNAPSHOT")
	}
	card := page[j:]
	card = card[:strings.Index(card, "</article>")]
	for _, want := range []string{
		`<span class="outcome">flaky</span>`,
		`<p class="effect">flaky: a spec failed, then passed when re-run at once; not judged, so its levels are error, never passed</p>`,
		`<div class="detail outcome-flaky" data-outcome="flaky">`,
		`<pre class="message">the snapshot had no host field`,
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the flaky card lacks %s:\n%s", want, card)
		}
	}

	// A flaky should says it changes no level.
	r = testReport(t, 0)
	setSpec(t, r, "READY-STATUS", Flaky, "flaked")
	if page := writeHTMLPage(t, r, HTMLOptions{}); !strings.Contains(page, "not judged, and a should or may not judged changes no level") {
		t.Error("a flaky should does not say it changes no level")
	}

	// Its colour is its own, in the card's border, its badge and its count.
	vars := regexp.MustCompile(`--([a-z]+):(#[0-9a-f]{6})`).FindAllStringSubmatch(reportCSS, -1)
	colour := map[string]string{}
	for _, v := range vars {
		colour[v[1]] = v[2]
	}
	if colour["flaky"] == "" {
		t.Fatal("report.css defines no --flaky colour")
	}
	for name, c := range colour {
		if name != "flaky" && c == colour["flaky"] {
			t.Errorf("--flaky and --%s share the colour %s", name, c)
		}
	}
	for _, rule := range []string{
		".outcome-flaky{border-left-color:var(--flaky)}",
		".outcome-flaky .outcome{background:var(--flaky)}",
		".count.outcome-flaky strong{color:var(--flaky)}",
	} {
		if !strings.Contains(reportCSS, rule) {
			t.Errorf("report.css lacks %s", rule)
		}
	}
}
