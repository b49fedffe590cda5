package reports

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/agentapp/conformance/levels"
)

//go:embed html/report.html.tmpl
var reportTemplate string

//go:embed html/report.css
var reportCSS string

// htmlRequirement is one row of report.html.
type htmlRequirement struct {
	RequirementResult
	AllLevels []string // the levels that introduce it, one per family
	Failures  []htmlFailure
}

type htmlFailure struct {
	Spec     string
	Message  string
	Location string
	Excerpt  *Excerpt
}

type htmlGroup struct {
	ID, Name     string
	Requirements []htmlRequirement
}

type htmlCounts struct {
	Total, Passed, Failed, Skipped, NotRun int
}

type htmlPage struct {
	R        *Report
	Started  string
	Finished string
	Levels   []LevelResult
	Groups   []htmlGroup
	Counts   htmlCounts
	CSS      template.CSS
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

// WriteHTML renders report.html: one self-contained page, no script, no
// external resource (its Content-Security-Policy forbids every fetch), every
// host-controlled string escaped by html/template.
func WriteHTML(w io.Writer, r *Report, opts HTMLOptions) error {
	cat := opts.Catalog
	if cat == nil {
		cat = levels.Default()
	}
	t, err := template.New("report").Funcs(template.FuncMap{
		"lower": strings.ToLower,
	}).Parse(reportTemplate)
	if err != nil {
		return fmt.Errorf("report.html template: %w", err)
	}
	sum := sha256.Sum256([]byte(reportCSS))
	page := htmlPage{
		R:        r,
		Started:  r.StartedAt.UTC().Format(time.RFC3339),
		Finished: r.FinishedAt.UTC().Format(time.RFC3339),
		CSS:      template.CSS(reportCSS),
		CSP:      "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src data:",
		Signed:   opts.Signed,
	}
	page.Levels = r.Levels
	page.Groups = groupByLevel(cat, r, opts.Excerpts)
	for _, g := range page.Groups {
		for _, rq := range g.Requirements {
			page.Counts.Total++
			switch rq.Outcome {
			case Passed:
				page.Counts.Passed++
			case Failed:
				page.Counts.Failed++
			case Skipped:
				page.Counts.Skipped++
			default:
				page.Counts.NotRun++
			}
		}
	}
	if err := t.Execute(w, page); err != nil {
		return fmt.Errorf("writing report.html: %w", err)
	}
	return nil
}

// groupByLevel groups requirements under the first level they name (the
// level that introduces them), levels in catalog order; requirements the
// catalog does not know go last.
func groupByLevel(cat *levels.Catalog, r *Report, ex map[[2]int]*Excerpt) []htmlGroup {
	idx := map[string]int{}
	var groups []htmlGroup
	for _, l := range cat.Levels() {
		idx[l.ID] = len(groups)
		groups = append(groups, htmlGroup{ID: l.ID, Name: l.Name})
	}
	other := htmlGroup{ID: "other", Name: "Other requirements"}
	for _, rr := range orderRequirements(cat, r.Requirements) {
		hr := htmlRequirement{RequirementResult: rr, AllLevels: rr.Levels}
		first := ""
		if cr, ok := cat.Requirement(rr.ID); ok {
			hr.AllLevels = cr.Levels
			first = cr.Levels[0]
		}
		for _, s := range rr.Specs {
			if s.Outcome != Failed {
				continue
			}
			f := htmlFailure{Spec: s.Name}
			if s.Failure != nil {
				f.Message, f.Location = s.Failure.Message, s.Failure.Location
			}
			f.Excerpt = ex[s.Exchanges]
			hr.Failures = append(hr.Failures, f)
		}
		if i, ok := idx[first]; ok {
			groups[i].Requirements = append(groups[i].Requirements, hr)
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
