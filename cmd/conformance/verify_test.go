package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// sigReport is a report of every catalog requirement, each with one
// passing spec; failing lists requirement ids whose spec failed.
func sigReport(t *testing.T, failing ...string) *reports.Report {
	t.Helper()
	cat := levels.Default()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := &reports.Report{Format: reports.FormatVersion, Results: reports.Results{
		Run:         reports.RunStatus{Status: reports.RunComplete},
		Harness:     reports.Harness{Name: "agentapp-conformance", Version: "0.1.0"},
		Standard:    reports.Standard{Name: "agentapp", Version: "0.10.0"},
		Host:        reports.Host{Name: "agentapp-mockhost", Version: "0.1.0", Kind: "reference", ProtocolVersion: "1", Transport: "in-process"},
		Environment: reports.Environment{OS: "linux", Arch: "amd64", GoVersion: "go1.26"},
		StartedAt:   start, FinishedAt: start.Add(time.Second), DurationMs: 1000,
		Requested: []string{"catalog", "installable", "desktop-p0"},
		Fixtures:  []reports.Digest{},
	}}
	fail := map[string]bool{}
	for _, id := range failing {
		fail[id] = true
	}
	for i, cr := range cat.ForLevels(r.Requested) {
		s := reports.SpecResult{Name: "spec of " + cr.ID, Outcome: reports.Passed, DurationMs: 5, Exchanges: [2]int{i + 1, i + 1}}
		if fail[cr.ID] {
			s.Outcome, s.Failure = reports.Failed, &reports.Failure{Message: cr.ID + " broke"}
		}
		specs := []reports.SpecResult{s}
		r.Requirements = append(r.Requirements, reports.RequirementResult{
			ID: cr.ID, Title: cr.Title, Strength: string(cr.Strength), Levels: cr.Levels,
			Clause: reports.ClauseOf(cr.Clause), Outcome: reports.RequirementOutcome(specs), Specs: specs,
		})
	}
	if err := reports.Settle(&r.Results, cat); err != nil {
		t.Fatal(err)
	}
	return r
}

