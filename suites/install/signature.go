package install

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/drivers/sigstore"
	"github.com/agentapp/conformance/levels"
)

// The signer the harness's Sigstore certifies for full-app: an identity in
// the package's trust.verifiedDomain, under the issuer host/configure trusts.
const (
	SigstoreIssuer   = "https://issuer.conformance.example.org"
	SigstoreIdentity = "release@conformance.example.org"
	// fullAppPublisher and fullAppDomain are full-app's publisherId and
	// verifiedDomain, as its registry vouches for them.
	fullAppPublisher = "agentapp-conformance"
	fullAppDomain    = "conformance.example.org"
)

// describeSignature checks steps 2 and 4 of the verification order (spec
// 000, Package signing and revocation): the sigstore signature, against the
// harness's own offline Sigstore, and publisher and verifiedDomain, against
// the publisher the release vouches for.
func describeSignature(tc *harness.TestContext) {
	signaturePlanted := func(what string) harness.Planted {
		return harness.Planted{What: what, Codes: []string{"signature-invalid", "signature-missing"}, File: "app.signature.yaml", Field: "signature.package"}
	}

	Describe("Installable: signatures and publisher", func() {
		DescribeTable("refuses a sigstore-signed package, at verify and at install, when",
			func(what string, spoil func(rel *protocol.Release)) {
				dir, rel := signedPackage(tc)
				tc.ExpectVerifies(dir, rel)
				bad := *rel
				spoil(&bad)
				expectRefusedAtVerifyAndInstall(tc, dir, &bad, signaturePlanted(what))
			},
			Entry("its release carries no signature", tc.Req("VERIFY-SIGSTORE", levels.EveryMember, levels.EveryEntryPoint), "a package with no signature bundle",
				func(rel *protocol.Release) { rel.SignatureBundle = nil }),
			Entry("the signature is over another package", tc.Req("VERIFY-SIGSTORE", levels.EveryMember, levels.EveryEntryPoint), "a signature over another package hash",
				func(rel *protocol.Release) {
					rel.SignatureBundle = sign(tc, "sha256:"+strings.Repeat("0", 64), SigstoreIdentity, SigstoreIssuer)
				}),
			Entry("the signer is outside the package's verifiedDomain", tc.Req("VERIFY-SIGSTORE", levels.EveryMember, levels.EveryEntryPoint), "a signer of another domain",
				func(rel *protocol.Release) {
					rel.SignatureBundle = sign(tc, rel.PackageHash, "release@elsewhere.example.net", SigstoreIssuer)
				}),
			Entry("the signer's certificate names an issuer the host does not trust", tc.Req("VERIFY-SIGSTORE", levels.EveryMember, levels.EveryEntryPoint), "a signer certified by another issuer",
				func(rel *protocol.Release) {
					rel.SignatureBundle = sign(tc, rel.PackageHash, SigstoreIdentity, "https://issuer.elsewhere.example.net")
				}),
			Entry("the signature comes from a Sigstore the host does not trust", tc.Req("VERIFY-SIGSTORE", levels.EveryMember, levels.EveryEntryPoint), "a signature from an untrusted root",
				func(rel *protocol.Release) { rel.SignatureBundle = signElsewhere(tc, rel.PackageHash) }),
		)

		It("never asks about revocation for a package whose signature failed", tc.Req("VERIFY-ORDER", levels.EveryMember), func() {
			dir, _ := signedPackage(tc)
			harness.AppendFile(dir, "app.signature.yaml", []byte(fmt.Sprintf("  revocation:\n    checkUrl: %s\n    cacheSeconds: 0\n", tc.Revocation().URL())))
			rel := signedRelease(tc, dir)
			tc.ExpectVerifies(dir, rel)
			if len(tc.Revocation().Requests(rel.PackageHash)) == 0 {
				tc.Blockedf("the host never asked revocation.checkUrl about the untouched package, so the order of its checks cannot be seen")
			}
			before := len(tc.Revocation().Requests(""))
			bad := *rel
			bad.SignatureBundle = sign(tc, rel.PackageHash, "release@elsewhere.example.net", SigstoreIssuer)
			tc.ExpectRefused(tc.VerifyRefusal(dir, &bad), signaturePlanted("a signer of another domain"))
			if n := len(tc.Revocation().Requests("")); n != before {
				tc.Failf("the host asked revocation.checkUrl about a package whose sigstore signature had failed (%d request(s)); the signature comes first", n-before)
			}
		})

		DescribeTable("refuses a package, at verify and at install, whose publisher the release does not vouch for:",
			func(field string, spoil func(p *protocol.Publisher)) {
				dir := tc.Fixture("full-app")
				rel := tc.ReleaseOf(dir)
				rel.Publisher = &protocol.Publisher{PublisherID: fullAppPublisher, Name: "Agent App Conformance", Verified: true, VerifiedDomain: fullAppDomain}
				tc.ExpectVerifies(dir, rel)
				bad := *rel
				p := *rel.Publisher
				spoil(&p)
				bad.Publisher = &p
				expectRefusedAtVerifyAndInstall(tc, dir, &bad, harness.Planted{What: "a publisher the registry does not vouch for",
					Codes: []string{"publisher-mismatch"}, Field: field})
			},
			Entry("another publisherId", tc.Req("VERIFY-PUBLISHER", levels.EveryMember, levels.EveryEntryPoint), "publisherId",
				func(p *protocol.Publisher) { p.PublisherID = "someone-else" }),
			Entry("another verifiedDomain", tc.Req("VERIFY-PUBLISHER", levels.EveryMember, levels.EveryEntryPoint), "verifiedDomain",
				func(p *protocol.Publisher) { p.VerifiedDomain = "elsewhere.example.net" }),
		)

		// The clause lists four places the package names its publisher:
		// signature.trust.publisherId and verifiedDomain, and APP.md's
		// publisher.publisherId and publisher.verifiedDomain when present.
		// Each must agree with the release on its own, whatever the others
		// say: the release stays the one that vouches for full-app, and one
		// place at a time names another publisher.
		DescribeTable("refuses a package, at verify and at install, that names another publisher than the release's in any one place:",
			func(file, field, old, new string) {
				vouched := &protocol.Publisher{PublisherID: fullAppPublisher, Name: "Agent App Conformance", Verified: true, VerifiedDomain: fullAppDomain}
				tc.Precondition("full-app, whose every place names the release's publisher, verifies", func() {
					dir := tc.Fixture("full-app")
					rel := tc.ReleaseOf(dir)
					rel.Publisher = vouched
					tc.ExpectVerifies(dir, rel)
				})
				dir := tc.Fixture("full-app")
				harness.ReplaceIn(dir, file, old, new)
				rel := tc.ReleaseOf(dir)
				rel.Publisher = vouched
				expectRefusedAtVerifyAndInstall(tc, dir, rel, harness.Planted{What: "another publisher in " + file + " " + field,
					Codes: []string{"publisher-mismatch"}, Field: field})
			},
			Entry("app.signature.yaml signature.trust.publisherId", tc.Req("VERIFY-PUBLISHER", levels.EveryMember, levels.EveryEntryPoint), "app.signature.yaml", "publisherId",
				"publisherId: "+fullAppPublisher, "publisherId: someone-else"),
			Entry("app.signature.yaml signature.trust.verifiedDomain", tc.Req("VERIFY-PUBLISHER", levels.EveryMember, levels.EveryEntryPoint), "app.signature.yaml", "verifiedDomain",
				"verifiedDomain: "+fullAppDomain, "verifiedDomain: elsewhere.example.net"),
			// Confusable names: the release's publisherId with more after it,
			// and a domain ending in the release's without a dot boundary,
			// are other publishers, as the control's exact names are not.
			Entry("app.signature.yaml signature.trust.publisherId extending the release's (agentapp-conformance-labs)",
				tc.Req("VERIFY-PUBLISHER", levels.ConfusableIdentity, levels.EveryEntryPoint), "app.signature.yaml", "publisherId",
				"publisherId: "+fullAppPublisher+"\n", "publisherId: "+fullAppPublisher+"-labs\n"),
			Entry("app.signature.yaml signature.trust.verifiedDomain ending in the release's (evilconformance.example.org)",
				tc.Req("VERIFY-PUBLISHER", levels.ConfusableIdentity, levels.EveryEntryPoint), "app.signature.yaml", "verifiedDomain",
				"verifiedDomain: "+fullAppDomain+"\n", "verifiedDomain: evil"+fullAppDomain+"\n"),
			// A publisher's name is claimable, its registry id is not: the
			// release publisher's name where the id goes is another id.
			Entry("app.signature.yaml signature.trust.publisherId naming the release's publisher by its name",
				tc.Req("VERIFY-PUBLISHER", levels.ConfusableIdentity, levels.EveryEntryPoint), "app.signature.yaml", "publisherId",
				"publisherId: "+fullAppPublisher+"\n", "publisherId: Agent App Conformance\n"),
			Entry("APP.md publisher.publisherId naming the release's publisher by its name",
				tc.Req("VERIFY-PUBLISHER", levels.ConfusableIdentity, levels.EveryEntryPoint), "APP.md", "publisherId",
				"publisher:\n  publisherId: "+fullAppPublisher+"\n", "publisher:\n  publisherId: Agent App Conformance\n"),
			Entry("APP.md publisher.publisherId", tc.Req("VERIFY-PUBLISHER", levels.EveryMember, levels.EveryEntryPoint), "APP.md", "publisherId",
				"publisher:\n  publisherId: "+fullAppPublisher+"\n", "publisher:\n  publisherId: someone-else\n"),
			Entry("APP.md publisher.verifiedDomain", tc.Req("VERIFY-PUBLISHER", levels.EveryMember, levels.EveryEntryPoint), "APP.md", "verifiedDomain",
				"publisher:\n  publisherId: "+fullAppPublisher+"\n", "publisher:\n  publisherId: "+fullAppPublisher+"\n  verifiedDomain: elsewhere.example.net\n"),
		)

		It("checks the signature and publisher of a release installed from the registry", tc.Req("REGISTRY-VERIFIED", levels.EveryMember, levels.EveryEntryPoint), func() {
			dir, signed := signedPackage(tc)
			rel := tc.ReleaseObject(dir)
			rel.SignatureBundle = signed.SignatureBundle
			rel.Publisher = &registry.Publisher{PublisherID: fullAppPublisher, Verified: true, VerifiedDomain: fullAppDomain}
			tc.Republish(dir, rel)
			tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
			app := InstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version})
			tc.Uninstall(app.AppID, false)
			rel.Publisher = &registry.Publisher{PublisherID: "someone-else", Verified: true, VerifiedDomain: fullAppDomain}
			tc.Republish(dir, rel)
			_, err := TryInstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version}, true)
			he, refused := tc.RefusalError(protocol.MethodInstall, err)
			if !refused {
				tc.Failf("app/install from the registry took %s although the release vouches for publisher someone-else", rel.AppID)
			}
			tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodeVerificationFailed, Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)},
				harness.Planted{What: "a publisher the registry does not vouch for", Codes: []string{"publisher-mismatch"}, Field: "publisherId"})
		})
	})
}

