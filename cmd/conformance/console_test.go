package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// The console and every file say the same thing (issue 23 §4): the run's
// progress lines and summary table are compared, line by line and count
// by count, with report.json.

// consoleRun runs the binary (not --quiet) with args and returns its exit
// code, stdout and the report it wrote.
func consoleRun(t *testing.T, args ...string) (int, string, *reports.Report) {
	t.Helper()
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(bin, append([]string{"run", "--out", out}, args...)...)
	stdout, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return code, string(stdout), rep
}

// progressLine is one requirement as the console printed it.
type progressLine struct {
	mark    string
	message []string // the indented lines under it
}

// parseConsole reads the progress lines (a requirement id a line, with
// its message indented under it) and the summary table rows.
func parseConsole(t *testing.T, stdout string, cat *levels.Catalog) (map[string]progressLine, map[string][]string, []string) {
	t.Helper()
	progress := map[string]progressLine{}
	var order []string
	table := map[string][]string{}
	inTable := false
	last := ""
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "LEVEL"):
			inTable = true
		case inTable && len(f) == 12:
			table[f[0]] = f[1:]
		case inTable:
			inTable = false
		case strings.HasPrefix(line, "        ") && last != "":
			p := progress[last]
			p.message = append(p.message, strings.TrimSpace(line))
			progress[last] = p
		case len(f) >= 2:
			if _, ok := cat.Requirement(f[1]); !ok {
				last = ""
				continue
			}
			if _, dup := progress[f[1]]; dup {
				t.Errorf("the console settled %s twice:\n%s", f[1], stdout)
			}
			progress[f[1]] = progressLine{mark: f[0]}
			order = append(order, f[1])
			last = f[1]
		default:
			last = ""
		}
	}
	return progress, table, order
}

// markOf is the mark the console must print for a requirement of the report.
func markOf(cat *levels.Catalog, r reports.RequirementResult) string {
	cr, _ := cat.Requirement(r.ID)
	if reports.EffectOf(cr, r.Outcome) == reports.EffectWarn {
		return "WARN"
	}
	return strings.ToUpper(string(r.Outcome))
}

// compareConsole checks every progress line and table count against the report.
func compareConsole(t *testing.T, stdout string, rep *reports.Report) {
	t.Helper()
	cat := levels.Default()
	progress, table, _ := parseConsole(t, stdout, cat)
	if len(progress) != len(rep.Requirements) {
		t.Errorf("the console settled %d requirements, report.json has %d:\n%s", len(progress), len(rep.Requirements), stdout)
	}
	for _, r := range rep.Requirements {
		p, ok := progress[r.ID]
		if !ok {
			t.Errorf("the console never settled %s (report.json: %s)", r.ID, r.Outcome)
			continue
		}
		if want := markOf(cat, r); p.mark != want {
			t.Errorf("the console printed %s %s, report.json says %s", p.mark, r.ID, want)
		}
		msg := p.message
		if len(msg) > 0 && strings.HasPrefix(msg[0], "in: ") {
			// The spec that decided the outcome, as report.json names it.
			i := reports.DecidingSpec(r.Specs, r.Outcome)
			if i < 0 || !strings.HasSuffix(r.Specs[i].Name, strings.TrimPrefix(msg[0], "in: ")) {
				t.Errorf("the console names spec %q for %s; report.json decides it by %+v", msg[0], r.ID, r.Specs)
			}
			msg = msg[1:]
		}
		switch {
		case r.Outcome == reports.Passed && len(p.message) > 0:
			t.Errorf("the console printed a message under passed %s: %q", r.ID, p.message)
		case r.Outcome != reports.Passed && (len(msg) == 0 || msg[0] != reports.ForTerminalLines(r.Reason)):
			t.Errorf("the console's reason for %s is %q, report.json's %q", r.ID, p.message, r.Reason)
		}
	}
	if len(table) != len(rep.Levels) {
		t.Errorf("the table has %d levels, report.json %d:\n%s", len(table), len(rep.Levels), stdout)
	}
	for _, l := range rep.Levels {
		want := []string{string(l.Verdict)}
		for _, n := range []int{l.Passed, l.Failed, l.Errors, l.Flaky, l.Blocked, l.Interrupted, l.Warnings, l.Skipped, l.NotRun, l.NotApplicable} {
			want = append(want, strconv.Itoa(n))
		}
		if got := table[l.ID]; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("the table says %s %v, report.json %v", l.ID, got, want)
		}
	}
}

// A table-driven requirement whose third entry fails under the fault: the
// console prints it failed, as report.json does, only once its last entry
// ran, and every other line and count agrees with the report.
func TestConsoleSaysWhatTheReportSays(t *testing.T) {
	code, stdout, rep := consoleRun(t, "--level", "catalog", "--fault", "count-bytes-not-characters")
	if code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	var table reports.RequirementResult
	for _, r := range rep.Requirements {
		if r.ID == "CAT-FIELD-CONSTRAINTS" {
			table = r
		}
	}
	// The premise: the requirement is table-driven, and its first spec
	// in run order passes while a later one fails.
	if table.Outcome != reports.Failed || len(table.Specs) < 3 {
		t.Fatalf("report.json: CAT-FIELD-CONSTRAINTS is %s with %d specs; the test needs it failed by a later entry", table.Outcome, len(table.Specs))
	}
	compareConsole(t, stdout, rep)
}

// A listed requirement that is blocked is not forgiven: the console says
// so in a line of its own, with report.json's outcome and reason, and the
// table is report.json's.
func TestABlockedExpectedFailureIsNamedAsTheReportHasIt(t *testing.T) {
	const fault, blocked = "hash-content-only", "PROTO-RESET"
	file := filepath.Join(t.TempDir(), "expected.yaml")
	if err := os.WriteFile(file, []byte(blocked+": \"HOST-9: waits for the hash fix\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, rep := consoleRun(t, "--level", "catalog", "--fault", fault, "--expected-failures", file)
	var r reports.RequirementResult
	for _, x := range rep.Requirements {
		if x.ID == blocked {
			r = x
		}
	}
	if r.Outcome != reports.Blocked {
		t.Fatalf("report.json: %s is %s under %s; the test needs it blocked", blocked, r.Outcome, fault)
	}
	want := "expected failure: " + blocked + " is blocked, not failed (" + reports.ForTerminal(r.Reason) + "): the baseline forgives failures only, so it counts as blocked"
	if !strings.Contains(stdout, want+"\n") {
		t.Errorf("the console does not say\n%s\n%s", want, stdout)
	}
	if code == exitOK {
		t.Errorf("exit 0: a blocked requirement is not judged, and a baseline forgives failures only")
	}
	compareConsole(t, stdout, rep)
}
