package reports

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// Key algorithms for signing reports (docs/report-format.md "Keys").
const (
	Ed25519   = "ed25519"
	ECDSAP256 = "ecdsa-p256"
)

// Key file names written by GenerateKey.
const (
	PrivateKeyFile = "conformance.key"
	PublicKeyFile  = "conformance.pub"
)

// maxKeyBytes caps a key file: a PEM key is well under 1 KiB.
const maxKeyBytes = 64 << 10

// Key is an ed25519 or ECDSA P-256 key that signs and verifies DSSE
// signatures. It implements dsse.SignerVerifier; a key loaded from a public
// key file only verifies.
type Key struct {
	alg   string
	id    string
	pub   crypto.PublicKey
	priv  crypto.Signer // nil for a public key
	label string        // where the key came from, for messages
}

var _ dsse.SignerVerifier = (*Key)(nil)

// Algorithm is Ed25519 or ECDSAP256.
func (k *Key) Algorithm() string { return k.alg }

// ID is the key id: hex SHA-256 of the PKIX DER public key.
func (k *Key) ID() string { return k.id }

// KeyID implements dsse.Signer and dsse.Verifier.
func (k *Key) KeyID() (string, error) { return k.id, nil }

// Public implements dsse.Verifier.
func (k *Key) Public() crypto.PublicKey { return k.pub }

// Sign signs the DSSE pre-authentication encoding handed in by dsse:
// ed25519 signs it whole, ECDSA signs its SHA-256 (ASN.1 DER signature), as
// cosign and go-securesystemslib expect.
func (k *Key) Sign(_ context.Context, data []byte) ([]byte, error) {
	if k.priv == nil {
		return nil, fmt.Errorf("key %s is a public key and cannot sign", k.label)
	}
	switch p := k.priv.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(p, data), nil
	case *ecdsa.PrivateKey:
		d := sha256.Sum256(data)
		return ecdsa.SignASN1(rand.Reader, p, d[:])
	}
	return nil, fmt.Errorf("key %s: unsupported key type %T", k.label, k.priv)
}

// errBadSignature is what Verify returns for a signature that does not verify.
var errBadSignature = errors.New("signature does not verify")

// Verify checks sig over data.
func (k *Key) Verify(_ context.Context, data, sig []byte) error {
	switch p := k.pub.(type) {
	case ed25519.PublicKey:
		if ed25519.Verify(p, data, sig) {
			return nil
		}
	case *ecdsa.PublicKey:
		d := sha256.Sum256(data)
		if ecdsa.VerifyASN1(p, d[:], sig) {
			return nil
		}
	}
	return errBadSignature
}

// KeyIDOf returns hex SHA-256 of the PKIX DER encoding of pub.
func KeyIDOf(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", fmt.Errorf("encoding public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:]), nil
}

func newKey(label string, pub crypto.PublicKey, priv crypto.Signer) (*Key, error) {
	var alg string
	switch p := pub.(type) {
	case ed25519.PublicKey:
		alg = Ed25519
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%s: ECDSA curve %s is not supported (only P-256)", label, p.Curve.Params().Name)
		}
		alg = ECDSAP256
	default:
		return nil, fmt.Errorf("%s: key type %T is not supported (ed25519 or ECDSA P-256)", label, pub)
	}
	id, err := KeyIDOf(pub)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return &Key{alg: alg, id: id, pub: pub, priv: priv, label: label}, nil
}

// onePEM decodes exactly one PEM block of the given type.
func onePEM(label string, data []byte, typ string) (*pem.Block, error) {
	b, rest := pem.Decode(data)
	if b == nil {
		return nil, fmt.Errorf("%s: no PEM block found (expected %q)", label, typ)
	}
	if b.Type != typ {
		return nil, fmt.Errorf("%s: PEM block is %q, expected %q", label, b.Type, typ)
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		return nil, fmt.Errorf("%s: unexpected data after the %q PEM block", label, typ)
	}
	return b, nil
}

// ParsePrivateKeyPEM parses a PKCS#8 "PRIVATE KEY" PEM block.
func ParsePrivateKeyPEM(label string, data []byte) (*Key, error) {
	b, err := onePEM(label, data, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	raw, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PKCS#8 private key: %w", label, err)
	}
	s, ok := raw.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("%s: key type %T cannot sign", label, raw)
	}
	return newKey(label, s.Public(), s)
}

