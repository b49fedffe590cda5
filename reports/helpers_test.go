package reports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentapp/conformance/levels"
)

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testReport builds a full report from the catalog: every requirement of
// levels.Default() with one or two passing specs (about 60 specs), each
// spec owning three transcript exchanges. jitter shifts times and
// durations, as a second run of the same host would.
func testReport(tb testing.TB, jitter int64) *Report {
	tb.Helper()
	cat := levels.Default()
	start := testStart.Add(time.Duration(jitter) * time.Minute)
	r := &Report{Format: FormatVersion, Results: Results{
		Run:         RunStatus{Status: RunComplete},
		Harness:     Harness{Name: "agentapp-conformance", Version: "0.1.0", Commit: "0123456789abcdef"},
		Standard:    Standard{Name: "agentapp", Version: "0.10.0"},
		Host:        Host{Name: "agentapp-mockhost", Version: "0.1.0", Kind: "reference", ProtocolVersion: "1", Transport: "in-process"},
		Environment: Environment{OS: "linux", Arch: "amd64", GoVersion: "go1.26"},
		StartedAt:   start,
		FinishedAt:  start.Add(time.Duration(3000+jitter) * time.Millisecond),
		DurationMs:  3000 + jitter,
		Requested:   []string{"catalog", "installable", "executable", "desktop-p0"},
		Fixtures:    []Digest{{Name: "platform-conformance/basic", SHA256: sha("basic")}, {Name: "platform-conformance/layered", SHA256: sha("layered")}},
		FixtureSet:  "sha256:" + sha("fixture-set"),
		Readings:    []Reading{{Topic: "knowledge-binding", Reading: "blocked"}},
	}}
	seq := 1
	for i, cr := range cat.Requirements() {
		rr := RequirementResult{ID: cr.ID, Title: cr.Title, Strength: string(cr.Strength), Kind: string(cr.Kind), Levels: cr.Levels, Clause: ClauseOf(cr.Clause)}
		n := 1
		if i%2 == 0 {
			n = 2
		}
		for j := 0; j < n; j++ {
			rr.Specs = append(rr.Specs, SpecResult{
				Name:       fmt.Sprintf("[%s] spec %d of %s", cr.ID, j+1, cr.Title),
				Outcome:    Passed,
				DurationMs: int64(10+i+j) + jitter,
				Exchanges:  [2]int{seq, seq + 2},
			})
			seq += 3
		}
		rr.Outcome = RequirementOutcome(rr.Specs)
		r.Requirements = append(r.Requirements, rr)
	}
	recompute(tb, r)
	return r
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func recompute(tb testing.TB, r *Report) {
	tb.Helper()
	if err := Settle(&r.Results, levels.Default()); err != nil {
		tb.Fatal(err)
	}
}

// setSpec sets the outcome of a requirement's first spec and recomputes.
func setSpec(tb testing.TB, r *Report, id string, outcome Outcome, msg string) {
	tb.Helper()
	for i := range r.Requirements {
		if r.Requirements[i].ID == id {
			s := &r.Requirements[i].Specs[0]
			s.Outcome = outcome
			s.Failure = &Failure{Message: msg, Location: "suites/x.go:12"}
			recompute(tb, r)
			return
		}
	}
	tb.Fatalf("no requirement %s", id)
}

// writeTranscript writes transcript.jsonl for r into dir, with times.
func writeTranscript(tb testing.TB, dir string, r *Report) {
	tb.Helper()
	var b bytes.Buffer
	for _, rr := range r.Requirements {
		for _, s := range rr.Specs {
			for q := s.Exchanges[0]; q <= s.Exchanges[1]; q++ {
				dir := "send"
				if q%2 == 0 {
					dir = "recv"
				}
				line := map[string]any{
					"seq": q, "time": r.StartedAt.Add(time.Duration(q) * time.Millisecond).Format(time.RFC3339Nano),
					"conn": 1, "spec": s.Name, "dir": dir, "method": "app/list",
					"frame": json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"app/list"}`, q)),
				}
				enc, err := json.Marshal(line)
				if err != nil {
					tb.Fatal(err)
				}
				b.Write(enc)
				b.WriteByte('\n')
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, TranscriptFile), b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func testKey(tb testing.TB, alg string) *Key {
	tb.Helper()
	k, err := NewKey(alg)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// publicOnly returns the verify-only half of k.
func publicOnly(tb testing.TB, k *Key) *Key {
	tb.Helper()
	pem, err := k.PublicPEM()
	if err != nil {
		tb.Fatal(err)
	}
	pk, err := ParsePublicKeyPEM("test public key", pem)
	if err != nil {
		tb.Fatal(err)
	}
	return pk
}

// signedEnvelope builds r's conformance statement and signs it with k; a
// report without a transcript reference gets a made-up one.
func signedEnvelope(tb testing.TB, r *Report, k *Key) []byte {
	tb.Helper()
	if r.Transcript.SHA256 == "" {
		r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("transcript"), Exchanges: 3}
	}
	st, err := BuildStatements(r, nil)
	if err != nil {
		tb.Fatal(err)
	}
	env, err := SignPayload(context.Background(), st.Conformance, k)
	if err != nil {
		tb.Fatal(err)
	}
	return env
}

// signPredicate signs a statement carrying p as is (a lying signer).
func signPredicate(tb testing.TB, r *Report, p *Predicate, k *Key) []byte {
	tb.Helper()
	subj, err := Subjects(r)
	if err != nil {
		tb.Fatal(err)
	}
	payload, err := marshalStatement(subj, PredicateType, p)
	if err != nil {
		tb.Fatal(err)
	}
	env, err := SignPayload(context.Background(), payload, k)
	if err != nil {
		tb.Fatal(err)
	}
	return env
}

func verifyWith(data []byte, opts VerifyOptions) error {
	_, err := VerifyEnvelope(context.Background(), data, opts)
	return err
}

func wantKind(tb testing.TB, err error, k ErrorKind) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("verify passed; want %s", k)
	}
	if KindOf(err) != k {
		tb.Fatalf("verify failed with %s (%v); want %s", KindOf(err), err, k)
	}
}
