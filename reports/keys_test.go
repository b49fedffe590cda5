package reports

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerateKey(t *testing.T) {
	for _, alg := range []string{Ed25519, ECDSAP256} {
		t.Run(alg, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "keys")
			kf, err := GenerateKey(dir, alg, false)
			if err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(kf.Private)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s has mode %v, want 0600", kf.Private, st.Mode().Perm())
			}
			priv, err := LoadPrivateKey(kf.Private)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := LoadPublicKey(kf.Public)
			if err != nil {
				t.Fatal(err)
			}
			if priv.ID() != kf.KeyID || pub.ID() != kf.KeyID || pub.Algorithm() != alg {
				t.Errorf("key ids %s / %s / %s, algorithm %s", priv.ID(), pub.ID(), kf.KeyID, pub.Algorithm())
			}
			// Key id: hex SHA-256 of the PKIX DER public key.
			b, _ := pem.Decode(mustRead(t, kf.Public))
			sum := sha256.Sum256(b.Bytes)
			if hex.EncodeToString(sum[:]) != kf.KeyID {
				t.Errorf("key id %s is not SHA-256 of the PKIX DER", kf.KeyID)
			}
			sig, err := priv.Sign(context.Background(), []byte("data"))
			if err != nil {
				t.Fatal(err)
			}
			if err := pub.Verify(context.Background(), []byte("data"), sig); err != nil {
				t.Fatal(err)
			}
			if pub.Verify(context.Background(), []byte("datA"), sig) == nil {
				t.Error("signature verified over other data")
			}
			before := mustRead(t, kf.Private)
			if _, err := GenerateKey(dir, alg, false); err == nil || !strings.Contains(err.Error(), "--force") {
				t.Errorf("overwrote without force: %v", err)
			}
			if string(mustRead(t, kf.Private)) != string(before) {
				t.Error("refused overwrite still changed the key")
			}
			if _, err := GenerateKey(dir, alg, true); err != nil {
				t.Fatal(err)
			}
			if string(mustRead(t, kf.Private)) == string(before) {
				t.Error("--force did not replace the key")
			}
		})
	}
	if _, err := GenerateKey(t.TempDir(), "rsa", false); err == nil {
		t.Error("generated an rsa key")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestKeyParseErrors(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 1024)
	rsaDER, _ := x509.MarshalPKCS8PrivateKey(rk)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalPKIXPublicKey(p384.Public())
	k := testKey(t, Ed25519)
	privPEM, _ := k.PrivatePEM()
	pubPEM, _ := k.PublicPEM()
	enc := func(typ string, der []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}) }
	for name, c := range map[string]struct {
		data    []byte
		private bool
		says    string
	}{
		"empty":             {nil, true, "no PEM block"},
		"rsa":               {enc("PRIVATE KEY", rsaDER), true, "not supported"},
		"p384":              {enc("PUBLIC KEY", p384DER), false, "P-384"},
		"public as private": {pubPEM, true, `expected "PRIVATE KEY"`},
		"private as public": {privPEM, false, `expected "PUBLIC KEY"`},
		"garbage DER":       {enc("PUBLIC KEY", []byte{1, 2, 3}), false, "not a PKIX public key"},
		"two blocks":        {append(append([]byte{}, pubPEM...), pubPEM...), false, "unexpected data"},
	} {
		var err error
		if c.private {
			_, err = ParsePrivateKeyPEM("k.pem", c.data)
		} else {
			_, err = ParsePublicKeyPEM("k.pem", c.data)
		}
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "k.pem") {
			t.Errorf("%s: %v, want an error naming k.pem saying %q", name, err, c.says)
		}
	}
}
