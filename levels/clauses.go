package levels

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"
)

// SpecArch names the fifth text, the architecture overview (diagrams and
// their captions); no requirement cites it alone, but the inventory walks it.
const SpecArch = "004 Architecture overview"

// Texts lists the five texts of the standard the clause inventory walks, by
// their short number.
func Texts() []string {
	return []string{SpecMain, SpecRuntime, SpecDesktop, SpecRelease, SpecArch}
}

// ClauseStatus says how the harness stands to one clause of the texts.
type ClauseStatus string

// Clause statuses. A judged clause has at least one requirement whose
// Clause cites it; the other two have none, and say why.
const (
	ClauseJudged        ClauseStatus = "judged"
	ClauseNotYetJudged  ClauseStatus = "not-yet-judged"
	ClauseNotTestable   ClauseStatus = "not-externally-testable"
	clauseInventoryCols              = 6
)

// TextClause is one entry of the clause inventory: a section of one of the
// five texts, or one normative statement of it (a must, must not, should, a
// required list, a table that sets a contract), in our own words.
type TextClause struct {
	// ID is stable: text number, section slug, ordinal within the section
	// (new clauses are appended at the end of their section).
	ID      string
	File    string // one of Texts()
	Section string
	Status  ClauseStatus
	// Anchors are short phrases of the text; a requirement cites this
	// clause when its Clause is from this text (or names it in its section)
	// and its quote contains one of them, compared without case and
	// punctuation.
	Anchors []string
	Summary string // a paraphrase, never a long copy
	// Note: for a clause not yet judged, the issue that would take it; for
	// one not externally testable, the reason.
	Note string
}

//go:embed clauses.tsv
var clausesTSV string

// TextClauses parses the clause inventory (levels/clauses.tsv: text number,
// section, status, anchors separated by " | ", summary, note; lines starting
// with # are comments).
func TextClauses() ([]TextClause, error) {
	files := map[string]string{}
	for _, f := range Texts() {
		files[f[:3]] = f
	}
	status := map[string]ClauseStatus{"judged": ClauseJudged, "not-yet": ClauseNotYetJudged, "not-testable": ClauseNotTestable}
	var out []TextClause
	ordinal := map[string]int{}
	for n, line := range strings.Split(clausesTSV, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != clauseInventoryCols {
			return nil, fmt.Errorf("clauses.tsv:%d: %d columns, want %d", n+1, len(cols), clauseInventoryCols)
		}
		file, ok := files[cols[0]]
		if !ok {
			return nil, fmt.Errorf("clauses.tsv:%d: unknown text %q", n+1, cols[0])
		}
		st, ok := status[cols[2]]
		if !ok {
			return nil, fmt.Errorf("clauses.tsv:%d: status %q is not judged, not-yet or not-testable", n+1, cols[2])
		}
		c := TextClause{File: file, Section: cols[1], Status: st, Summary: cols[4], Note: cols[5]}
		for _, a := range strings.Split(cols[3], "|") {
			if a = strings.TrimSpace(a); a != "" {
				c.Anchors = append(c.Anchors, a)
			}
		}
		if c.Section == "" || c.Summary == "" {
			return nil, fmt.Errorf("clauses.tsv:%d: section and summary are required", n+1)
		}
		if st != ClauseJudged && c.Note == "" {
			return nil, fmt.Errorf("clauses.tsv:%d: a clause %s needs a note saying why", n+1, st)
		}
		if st == ClauseJudged && len(c.Anchors) == 0 {
			return nil, fmt.Errorf("clauses.tsv:%d: a judged clause needs an anchor its requirements quote", n+1)
		}
		key := cols[0] + "/" + slug(c.Section)
		ordinal[key]++
		c.ID = fmt.Sprintf("%s/%d", key, ordinal[key])
		out = append(out, c)
	}
	return out, nil
}

// slug lowercases a section title and joins its words with hyphens.
func slug(s string) string {
	return strings.Join(strings.Fields(normalize(s)), "-")
}

// normalize lowercases s, turns every run of characters that are neither
// letters nor digits into one space, and trims it.
func normalize(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
			continue
		}
		space = true
	}
	return b.String()
}

// CitedBy reports whether requirement r cites this clause: an anchor
// "req:ID" names r, or r's clause is a spec clause from this clause's text
// (or one naming the text, "00N " or "00N:", in its section or an aside of
// its quote) whose quote contains an anchor as whole words. The "req:" form
// links a requirement that cites the same rule where another text states it;
// "-req:" unlinks one whose quote holds the anchor only as context.
func (c TextClause) CitedBy(r Requirement) bool {
	for _, a := range c.Anchors {
		if id, ok := strings.CutPrefix(a, "req:"); ok && id == r.ID {
			return true
		}
		if id, ok := strings.CutPrefix(a, "-req:"); ok && id == r.ID {
			return false
		}
	}
	cl := r.Clause
	if cl.Source != SpecText {
		return false
	}
	num := c.File[:3]
	if !strings.HasPrefix(cl.File, num) && !strings.Contains(cl.Section+" "+cl.Quote, num+" ") &&
		!strings.Contains(cl.Quote, num+":") {
		return false
	}
	q := " " + normalize(cl.Quote) + " "
	for _, a := range c.Anchors {
		if !strings.Contains(a, "req:") && strings.Contains(q, " "+normalize(a)+" ") {
			return true
		}
	}
	return false
}

// ClauseCoverage joins the inventory with a catalog.
type ClauseCoverage struct {
	Clauses []TextClause
	// Reqs maps a clause id to the ids of the requirements citing it, in
	// catalog order.
	Reqs map[string][]string
	// Uncited lists the spec requirements that cite no inventory clause.
	Uncited []string
	// Problems lists clauses whose status disagrees with the catalog: a
	// judged clause no requirement cites, or another one some requirement
	// cites.
	Problems []string
}

// CoverClauses links every requirement of cat to the inventory clauses its
// Clause cites.
func CoverClauses(cat *Catalog, clauses []TextClause) ClauseCoverage {
	cov := ClauseCoverage{Clauses: clauses, Reqs: map[string][]string{}}
	for _, r := range cat.Requirements() {
		if r.Clause.Source != SpecText {
			continue
		}
		cited := false
		for _, c := range clauses {
			if c.CitedBy(r) {
				cov.Reqs[c.ID] = append(cov.Reqs[c.ID], r.ID)
				cited = true
			}
		}
		if !cited {
			cov.Uncited = append(cov.Uncited, r.ID)
		}
	}
	for _, c := range clauses {
		n := len(cov.Reqs[c.ID])
		switch {
		case c.Status == ClauseJudged && n == 0:
			cov.Problems = append(cov.Problems, fmt.Sprintf("%s is marked judged but no requirement quotes any of its anchors %q", c.ID, c.Anchors))
		case c.Status != ClauseJudged && n > 0:
			cov.Problems = append(cov.Problems, fmt.Sprintf("%s is marked %s but is cited by %s: mark it judged", c.ID, c.Status, strings.Join(cov.Reqs[c.ID], ", ")))
		}
	}
	return cov
}
