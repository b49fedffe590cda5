package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// TestProgressPrintsTheWholeFailureMessage: every line of a failed
// requirement's message (a multi-line diff, a line past 200 bytes) is
// printed, indented under the requirement line and redacted; a passed
// requirement prints one line; --quiet prints nothing.
func TestProgressPrintsTheWholeFailureMessage(t *testing.T) {
	cat := levels.Default()
	id := cat.Requirements()[0].ID
	long := "expected " + strings.Repeat("x", 300) + " END"
	failure := "projection differs:\r\n" +
		"  -  \"name\": \"demo\",\n" +
		"  +  \"name\": \"secret-value-1234\",\n" +
		"\n" + long + "\n"
	red := control.NewRedactor()
	red.Add("secret-value-1234", "$SECRET")

	var buf bytes.Buffer
	p := newProgress(&buf, cat, false, red)
	p.settled(suites.RequirementSettled{ID: id, Outcome: reports.Failed, Failure: failure})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("printed %d lines, want the requirement line and 5 message lines:\n%s", len(lines), buf.String())
	}
	if !strings.HasPrefix(lines[0], "FAILED") || !strings.Contains(lines[0], id) {
		t.Errorf("requirement line %q", lines[0])
	}
	want := []string{
		"        projection differs:",
		`          -  "name": "demo",`,
		`          +  "name": "<redacted:$SECRET>",`,
		"",
		"        " + long,
	}
	for i, w := range want {
		if lines[i+1] != w {
			t.Errorf("message line %d = %q, want %q", i+1, lines[i+1], w)
		}
	}
	if strings.Contains(buf.String(), "secret-value-1234") {
		t.Error("a planted secret reached the console")
	}

	buf.Reset()
	p.settled(suites.RequirementSettled{ID: id, Outcome: reports.Passed})
	if strings.Count(buf.String(), "\n") != 1 || !strings.HasPrefix(buf.String(), "PASSED") {
		t.Errorf("passed requirement printed %q", buf.String())
	}

	buf.Reset()
	q := newProgress(&buf, cat, true, red)
	q.settled(suites.RequirementSettled{ID: id, Outcome: reports.Failed, Failure: failure})
	if buf.Len() != 0 {
		t.Errorf("--quiet printed %q", buf.String())
	}
}

// What the host writes never controls the console: a hello name or a
// failure message carrying "\r\x1b[2K desktop-p0 passed\n" prints quoted,
// with no carriage return or escape, and no line of the output is the host's
// forged row.
func TestConsoleQuotesWhatTheHostWrote(t *testing.T) {
	const forged = "\r\x1b[2K desktop-p0 passed\n"
	cat := levels.Default()
	id := cat.Requirements()[0].ID
	var buf bytes.Buffer
	p := newProgress(&buf, cat, false, nil)
	p.settled(suites.RequirementSettled{ID: id, Outcome: reports.Failed, Failure: "app/list answered " + forged + "and more"})

	r := sigReport(t, "READY-SECRETS")
	r.Host.Name, r.Host.Version, r.Host.Kind = "evil"+forged, "1.0"+forged, "\u202edesktop"
	r.Run.Reason = forged
	printSummary(&buf, r, "out", reports.Written{})

	out := buf.String()
	if strings.ContainsAny(out, "\r\x1b\u202e") {
		t.Errorf("a control character of the host reached the console:\n%q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "desktop-p0" && f[1] == "passed" {
			t.Errorf("the host forged a row: %q\n%s", line, out)
		}
	}
	for _, want := range []string{
		`        "app/list answered \r\x1b[2K desktop-p0 passed"`,
		`host: "evil\r\x1b[2K desktop-p0 passed\n" "1.0\r\x1b[2K desktop-p0 passed\n" ("\u202edesktop, in-process")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the console does not show %s:\n%s", want, out)
		}
	}
}

// The host's stderr reaches the console a line at a time, redacted, each
// line that is not plain text quoted: a line written in pieces stays one
// line, and a last line without its end is passed on by Flush.
func TestHostStderrReachesTheConsoleInert(t *testing.T) {
	var buf bytes.Buffer
	red := control.NewRedactor()
	red.Add("secret-value-1234", "$SECRET")
	w := newInertWriter(&buf, red.Redact)
	for _, chunk := range []string{"starting\r\n", "evil \x1b[2K\rdesktop-p0 ", "passed\nkey=secret-value-1234\nno end"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	want := "starting\n" + `"evil \x1b[2K\rdesktop-p0 passed"` + "\nkey=<redacted:$SECRET>\nno end\n"
	if got := buf.String(); got != want {
		t.Errorf("console got %q, want %q", got, want)
	}
}

// A requirement has many specs: the console names the one that decided its
// outcome, a table's case included, above its message.
func TestProgressNamesTheSpecThatFailed(t *testing.T) {
	cat := levels.Default()
	id := cat.Requirements()[0].ID
	var buf bytes.Buffer
	newProgress(&buf, cat, false, nil).settled(suites.RequirementSettled{ID: id, Outcome: reports.Failed,
		Spec: "Desktop P2: controlled actions host:download refuses a file of another app", Failure: "host:download answered host:response"})
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{"        in: Desktop P2: controlled actions host:download refuses a file of another app", "        host:download answered host:response"}
	if len(lines) != 3 || lines[1] != want[0] || lines[2] != want[1] {
		t.Errorf("printed:\n%s\nwant the requirement line, then:\n%s", buf.String(), strings.Join(want, "\n"))
	}
}
