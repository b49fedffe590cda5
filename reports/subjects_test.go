package reports

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A genuine envelope beside a doctored report folder does not verify:
// every file the signed statement names (transcript.jsonl, report.json,
// junit.xml, report.html) is checked against the file beside it, and a
// changed or missing one fails with one line naming it.
func TestVerifyChecksEverySubjectFile(t *testing.T) {
	kf, err := GenerateKey(t.TempDir(), Ed25519, false)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := LoadPublicKey(kf.Public)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := testReport(t, 0)
	writeTranscript(t, dir, r)
	if _, err := WriteAll(dir, r, WriteOptions{SignKeyPath: kf.Private}); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join(dir, EnvelopeFile))
	if err != nil {
		t.Fatal(err)
	}
	opts := VerifyOptions{Keys: []*Key{pub}, ArtifactDir: dir}
	v, err := VerifyEnvelope(context.Background(), env, opts)
	if err != nil {
		t.Fatalf("untouched report folder: %v", err)
	}
	files := []string{TranscriptFile, ReportFile, JUnitFile, HTMLFile}
	if v.Files != len(files) {
		t.Errorf("%d subject files checked, want %d (%v)", v.Files, len(files), files)
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			orig, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.WriteFile(p, orig, 0o644) })
			doctored := append([]byte(nil), orig...)
			doctored[len(doctored)/2] ^= 1
			if err := os.WriteFile(p, doctored, 0o644); err != nil {
				t.Fatal(err)
			}
			err = verifyWith(env, opts)
			wantKind(t, err, KindArtifact)
			if msg := err.Error(); !strings.HasPrefix(msg, "artifact mismatch: "+name+" has SHA-256 ") ||
				!strings.Contains(msg, "the signed statement lists") || strings.Contains(msg, "\n") {
				t.Errorf("doctored %s: %q, want one line naming it", name, msg)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			err = verifyWith(env, opts)
			wantKind(t, err, KindArtifact)
			if msg := err.Error(); !strings.Contains(msg, name+" is missing") || strings.Contains(msg, "\n") {
				t.Errorf("missing %s: %q, want one line naming it", name, msg)
			}
		})
	}
	if _, err := VerifyEnvelope(context.Background(), env, opts); err != nil {
		t.Errorf("restored report folder: %v", err)
	}
}

// A subject that cannot name a file of the report folder is refused before
// anything is read: a signer cannot point verify outside the folder.
func TestVerifyRefusesSubjectOutsideTheFolder(t *testing.T) {
	k := testKey(t, Ed25519)
	r := testReport(t, 0)
	r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("transcript"), Exchanges: 3}
	subj, err := Subjects(r)
	if err != nil {
		t.Fatal(err)
	}
	subj[len(subj)-1].Name = "../report.json"
	p, err := BuildPredicate(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := marshalStatement(subj, PredicateType, p)
	if err != nil {
		t.Fatal(err)
	}
	env, err := SignPayload(context.Background(), payload, k)
	if err != nil {
		t.Fatal(err)
	}
	err = verifyWith(env, VerifyOptions{Keys: []*Key{publicOnly(t, k)}, ArtifactDir: t.TempDir()})
	wantKind(t, err, KindWrongSubject)
	if !strings.Contains(err.Error(), `"../report.json"`) {
		t.Errorf("escaping subject: %v", err)
	}
	if _, err := Subjects(r, FileDigest{Name: "../x", SHA256: sha("x")}); err == nil {
		t.Error("Subjects named a file outside the report folder")
	}
}
