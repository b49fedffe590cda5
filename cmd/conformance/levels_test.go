package main

import (
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// TestLevelsMarksPreconditionsAndReadings: the catalog a user reads says
// which requirements are rules of the control protocol rather than of the
// standard, and which rest on a reading of the harness.
func TestLevelsMarksPreconditionsAndReadings(t *testing.T) {
	code, stdout, stderr := runCLI(t, "levels")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	blocks := map[string]string{}
	for _, b := range strings.Split(stdout, "\n\n") {
		id, _, _ := strings.Cut(b, " ")
		blocks[id] = b
	}
	for _, r := range levels.Default().Requirements() {
		b, ok := blocks[r.ID]
		if !ok {
			t.Errorf("%s is not listed", r.ID)
			continue
		}
		if got := strings.Contains(b, "kind:   protocol precondition"); got != r.IsPrecondition() {
			t.Errorf("%s: precondition marked %v, want %v", r.ID, got, r.IsPrecondition())
		}
		if got := strings.Contains(b, "reading: "); got != (r.Reading != "") {
			t.Errorf("%s: reading marked %v, want %q", r.ID, got, r.Reading)
		} else if r.Reading != "" && !strings.Contains(b, r.Reading) {
			t.Errorf("%s: reading does not name %q", r.ID, r.Reading)
		}
	}
}
