package reports

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestJUnit(t *testing.T) {
	r := testReport(t, 0)
	setSpec(t, r, "READY-CAPABILITIES", Failed, "status was okay\nsecond line <b>")
	setSpec(t, r, "PROJ-CONTENTS", Skipped, "host has no projection of services")
	// One spec that serves two requirements.
	shared := r.Requirements[1].Specs[0]
	r.Requirements[2].Specs = append(r.Requirements[2].Specs, shared)
	recompute(t, r)
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r, nil); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, buf.String())
	}
	names := map[string]bool{}
	for _, rr := range r.Requirements {
		for _, s := range rr.Specs {
			names[s.Name] = true
		}
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d suites", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Tests != len(names) || len(s.Cases) != len(names) || doc.Tests != len(names) {
		t.Errorf("tests %d / %d cases, want one per spec: %d", s.Tests, len(s.Cases), len(names))
	}
	if s.Failures != 1 || s.Skipped != 1 {
		t.Errorf("failures %d skipped %d, want 1 and 1", s.Failures, s.Skipped)
	}
	for _, c := range s.Cases {
		var reqs, lv []string
		for _, p := range c.Properties {
			switch p.Name {
			case "requirement":
				reqs = append(reqs, p.Value)
			case "level":
				lv = append(lv, p.Value)
			}
		}
		if len(reqs) == 0 || len(lv) == 0 {
			t.Errorf("testcase %q has requirements %v levels %v", c.Name, reqs, lv)
		}
		if c.Name == shared.Name && len(reqs) != 2 {
			t.Errorf("shared spec lists requirements %v, want two", reqs)
		}
		if strings.Contains(c.Name, "[READY-CAPABILITIES]") && strings.HasSuffix(c.Name, "spec 1 of "+r.Requirements[findReq(r, "READY-CAPABILITIES")].Title) {
			if c.Failure == nil || c.Failure.Message != "status was okay" || !strings.Contains(c.Failure.Body, "Run readiness before execution") {
				t.Errorf("failure of READY-CAPABILITIES: %+v", c.Failure)
			}
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
