package reports

import (
	"github.com/agentapp/conformance/levels"

	"bytes"
	"strings"
	"testing"
)

// latticeReport is a full report in which every outcome of the lattice
// occurs, in a spec and as a requirement's outcome, with a failed must, a
// failed should (a warning) and a failed protocol precondition, a spec that
// serves two requirements and requirements no spec reported for.
func latticeReport(t *testing.T) (r *Report, shared string) {
	t.Helper()
	r = testReport(t, 0)
	setSpec(t, r, "READY-CAPABILITIES", Failed, "status was okay\nsecond line <b>\n-want ready\n+got okay")
	setSpec(t, r, "INSTALL-PINNED", Failed, "the pinned version was not kept")
	setSpec(t, r, "PROTO-RESET", Failed, "conformance/reset answered -32601")
	setSpec(t, r, "VERIFY-PACKAGE-HASH", Error, "timeout after 10s waiting for package/verify\nlast bytes: ]]><x/>\x00\x1b[31m")
	setSpec(t, r, "BRIDGE-SNAPSHOT", Flaky, "the snapshot had no host field\n-want host\n+got nothing")
	setSpec(t, r, "CAT-METADATA", Blocked, "positive control failed: the host could not list the untouched package")
	setSpec(t, r, "READY-STATUS", Interrupted, "interrupted by interrupt")
	setSpec(t, r, "PROJ-CONTENTS", Skipped, "host has no projection of services")
	setSpec(t, r, "READY-PER-ENTRY", NotApplicable, "the host takes no runtime-backed release: the control install was refused naming runtime_backed")
	setSpec(t, r, "UNINSTALL-KEEP-DATA", NotRun, "not selected by --focus")
	for _, id := range []string{"READY-END-OF-LIFE", "READY-DEPRECATED"} {
		rr := &r.Requirements[findReq(r, id)]
		rr.Specs, rr.Reason = nil, ""
		rr.Outcome = NotRun
		if id == "READY-DEPRECATED" {
			rr.Outcome = Interrupted
		}
	}
	// One spec that serves two requirements.
	s := r.Requirements[1].Specs[0]
	r.Requirements[2].Specs = append(r.Requirements[2].Specs, s)
	r.Run = RunStatus{Status: RunInterrupted, Reason: "interrupted by interrupt"}
	// A level no failure reaches: not-judged where the catalog cannot
	// judge it (withProductUnjudged).
	r.Requested = append(r.Requested, "product")
	recompute(t, r)
	return r, s.Name
}

// withProductUnjudged settles r again under the default catalog with
// product not judged, so the report has a level of each kind whichever
// levels the catalog judges.
func withProductUnjudged(t *testing.T, r *Report) *Report {
	t.Helper()
	cat := levels.Default()
	ls := cat.Levels()
	for i := range ls {
		if ls[i].ID == "product" {
			ls[i].Judged = false
		}
	}
	unjudged, err := levels.New(ls, cat.Requirements())
	if err != nil {
		t.Fatal(err)
	}
	if err := Settle(&r.Results, unjudged); err != nil {
		t.Fatal(err)
	}
	return r
}

