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

// diff says, in one line before the diff, when the two reports are of
// different hosts or harness versions: on stdout with the text, on stderr
// with --json (whose stdout stays one JSON document); never an error.
func TestDiffNotesDifferentHostsAndHarnesses(t *testing.T) {
	base := filepath.Join(writeRun(t, sigReport(t), "", ""), reports.ReportFile)
	for _, tc := range []struct {
		name string
		edit func(r *reports.Report)
		note string
	}{
		{"same", func(*reports.Report) {}, ""},
		{"another host", func(r *reports.Report) { r.Host.Name = "my-host" }, "note: the two reports are of different hosts"},
		{"another harness", func(r *reports.Report) { r.Harness.Version = "0.2.0" }, "note: the two reports are made by different harness versions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sigReport(t, "READY-STATUS")
			tc.edit(r)
			other := filepath.Join(writeRun(t, r, "", ""), reports.ReportFile)
			code, out, errs := cliRun(t, "diff", base, other)
			if code != exitFailed {
				t.Errorf("exit %d, want %d (the regression, not the note, decides): %s", code, exitFailed, errs)
			}
			first, _, _ := strings.Cut(out, "\n")
			switch {
			case tc.note == "" && strings.Contains(out, "note:"):
				t.Errorf("a note for reports of one host and harness:\n%s", out)
			case tc.note != "" && !strings.HasPrefix(first, tc.note):
				t.Errorf("first line %q, want the note %q", first, tc.note)
			}
			code, out, errs = cliRun(t, "diff", "--json", base, other)
			var d reports.DiffResult
			if err := json.Unmarshal([]byte(out), &d); err != nil || code != exitFailed {
				t.Errorf("--json: exit %d, stdout is not JSON (%v)", code, err)
			}
			if tc.note != "" && (!strings.Contains(errs, tc.note) || strings.Count(errs, "\n") != 1) {
				t.Errorf("--json: stderr %q, want the note in one line", errs)
			}
		})
	}
}
