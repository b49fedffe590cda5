package reports

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify tells a payload changed after signing (the signature is valid
// over the statement of the report beside the envelope) from a bad
// signature (valid over nothing at hand).
func TestVerifySaysThePayloadWasChangedAfterSigning(t *testing.T) {
	const changed = "the payload was changed after signing"
	keys := t.TempDir()
	kf, err := GenerateKey(keys, Ed25519, false)
	if err != nil {
		t.Fatal(err)
	}
	other, err := GenerateKey(t.TempDir(), Ed25519, false)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := LoadPublicKey(kf.Public)
	if err != nil {
		t.Fatal(err)
	}
	otherPub, err := LoadPublicKey(other.Public)
	if err != nil {
		t.Fatal(err)
	}

	// envelope edits: a new payload (the statement with a level claimed
	// passed that failed), a flipped signature byte.
	newPayload := func(t *testing.T, env map[string]any) {
		raw, _ := base64.StdEncoding.DecodeString(env["payload"].(string))
		edited := strings.Replace(string(raw), `"verdict":"failed"`, `"verdict":"passed"`, 1)
		if edited == string(raw) {
			t.Fatal("the statement has no failed level to doctor")
		}
		env["payload"] = base64.StdEncoding.EncodeToString([]byte(edited))
	}
	flipSig := func(t *testing.T, env map[string]any) {
		sig := env["signatures"].([]any)[0].(map[string]any)
		b, _ := base64.StdEncoding.DecodeString(sig["sig"].(string))
		b[5] ^= 1
		sig["sig"] = base64.StdEncoding.EncodeToString(b)
	}
	for _, tc := range []struct {
		name string
		edit func(t *testing.T, env map[string]any)
		// folder edits the report folder after signing.
		folder  func(t *testing.T, dir string)
		noDir   bool
		keys    []*Key
		changed bool
	}{
		{name: "payload replaced", edit: newPayload, changed: true},
		{name: "payload re-encoded with other whitespace", edit: func(t *testing.T, env map[string]any) {
			raw, _ := base64.StdEncoding.DecodeString(env["payload"].(string))
			env["payload"] = base64.StdEncoding.EncodeToString(append(raw, ' '))
		}, changed: true},
		{name: "signature corrupted", edit: flipSig},
		{name: "payload replaced and signature corrupted", edit: func(t *testing.T, env map[string]any) { newPayload(t, env); flipSig(t, env) }},
		{name: "payload replaced, checked against another key", edit: newPayload, keys: []*Key{otherPub}},
		{name: "payload replaced, no report folder", edit: newPayload, noDir: true},
		{name: "payload and report.json replaced", edit: newPayload, folder: func(t *testing.T, dir string) {
			p := filepath.Join(dir, ReportFile)
			b, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte(strings.Replace(string(b), `"verdict": "failed"`, `"verdict": "passed"`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := testReport(t, 0)
			setSpec(t, r, "READY-CAPABILITIES", Failed, "status was okay")
			writeTranscript(t, dir, r)
			if _, err := WriteAll(dir, r, WriteOptions{SignKeyPath: kf.Private}); err != nil {
				t.Fatal(err)
			}
			envPath := filepath.Join(dir, EnvelopeFile)
			data, _ := os.ReadFile(envPath)
			opts := VerifyOptions{Keys: []*Key{pub}, ArtifactDir: dir}
			if tc.keys != nil {
				opts.Keys = tc.keys
			}
			if tc.noDir {
				opts.ArtifactDir = ""
			}
			if err := verifyWith(data, opts); err != nil && tc.keys == nil {
				t.Fatalf("the untouched envelope does not verify: %v", err)
			}
			var env map[string]any
			if err := json.Unmarshal(data, &env); err != nil {
				t.Fatal(err)
			}
			tc.edit(t, env)
			if tc.folder != nil {
				tc.folder(t, dir)
			}
			doctored, _ := json.Marshal(env)
			err := verifyWith(doctored, opts)
			wantKind(t, err, KindBadSignature)
			if got := strings.Contains(err.Error(), changed); got != tc.changed {
				t.Errorf("error %q: says %q = %v, want %v", err, changed, got, tc.changed)
			}
			if !tc.changed && !strings.Contains(err.Error(), "does not verify") {
				t.Errorf("error %q does not say the signature does not verify", err)
			}
		})
	}
}