// signedPackage is full-app declaring signature.package.signedBy: sigstore,
// its release signed by the harness's Sigstore, and the host configured
// to trust that Sigstore.
func signedPackage(tc *harness.TestContext) (string, *protocol.Release) {
	GinkgoHelper()
	dir := tc.Fixture("full-app")
	harness.ReplaceIn(dir, "app.signature.yaml", "signature:\n",
		"signature:\n  package:\n    algorithm: sha256\n    signedBy: sigstore\n    signatureRef: sigstore:full-app@current\n")
	tc.Configure(withSigstore(tc))
	return dir, signedRelease(tc, dir)
}

// signedRelease is the release of dir with a bundle signing its package hash.
func signedRelease(tc *harness.TestContext, dir string) *protocol.Release {
	GinkgoHelper()
	rel := tc.ReleaseOf(dir)
	rel.SignatureBundle = sign(tc, rel.PackageHash, SigstoreIdentity, SigstoreIssuer)
	return rel
}

// expectReviewedCompatibility judges the review's "version compatibility"
// against the profile the host runs under: a package requiring a
// capability the hello offers enabled, at ">=0.0.1", reviews compatible,
// and reviews incompatible once host/configure offers that capability at
// 0.0.0. The standard gives compatibility no place in the order, so only
// its own status is judged.
func expectReviewedCompatibility(tc *harness.TestContext) {
	GinkgoHelper()
	offered := slices.Sorted(maps.Keys(tc.OfferedEnabled()))
	if len(offered) == 0 {
		tc.Reading("The install review", "the host's hello offers no capability enabled: the compatibility step is not judged")
		return
	}
	name := offered[0]
	dir := tc.Fixture("minimal-app")
	harness.EditFrontmatter(dir, func(lines []string) []string {
		return append(lines, "requires:", "  capabilities:", fmt.Sprintf("    %s: \">=0.0.1\"", name))
	})
	tc.Precondition("the review of a package requiring "+name+" >=0.0.1 passes the compatibility step under the hello's profile", func() {
		if r := Review(tc, dir, nil); reviewStatus(r, protocol.StepCompatibility) != protocol.StepPassed {
			tc.Failf("the review of a package requiring %s >=0.0.1, which the hello offers, says compatibility is %q: %s", name, reviewStatus(r, protocol.StepCompatibility), reviewText(r))
		}
	})
	cfg := withSigstore(tc)
	cfg.Capabilities = map[string]protocol.Capability{name: {Version: "0.0.0", Enabled: true}}
	tc.Configure(cfg)
	if r := Review(tc, dir, nil); r.OK || reviewStatus(r, protocol.StepCompatibility) != protocol.StepFailed {
		tc.Failf("the review of a package requiring %s >=0.0.1, with host/configure offering %s 0.0.0, does not show the compatibility step failed: %s", name, name, reviewText(r))
	}
	if _, ok := tc.ListedApp("minimal-app"); ok {
		tc.Failf("app/review of a package the configured profile cannot run installed minimal-app")
	}
}

