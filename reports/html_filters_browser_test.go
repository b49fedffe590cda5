package reports

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/agentapp/conformance/levels"
)

// cardsMatching lists, in page order, the requirements of r whose card
// keep says to show.
func cardsMatching(r *Report, keep func(RequirementResult) bool) []string {
	var ids []string
	for _, rr := range r.Requirements {
		if keep(rr) {
			ids = append(ids, rr.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// searchText is what the search reads of a card, lower-cased: id, title,
// clause, spec names, failure messages and the reason.
func searchText(rr RequirementResult) string {
	parts := []string{rr.ID, rr.Title, rr.Clause.Source, rr.Clause.File, rr.Clause.Section, rr.Clause.Quote, rr.Reason}
	for _, s := range rr.Specs {
		parts = append(parts, s.Name)
		if s.Failure != nil && s.Outcome != Passed {
			parts = append(parts, s.Failure.Message)
		}
	}
	return strings.ToLower(strings.Join(parts, "\n"))
}

// report.html's filters in headless Chromium: passed, skipped and not-run
// cards start collapsed and the others open; a long transcript excerpt is
// scrolled to the exchange that failed; unticking an outcome hides exactly its cards, and
// ticking it again shows them; the level filter shows exactly the
// requirements that count for the level; the search finds a card by its id
// and by words of its title, clause and failure message; a group left
// empty hides; a summary link to a hidden card clears the filters; the page
// fetches nothing but itself and logs no error. With JavaScript off the
// filters stay hidden and every card shows.
func TestHTMLFiltersInChromium(t *testing.T) {
	exe := chromiumPath(t)
	r, _ := latticeReport(t)
	// A failed spec with a long excerpt, whose last exchange is marked.
	r.Requirements[findReq(r, "READY-CAPABILITIES")].Specs[0].Exchanges = [2]int{5000, 5100}
	page := writeReportHTML(t, t.TempDir(), r)
	base, served := servePage(t, page)
	url := base + "/report.html"
	actx := newReportBrowser(t, exe)
	tctx, bl := openReportPage(t, actx, exe, url)

	shown := func() []string {
		t.Helper()
		ids := evalJS[[]string](tctx, t, `Array.from(document.querySelectorAll('article.req')).filter(a => a.checkVisibility()).map(a => a.dataset.requirement)`)
		slices.Sort(ids)
		return ids
	}
	expect := func(what string, keep func(RequirementResult) bool) {
		t.Helper()
		want := cardsMatching(r, keep)
		if got := shown(); !slices.Equal(got, want) {
			t.Errorf("%s: %d cards show, want %d; showing %v, want %v", what, len(got), len(want), clip(got), clip(want))
		}
	}
	click := func(sel string) {
		t.Helper()
		if err := chromedp.Do(tctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
			t.Fatalf("clicking %s: %v", sel, err)
		}
	}
	search := func(q string) {
		t.Helper()
		evalJS[bool](tctx, t, `(() => { document.querySelector('input[name=q]').value = ''; return true; })()`)
		if err := chromedp.Do(tctx, chromedp.SendKeys(chromedp.CSS(`input[name=q]`), q)); err != nil {
			t.Fatalf("searching %q: %v", q, err)
		}
	}
	all := func(RequirementResult) bool { return true }

	if evalJS[bool](tctx, t, `document.getElementById('filters').hidden`) {
		t.Fatal("the filters are hidden with JavaScript on")
	}
	expect("at first", all)
	open := evalJS[map[string]bool](tctx, t, `Object.fromEntries(Array.from(document.querySelectorAll('article.req')).map(a =>
		[a.dataset.requirement, a.querySelector('details').open]))`)
	for _, rr := range r.Requirements {
		if want := openByDefault(rr.Outcome); open[rr.ID] != want {
			t.Errorf("%s (%s) starts open=%v, want passed, skipped, not-run and not-applicable cards collapsed and the others open", rr.ID, rr.Outcome, open[rr.ID])
		}
	}
	if evalJS[bool](tctx, t, `document.querySelector('article.req[data-outcome="passed"] .clause').checkVisibility()`) {
		t.Error("a passed card's clause shows before the card is opened")
	}

	// A long excerpt shows the exchange that failed, scrolled to it.
	type box struct{ Overflows, MarkShown bool }
	if b := evalJS[box](tctx, t, `(() => { const p = document.querySelector('#req-READY-CAPABILITIES pre.excerpt'), m = p.querySelector('mark'),
		pr = p.getBoundingClientRect(), mr = m.getBoundingClientRect();
		return {Overflows: p.scrollHeight > p.clientHeight, MarkShown: mr.top >= pr.top && mr.bottom <= pr.bottom}; })()`); !b.Overflows || !b.MarkShown {
		t.Errorf("the long excerpt overflows: %v; its marked exchange shows: %v (want both)", b.Overflows, b.MarkShown)
	}

	// Outcomes: untick passed, then failed; tick both again.
	click(`input[name=outcome][value="passed"]`)
	expect("passed unticked", func(rr RequirementResult) bool { return rr.Outcome != Passed })
	click(`input[name=outcome][value="failed"]`)
	expect("passed and failed unticked", func(rr RequirementResult) bool { return rr.Outcome != Passed && rr.Outcome != Failed })
	rest := len(cardsMatching(r, func(rr RequirementResult) bool { return rr.Outcome != Passed && rr.Outcome != Failed }))
	if got := evalJS[string](tctx, t, `document.getElementById('filter-shown').textContent`); !strings.HasPrefix(got, fmt.Sprintf("%d of %d ", rest, len(r.Requirements))) {
		t.Errorf("the filters say %q, want %d of %d shown", got, rest, len(r.Requirements))
	}
	click(`input[name=outcome][value="passed"]`)
	click(`input[name=outcome][value="failed"]`)
	expect("every outcome ticked again", all)

	// Levels: catalog, then every level.
	cat := levels.Default()
	pickLevel := func(id string) {
		t.Helper()
		if err := chromedp.Do(tctx, chromedp.SetValue(chromedp.CSS(`select[name=level]`), id)); err != nil {
			t.Fatalf("choosing level %q: %v", id, err)
		}
		// SetValue sets the value as a script would; a person's choice fires change.
		evalJS[bool](tctx, t, `document.querySelector('select[name=level]').dispatchEvent(new Event('change', {bubbles: true}))`)
	}
	pickLevel("catalog")
	expect("level catalog", func(rr RequirementResult) bool {
		cr, ok := cat.Requirement(rr.ID)
		return ok && cat.InLevel(cr, "catalog")
	})
	if n := evalJS[int](tctx, t, `document.querySelectorAll('section.group:not([hidden])').length`); n != 1 {
		t.Errorf("%d groups show under level catalog, want 1 (the others are empty)", n)
	}
	pickLevel("")
	expect("every level", all)

	// Search: by id, by words of a title, a clause and a failure message.
	var snap RequirementResult
	for _, rr := range r.Requirements {
		if rr.ID == "BRIDGE-SNAPSHOT" {
			snap = rr
		}
	}
	titleWords := strings.Join(strings.Fields(snap.Title)[1:4], " ")
	quoteWords := strings.Join(strings.Fields(snap.Clause.Quote)[:3], " ")
	for _, q := range []string{"bridge-snapshot", "Ready-Capabilities", titleWords, quoteWords, "waiting for package/verify", "conformance/reset answered"} {
		search(q)
		terms := strings.Fields(strings.ToLower(q))
		expect("search "+q, func(rr RequirementResult) bool {
			for _, w := range terms {
				if !strings.Contains(searchText(rr), w) {
					return false
				}
			}
			return true
		})
	}
	search("waiting for package/verify")
	if got := shown(); !slices.Equal(got, []string{"VERIFY-PACKAGE-HASH"}) {
		t.Errorf("searching a failure message shows %v, want VERIFY-PACKAGE-HASH alone", got)
	}
	search("no-card-says-this")
	expect("a search that matches nothing", func(RequirementResult) bool { return false })
	click(`#summary a[href="#req-CAT-METADATA"]`)
	if !evalJS[bool](tctx, t, `document.getElementById('req-CAT-METADATA').checkVisibility()`) {
		t.Error("following a summary link to a card the search hid leaves it hidden")
	}
	expect("after the summary link cleared the filters", all)

	bl.mu.Lock()
	for _, p := range bl.problems {
		t.Errorf("browser: %s", p)
	}
	for _, u := range bl.requests {
		if u != url && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page fetched %s", u)
		}
	}
	bl.mu.Unlock()
	if got := served(); len(got) != 1 {
		t.Errorf("server saw requests %v, want only /report.html", got)
	}

	// JavaScript off: no filters, every card.
	noScript := func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}
	nctx, _ := openReportPage(t, newReportBrowser(t, exe), exe, url, noScript)
	if !evalJS[bool](nctx, t, `document.getElementById('filters').checkVisibility() === false`) {
		t.Error("without JavaScript the filters show, though they cannot work")
	}
	if n := evalJS[int](nctx, t, `Array.from(document.querySelectorAll('article.req')).filter(a => a.checkVisibility()).length`); n != len(r.Requirements) {
		t.Errorf("without JavaScript %d cards show, want all %d", n, len(r.Requirements))
	}
	if !evalJS[bool](nctx, t, `document.querySelector('#req-VERIFY-PACKAGE-HASH pre.message').checkVisibility()`) {
		t.Error("without JavaScript a failed card's message does not show")
	}
}

// clip shortens a list of ids for a failure message.
func clip(ids []string) []string {
	if len(ids) > 8 {
		return append(ids[:8:8], "…")
	}
	return ids
}
