package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// TestASelectionLeavesTheRestNotRun: with --focus or --label-filter, the
// requirements not selected are not-run, never failed; their levels are
// incomplete; junit.xml and the exit code agree.
func TestASelectionLeavesTheRestNotRun(t *testing.T) {
	bin := buildBinary(t)
	for name, args := range map[string][]string{
		"focus":        {"--focus", "manifestVersion the standard"}, // every spec of CAT-MANIFEST-VERSION
		"label filter": {"--label-filter", "CAT-MANIFEST-VERSION"},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			code := runBinary(t, bin, append([]string{"run", "--quiet", "--out", out, "--level", "catalog"}, args...)...)
			if code != exitIncomplete {
				t.Fatalf("exit %d, want %d (incomplete)", code, exitIncomplete)
			}
			rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Requirements {
				want := reports.NotRun
				if r.ID == "CAT-MANIFEST-VERSION" {
					want = reports.Passed
				}
				if r.Outcome != want {
					t.Errorf("%s is %s, want %s", r.ID, r.Outcome, want)
				}
			}
			if len(rep.Levels) != 1 || rep.Levels[0].Verdict != reports.LevelIncomplete {
				t.Errorf("levels %+v, want catalog incomplete", rep.Levels)
			}
			if len(rep.Run.Focus) == 0 && rep.Run.LabelFilter == "" {
				t.Errorf("the report does not record the selection: %+v", rep.Run)
			}
			junit, err := os.ReadFile(filepath.Join(out, reports.JUnitFile))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(junit), "<failure") || strings.Contains(string(junit), "<error") {
				t.Errorf("junit.xml reports a failure or error for a selection that passed:\n%s", junit)
			}
			if !strings.Contains(string(junit), "<skipped") {
				t.Errorf("junit.xml does not show the unselected specs as skipped")
			}
		})
	}
}
