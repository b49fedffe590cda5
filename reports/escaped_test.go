package reports

import (
	"slices"
	"strings"
	"testing"
)

// The processes that escaped a host's process group are part of the
// signed predicate (its schema takes them) and the page shows them as text;
// a report without any shows nothing of them.
func TestEscapedProcessesInPredicateAndPage(t *testing.T) {
	r := testReport(t, 0)
	r.Run.EscapedProcesses = []EscapedProcess{{Command: `/usr/bin/sleep 300 <b>x</b>`, NewSession: true, Count: 2}}
	p, err := BuildPredicate(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidatePredicate(p); err != nil {
		t.Fatalf("the schema refuses run.escapedProcesses: %v", err)
	}
	if !slices.Equal(p.Run.EscapedProcesses, r.Run.EscapedProcesses) {
		t.Errorf("predicate run.escapedProcesses %+v, want %+v", p.Run.EscapedProcesses, r.Run.EscapedProcesses)
	}
	page := writeHTMLPage(t, r, HTMLOptions{})
	if !strings.Contains(page, `id="escaped-processes"`) || !strings.Contains(page, "<code>/usr/bin/sleep 300 &lt;b&gt;x&lt;/b&gt;</code> &times; 2 (in a session of its own)") {
		t.Error("report.html does not show the escaped process, escaped")
	}
	if strings.Contains(writeHTMLPage(t, testReport(t, 0), HTMLOptions{}), `id="escaped-processes"`) {
		t.Error("report.html shows escaped processes for a run without any")
	}
}
