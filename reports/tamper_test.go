package reports

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// smallReport keeps only a few requirements so that every byte of its
// envelope can be flipped in a short test.
func smallReport(t *testing.T) *Report {
	r := testReport(t, 0)
	r.Requirements = r.Requirements[:1]
	r.Requested = []string{"catalog"}
	recompute(t, r)
	return r
}

// Any byte changed anywhere in the envelope file makes verify fail.
func TestTamperEveryEnvelopeByte(t *testing.T) {
	for _, alg := range []string{Ed25519, ECDSAP256} {
		t.Run(alg, func(t *testing.T) {
			k := testKey(t, alg)
			env := signedEnvelope(t, smallReport(t), k)
			v, err := NewVerifier(VerifyOptions{Keys: []*Key{publicOnly(t, k)}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Verify(context.Background(), env); err != nil {
				t.Fatalf("untouched envelope: %v", err)
			}
			for i := range env {
				bad := append([]byte(nil), env...)
				bad[i] ^= 0x01 // every byte becomes another byte
				if _, err := v.Verify(context.Background(), bad); err == nil {
					t.Fatalf("byte %d (%q): verify passed", i, env[i])
				}
			}
		})
	}
}

// A full-size envelope: flip bytes at a stride through the whole file.
func TestTamperFullEnvelopeSampled(t *testing.T) {
	k := testKey(t, Ed25519)
	env := signedEnvelope(t, testReport(t, 0), k)
	v, err := NewVerifier(VerifyOptions{Keys: []*Key{publicOnly(t, k)}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(env); i += 97 {
		bad := append([]byte(nil), env...)
		bad[i] ^= 0x01
		if _, err := v.Verify(context.Background(), bad); err == nil {
			t.Fatalf("byte %d of %d: verify passed", i, len(env))
		}
	}
}

// Any byte changed in the decoded payload or signature, re-encoded
// correctly, is a bad signature.
func TestTamperPayloadAndSignature(t *testing.T) {
	k := testKey(t, ECDSAP256)
	env := signedEnvelope(t, smallReport(t), k)
	var e dsse.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(e.Payload)
	sig, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
	v, err := NewVerifier(VerifyOptions{Keys: []*Key{publicOnly(t, k)}})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, e2 dsse.Envelope) {
		t.Helper()
		data, err := json.Marshal(e2)
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(context.Background(), data)
		wantKind(t, err, KindBadSignature)
		_ = what
	}
	for i := 0; i < len(payload); i += 3 {
		p := append([]byte(nil), payload...)
		p[i] ^= 0x01
		e2 := e
		e2.Payload = base64.StdEncoding.EncodeToString(p)
		check("payload", e2)
	}
	for i := range sig {
		s := append([]byte(nil), sig...)
		s[i] ^= 0x01
		e2 := e
		e2.Signatures = []dsse.Signature{{KeyID: e.Signatures[0].KeyID, Sig: base64.StdEncoding.EncodeToString(s)}}
		check("signature", e2)
	}
	e2 := e
	e2.PayloadType = "application/vnd.in-toto+jsoN"
	check("payloadType", e2)
}
