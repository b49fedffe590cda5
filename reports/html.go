package reports

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/agentapp/conformance/levels"
)

//go:embed html/report.html.tmpl
var reportTemplate string

//go:embed html/report.css
var reportCSS string

//go:embed html/report.js
var reportJS string

// htmlRequirement is one card of report.html.
type htmlRequirement struct {
	RequirementResult
	Anchor    string   // the card's id: "req-" and the requirement id
	AllLevels []string // the levels that introduce it, one per family
	// InLevels are the requested levels it counts for (levels.Catalog.InLevel),
	// space-separated: the card's data-levels, which the level filter reads.
	InLevels string
	Effect   string // what a failure does when it is not a level failure; what flaky does
	Open     bool   // the card starts open (openByDefault)
	Duration string // of its specs together
	Specs    []htmlSpec
}

// htmlSpec is one spec of a card, with its duration; one that did not pass
// carries what it observed.
type htmlSpec struct {
	Name     string
	Engine   string // a browser spec's engine ("" for a browser-free spec)
	Outcome  Outcome
	Duration string
	Detail   bool // it did not pass: the card shows what follows
	Message  string
	Location string
	Excerpt  *htmlExcerpt
	// Artifacts are the files the spec saved beside the report: a
	// screenshot shows as a thumbnail linking to it, labelled with the
	// attempt that took it; a log as a link.
	Artifacts []htmlArtifact
}

// htmlArtifact is an artifact with the label report.html gives it.
type htmlArtifact struct {
	Artifact
	Label string // "attempt 2, screenshot" or, when the attempt is unknown, "screenshot"
}

// htmlExcerpt is a spec's transcript excerpt with the exchange that failed
// marked (failedExchange).
type htmlExcerpt struct {
	From, To int
	Lines    []htmlLine
	Omitted  int
	OmitFrom int // the first seq left out
	OmitTo   int // the last seq left out
	Mark     string
}

// htmlLine is one excerpt line; Omit says the omitted lines come before it.
type htmlLine struct {
	Seq    int
	Text   string
	Marked bool
	Omit   bool
}

type htmlGroup struct {
	ID, Name     string
	Verdict      Verdict // "" for the group of other requirements
	Requirements []htmlRequirement
}

// htmlCount is the number of requirements with one outcome.
type htmlCount struct {
	Outcome Outcome
	Label   string
	N       int
}

type htmlPage struct {
	R        *Report
	Started  string
	Finished string
	Stopped  bool // the run did not complete
	Levels   []LevelResult
	Summary  []htmlRequirement // every requirement that did not pass, worst first
	Groups   []htmlGroup
	Total    int
	Counts   []htmlCount // every outcome of the lattice, worst first
	CSS      template.CSS
	JS       template.JS
	CSP      string
	Signed   string
}

// HTMLOptions carry what report.html shows beyond the report.
type HTMLOptions struct {
	Catalog *levels.Catalog
	// Excerpts are transcript excerpts keyed by a spec's Exchanges.
	Excerpts map[[2]int]*Excerpt
	// Signed says how the report was signed ("" = unsigned).
	Signed string
}

// WriteHTML renders report.html: one self-contained page, no external
// resource (its Content-Security-Policy forbids every fetch but the
// screenshots a failing spec saved beside it, img-src 'self', and runs only
// its own style and script, by their hashes), every host-controlled string
// escaped by html/template. It renders r's settled outcomes and verdicts
// (Settle) and decides none. The page opens with what did not pass, worst
// first, each linking to its card; the cards follow, grouped under the
// levels the run requested, passed ones collapsed. Its script only adds
// filters (by outcome and level) and a search over what the page shows:
// without it every card is there, the filters hidden.
func WriteHTML(w io.Writer, r *Report, opts HTMLOptions) error {
	cat := opts.Catalog
	if cat == nil {
		cat = levels.Default()
	}
	t, err := template.New("report").Parse(reportTemplate)
	if err != nil {
		return fmt.Errorf("report.html template: %w", err)
	}
	css, js := sha256.Sum256([]byte(reportCSS)), sha256.Sum256([]byte(reportJS))
	page := htmlPage{
		R:        r,
		Started:  r.StartedAt.UTC().Format(time.RFC3339),
		Finished: r.FinishedAt.UTC().Format(time.RFC3339),
		Stopped:  r.Run.Status != RunComplete,
		Levels:   r.Levels,
		CSS:      template.CSS(reportCSS),
		JS:       template.JS(reportJS),
		Signed:   opts.Signed,
	}
	page.Groups = groupByLevel(cat, r, opts.Excerpts)
	page.CSP = htmlCSP(css[:], js[:], page.Groups)
	n := map[Outcome]int{}
	for _, g := range page.Groups {
		for _, rq := range g.Requirements {
			page.Total++
			n[rq.Outcome]++
			if rq.Outcome != Passed {
				page.Summary = append(page.Summary, rq)
			}
		}
	}
	rank := map[Outcome]int{}
	for i, o := range Outcomes() {
		rank[o] = i
		page.Counts = append(page.Counts, htmlCount{Outcome: o, Label: strings.ReplaceAll(string(o), "-", " "), N: n[o]})
	}
	// Worst first; among failures, those that fail a level before warnings
	// and broken preconditions; otherwise in catalog order.
	sort.SliceStable(page.Summary, func(i, j int) bool {
		a, b := page.Summary[i], page.Summary[j]
		if rank[a.Outcome] != rank[b.Outcome] {
			return rank[a.Outcome] < rank[b.Outcome]
		}
		return a.Effect == "" && b.Effect != ""
	})
	if err := t.Execute(w, page); err != nil {
		return fmt.Errorf("writing report.html: %w", err)
	}
	return nil
}

