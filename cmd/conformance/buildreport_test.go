package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
