package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// TestUnsupportedIsBlockedNeverPassedNorFailed runs against a host that
// answers -32006 (cannot take this package) wherever it would refuse one:
// no refusal is on record, so the specs that need one are blocked, never
// passed (the host refused nothing) and never failed (it broke no clause
// the harness saw), and the run exits "could not judge".
func TestUnsupportedIsBlockedNeverPassedNorFailed(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "r")
	if code := runBinary(t, bin, "run", "--quiet", "--level", "desktop-p0", "--out", out, "--fault", "refusals-as-unsupported"); code != exitNotJudged {
		t.Fatalf("exit %d, want %d (could not judge)", code, exitNotJudged)
	}
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	blocked := 0
	for _, r := range rep.Requirements {
		switch r.Outcome {
		case reports.Passed:
		case reports.Blocked:
			blocked++
			if !strings.Contains(r.Reason, "-32006") || !strings.Contains(r.Reason, "not-translatable") {
				t.Errorf("%s is blocked without quoting the host's -32006 answer and its findings: %s", r.ID, r.Reason)
			}
		default:
			t.Errorf("%s is %s; a host answering -32006 is blocked, never blamed", r.ID, r.Outcome)
		}
	}
	if blocked == 0 {
		t.Error("no requirement was blocked: the refusal specs took -32006 for an answer")
	}
	for _, l := range rep.Levels {
		if l.Verdict == reports.LevelPassed {
			t.Errorf("level %s passed with its refusal specs blocked", l.ID)
		}
	}
}
