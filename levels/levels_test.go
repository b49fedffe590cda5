package levels

import (
	"slices"
	"strings"
	"testing"
)

func TestLevelsAreCumulativeWithinAFamily(t *testing.T) {
	c := Default()
	r, ok := c.Requirement("CAT-METADATA")
	if !ok {
		t.Fatal("CAT-METADATA missing")
	}
	for _, l := range []string{"catalog", "installable", "executable", "desktop-p0", "desktop-p6"} {
		if !c.InLevel(r, l) {
			t.Errorf("a catalog requirement must count for %s", l)
		}
	}
	inst, _ := c.Requirement("INSTALL-CONSENT")
	if c.InLevel(inst, "catalog") {
		t.Error("an installable requirement must not count for catalog")
	}
	if c.InLevel(inst, "desktop-p0") {
		t.Error("INSTALL-CONSENT is introduced at desktop-p1, not p0")
	}
	if !c.InLevel(inst, "desktop-p1") {
		t.Error("INSTALL-CONSENT must count for desktop-p1")
	}
}

func TestJudgedLevelsNeedEveryLevelBelowCovered(t *testing.T) {
	c := Default()
	got := c.JudgedLevels()
	want := []string{"catalog", "installable", "capability", "runtime", "product", "executable", "desktop-p0", "desktop-p1", "desktop-p2", "desktop-p3", "desktop-p4", "desktop-p5", "desktop-p6"}
	if !slices.Equal(got, want) {
		t.Fatalf("judged levels = %v, want %v", got, want)
	}
	// Cumulative: a level whose lower level is not covered cannot be
	// judged, though it is covered itself.
	ls := c.Levels()
	for i := range ls {
		if ls[i].ID == "product" {
			ls[i].Judged = false
		}
	}
	partial, err := New(ls, c.Requirements())
	if err != nil {
		t.Fatal(err)
	}
	if partial.CanJudge("product") || partial.CanJudge("executable") {
		t.Error("with product not covered, neither product nor executable above it can be judged")
	}
	if !partial.CanJudge("runtime") || !partial.CanJudge("desktop-p6") {
		t.Error("levels below product, and the desktop ladder, stay judgeable")
	}
}

func TestParseLevelsNamesTheBadOne(t *testing.T) {
	c := Default()
	if _, err := c.ParseLevels([]string{"catalog", "desktop-p9"}); err == nil || !strings.Contains(err.Error(), `"desktop-p9"`) {
		t.Fatalf("want an error naming desktop-p9, got %v", err)
	}
	got, err := c.ParseLevels([]string{" Catalog ", "catalog"})
	if err != nil || !slices.Equal(got, []string{"catalog"}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestNewRejectsInconsistentCatalogs(t *testing.T) {
	ls := allLevels()
	good := Requirement{ID: "X", Title: "t", Strength: Must, Levels: []string{"catalog"}, Clause: Clause{File: "f", Quote: "q"}}
	cases := map[string]Requirement{
		"unknown level": {ID: "X", Title: "t", Strength: Must, Levels: []string{"nope"}, Clause: good.Clause},
		"bad strength":  {ID: "X", Title: "t", Strength: "shall", Levels: good.Levels, Clause: good.Clause},
		"no quote":      {ID: "X", Title: "t", Strength: Must, Levels: good.Levels, Clause: Clause{File: "f"}},
		"two of family": {ID: "X", Title: "t", Strength: Must, Levels: []string{"catalog", "installable"}, Clause: good.Clause},
		"no level":      {ID: "X", Title: "t", Strength: Must, Clause: good.Clause},
	}
	for name, r := range cases {
		if _, err := New(ls, []Requirement{r}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(ls, []Requirement{good, good}); err == nil {
		t.Error("duplicate id accepted")
	}
}

func TestFamilyLabelsAreGinkgoLabels(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range BugFamilies() {
		l := f.Label()
		if strings.ContainsAny(l, "&|!,()/ ") || !strings.HasPrefix(l, "family:") {
			t.Errorf("family %q gives label %q, which Ginkgo's label filters cannot name", f, l)
		}
		if seen[l] {
			t.Errorf("two families share the label %q", l)
		}
		seen[l] = true
	}
}