// ParsePublicKeyPEM parses a PKIX "PUBLIC KEY" PEM block.
func ParsePublicKeyPEM(label string, data []byte) (*Key, error) {
	b, err := onePEM(label, data, "PUBLIC KEY")
	if err != nil {
		return nil, err
	}
	pub, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: not a PKIX public key: %w", label, err)
	}
	return newKey(label, pub, nil)
}

// LoadPrivateKey reads a PEM PKCS#8 private key file.
func LoadPrivateKey(path string) (*Key, error) {
	data, err := ReadLimited(path, maxKeyBytes)
	if err != nil {
		return nil, err
	}
	return ParsePrivateKeyPEM(path, data)
}

// LoadPublicKey reads a PEM PKIX public key file.
func LoadPublicKey(path string) (*Key, error) {
	data, err := ReadLimited(path, maxKeyBytes)
	if err != nil {
		return nil, err
	}
	return ParsePublicKeyPEM(path, data)
}

// NewKey generates a fresh private key of the given algorithm.
func NewKey(alg string) (*Key, error) {
	switch alg {
	case Ed25519:
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating ed25519 key: %w", err)
		}
		return newKey("generated ed25519 key", priv.Public(), priv)
	case ECDSAP256:
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating ECDSA P-256 key: %w", err)
		}
		return newKey("generated ECDSA P-256 key", priv.Public(), priv)
	}
	return nil, fmt.Errorf("unknown key algorithm %q (use %s or %s)", alg, Ed25519, ECDSAP256)
}

// PrivatePEM encodes the private key as PKCS#8 PEM.
func (k *Key) PrivatePEM() ([]byte, error) {
	if k.priv == nil {
		return nil, fmt.Errorf("key %s has no private part", k.label)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return nil, fmt.Errorf("encoding private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// PublicPEM encodes the public key as PKIX PEM.
func (k *Key) PublicPEM() ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(k.pub)
	if err != nil {
		return nil, fmt.Errorf("encoding public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// ErrKeyExists is returned by GenerateKey when a key file is already there.
var ErrKeyExists = errors.New("key file already exists")

// KeyFiles names what GenerateKey wrote.
type KeyFiles struct {
	Private, Public string
	KeyID           string
	Algorithm       string
}

// GenerateKey writes conformance.key (mode 0600) and conformance.pub into
// dir. It refuses to replace existing key files unless force is set.
func GenerateKey(dir, alg string, force bool) (KeyFiles, error) {
	k, err := NewKey(alg)
	if err != nil {
		return KeyFiles{}, err
	}
	privPEM, err := k.PrivatePEM()
	if err != nil {
		return KeyFiles{}, err
	}
	pubPEM, err := k.PublicPEM()
	if err != nil {
		return KeyFiles{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return KeyFiles{}, fmt.Errorf("creating %s: %w", dir, err)
	}
	kf := KeyFiles{
		Private:   filepath.Join(dir, PrivateKeyFile),
		Public:    filepath.Join(dir, PublicKeyFile),
		KeyID:     k.id,
		Algorithm: k.alg,
	}
	if !force {
		for _, p := range []string{kf.Private, kf.Public} {
			if _, err := os.Lstat(p); err == nil {
				return KeyFiles{}, fmt.Errorf("%s: %w; pass --force to replace it", p, ErrKeyExists)
			}
		}
	}
	if err := writeFileMode(kf.Private, privPEM, 0o600, force); err != nil {
		return KeyFiles{}, err
	}
	if err := writeFileMode(kf.Public, pubPEM, 0o644, force); err != nil {
		return KeyFiles{}, err
	}
	return kf, nil
}

// writeFileMode writes data with exactly perm, never through an existing
// file's looser mode: with replace it removes the old file first.
func writeFileMode(path string, data []byte, perm os.FileMode, replace bool) error {
	if replace {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("replacing %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil { // exact mode, whatever the umask
		f.Close()
		return fmt.Errorf("setting mode of %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadLimited reads a whole file, refusing one larger than max bytes before
// reading it all.
func ReadLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("reading %s: not a regular file", path)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("reading %s: %d bytes is over the limit of %d", path, st.Size(), max)
	}
	// Room for the whole file and bytes.MinRead more: ReadFrom grows a
	// buffer with less free room than that, which would double it.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	n, err := buf.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if n > max {
		return nil, fmt.Errorf("reading %s: more than the limit of %d bytes", path, max)
	}
	return buf.Bytes(), nil
}
