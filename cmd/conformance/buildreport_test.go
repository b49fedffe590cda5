package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// TestHostileHostTextStillGivesAReport: a host whose hello and refusals are
// huge still gets a written (and signable) report.
func TestHostileHostTextStillGivesAReport(t *testing.T) {
	res := &suites.Result{Connected: true, Hello: protocol.HelloResult{
		Host:            protocol.HostIdentity{Name: strings.Repeat("n", 70000), Version: strings.Repeat("v", 5000), Kind: "web"},
		ProtocolVersion: "1",
		Levels:          make([]string, 1000),
	}}
	res.Specs = []suites.SpecOutcome{{
		Name: "a spec", Requirements: []string{"CAT-LEGACY-KINDS"}, Outcome: "passed",
		Readings: []string{"legacy entry kinds in a 0.10.0 manifest: rejected: " + strings.Repeat("x", 5000)},
	}}
	cat := levels.Default()
	rep, err := buildReport(reportInput{catalog: cat, levels: []string{"catalog"}, result: res,
		started: time.Unix(0, 0).UTC(), finished: time.Unix(1, 0).UTC(), transport: "stdio", work: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "transcript.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := reports.WriteAll(out, rep, reports.WriteOptions{Catalog: cat}); err != nil {
		t.Fatalf("a hostile hello made the report unwritable: %v", err)
	}
	if len(rep.Host.Name) > maxHostField+64 || len(rep.Host.LevelsClaimed) > maxLevelClaim {
		t.Errorf("host fields not capped: name %d bytes, %d levels", len(rep.Host.Name), len(rep.Host.LevelsClaimed))
	}
}

// buildReport records the files a spec saved into the report folder with
// their SHA-256, "/"-separated and relative; a missing file, or a path that
// would leave the folder, is dropped.
func TestBuildReportArtifactDigests(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "report")
	put := func(p, data string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("artifacts/012-BRIDGE-SNAPSHOT-1.png", "\x89PNG\r\n\x1a\nnot much of a picture")
	put("artifacts/012-BRIDGE-SNAPSHOT-1.log", "[error] bridge not ready\n")
	if err := os.WriteFile(filepath.Join(parent, "secret.log"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := &suites.Result{Connected: true, Hello: protocol.HelloResult{
		Host: protocol.HostIdentity{Name: "h", Version: "1", Kind: "web"}, ProtocolVersion: "1",
	}}
	res.Specs = []suites.SpecOutcome{
		{Name: "a failing spec", Requirements: []string{"CAT-LEGACY-KINDS"}, Outcome: reports.Failed, Failure: "the surface showed nothing",
			Artifacts: []string{"artifacts/012-BRIDGE-SNAPSHOT-1.png", "artifacts/gone.png", "../secret.log",
				filepath.Join(parent, "secret.log"), "artifacts/012-BRIDGE-SNAPSHOT-1.log"}},
		{Name: "a failing spec whose files are gone", Requirements: []string{"CAT-LEGACY-KINDS"}, Outcome: reports.Failed, Failure: "x",
			Artifacts: []string{"artifacts/gone.png"}},
	}
	cat := levels.Default()
	in := reportInput{catalog: cat, levels: []string{"catalog"}, result: res,
		started: time.Unix(0, 0).UTC(), finished: time.Unix(1, 0).UTC(), transport: "stdio", work: t.TempDir(), reportDir: dir}
	rep, err := buildReport(in)
	if err != nil {
		t.Fatal(err)
	}
	digest := func(p string) string {
		sum, err := reports.FileSHA256(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	want := []reports.Artifact{
		{Path: "artifacts/012-BRIDGE-SNAPSHOT-1.png", SHA256: digest("artifacts/012-BRIDGE-SNAPSHOT-1.png"), Kind: "screenshot"},
		{Path: "artifacts/012-BRIDGE-SNAPSHOT-1.log", SHA256: digest("artifacts/012-BRIDGE-SNAPSHOT-1.log"), Kind: "log"},
	}
	got := map[string][]reports.Artifact{}
	for _, rr := range rep.Requirements {
		for _, s := range rr.Specs {
			got[s.Name] = s.Artifacts
		}
	}
	if !reflect.DeepEqual(got["a failing spec"], want) {
		t.Errorf("artifacts %+v\nwant %+v", got["a failing spec"], want)
	}
	if a := got["a failing spec whose files are gone"]; a != nil {
		t.Errorf("a spec whose files are gone lists %+v", a)
	}

	// The report writes and verifies with them.
	if err := os.WriteFile(filepath.Join(dir, "transcript.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	priv, pub := keygen(t, reports.Ed25519)
	if _, err := reports.WriteAll(dir, rep, reports.WriteOptions{Catalog: cat, SignKeyPath: priv}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cliRun(t, "verify", "--key", pub, filepath.Join(dir, reports.EnvelopeFile))
	if code != exitOK || !strings.Contains(out, "artifacts: 2, each matching its SHA-256") {
		t.Errorf("verify: exit %d\n%s%s", code, out, errs)
	}

	// Without the report folder, nothing can be digested: nothing is listed.
	in.reportDir = ""
	if rep, err = buildReport(in); err != nil {
		t.Fatal(err)
	}
	for _, rr := range rep.Requirements {
		for _, s := range rr.Specs {
			if s.Artifacts != nil {
				t.Errorf("with no report folder, %q lists %+v", s.Name, s.Artifacts)
			}
		}
	}
}

// The browsers the run judged in become environment.browsers[]: engine,
// versions, protocol and how the harness reached each, cut to the schema's
// bounds.
func TestBrowserEnvs(t *testing.T) {
	long := strings.Repeat("9", 100)
	got := browserEnvs([]browser.Info{
		{Engine: browser.EngineChromium, EngineVersion: "156.0.8078.108", Product: "Chromium", Version: "156.0.8078.108", Build: "HeadlessChrome", Protocol: browser.ProtocolDevTools, Reached: "launched headless"},
		{Engine: browser.EngineChromium, EngineVersion: "130.0.6723.191", Product: "Electron", Version: long, Build: "Chrome", Protocol: browser.ProtocolDevTools, Reached: "attached to ws://127.0.0.1:9222/devtools/browser/x"},
	})
	want := []reports.BrowserEnv{
		{Engine: "chromium", EngineVersion: "156.0.8078.108", Product: "Chromium", Version: "156.0.8078.108", Protocol: "devtools", Reached: "launched headless"},
		{Engine: "chromium", EngineVersion: "130.0.6723.191", Product: "Electron", Version: clipRunes(long, maxBrowserField), Protocol: "devtools", Reached: "attached to ws://127.0.0.1:9222/devtools/browser/x"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("browserEnvs = %+v\nwant %+v", got, want)
	}
	if browserEnvs(nil) != nil {
		t.Error("no browser gives environment.browsers")
	}
}
