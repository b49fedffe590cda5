package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// The last line of a run, with or without --quiet and a baseline, is the
// summary a CI log greps, and it renders the report's own outcomes.
func TestRunEndsWithTheSummaryLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the harness binary")
	}
	baseline := filepath.Join(t.TempDir(), "expected.yaml")
	if err := os.WriteFile(baseline, []byte("CAT-NO-BYPASS-PERMISSIONS: \"HOST-1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"quiet, passing", []string{"--quiet"}, exitOK, "(levels: catalog)"},
		{"console, failing", []string{"--fault", "allow-bypass-permissions"}, exitFailed, " 1 failed, "},
		{"quiet, a baselined failure", []string{"--quiet", "--fault", "allow-bypass-permissions", "--expected-failures", baseline}, exitOK, "(levels: none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, rep := consoleRun(t, append([]string{"--level", "catalog"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
			last := lines[len(lines)-1]
			if want := reports.SummaryLine(&rep.Results); last != want {
				t.Errorf("last line %q, want the summary of report.json %q\n%s", last, want, stdout)
			}
			if !strings.HasPrefix(last, "conformance: ") || !strings.Contains(last, tc.contains) {
				t.Errorf("last line %q does not say %q", last, tc.contains)
			}
		})
	}
}
