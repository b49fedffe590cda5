package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// The checkers the page tests rest on find what they look for: a page that
// names an unknown requirement, links to a missing file or to a missing
// anchor is caught, and a sound one is not.
func TestPageCheckersCatchBrokenPages(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("other.md", "# Other\n\n## A `code` heading: with/punctuation\n\n## Repeat\n\n## Repeat\n")
	page := write("page.md", strings.Join([]string{
		"# Page",
		"## Refusals: -32001 or -32002",
		"Judged by CAT-FIELD-CONSTRAINTS and CAT-FIELD-CONSTRAINT; UTF-8 is no requirement.",
		"[ok](other.md#a-code-heading-withpunctuation) [ok](other.md#repeat-1) [ok](#refusals--32001-or--32002)",
		"[ok](https://example.org/missing) `[in code](missing.md)`",
		"[bad](missing.md) [bad](other.md#nowhere) [bad](#nowhere) [bad](other.md#repeat-2)",
		"```",
		"[in a fence](missing-too.md)",
		"```",
	}, "\n"))

	if got := unknownRequirements(readPage(t, page), levels.Default()); !slices.Equal(got, []string{"CAT-FIELD-CONSTRAINT"}) {
		t.Errorf("unknown requirements = %v, want only CAT-FIELD-CONSTRAINT", got)
	}
	broken, err := brokenLinks(page)
	if err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, b := range broken {
		targets = append(targets, strings.Fields(b)[1])
	}
	want := []string{"missing.md:", "other.md#nowhere:", "#nowhere:", "other.md#repeat-2:"}
	if !slices.Equal(targets, want) {
		t.Errorf("broken links = %q, want %q", broken, want)
	}
}

func TestTablesReadHeaderAndRows(t *testing.T) {
	text := "| A | B |\n| --- | --- |\n| `x` | 1 to 2 characters |\n| y |\n\ntext\n\n| C |\n| --- |\n"
	tab, err := tableWithHeader(text, "A")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tab.header, []string{"A", "B"}) || len(tab.rows) != 2 || tab.cell(tab.rows[1], 1) != "" ||
		!slices.Equal(backticked(tab.cell(tab.rows[0], 0)), []string{"x"}) {
		t.Errorf("table = %+v", tab)
	}
	if _, err := tableWithHeader(text, "B"); err == nil {
		t.Error("a header no table starts with was found")
	}
}
