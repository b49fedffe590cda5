package reports

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fileNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	sort.Strings(out)
	return out
}

func TestWriteAllUnsigned(t *testing.T) {
	dir := t.TempDir()
	r := testReport(t, 0)
	setSpec(t, r, "READY-CAPABILITIES", Failed, "readiness status was \"okay\", expected ready")
	writeTranscript(t, dir, r)
	w, err := WriteAll(dir, r, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{HTMLFile, ReportFile, StatementFile, JUnitFile, TestResultStatementFile}
	sort.Strings(want)
	if diff := cmp.Diff(want, fileNames(w.Files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if w.Signed || w.KeyID != "" {
		t.Errorf("unsigned run says signed: %+v", w)
	}
	sum, err := FileSHA256(filepath.Join(dir, TranscriptFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if got.Transcript.SHA256 != sum || got.Transcript.Path != TranscriptFile || got.Transcript.Exchanges == 0 {
		t.Errorf("transcript ref %+v, file digest %s", got.Transcript, sum)
	}
	if diff := cmp.Diff(r, got); diff != "" {
		t.Errorf("report.json round trip (-wrote +read):\n%s", diff)
	}
	// The failed spec's exchanges are excerpted in report.html.
	page, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	var ex [2]int
	for _, rr := range r.Requirements {
		if rr.ID == "READY-CAPABILITIES" {
			ex = rr.Specs[0].Exchanges
		}
	}
	firstDir := "send" // writeTranscript sends on odd sequence numbers
	if ex[0]%2 == 0 {
		firstDir = "recv"
	}
	for _, want := range []string{"#" + itoa(ex[0]) + " conn 1 " + firstDir + " app/list", "#" + itoa(ex[1]) + " conn 1", "This report is not signed"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(string(page), "#"+itoa(ex[1]+1)+" conn") {
		t.Error("report.html excerpts an exchange outside the failed spec's range")
	}
	// The unsigned statement is the statement a signature would cover.
	st, err := os.ReadFile(filepath.Join(dir, StatementFile))
	if err != nil {
		t.Fatal(err)
	}
	in, err := ParseForDiff(st)
	if err != nil {
		t.Fatal(err)
	}
	if in.Kind != InputStatement || len(in.Report.Requirements) != len(r.Requirements) {
		t.Errorf("statement read back as %s with %d requirements", in.Kind, len(in.Report.Requirements))
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestWriteAllSigned(t *testing.T) {
	keys := t.TempDir()
	kf, err := GenerateKey(keys, ECDSAP256, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	art := filepath.Join(keys, "host.bin")
	if err := os.WriteFile(art, []byte("the host"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testReport(t, 0)
	writeTranscript(t, dir, r)
	// A stale unsigned statement from an earlier run is removed.
	if err := os.WriteFile(filepath.Join(dir, StatementFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := WriteAll(dir, r, WriteOptions{SignKeyPath: kf.Private, HostArtifact: art})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Signed || w.KeyID != kf.KeyID {
		t.Errorf("written %+v, key %s", w, kf.KeyID)
	}
	want := []string{HTMLFile, EnvelopeFile, ReportFile, JUnitFile, TestResultEnvelopeFile}
	sort.Strings(want)
	if diff := cmp.Diff(want, fileNames(w.Files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, StatementFile)); !os.IsNotExist(err) {
		t.Error("stale report.statement.json left beside a signed envelope")
	}
	pub, err := LoadPublicKey(kf.Public)
	if err != nil {
		t.Fatal(err)
	}
	artSum, _ := FileSHA256(art)
	env, err := os.ReadFile(filepath.Join(dir, EnvelopeFile))
	if err != nil {
		t.Fatal(err)
	}
	v, err := VerifyEnvelope(context.Background(), env, VerifyOptions{Keys: []*Key{pub},
		RequireLevels: []string{"installable", "desktop-p0"}, Host: "agentapp-mockhost@0.1.0", ArtifactSHA256: artSum})
	if err != nil {
		t.Fatal(err)
	}
	trSum, _ := FileSHA256(filepath.Join(dir, TranscriptFile))
	found := false
	for _, s := range v.Subjects {
		if s.GetName() == TranscriptSubject && s.GetDigest()["sha256"] == trSum {
			found = true
		}
	}
	if !found {
		t.Errorf("no transcript subject with the file's digest %s in %v", trSum, v.Subjects)
	}
	// The test-result envelope is signed too, with the generic predicate.
	tr, err := os.ReadFile(filepath.Join(dir, TestResultEnvelopeFile))
	if err != nil {
		t.Fatal(err)
	}
	pe, err := ParseEnvelope(tr)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		PredicateType string `json:"predicateType"`
		Predicate     struct {
			Result      string   `json:"result"`
			PassedTests []string `json:"passedTests"`
		} `json:"predicate"`
	}
	if err := json.Unmarshal(pe.Payload, &st); err != nil {
		t.Fatal(err)
	}
	if st.PredicateType != TestResultPredicateType || st.Predicate.Result != ResultPassed || len(st.Predicate.PassedTests) != len(r.Requirements) {
		t.Errorf("test-result statement %+v", st)
	}
	// verify reads only the conformance predicate, and says so.
	wantKind(t, verifyWith(tr, VerifyOptions{Keys: []*Key{pub}}), KindMalformed)
}

func TestWriteAllErrors(t *testing.T) {
	dir := t.TempDir()
	r := testReport(t, 0)
	if _, err := WriteAll(dir, r, WriteOptions{}); err == nil || !strings.Contains(err.Error(), "transcript") {
		t.Errorf("no transcript: %v", err)
	}
	writeTranscript(t, dir, r)
	if _, err := WriteAll(dir, r, WriteOptions{SignKeyPath: filepath.Join(dir, "nope.key")}); err == nil || !strings.Contains(err.Error(), "nope.key") {
		t.Errorf("missing key: %v", err)
	}
	bad := testReport(t, 0)
	bad.Requirements[0].Outcome = Failed // its specs passed
	if _, err := WriteAll(dir, bad, WriteOptions{}); err == nil || !strings.Contains(err.Error(), bad.Requirements[0].ID) {
		t.Errorf("inconsistent outcome: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	good, err := json.Marshal(testReport(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"truncated":     string(good[:100]),
		"other format":  strings.Replace(string(good), FormatVersion, "agentapp-conformance/report/v9", 1),
		"no format":     `{"host":{"name":"x"}}`,
		"unknown field": strings.Replace(string(good), `"format"`, `"extra":1,"format"`, 1),
		"trailing":      string(good) + "}",
		"not UTF-8":     string(good[:50]) + "\xff",
		"bad outcome":   strings.Replace(string(good), `"outcome":"passed"`, `"outcome":"great"`, 1),
		"array":         `[]`,
		"empty host":    strings.Replace(string(good), `"name":"agentapp-mockhost"`, `"name":""`, 1),
	}
	for name, c := range cases {
		p := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p)
		if err == nil {
			t.Errorf("%s: loaded", name)
		} else if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}
