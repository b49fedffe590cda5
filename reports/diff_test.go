package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func changeIDs(cs []Change) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID + ":" + string(c.Old) + ">" + string(c.New)
	}
	return strings.Join(ids, ",")
}

func TestDiff(t *testing.T) {
	old := testReport(t, 0)
	setSpec(t, old, "READY-CAPABILITIES", Failed, "was broken")
	setSpec(t, old, "PROJ-CONTENTS", Skipped, "no services")
	new := testReport(t, 5)
	setSpec(t, new, "VERIFY-PACKAGE-HASH", Failed, "accepted a changed file\nmore")
	setSpec(t, new, "READY-SECRETS", Skipped, "no secret store")  // must: passed -> skipped
	setSpec(t, new, "PROJ-CONTENTS", Failed, "still no services") // should: skipped -> failed
	// PROTO-ERRORS vanished, and a requirement this catalog does not know appeared.
	new.Requirements = append(new.Requirements[:2], new.Requirements[3:]...)
	new.Requirements = append(new.Requirements, RequirementResult{ID: "X-NEW", Title: "new", Strength: "must", Levels: []string{"catalog"},
		Outcome: Passed, Specs: []SpecResult{{Name: "x", Outcome: Passed}}})
	recompute(t, new)

	d, err := Diff(old, new, nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string][2]string{
		"regressed": {changeIDs(d.Regressed), "VERIFY-PACKAGE-HASH:passed>failed,READY-SECRETS:passed>skipped"},
		"recovered": {changeIDs(d.Recovered), "READY-CAPABILITIES:failed>passed"},
		"changed":   {changeIDs(d.Changed), "PROJ-CONTENTS:skipped>failed"},
		"appeared":  {changeIDs(d.Appeared), "X-NEW:>passed"},
		"vanished":  {changeIDs(d.Vanished), "PROTO-ERRORS:passed>"},
		"lost":      {strings.Join(d.LevelsLost, ","), "catalog,installable"},
		"gained":    {strings.Join(d.LevelsGained, ","), ""},
	} {
		if got[0] != got[1] {
			t.Errorf("%s: %q, want %q", what, got[0], got[1])
		}
	}
	if !d.HasRegression() {
		t.Error("no regression reported")
	}
	if d.Regressed[0].Message != "accepted a changed file" {
		t.Errorf("regression message %q", d.Regressed[0].Message)
	}
	var buf bytes.Buffer
	if err := d.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"regressed (2)", "VERIFY-PACKAGE-HASH", "passed -> failed", "vanished (1)", "PROTO-ERRORS", "passed -> absent", "levels lost: catalog, installable"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, buf.String())
		}
	}
	// Reversed, the run recovers: no regression except what it lost.
	back, err := Diff(new, old, nil)
	if err != nil {
		t.Fatal(err)
	}
	if changeIDs(back.Recovered) != "VERIFY-PACKAGE-HASH:failed>passed,READY-SECRETS:skipped>passed" {
		t.Errorf("reverse recovered %q", changeIDs(back.Recovered))
	}
	if changeIDs(back.Regressed) != "READY-CAPABILITIES:passed>failed" {
		t.Errorf("reverse regressed %q", changeIDs(back.Regressed))
	}
	// The same run twice: nothing.
	same, err := Diff(old, testReportWith(t, old), nil)
	if err != nil {
		t.Fatal(err)
	}
	if same.HasRegression() || len(same.Recovered)+len(same.Changed)+len(same.Appeared)+len(same.Vanished) != 0 {
		t.Errorf("identical runs differ: %+v", same)
	}
}

// testReportWith is a copy of r, as a second identical run would give.
func testReportWith(t *testing.T, r *Report) *Report {
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var c Report
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// A should that stops passing is a regression only when it fails.
func TestDiffShould(t *testing.T) {
	old := testReport(t, 0)
	new := testReport(t, 0)
	setSpec(t, new, "PROJ-CONTENTS", Skipped, "skipped")
	d, err := Diff(old, new, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.HasRegression() || changeIDs(d.Changed) != "PROJ-CONTENTS:passed>skipped" {
		t.Errorf("should passed -> skipped: %+v", d)
	}
	setSpec(t, new, "PROJ-CONTENTS", Failed, "failed")
	if d, _ = Diff(old, new, nil); changeIDs(d.Regressed) != "PROJ-CONTENTS:passed>failed" {
		t.Errorf("should passed -> failed: %+v", d)
	}
}

// diff reads report.json, envelopes and unsigned statements alike.
func TestParseForDiffInputs(t *testing.T) {
	r := testReport(t, 0)
	setSpec(t, r, "READY-CAPABILITIES", Failed, "broken")
	rj, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	env := signedEnvelope(t, r, testKey(t, Ed25519))
	st, err := BuildStatements(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	for kind, data := range map[string][]byte{InputReport: rj, InputEnvelope: env, InputStatement: st.Conformance} {
		in, err := ParseForDiff(data)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if in.Kind != kind {
			t.Errorf("read %s as %s", kind, in.Kind)
		}
		d, err := Diff(r, in.Report, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.HasRegression() || len(d.Recovered)+len(d.Changed)+len(d.Appeared)+len(d.Vanished) != 0 {
			t.Errorf("%s differs from the report it came from: %+v", kind, d)
		}
	}
}

func TestParseForDiffHostile(t *testing.T) {
	r := testReport(t, 0)
	rj, _ := json.Marshal(r)
	env := signedEnvelope(t, r, testKey(t, Ed25519))
	st, _ := BuildStatements(r, nil)
	tr := st.TestResult
	big := make([]byte, 100<<20)
	for name, data := range map[string][]byte{
		"empty":              nil,
		"truncated report":   rj[:len(rj)/2],
		"truncated envelope": env[:len(env)/2],
		"100 MB":             big,
		"not UTF-8":          append(append([]byte{}, rj[:30]...), 0xc3, 0x28),
		"array":              []byte("[1,2]"),
		"unknown object":     []byte(`{"a":1}`),
		"wrong payloadType":  []byte(`{"payloadType":"text/plain","payload":"e30=","signatures":[{"sig":"AA=="}]}`),
		"payload not JSON":   []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30K","signatures":[{"sig":"AA=="}]}`),
		"test-result":        tr,
		"missing fields":     []byte(`{"format":"` + FormatVersion + `"}`),
		"statement no pred":  []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[{"name":"x","digest":{"sha256":"` + sha("x") + `"}}],"predicateType":"` + PredicateType + `","predicate":{}}`),
	} {
		if _, err := ParseForDiff(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
