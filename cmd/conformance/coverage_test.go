package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// TestCoverageDocIsCurrent: docs/coverage.md is what `conformance coverage`
// writes from levels/clauses.tsv and the catalog today (issue 27).
func TestCoverageDocIsCurrent(t *testing.T) {
	want, err := renderCoverage(levels.Default())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", coverageDoc))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) == string(want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s is stale (run `make coverage`); line %d is\n  %q\nwant\n  %q", coverageDoc, i+1, gl, wl)
		}
	}
}

// TestCoveragePageListsEveryClauseAndRequirement: each clause of the
// inventory appears once with its status, and every requirement of the
// catalog appears with the specs carrying its label.
func TestCoveragePageListsEveryClauseAndRequirement(t *testing.T) {
	cat := levels.Default()
	page, err := renderCoverage(cat)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	clauses, err := levels.TextClauses()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clauses {
		line := "- `" + c.ID + "` **" + statusWords[c.Status] + "**: "
		if n := strings.Count(text, line); n != 1 {
			t.Errorf("clause %s appears %d times as %q, want once", c.ID, n, line)
		}
	}
	cov, err := loadCoverage(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cat.Requirements() {
		if !strings.Contains(text, "  - "+r.ID+" (") {
			t.Errorf("requirement %s is not on the page", r.ID)
			continue
		}
		for _, s := range cov.specs[r.ID] {
			if !strings.Contains(text, "    - spec: `"+s+"`") {
				t.Errorf("spec %q of %s is not on the page", s, r.ID)
			}
		}
	}
}

// TestCoverageRefusesACatalogTheInventoryDoesNotCover: a requirement whose
// clause no inventory clause anchors stops the page, naming it.
func TestCoverageRefusesACatalogTheInventoryDoesNotCover(t *testing.T) {
	def := levels.Default()
	reqs := append(def.Requirements(), levels.Requirement{ID: "UNANCHORED-RULE", Title: "t", Strength: levels.Must,
		Levels: []string{"catalog"}, BugFamilies: []levels.BugFamily{levels.EveryMember},
		Clause: levels.Clause{Source: levels.SpecText, File: levels.SpecMain, Section: "Nowhere", Quote: "a sentence no clause anchors"}})
	cat, err := levels.New(def.Levels(), reqs)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := renderCoverage(cat); err == nil || !strings.Contains(err.Error(), "UNANCHORED-RULE cites no clause") {
		t.Fatalf("renderCoverage = %v, want an error naming UNANCHORED-RULE", err)
	}
}

// TestCoverageCheckFailsOnAStalePage: --check exits 1 on a page that differs
// and 0 once the command has written it.
func TestCoverageCheckFailsOnAStalePage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "coverage.md")
	if err := os.WriteFile(out, []byte("# stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "coverage", "--check", "--out", out); code != exitFailed || !strings.Contains(stderr, "is stale") {
		t.Fatalf("--check on a stale page: exit %d, %q; want %d naming it stale", code, stderr, exitFailed)
	}
	if code, _, stderr := runCLI(t, "coverage", "--out", out); code != exitOK {
		t.Fatalf("coverage --out: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "coverage", "--check", "--out", out); code != exitOK {
		t.Fatalf("--check on a fresh page: exit %d: %s", code, stderr)
	}
}
