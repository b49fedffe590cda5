package sigstore

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// Policy is what the verifier demands of the signer.
type Policy struct {
	Issuer string // the OIDC issuer the certificate must carry (exact)
	Domain string // the signer identity must be in this domain: an email `*@Domain` or a URI whose host is Domain or a subdomain of it
}

// sanRegexp is the pattern a certificate's SAN must match for p.Domain:
// an email whose domain is Domain or one of its subdomains, or an http(s)
// URI whose host is. Domain names compare without regard to case.
func (p Policy) sanRegexp() (string, error) {
	d := p.Domain
	if d == "" || strings.HasPrefix(d, ".") || strings.HasSuffix(d, ".") ||
		strings.ContainsAny(d, "@/:?#*\\ \t\r\n") {
		return "", fmt.Errorf("domain %q is not a host name", d)
	}
	q := `(?i:` + regexp.QuoteMeta(d) + `)`
	email := `[^@\s]+@(?:[^@\s]+\.)?` + q
	uri := `https?://(?:[^/?#@:\s]+\.)?` + q + `(?::[0-9]+)?(?:[/?#]\S*)?`
	return `^(?:` + email + `|` + uri + `)$`, nil
}

// identity is the certificate identity p demands.
func (p Policy) identity() (verify.CertificateIdentity, error) {
	if p.Issuer == "" {
		return verify.CertificateIdentity{}, errors.New("no issuer")
	}
	san, err := p.sanRegexp()
	if err != nil {
		return verify.CertificateIdentity{}, err
	}
	return verify.NewShortCertificateIdentity(p.Issuer, "", "", san)
}

// verifyError is a Verify failure: which part failed, on one line.
type verifyError struct {
	part string
	err  error
}

func (e *verifyError) Error() string {
	msg := strings.Join(strings.Fields(e.err.Error()), " ")
	return "sigstore: " + e.part + ": " + msg
}

func (e *verifyError) Unwrap() error { return e.err }

// What failed, as Verify's errors say it.
const (
	partPolicy    = "policy invalid"
	partRoot      = "trusted root unreadable"
	partBundle    = "bundle unreadable"
	partArtifact  = "signature does not cover the artifact"
	partIdentity  = "identity or issuer not allowed"
	partUntrusted = "not trusted by this root"
	partOther     = "verification failed"
)

// Verify checks bundleJSON against trustedRootJSON for artifact under
// policy, offline: the Rekor entry's inclusion promise and proof, the leaf
// certificate's chain at the log's integrated time (and at the TSA's time
// when the bundle carries a timestamp), the signature over artifact, and
// the signer's identity and issuer.
//
// The error is one line, "sigstore: <part>: <detail>", where part is one
// of "policy invalid", "trusted root unreadable", "bundle unreadable",
// "not trusted by this root" (log entry, timestamps or certificate
// chain), "signature does not cover the artifact", "identity or issuer
// not allowed" or, for anything else, "verification failed".
func Verify(trustedRootJSON, bundleJSON, artifact []byte, p Policy) error {
	id, err := p.identity()
	if err != nil {
		return &verifyError{partPolicy, err}
	}
	tr, err := root.NewTrustedRootFromJSON(trustedRootJSON)
	if err != nil {
		return &verifyError{partRoot, err}
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return &verifyError{partBundle, err}
	}
	v, err := verify.NewVerifier(tr, verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1))
	if err != nil {
		return &verifyError{partRoot, fmt.Errorf("verifier: %w", err)}
	}
	_, err = v.Verify(&b, verify.NewPolicy(
		verify.WithArtifact(bytes.NewReader(artifact)),
		verify.WithCertificateIdentity(id),
	))
	if err != nil {
		return &verifyError{failedPart(err), err}
	}
	return nil
}

// failedPart names the step of sigstore-go's Verifier.Verify that err
// comes from. The verifier wraps each step's error with a fixed prefix;
// the tests pin these against the version in go.mod.
func failedPart(err error) string {
	var noID *verify.ErrNoMatchingCertificateIdentity
	if errors.As(err, &noID) {
		return partIdentity
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "failed to verify log inclusion"),
		strings.HasPrefix(msg, "failed to verify timestamps"),
		strings.HasPrefix(msg, "failed to verify leaf certificate"):
		return partUntrusted
	case strings.HasPrefix(msg, "failed to verify signature"):
		return partArtifact
	case strings.HasPrefix(msg, "failed to verify certificate identity"),
		strings.HasPrefix(msg, "failed to summarize certificate"),
		strings.HasPrefix(msg, "can't verify certificate identities"):
		return partIdentity
	default:
		return partOther
	}
}