// withSigstore is the default configuration trusting the harness's Sigstore.
func withSigstore(tc *harness.TestContext) protocol.ConfigureParams {
	GinkgoHelper()
	root, err := tc.Sigstore().TrustedRootJSON()
	if err != nil {
		harness.Errorf("%v", err)
	}
	p := tc.DefaultConfigure()
	p.Sigstore = &protocol.SigstoreTrust{TrustedRoot: root, Issuer: SigstoreIssuer}
	return p
}

// sign signs a package hash with the harness's Sigstore.
func sign(tc *harness.TestContext, packageHash, identity, issuer string) json.RawMessage {
	GinkgoHelper()
	b, err := tc.Sigstore().Sign([]byte(packageHash), identity, issuer)
	if err != nil {
		harness.Errorf("%v", err)
	}
	return b
}

// signElsewhere signs a package hash with a Sigstore the host was never
// told to trust.
func signElsewhere(tc *harness.TestContext, packageHash string) json.RawMessage {
	GinkgoHelper()
	other, err := sigstore.NewAuthority()
	if err != nil {
		harness.Errorf("%v", err)
	}
	b, err := other.Sign([]byte(packageHash), SigstoreIdentity, SigstoreIssuer)
	if err != nil {
		harness.Errorf("%v", err)
	}
	return b
}