func writeJUnitDoc(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// junit.xml follows junit-10.xsd's structure, its counts agree with its
// testcases, and every outcome of the lattice lands on the schema's child
// for it.
func TestJUnitSchema(t *testing.T) {
	r, shared := latticeReport(t)
	r = withProductUnjudged(t, r)
	doc := writeJUnitDoc(t, r)
	for _, p := range validateJUnit(doc) {
		t.Errorf("junit.xml: %s", p)
	}
	if t.Failed() {
		t.Fatalf("junit.xml:\n%s", doc)
	}
	root, err := parseXMLTree(doc)
	if err != nil {
		t.Fatal(err)
	}
	suites := root.children("testsuite")
	if len(suites) != 1 {
		t.Fatalf("%d testsuite elements, want 1", len(suites))
	}
	suite := suites[0]
	if ts := suite.Attrs["timestamp"]; ts != "2026-03-01T12:00:00Z" {
		t.Errorf("timestamp=%q, want 2026-03-01T12:00:00Z", ts)
	}

	// Which requirements each spec serves, and which outcome it had.
	type want struct {
		outcome Outcome
		reqs    []string
	}
	specs := map[string]*want{}
	noSpec := map[string]Outcome{}
	for _, rr := range r.Requirements {
		if len(rr.Specs) == 0 {
			noSpec[rr.ID] = rr.Outcome
		}
		for _, s := range rr.Specs {
			if specs[s.Name] == nil {
				specs[s.Name] = &want{outcome: s.Outcome}
			}
			specs[s.Name].reqs = append(specs[s.Name].reqs, rr.ID)
		}
	}
	cases := suite.children("testcase")
	if len(cases) != len(specs)+len(noSpec) {
		t.Errorf("%d testcases, want one per spec (%d) and one per requirement without a spec (%d)", len(cases), len(specs), len(noSpec))
	}
	seen := map[Outcome]int{}
	failTypes := map[string]string{}
	for _, c := range cases {
		name := c.Attrs["name"]
		w := specs[name]
		if w == nil {
			o, ok := noSpec[c.Attrs["classname"]]
			if !ok {
				t.Errorf("testcase %q is neither a spec nor a requirement without one", name)
				continue
			}
			w = &want{outcome: o, reqs: []string{c.Attrs["classname"]}}
			delete(noSpec, c.Attrs["classname"])
		} else {
			delete(specs, name)
		}
		seen[w.outcome]++
		if got := c.Attrs["classname"]; got != strings.Join(w.reqs, ",") {
			t.Errorf("testcase %q: classname %q, want its requirement ids %q", name, got, strings.Join(w.reqs, ","))
		}
		out := c.child("system-out")
		for _, id := range w.reqs {
			if out == nil || !strings.Contains(out.Text, "requirement "+id+" (") || !strings.Contains(out.Text, "levels: ") {
				t.Errorf("testcase %q: system-out does not name requirement %s and its levels", name, id)
			}
		}
		if name == shared && len(w.reqs) != 2 {
			t.Errorf("shared spec serves %v, want two requirements", w.reqs)
		}
		var kids []string
		for _, k := range c.Children {
			if k.Name != "system-out" {
				kids = append(kids, k.Name)
			}
		}
		got := strings.Join(kids, " ")
		switch w.outcome {
		case Passed:
			if got != "" {
				t.Errorf("passed testcase %q has <%s>", name, got)
			}
		case Failed:
			if strings.Join(w.reqs, ",") == "INSTALL-PINNED" { // a should: a warning, never a red failure
				if m := c.child("skipped"); got != "skipped" || !strings.HasPrefix(m.Attrs["message"], "warning: the pinned version was not kept") {
					t.Errorf("failed should %q has [%s], want skipped with a warning", name, got)
				}
				continue
			}
			if got != "failure" {
				t.Errorf("failed testcase %q has [%s], want failure", name, got)
				continue
			}
			f := c.child("failure")
			failTypes[w.reqs[0]] = f.Attrs["type"]
			if strings.Contains(f.Attrs["message"], "\n") || f.Attrs["message"] == "" {
				t.Errorf("failed testcase %q: message %q, want the first line", name, f.Attrs["message"])
			}
		case Error, Flaky, Blocked, Interrupted:
			if got != "error" {
				t.Errorf("%s testcase %q has [%s], want error", w.outcome, name, got)
				continue
			}
			if typ := c.child("error").Attrs["type"]; typ != string(w.outcome) {
				t.Errorf("%s testcase %q: error type %q, want %q", w.outcome, name, typ, w.outcome)
			}
		case Skipped, NotRun, NotApplicable:
			if got != "skipped" {
				t.Errorf("%s testcase %q has [%s], want skipped", w.outcome, name, got)
				continue
			}
			if m := c.child("skipped").Attrs["message"]; !strings.HasPrefix(m, string(w.outcome)) {
				t.Errorf("%s testcase %q: skipped message %q does not say %s", w.outcome, name, m, w.outcome)
			}
		}
	}
	for _, o := range Outcomes() {
		if seen[o] == 0 {
			t.Errorf("no testcase has outcome %s: the report must exercise the whole lattice", o)
		}
	}
	if len(specs)+len(noSpec) > 0 {
		t.Errorf("no testcase for specs %v, requirements %v", specs, noSpec)
	}
	for id, typ := range map[string]string{"READY-CAPABILITIES": "failed", "PROTO-RESET": "precondition"} {
		if failTypes[id] != typ {
			t.Errorf("failure of %s has type %q, want %q", id, failTypes[id], typ)
		}
	}
	for _, c := range cases {
		if c.Attrs["classname"] != "READY-CAPABILITIES" || c.child("failure") == nil {
			continue
		}
		f := c.child("failure")
		if f.Attrs["message"] != "status was okay" || !strings.Contains(f.Text, "+got okay") || !strings.Contains(f.Text, "Run readiness before execution") {
			t.Errorf("failure of READY-CAPABILITIES: message %q, body %q", f.Attrs["message"], f.Text)
		}
	}

	// A flaky spec is an error of type flaky (junit-10.xsd has no
	// <flakyFailure>), its message the failure's first line, its body
	// saying it failed and then passed, then the failure.
	flaky := 0
	for _, c := range cases {
		e := c.child("error")
		if c.Attrs["classname"] != "BRIDGE-SNAPSHOT" || e == nil {
			continue
		}
		flaky++
		if e.Attrs["type"] != "flaky" || e.Attrs["message"] != "the snapshot had no host field" ||
			!strings.HasPrefix(e.Text, "flaky: the spec failed, then passed when re-run at once") || !strings.Contains(e.Text, "+got nothing") {
			t.Errorf("flaky testcase: error type %q, message %q, body %q", e.Attrs["type"], e.Attrs["message"], e.Text)
		}
		if out := c.child("system-out"); out == nil || !strings.Contains(out.Text, "requirement BRIDGE-SNAPSHOT (must): flaky;") {
			t.Errorf("flaky testcase: system-out does not say the requirement is flaky")
		}
	}
	if flaky != 1 {
		t.Errorf("%d flaky testcases with an error, want 1", flaky)
	}
	if strings.Contains(string(doc), "flakyFailure") {
		t.Error("junit.xml uses <flakyFailure>, which junit-10.xsd does not allow")
	}

	for _, c := range cases {
		if e := c.child("error"); c.Attrs["classname"] == "VERIFY-PACKAGE-HASH" && e != nil {
			if !strings.Contains(e.Text, "last bytes: ]]><x/>\uFFFD\uFFFD[31m") {
				t.Errorf("error body of VERIFY-PACKAGE-HASH is %q, want the host's bytes as text", e.Text)
			}
		}
	}

	// Properties: run.status, and the verdict of judged levels only.
	props := map[string]string{}
	if ps := suite.child("properties"); ps != nil {
		for _, p := range ps.children("property") {
			props[p.Attrs["name"]] = p.Attrs["value"]
		}
	}
	if props["run.status"] != RunInterrupted || props["run.reason"] != "interrupted by interrupt" {
		t.Errorf("run.status %q run.reason %q", props["run.status"], props["run.reason"])
	}
	judged := 0
	for _, l := range r.Levels {
		v, ok := props["level."+l.ID]
		switch {
		case l.Verdict == LevelNotJudged && ok:
			t.Errorf("not-judged level %s appears as a property", l.ID)
		case l.Verdict != LevelNotJudged && v != string(l.Verdict):
			t.Errorf("property level.%s = %q, want %q", l.ID, v, l.Verdict)
		case l.Verdict != LevelNotJudged:
			judged++
		}
	}
	if judged == 0 || judged == len(r.Levels) {
		t.Errorf("%d of %d requested levels judged: the report should request both kinds", judged, len(r.Levels))
	}
}

// A run where every spec passed shows no failure, error or skipped.
func TestJUnitAllPassed(t *testing.T) {
	doc := writeJUnitDoc(t, testReport(t, 0))
	for _, p := range validateJUnit(doc) {
		t.Errorf("junit.xml: %s", p)
	}
	for _, el := range []string{"<failure", "<error", "<skipped"} {
		if bytes.Contains(doc, []byte(el)) {
			t.Errorf("junit.xml of a passing run has %s", el)
		}
	}
}

// The validator is a negative control: it rejects what junit-10.xsd
// rejects, including junit.xml as this harness used to write it.
func TestJUnitValidatorRejects(t *testing.T) {
	const ok = `<testsuites name="x" tests="2" failures="1" errors="0" time="1.000">
<testsuite name="s" tests="2" failures="1" errors="0" skipped="0" time="1.000" timestamp="2026-03-01T12:00:00Z">
<properties><property name="run.status" value="complete"/></properties>
<testcase name="a" classname="A" time="0.010"><failure message="m" type="failed">body</failure><system-out>requirement A</system-out></testcase>
<testcase name="b" classname="B" time="0.010"></testcase>
</testsuite>
</testsuites>`
	if ps := validateJUnit([]byte(ok)); len(ps) > 0 {
		t.Fatalf("the valid document is refused: %v", ps)
	}
	for name, doc := range map[string]string{
		"properties in testcase": strings.Replace(ok, `<testcase name="b" classname="B" time="0.010">`,
			`<testcase name="b" classname="B" time="0.010"><properties><property name="requirement" value="B"/></properties>`, 1),
		"skipped on testsuites":     strings.Replace(ok, `<testsuites name="x"`, `<testsuites skipped="0" name="x"`, 1),
		"failure before skipped":    strings.Replace(ok, `<system-out>requirement A</system-out>`, `<skipped message="s"/>`, 1),
		"system-out before failure": strings.Replace(ok, `<failure message="m" type="failed">body</failure><system-out>requirement A</system-out>`, `<system-out>x</system-out><failure message="m" type="failed">body</failure>`, 1),
		"testcase without name":     strings.Replace(ok, `<testcase name="b" `, `<testcase `, 1),
		"testsuite without tests":   strings.Replace(ok, `<testsuite name="s" tests="2" `, `<testsuite name="s" `, 1),
		"two skipped":               strings.Replace(ok, `<testcase name="b" classname="B" time="0.010">`, `<testcase name="b" classname="B" time="0.010"><skipped/><skipped/>`, 1),
		"unknown element":           strings.Replace(ok, `<system-out>requirement A</system-out>`, `<rerunFailure/>`, 1),
		"surefire flakyFailure":     strings.Replace(ok, `<testcase name="b" classname="B" time="0.010"></testcase>`, `<testcase name="b" classname="B" time="0.010"><flakyFailure message="m" type="x">body</flakyFailure></testcase>`, 1),
		"properties after testcase": strings.Replace(strings.Replace(ok, `<properties><property name="run.status" value="complete"/></properties>`, ``, 1), `</testsuite>`, `<properties><property name="a" value="b"/></properties></testsuite>`, 1),
		"empty properties":          strings.Replace(ok, `<property name="run.status" value="complete"/>`, ``, 1),
		"property without value":    strings.Replace(ok, ` value="complete"`, ``, 1),
		"timestamp without zone":    strings.Replace(ok, `2026-03-01T12:00:00Z`, `2026-03-01T12:00:00`, 1),
		"suite failures disagree":   strings.Replace(ok, `skipped="0" time`, `skipped="1" time`, 1),
		"root failures disagree":    strings.Replace(ok, `tests="2" failures="1" errors="0" time="1.000">`+"\n<testsuite", `tests="2" failures="0" errors="0" time="1.000">`+"\n<testsuite", 1),
		"root tests disagree":       strings.Replace(ok, `<testsuites name="x" tests="2"`, `<testsuites name="x" tests="3"`, 1),
		"text in testcase":          strings.Replace(ok, `<testcase name="b" classname="B" time="0.010">`, `<testcase name="b" classname="B" time="0.010">stray`, 1),
		"bad time":                  strings.Replace(ok, `time="1.000">`+"\n<testsuite", `time="1s">`+"\n<testsuite", 1),
		"testsuite as root":         `<testsuite name="s" tests="0"></testsuite>`,
	} {
		if doc == ok {
			t.Errorf("%s: the mutation did not apply", name)
			continue
		}
		if ps := validateJUnit([]byte(doc)); len(ps) == 0 {
			t.Errorf("%s: the validator accepts it", name)
		}
	}
}

func findReq(r *Report, id string) int {
	for i, rr := range r.Requirements {
		if rr.ID == id {
			return i
		}
	}
	return -1
}
