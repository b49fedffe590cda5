package reports

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

func TestSignVerifyRoundTrip(t *testing.T) {
	for _, alg := range []string{Ed25519, ECDSAP256} {
		t.Run(alg, func(t *testing.T) {
			k := testKey(t, alg)
			r := testReport(t, 0)
			env := signedEnvelope(t, r, k)
			v, err := VerifyEnvelope(context.Background(), env, VerifyOptions{
				Keys:          []*Key{publicOnly(t, k)},
				RequireLevels: []string{"catalog", "installable", "desktop-p0"},
				Host:          "agentapp-mockhost@0.1.0",
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(v.KeyIDs) != 1 || v.KeyIDs[0] != k.ID() {
				t.Errorf("accepted keys %v, want [%s]", v.KeyIDs, k.ID())
			}
			if got := strings.Join(v.Predicate.LevelsPassed, ","); got != "catalog,installable,executable,desktop-p0" {
				t.Errorf("levels passed %q", got)
			}
			if len(v.Predicate.Requirements) != len(r.Requirements) {
				t.Errorf("predicate has %d requirements, report %d", len(v.Predicate.Requirements), len(r.Requirements))
			}
		})
	}
}

// The envelope is the one go-securesystemslib's dsse verifier accepts, and
// its signature is over DSSE's PAE (checked here independently of Verify).
func TestEnvelopeIsDSSE(t *testing.T) {
	k := testKey(t, Ed25519)
	env := signedEnvelope(t, testReport(t, 0), k)
	if bytes.HasSuffix(env, []byte("\n")) {
		t.Error("envelope ends with a newline; a changed newline would go unnoticed")
	}
	var e dsse.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	if e.PayloadType != PayloadType || len(e.Signatures) != 1 || e.Signatures[0].KeyID != k.ID() {
		t.Fatalf("envelope header %q, signatures %+v", e.PayloadType, e.Signatures)
	}
	payload, err := e.DecodeB64Payload()
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Verify(context.Background(), dsse.PAE(PayloadType, payload), sig); err != nil {
		t.Fatalf("signature is not over PAE: %v", err)
	}
	ev, err := dsse.NewEnvelopeVerifier(publicOnly(t, k))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Verify(context.Background(), &e); err != nil {
		t.Fatalf("dsse verifier refuses our envelope: %v", err)
	}
	var st map[string]any
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"_type", "subject", "predicateType", "predicate"} {
		if _, ok := st[f]; !ok {
			t.Errorf("statement has no %s", f)
		}
	}
	if st["_type"] != "https://in-toto.io/Statement/v1" || st["predicateType"] != PredicateType {
		t.Errorf("statement _type %v predicateType %v", st["_type"], st["predicateType"])
	}
}

func TestWrongKeyFails(t *testing.T) {
	env := signedEnvelope(t, testReport(t, 0), testKey(t, Ed25519))
	for _, alg := range []string{Ed25519, ECDSAP256} {
		other := publicOnly(t, testKey(t, alg))
		wantKind(t, verifyWith(env, VerifyOptions{Keys: []*Key{other}}), KindBadSignature)
	}
}

func TestPublicKeyCannotSign(t *testing.T) {
	pk := publicOnly(t, testKey(t, Ed25519))
	if _, err := SignPayload(context.Background(), []byte("{}"), pk); err == nil {
		t.Fatal("a public key signed")
	}
}

// Several signatures: every one must verify with one of the given keys.
func TestMultipleSignatures(t *testing.T) {
	k1, k2 := testKey(t, Ed25519), testKey(t, ECDSAP256)
	r := testReport(t, 0)
	r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("t")}
	st, err := BuildStatements(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	both, err := SignPayload(context.Background(), st.Conformance, k1, k2)
	if err != nil {
		t.Fatal(err)
	}
	p1, p2 := publicOnly(t, k1), publicOnly(t, k2)
	if err := verifyWith(both, VerifyOptions{Keys: []*Key{p1, p2}}); err != nil {
		t.Fatalf("two good signatures, both keys given: %v", err)
	}
	wantKind(t, verifyWith(both, VerifyOptions{Keys: []*Key{p1}}), KindBadSignature)

	var e dsse.Envelope
	if err := json.Unmarshal(both, &e); err != nil {
		t.Fatal(err)
	}
	bad := e.Signatures[0]
	raw, _ := base64.StdEncoding.DecodeString(bad.Sig)
	raw[5] ^= 0xff
	bad.Sig = base64.StdEncoding.EncodeToString(raw)
	cases := map[string][]dsse.Signature{
		"good then corrupted, same keyid": {e.Signatures[0], bad},
		"corrupted then good":             {bad, e.Signatures[0]},
		"good then foreign keyid":         {e.Signatures[0], {KeyID: "0000", Sig: e.Signatures[0].Sig}},
		"good then empty keyid, bad sig":  {e.Signatures[0], {Sig: bad.Sig}},
	}
	for name, sigs := range cases {
		e2 := e
		e2.Signatures = sigs
		data, err := json.Marshal(e2)
		if err != nil {
			t.Fatal(err)
		}
		err = verifyWith(data, VerifyOptions{Keys: []*Key{p1}})
		if err == nil {
			t.Errorf("%s: verified", name)
			continue
		}
		if KindOf(err) != KindBadSignature {
			t.Errorf("%s: %v, want bad signature", name, err)
		}
	}
}
