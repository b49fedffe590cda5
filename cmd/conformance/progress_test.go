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
