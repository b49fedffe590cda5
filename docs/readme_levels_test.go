package docs

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// The README's "What each level's certificate covers" names every level,
// and each judged level with the number of requirements it counts, as the
// catalog has it: a requirement moved to another level fails here until
// the table says so.
func TestReadmeSaysWhatEachCertificateCovers(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "### What each level's certificate covers")
	if start < 0 {
		t.Fatal(`README.md has no section "What each level's certificate covers"`)
	}
	section := text[start:]
	if end := strings.Index(section[4:], "\n#"); end >= 0 {
		section = section[:end+4]
	}
	row := regexp.MustCompile(`(?m)^\| ([a-z0-9-]+) \((\d+)\) \|`)
	counted := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		n, _ := strconv.Atoi(m[2])
		counted[m[1]] = n
	}
	cat := levels.Default()
	for _, id := range cat.LevelIDs() {
		if !cat.CanJudge(id) {
			if !strings.Contains(section, "| "+id) && !strings.Contains(section, ", "+id+" |") {
				t.Errorf("the table does not name the unjudged level %s", id)
			}
			continue
		}
		want := len(cat.ForLevels([]string{id}))
		got, ok := counted[id]
		switch {
		case !ok:
			t.Errorf("the table has no row %q", "| "+id+" ("+strconv.Itoa(want)+") |")
		case got != want:
			t.Errorf("the table says %s counts %d requirements; the catalog, %d", id, got, want)
		}
	}
}