// writeRun writes a report directory as `conformance run` does, signed
// with key when it is not empty.
func writeRun(t *testing.T, r *reports.Report, key, artifact string) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i := range r.Requirements {
		lines = append(lines, fmt.Sprintf(`{"seq":%d,"time":"%s","conn":1,"spec":"x","dir":"send","method":"app/list","frame":{}}`, i+1, time.Now().Format(time.RFC3339Nano)))
	}
	if err := os.WriteFile(filepath.Join(dir, reports.TranscriptFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reports.WriteAll(dir, r, reports.WriteOptions{SignKeyPath: key, HostArtifact: artifact}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func keygen(t *testing.T, alg string) (priv, pub string) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := cliRun(t, "keygen", "--out", dir, "--algorithm", alg); code != exitOK {
		t.Fatalf("keygen: %s", errs)
	}
	return filepath.Join(dir, reports.PrivateKeyFile), filepath.Join(dir, reports.PublicKeyFile)
}

func TestVerifyExitCodes(t *testing.T) {
	priv, pub := keygen(t, reports.Ed25519)
	_, otherPub := keygen(t, reports.ECDSAP256)
	art := filepath.Join(t.TempDir(), "host.bin")
	if err := os.WriteFile(art, []byte("binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.bin")
	if err := os.WriteFile(other, []byte("other binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(writeRun(t, sigReport(t), priv, art), reports.EnvelopeFile)
	failed := filepath.Join(writeRun(t, sigReport(t, "READY-SECRETS"), priv, ""), reports.EnvelopeFile)

	env, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	tampered := filepath.Join(t.TempDir(), "tampered.json")
	bad := append([]byte(nil), env...)
	// Change one base64 letter of the payload into another: the envelope
	// stays well-formed, the signature no longer covers it.
	at := bytes.Index(bad, []byte(`"payload":"`)) + len(`"payload":"`) + 200
	for bad[at] < 'a' || bad[at] > 'y' {
		at++
	}
	bad[at]++
	if err := os.WriteFile(tampered, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(t.TempDir(), "truncated.json")
	if err := os.WriteFile(truncated, env[:len(env)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(t.TempDir(), "huge.json")
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else {
		_ = f.Truncate(100 << 20)
		f.Close()
	}

	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"--key", pub, good}, exitOK, "verified"},
		{[]string{"--key", pub, good, "--require-level", "catalog", "--require-level", "installable", "--host", "agentapp-mockhost@0.1.0", "--artifact", art}, exitOK, "required levels passed: catalog, installable"},
		{[]string{good, "--key", pub, "--require-level", "desktop-p0"}, exitOK, "desktop-p0"},
		{[]string{"--key", otherPub, good}, exitBadSig, "bad signature"},
		{[]string{"--key", pub, tampered}, exitBadSig, ""},
		{[]string{"--key", pub, good, "--host", "agentapp-mockhost@9.9.9"}, exitSubject, "wrong subject"},
		{[]string{"--key", pub, good, "--artifact", other}, exitSubject, "wrong subject"},
		{[]string{"--key", pub, failed, "--require-level", "desktop-p0"}, exitNotLevel, "READY-SECRETS"},
		{[]string{"--key", pub, truncated}, exitHarness, "malformed"},
		{[]string{"--key", pub, huge}, exitHarness, "over the limit"},
		{[]string{"--key", pub, filepath.Join(t.TempDir(), "missing.json")}, exitHarness, "missing.json"},
		{[]string{"--key", pub, strings.TrimSuffix(good, reports.EnvelopeFile) + reports.TestResultEnvelopeFile}, exitHarness, "predicateType"},
		{[]string{good}, exitUsage, "--key"},
		{[]string{"--key", pub}, exitUsage, "ENVELOPE"},
		{[]string{"--key", pub, good, good}, exitUsage, "ENVELOPE"},
		{[]string{"--key", priv, good}, exitUsage, "PUBLIC KEY"},
		{[]string{"--key", pub, good, "--require-level", "gold"}, exitUsage, "gold"},
		{[]string{"--key", pub, good, "--host", "nohost"}, exitUsage, "NAME@VERSION"},
		{[]string{"--key", pub, good, "--artifact", filepath.Join(t.TempDir(), "nope")}, exitUsage, "--artifact"},
	} {
		code, out, errs := cliRun(t, append([]string{"verify"}, c.args...)...)
		if code != c.code || !strings.Contains(out+errs, c.says) {
			t.Errorf("verify %v: exit %d, want %d saying %q\nstdout: %s\nstderr: %s", c.args, code, c.code, c.says, out, errs)
		}
	}
}

// A registry runs verify on the report of a run unchanged: the unsigned
// statement is refused (there is no signature), and the envelope passes.
func TestVerifyUnsignedRunIsRefused(t *testing.T) {
	_, pub := keygen(t, reports.Ed25519)
	dir := writeRun(t, sigReport(t), "", "")
	if _, err := os.Stat(filepath.Join(dir, reports.EnvelopeFile)); !os.IsNotExist(err) {
		t.Fatal("an unsigned run wrote an envelope")
	}
	code, _, errs := cliRun(t, "verify", "--key", pub, filepath.Join(dir, reports.StatementFile))
	if code != exitHarness {
		t.Errorf("verify of an unsigned statement: exit %d: %s", code, errs)
	}
	var st map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, reports.StatementFile))
	if err := json.Unmarshal(b, &st); err != nil || st["predicateType"] != reports.PredicateType {
		t.Errorf("unsigned statement: %v %v", err, st["predicateType"])
	}
}

// verify checks every artifact the signed report lists against the file
// beside the envelope: a screenshot with one byte changed, or a missing
// log, fails with one line naming it (exit 5, like a host artifact that is
// not the one signed).
func TestVerifyArtifacts(t *testing.T) {
	priv, pub := keygen(t, reports.Ed25519)
	dir := t.TempDir()
	shot := filepath.Join(dir, "artifacts", "012-BRIDGE-SNAPSHOT-1.png")
	logf := filepath.Join(dir, "artifacts", "012-BRIDGE-SNAPSHOT-1.log")
	if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR a screenshot")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logf, []byte("[error] bridge not ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sigReport(t, "READY-SECRETS")
	for i := range r.Requirements {
		if r.Requirements[i].ID == "READY-SECRETS" {
			r.Requirements[i].Specs[0].Artifacts = reports.ArtifactsIn(dir, []string{"artifacts/012-BRIDGE-SNAPSHOT-1.png", "artifacts/012-BRIDGE-SNAPSHOT-1.log"})
		}
	}
	if err := os.WriteFile(filepath.Join(dir, reports.TranscriptFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reports.WriteAll(dir, r, reports.WriteOptions{SignKeyPath: priv}); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(dir, reports.EnvelopeFile)
	code, out, errs := cliRun(t, "verify", "--key", pub, env)
	if code != exitOK || !strings.Contains(out, "artifacts: 2, each matching its SHA-256 in the predicate") {
		t.Fatalf("verify of an untouched report: exit %d\n%s%s", code, out, errs)
	}

	tampered := append([]byte(nil), png...)
	tampered[len(tampered)-1] ^= 0x20
	if err := os.WriteFile(shot, tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliRun(t, "verify", "--key", pub, env)
	if code != exitSubject || strings.Count(errs, "\n") != 1 ||
		!strings.Contains(errs, "artifact mismatch: artifacts/012-BRIDGE-SNAPSHOT-1.png has SHA-256") || strings.Contains(out, "verified") {
		t.Errorf("verify with a tampered screenshot: exit %d, want %d with one line naming it\nstdout: %s\nstderr: %s", code, exitSubject, out, errs)
	}
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}

	if err := os.Remove(logf); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliRun(t, "verify", "--key", pub, env)
	if code != exitSubject || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "artifact mismatch: artifacts/012-BRIDGE-SNAPSHOT-1.log is missing") {
		t.Errorf("verify with a missing log: exit %d, want %d with one line naming it\nstdout: %s\nstderr: %s", code, exitSubject, out, errs)
	}
}

// A genuine envelope beside a doctored transcript.jsonl does not verify:
// verify checks every file the signed statement names (exit 5, one line
// naming the file); the untouched folder verifies and says how many files
// it checked.
func TestVerifyDoctoredTranscript(t *testing.T) {
	priv, pub := keygen(t, reports.Ed25519)
	dir := writeRun(t, sigReport(t), priv, "")
	env := filepath.Join(dir, reports.EnvelopeFile)
	code, out, errs := cliRun(t, "verify", "--key", pub, env)
	if code != exitOK || !strings.Contains(out, "files:     4, each matching its SHA-256") {
		t.Fatalf("verify of an untouched report: exit %d\n%s%s", code, out, errs)
	}
	tr := filepath.Join(dir, reports.TranscriptFile)
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, bytes.Replace(b, []byte(`"app/list"`), []byte(`"app/lisT"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliRun(t, "verify", "--key", pub, env)
	if code != exitSubject || strings.Count(errs, "\n") != 1 ||
		!strings.Contains(errs, "transcript.jsonl has SHA-256") || strings.Contains(out, "verified") {
		t.Errorf("verify beside a doctored transcript: exit %d, want %d with one line naming it\nstdout: %s\nstderr: %s", code, exitSubject, out, errs)
	}
}

// verify's message tells a payload changed after signing from a bad
// signature; both exit 4.
func TestVerifySaysWhenThePayloadChanged(t *testing.T) {
	priv, pub := keygen(t, reports.Ed25519)
	for _, tc := range []struct {
		name string
		edit func(env map[string]any)
		says string
	}{
		{"payload changed", func(env map[string]any) {
			raw, _ := base64.StdEncoding.DecodeString(env["payload"].(string))
			env["payload"] = base64.StdEncoding.EncodeToString([]byte(strings.Replace(string(raw), `"name":"agentapp-mockhost"`, `"name":"agentapp-mockhosT"`, 1)))
		}, "the payload was changed after signing"},
		{"signature changed", func(env map[string]any) {
			sig := env["signatures"].([]any)[0].(map[string]any)
			b, _ := base64.StdEncoding.DecodeString(sig["sig"].(string))
			b[0] ^= 1
			sig["sig"] = base64.StdEncoding.EncodeToString(b)
		}, "does not verify with"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeRun(t, sigReport(t), priv, "")
			p := filepath.Join(dir, reports.EnvelopeFile)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var env map[string]any
			if err := json.Unmarshal(data, &env); err != nil {
				t.Fatal(err)
			}
			before := env["payload"]
			tc.edit(env)
			if tc.says == "the payload was changed after signing" && env["payload"] == before {
				t.Fatal("the edit changed nothing")
			}
			doctored, _ := json.Marshal(env)
			if err := os.WriteFile(p, doctored, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := cliRun(t, "verify", "--key", pub, p)
			if code != exitBadSig || !strings.Contains(stderr, tc.says) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want %d and one line saying %q", code, stderr, exitBadSig, tc.says)
			}
			if tc.says != "the payload was changed after signing" && strings.Contains(stderr, "changed after signing") {
				t.Errorf("a bad signature reported as a changed payload: %q", stderr)
			}
		})
	}
}
