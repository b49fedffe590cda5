package reports

import (
	"context"
	"testing"
)

// BenchmarkSign: build both statements of a full report (the catalog's
// requirements, about 60 specs) and sign the conformance statement.
func BenchmarkSign(b *testing.B) {
	for _, alg := range []string{Ed25519, ECDSAP256} {
		b.Run(alg, func(b *testing.B) {
			k := testKey(b, alg)
			r := testReport(b, 0)
			r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("t")}
			b.ReportAllocs()
			for b.Loop() {
				st, err := BuildStatements(r, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := SignPayload(context.Background(), st.Conformance, k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify: the whole of `conformance verify` on a full report's
// envelope (schema compiled each time, as one CLI call does), and with a
// Verifier reused across envelopes.
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []string{Ed25519, ECDSAP256} {
		k := testKey(b, alg)
		env := signedEnvelope(b, testReport(b, 0), k)
		opts := VerifyOptions{Keys: []*Key{publicOnly(b, k)}, RequireLevels: []string{"installable", "desktop-p0"}, Host: "agentapp-mockhost@0.1.0"}
		b.Run(alg, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(env)))
			for b.Loop() {
				if _, err := VerifyEnvelope(context.Background(), env, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(alg+"/reused-verifier", func(b *testing.B) {
			v, err := NewVerifier(opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(env)))
			for b.Loop() {
				if _, err := v.Verify(context.Background(), env); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
