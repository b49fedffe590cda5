package reports

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentapp/conformance/levels"
)

// TestWritersShowEachEngine: a browser spec judged on two engines is two
// JUnit testcases, each name ending with its engine, the webkit one red;
// report.html tags each spec with its engine; the requirement's reason
// names both outcomes.
func TestWritersShowEachEngine(t *testing.T) {
	r := testReport(t, 0)
	rr := &r.Requirements[0]
	name := rr.Specs[0].Name
	rr.Specs = []SpecResult{
		{Name: name, Outcome: Passed, Engine: "chromium", Exchanges: [2]int{1, 3}},
		{Name: name, Outcome: Failed, Engine: "webkit", Exchanges: [2]int{4, 6}, Failure: &Failure{Message: "webkit saw it"}},
	}
	rr.Outcome, rr.Reason = "", ""
	recompute(t, r)
	if want := "chromium: passed; webkit: failed: webkit saw it"; r.Requirements[0].Reason != want {
		t.Errorf("reason %q, want %q", r.Requirements[0].Reason, want)
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r, levels.Default()); err != nil {
		t.Fatal(err)
	}
	j := junit.String()
	chromium, webkit := xmlText(name+" [chromium]"), xmlText(name+" [webkit]")
	if !strings.Contains(j, `name="`+chromium+`"`) || !strings.Contains(j, `name="`+webkit+`"`) {
		t.Fatalf("junit.xml lacks a testcase per engine for %q", name)
	}
	after := j[strings.Index(j, `name="`+webkit+`"`):]
	if end := strings.Index(after, "</testcase>"); end < 0 || !strings.Contains(after[:end], "<failure") {
		t.Errorf("the webkit testcase is not red: %s", after)
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"chromium", "webkit"} {
		if !strings.Contains(html.String(), `<span class="engine" data-engine="`+e+`">`+e+`</span>`) {
			t.Errorf("report.html does not tag a spec with %s", e)
		}
	}
}
