package docs

import (
	"strconv"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

const coveragePage = "coverage.md"

// TestCoveragePageSummaryIsTheInventory: docs/coverage.md's summary counts,
// per text, the clauses levels/clauses.tsv holds in each status, names only
// requirements the catalog has, and its links resolve. (Its staleness as a
// whole is TestCoverageDocIsCurrent in cmd/conformance, which renders it.)
func TestCoveragePageSummaryIsTheInventory(t *testing.T) {
	page := readPage(t, coveragePage)
	tab, err := tableWithHeader(page, "Text", "Clauses", "Judged", "Not yet judged", "Not externally testable")
	if err != nil {
		t.Fatal(err)
	}
	clauses, err := levels.TextClauses()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][4]int{}
	for _, c := range clauses {
		for _, key := range []string{c.File, "All"} {
			n := want[key]
			n[0]++
			switch c.Status {
			case levels.ClauseJudged:
				n[1]++
			case levels.ClauseNotYetJudged:
				n[2]++
			case levels.ClauseNotTestable:
				n[3]++
			}
			want[key] = n
		}
	}
	rows := 0
	for _, row := range tab.rows {
		name := tab.cell(row, 0)
		if strings.HasPrefix(name, "[") {
			name = name[1:strings.Index(name, "]")]
		}
		w, ok := want[name]
		if !ok {
			t.Errorf("%s summary has a row %q no text of the inventory has", coveragePage, name)
			continue
		}
		rows++
		for i := range 4 {
			got, err := strconv.Atoi(tab.cell(row, i+1))
			if err != nil || got != w[i] {
				t.Errorf("%s summary row %q column %q = %q, want %d", coveragePage, name, tab.header[i+1], tab.cell(row, i+1), w[i])
			}
		}
	}
	if rows != len(levels.Texts())+1 {
		t.Errorf("%s summary has %d rows, want one per text and a total (%d)", coveragePage, rows, len(levels.Texts())+1)
	}
	if bad := unknownRequirements(page, levels.Default()); len(bad) > 0 {
		t.Errorf("%s names requirements levels/ does not have: %s", coveragePage, strings.Join(bad, ", "))
	}
	broken, err := brokenLinks(coveragePage)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
	if t.Failed() {
		t.Log("regenerate with `make coverage` after changing levels/clauses.tsv or levels/")
	}
}
