//go:build !mutation

package mockhost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/revocation"
	"github.com/agentapp/conformance/drivers/sigstore"
)

const (
	testIssuer   = "https://issuer.example.org"
	testIdentity = "release@pub.example.org"
)

// signedSetup is a package declaring a sigstore signature (and a
// revocation service when svc is set), a host trusting a fresh Sigstore,
// and the package's hash.
func signedSetup(t *testing.T, x *harness, svc *revocation.Service) (*sigstore.Authority, string, string) {
	t.Helper()
	a, err := sigstore.NewAuthority()
	if err != nil {
		t.Fatal(err)
	}
	root, err := a.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	x.configureWith(protocol.ConfigureParams{Sigstore: &protocol.SigstoreTrust{TrustedRoot: root, Issuer: testIssuer}})
	sig := "signature:\n  package:\n    signedBy: sigstore\n  trust:\n    publisherId: pub\n    verifiedDomain: pub.example.org\n"
	if svc != nil {
		sig += fmt.Sprintf("  revocation:\n    checkUrl: %s\n    cacheSeconds: 0\n", svc.URL())
	}
	dir := pkg(t, "tiny-app", map[string]string{"app.signature.yaml": sig})
	return a, dir, x.verify(dir, nil).PackageHash
}

func mustSign(t *testing.T, a *sigstore.Authority, hash, identity string) []byte {
	t.Helper()
	b, err := a.Sign([]byte(hash), identity, testIssuer)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signatureProbe verifies the signed package under the release rel makes
// of its hash and bundle signer.
func signatureProbe(rel func(t *testing.T, a *sigstore.Authority, hash string) *protocol.Release) probe {
	return func(t *testing.T, x *harness) string {
		a, dir, hash := signedSetup(t, x, nil)
		return verdict(x.verify(dir, rel(t, a, hash)))
	}
}

func installProbes() map[string]probe {
	return map[string]probe{
		"skip-sigstore": signatureProbe(func(_ *testing.T, _ *sigstore.Authority, hash string) *protocol.Release {
			return &protocol.Release{PackageHash: hash}
		}),
		"sigstore-any-signer": signatureProbe(func(t *testing.T, a *sigstore.Authority, hash string) *protocol.Release {
			return &protocol.Release{PackageHash: hash, SignatureBundle: mustSign(t, a, hash, "release@elsewhere.example.net")}
		}),
		"ignore-publisher": signatureProbe(func(t *testing.T, a *sigstore.Authority, hash string) *protocol.Release {
			return &protocol.Release{PackageHash: hash, SignatureBundle: mustSign(t, a, hash, testIdentity),
				Publisher: &protocol.Publisher{PublisherID: "someone-else", Verified: true, VerifiedDomain: "pub.example.org"}}
		}),
		"ignore-locale": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Locale: "zh-CN"})
			if _, err := x.install(app(t, "displayNameI18n:\n  zh-CN: 小应用\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			return x.list().Apps[0].DisplayName
		},
		"review-all-passed": func(t *testing.T, x *harness) string {
			a, dir, hash := signedSetup(t, x, nil)
			var r protocol.ReviewResult
			rel := &protocol.Release{PackageHash: hash, SignatureBundle: mustSign(t, a, hash, "release@elsewhere.example.net")}
			x.must(protocol.MethodReview, protocol.ReviewParams{Path: dir, Release: rel}, &r)
			return fmt.Sprint(r.OK, r.Checks)
		},
		"review-ignores-hash-pins": func(t *testing.T, x *harness) string {
			var r protocol.ReviewResult
			x.must(protocol.MethodReview, protocol.ReviewParams{Path: app(t, ""),
				Release: &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 64)}}, &r)
			return fmt.Sprint(r.OK, r.Checks)
		},
		"revocation-before-signature": func(t *testing.T, x *harness) string {
			svc, err := revocation.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = svc.Close() })
			a, dir, hash := signedSetup(t, x, svc)
			before := len(svc.Requests(""))
			v := x.verify(dir, &protocol.Release{PackageHash: hash, SignatureBundle: mustSign(t, a, hash, "release@elsewhere.example.net")})
			return fmt.Sprintf("%s requests=%d", verdict(v), len(svc.Requests(""))-before)
		},
	}
}

// A package signed by the trusted Sigstore, by its domain's signer, whose
// publisher the release vouches for, verifies; each step's failure names
// its field.
func TestSignatureSteps(t *testing.T) {
	x := start(t)
	a, dir, hash := signedSetup(t, x, nil)
	good := mustSign(t, a, hash, testIdentity)
	pub := &protocol.Publisher{PublisherID: "pub", Verified: true, VerifiedDomain: "pub.example.org"}
	if v := x.verify(dir, &protocol.Release{PackageHash: hash, SignatureBundle: good, Publisher: pub}); !v.OK {
		t.Fatalf("a well-signed package: %s %+v", verdict(v), v.Findings)
	}
	cases := map[string]struct {
		rel   protocol.Release
		field string
	}{
		"no bundle":       {protocol.Release{PackageHash: hash}, "signature.package"},
		"other signer":    {protocol.Release{PackageHash: hash, SignatureBundle: mustSign(t, a, hash, "x@other.example.org")}, "signature.package"},
		"other publisher": {protocol.Release{PackageHash: hash, SignatureBundle: good, Publisher: &protocol.Publisher{PublisherID: "other", VerifiedDomain: "pub.example.org"}}, "signature.trust.publisherId"},
		"other domain":    {protocol.Release{PackageHash: hash, SignatureBundle: good, Publisher: &protocol.Publisher{PublisherID: "pub", VerifiedDomain: "other.example.org"}}, "signature.trust.verifiedDomain"},
	}
	for name, c := range cases {
		v := x.verify(dir, &c.rel)
		if v.OK || len(v.Findings) == 0 || v.Findings[len(v.Findings)-1].Field != c.field {
			t.Errorf("%s: %s %+v, want a finding on %s", name, verdict(v), v.Findings, c.field)
		}
	}
	x.configureWith(protocol.ConfigureParams{})
	if v := x.verify(dir, &protocol.Release{PackageHash: hash, SignatureBundle: good}); v.OK {
		t.Error("a sigstore-signed package verified with no sigstore trust configured")
	}
}

// The review reports every step in order: a failed signature leaves
// revocation and publisher not run; steps with nothing to check are
// not-applicable; a good package passes and nothing is installed.
func TestReviewSteps(t *testing.T) {
	x := start(t)
	a, dir, hash := signedSetup(t, x, nil)
	status := func(rel *protocol.Release) string {
		var r protocol.ReviewResult
		x.must(protocol.MethodReview, protocol.ReviewParams{Path: dir, Release: rel}, &r)
		s := fmt.Sprint(r.OK)
		for _, c := range r.Checks {
			s += " " + c.Step + "=" + c.Status
		}
		return s
	}
	good := status(&protocol.Release{PackageHash: hash, SignatureBundle: mustSign(t, a, hash, testIdentity)})
	if want := "true manifest=passed hashes=passed compatibility=passed signature=passed revocation=not-applicable publisher=not-applicable"; good != want {
		t.Errorf("good package:\n got %s\nwant %s", good, want)
	}
	bad := status(&protocol.Release{PackageHash: hash})
	if want := "false manifest=passed hashes=passed compatibility=passed signature=failed revocation=not-run publisher=not-run"; bad != want {
		t.Errorf("unsigned release:\n got %s\nwant %s", bad, want)
	}
	if n := len(x.list().Apps); n != 0 {
		t.Errorf("app/review installed %d app(s)", n)
	}
}