// expectRefusedAtVerifyAndInstall fails the spec unless package/verify and
// app/install both refuse the package under rel, naming what was planted.
func expectRefusedAtVerifyAndInstall(tc *harness.TestContext, dir string, rel *protocol.Release, planted harness.Planted) {
	GinkgoHelper()
	tc.ExpectRefused(tc.VerifyRefusal(dir, rel), planted)
	_, err := tc.TryInstall(dir, rel, true)
	he, refused := tc.RefusalError(protocol.MethodInstall, err)
	if !refused {
		tc.Failf("package/verify refused %s, but app/install installed it", planted.What)
	}
	tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodeVerificationFailed || he.Code == protocol.CodePackageInvalid,
		Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)}, planted)
}

// describeInstallReview checks the install review a user consents to
// (spec 002, Required desktop host behavior, Verification: "Install review
// result"): every verification step, in the standard's order, with what it
// found, before anything is installed.
func describeInstallReview(tc *harness.TestContext) {
	Describe("Installable: the install review", func() {
		It("shows each verification step and its result before consent, and installs nothing", tc.Req("INSTALL-REVIEW", levels.EveryMember, levels.EveryEntryPoint), func() {
			dir, _ := signedPackage(tc)
			harness.AppendFile(dir, "app.signature.yaml", []byte(fmt.Sprintf("  revocation:\n    checkUrl: %s\n    cacheSeconds: 0\n", tc.Revocation().URL())))
			rel := signedRelease(tc, dir)
			rel.Publisher = &protocol.Publisher{PublisherID: fullAppPublisher, Verified: true, VerifiedDomain: fullAppDomain}
			judged := []string{protocol.StepHashes, protocol.StepSignature, protocol.StepRevocation, protocol.StepPublisher}
			tc.Precondition("the review of the untouched package passes every step", func() {
				r := Review(tc, dir, rel)
				for _, step := range append([]string{protocol.StepCompatibility}, judged...) {
					if st := reviewStatus(r, step); st != protocol.StepPassed {
						tc.Blockedf("the review of a package every step accepts says %s is %q: %s", step, st, reviewText(r))
					}
				}
				if !r.OK {
					tc.Blockedf("the review of a package every step accepts is not ok: %s", reviewText(r))
				}
			})
			if _, ok := tc.ListedApp(rel.AppID); ok {
				tc.Failf("app/review installed %s: the review comes before consent", rel.AppID)
			}
			expectReviewedCompatibility(tc)
			tc.Configure(withSigstore(tc))
			// Each step in turn fails (the revocation last: it stays
			// revoked): the review shows that step failed, no step after it
			// passed, and nothing installed.
			for _, c := range []struct {
				step, what string
				spoil      func(bad *protocol.Release)
			}{
				{protocol.StepHashes, "a release pinning another packageHash", func(bad *protocol.Release) {
					bad.PackageHash = "sha256:" + strings.Repeat("0", 64)
				}},
				{protocol.StepSignature, "a package signed by a signer of another domain", func(bad *protocol.Release) {
					bad.SignatureBundle = sign(tc, rel.PackageHash, "release@elsewhere.example.net", SigstoreIssuer)
				}},
				{protocol.StepPublisher, "a release vouching for another publisher", func(bad *protocol.Release) {
					bad.Publisher = &protocol.Publisher{PublisherID: "someone-else", Verified: true, VerifiedDomain: fullAppDomain}
				}},
				{protocol.StepRevocation, "a revoked package", func(*protocol.Release) {
					tc.Revocation().Revoke(rel.PackageHash, "revoked for the review")
				}},
			} {
				bad := *rel
				c.spoil(&bad)
				r := Review(tc, dir, &bad)
				if r.OK || reviewStatus(r, c.step) != protocol.StepFailed {
					tc.Failf("the review of %s does not show the %s step failed: %s", c.what, c.step, reviewText(r))
				}
				for _, later := range judged[slices.Index(judged, c.step)+1:] {
					if reviewStatus(r, later) == protocol.StepPassed {
						tc.Failf("the review of %s says %s passed although %s, which comes before it, failed: %s", c.what, later, c.step, reviewText(r))
					}
				}
				if _, ok := tc.ListedApp(rel.AppID); ok {
					tc.Failf("app/review of %s installed %s", c.what, rel.AppID)
				}
			}
		})
	})
}

// Review runs app/review.
func Review(tc *harness.TestContext, dir string, rel *protocol.Release) protocol.ReviewResult {
	GinkgoHelper()
	var res protocol.ReviewResult
	tc.MustCall(protocol.MethodReview, protocol.ReviewParams{Path: dir, Release: rel}, &res)
	return res
}

// reviewStatus is the status the review gives step ("missing" when absent).
func reviewStatus(r protocol.ReviewResult, step string) string {
	for _, c := range r.Checks {
		if c.Step == step {
			return c.Status
		}
	}
	return "missing"
}

func reviewText(r protocol.ReviewResult) string {
	parts := make([]string, 0, len(r.Checks))
	for _, c := range r.Checks {
		parts = append(parts, c.Step+"="+c.Status)
	}
	return fmt.Sprintf("ok=%v [%s]", r.OK, strings.Join(parts, " "))
}
