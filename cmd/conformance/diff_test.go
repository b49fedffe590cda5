package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

func TestDiffCommand(t *testing.T) {
	priv, _ := keygen(t, reports.Ed25519)
	oldDir := writeRun(t, sigReport(t, "READY-STATUS"), priv, "")
	newDir := writeRun(t, sigReport(t, "VERIFY-PACKAGE-HASH"), priv, "")
	oldJSON := filepath.Join(oldDir, reports.ReportFile)
	newJSON := filepath.Join(newDir, reports.ReportFile)
	newEnv := filepath.Join(newDir, reports.EnvelopeFile)

	code, out, errs := cliRun(t, "diff", oldJSON, newJSON)
	if code != exitFailed {
		t.Fatalf("diff with a regression: exit %d: %s", code, errs)
	}
	for _, want := range []string{"regressed (1)", "VERIFY-PACKAGE-HASH", "passed -> failed", "recovered (1)", "READY-STATUS", "levels lost: installable"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	// An envelope reads like its report.json, and diff says it did not verify it.
	code, out2, errs := cliRun(t, "diff", oldJSON, newEnv)
	if code != exitFailed || out2 != out || !strings.Contains(errs, "NOT verified") {
		t.Errorf("diff against the envelope: exit %d, stderr %q, same output %v", code, errs, out2 == out)
	}
	// Recovery only: exit 0.
	code, out, _ = cliRun(t, "diff", "--json", newJSON, filepath.Join(writeRun(t, sigReport(t), "", ""), reports.ReportFile))
	if code != exitOK {
		t.Errorf("diff with recoveries only: exit %d", code)
	}
	var d reports.DiffResult
	if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Recovered) != 1 || d.Recovered[0].ID != "VERIFY-PACKAGE-HASH" {
		t.Errorf("--json output %v: %s", err, out)
	}
	if code, _, _ := cliRun(t, "diff", oldJSON, oldJSON); code != exitOK {
		t.Errorf("diff of a report with itself: exit %d", code)
	}

	junk := filepath.Join(t.TempDir(), "junk.json")
	if err := os.WriteFile(junk, []byte(`{"payloadType":"x","payload":"!!","signatures":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	nonUTF8 := filepath.Join(t.TempDir(), "latin1.json")
	if err := os.WriteFile(nonUTF8, []byte("{\"format\":\"caf\xe9\"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"diff", oldJSON, junk}, exitHarness},
		{[]string{"diff", nonUTF8, oldJSON}, exitHarness},
		{[]string{"diff", oldJSON, filepath.Join(t.TempDir(), "missing")}, exitHarness},
		{[]string{"diff", oldJSON}, exitUsage},
		{[]string{"diff", oldJSON, newJSON, newJSON}, exitUsage},
		{[]string{"diff", "--bogus", oldJSON, newJSON}, exitUsage},
	} {
		if code, _, errs := cliRun(t, c.args...); code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, errs)
		}
	}
}

// diff of a report.json made of a million tiny arrays (3 MB, gigabytes once
// parsed) is refused before it is parsed: exit 3, one line naming the file
// and the limit.
func TestDiffRefusesAFloodOfArrays(t *testing.T) {
	good := filepath.Join(writeRun(t, sigReport(t), "", ""), reports.ReportFile)
	flood := filepath.Join(t.TempDir(), reports.ReportFile)
	body := `{"format":"` + reports.FormatVersion + `","requirements":[` + strings.Repeat("[],", 1_000_000) + "[]]}"
	if err := os.WriteFile(flood, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cliRun(t, "diff", good, flood)
	if code != exitHarness || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, flood) ||
		!strings.Contains(errs, "limit of 250000 JSON values") || out != "" {
		t.Errorf("diff of a flood of arrays: exit %d, want %d with one line naming the file and the limit\nstdout: %s\nstderr: %s", code, exitHarness, out, errs)
	}
}