// groupByLevel groups requirements under the requested levels, in
// r.Requested order (catalog order): each under the first requested level it
// counts for (levels.Catalog.InLevel); requirements that count for none, or
// that the catalog does not know, go last. Within a group, requirements are
// in catalog order.
func groupByLevel(cat *levels.Catalog, r *Report, ex map[[2]int]*Excerpt) []htmlGroup {
	verdict := map[string]Verdict{}
	for _, l := range r.Levels {
		verdict[l.ID] = l.Verdict
	}
	var groups []htmlGroup
	var ids []string
	for _, id := range r.Requested {
		l, ok := cat.Level(id)
		if !ok {
			continue
		}
		ids = append(ids, id)
		groups = append(groups, htmlGroup{ID: l.ID, Name: l.Name, Verdict: verdict[l.ID]})
	}
	other := htmlGroup{ID: "other", Name: "Other requirements"}
	for _, rr := range orderRequirements(cat, r.Requirements) {
		hr := htmlRequirement{RequirementResult: rr, Anchor: requirementAnchor(rr.ID), AllLevels: rr.Levels, Open: openByDefault(rr.Outcome)}
		g := -1
		if cr, ok := cat.Requirement(rr.ID); ok {
			hr.AllLevels = cr.Levels
			switch rr.Outcome {
			case Failed:
				hr.Effect = failureNote(EffectOf(cr, rr.Outcome))
			case Flaky:
				hr.Effect = flakyNote(EffectOf(cr, rr.Outcome))
			}
			var in []string
			for i, id := range ids {
				if cat.InLevel(cr, id) {
					in = append(in, id)
					if g < 0 {
						g = i
					}
				}
			}
			hr.InLevels = strings.Join(in, " ")
		}
		var total int64
		for _, s := range rr.Specs {
			total += s.DurationMs
			hr.Specs = append(hr.Specs, specView(s, ex[s.Exchanges]))
		}
		hr.Duration = formatMs(total)
		if g >= 0 {
			groups[g].Requirements = append(groups[g].Requirements, hr)
		} else {
			other.Requirements = append(other.Requirements, hr)
		}
	}
	var out []htmlGroup
	for _, g := range append(groups, other) {
		if len(g.Requirements) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// openByDefault reports whether a card of outcome o starts open: one that
// something went wrong in (failed, error, flaky, blocked, interrupted).
// Passed cards start collapsed, and so do skipped and not-run ones, whose
// reason the summary gives: a focused run's not-run cards would bury the rest.
func openByDefault(o Outcome) bool {
	return o != Passed && o != Skipped && o != NotRun && o != NotApplicable
}

// htmlCSP is the page's Content-Security-Policy: nothing may be fetched
// (default-src 'none'), the one inline style and the one inline script
// run by their hashes, no form goes anywhere, images come
// from data: URLs and, only when the page shows a screenshot, from the
// page's own origin too ('self': the server that serves the report; for a
// page opened from disk Chromium matches 'self' against file: URLs). The
// only images are the artifacts' thumbnails, whose paths stay in the
// report folder (CheckArtifactPath).
func htmlCSP(cssSHA256, jsSHA256 []byte, groups []htmlGroup) string {
	img := "data:"
	if showsScreenshot(groups) {
		img = "'self' data:"
	}
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(cssSHA256) +
		"'; script-src 'sha256-" + base64.StdEncoding.EncodeToString(jsSHA256) + "'; form-action 'none'; base-uri 'none'; img-src " + img
}

// showsScreenshot reports whether a card of the page shows a screenshot.
func showsScreenshot(groups []htmlGroup) bool {
	for _, g := range groups {
		for _, rq := range g.Requirements {
			for _, s := range rq.Specs {
				for _, a := range s.Artifacts {
					if a.Kind == ArtifactScreenshot {
						return true
					}
				}
			}
		}
	}
	return false
}

// failureNote says what a failed requirement does when it does not fail
// its levels.
func failureNote(e Effect) string {
	switch e {
	case EffectWarn:
		return "warning: a should or may never fails a level"
	case EffectUnjudged:
		return "a protocol precondition: its failure leaves the levels unjudged (error), not failed"
	}
	return ""
}

// flakyNote says what a flaky requirement is and does: it is never shown
// as passed, and for its levels it is error.
func flakyNote(e Effect) string {
	const what = "flaky: a spec failed, then passed when re-run at once"
	if e == EffectUnjudged {
		return what + "; not judged, so its levels are error, never passed"
	}
	return what + "; not judged, and a should or may not judged changes no level"
}

// requirementAnchor is the id of a requirement's card: "req-" and the id,
// with any byte outside [A-Za-z0-9.-] written as _ and two hex digits, so
// the link and its target agree whatever the id holds.
func requirementAnchor(id string) string {
	var b strings.Builder
	b.WriteString("req-")
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "_%02x", c)
		}
	}
	return b.String()
}
