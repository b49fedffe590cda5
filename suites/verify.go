package suites

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// describeVerification checks package verification (spec 000, Package
// signing and revocation; Runtime contract 2; spec 002, Verification).
func describeVerification(tc *TestContext) {
	Describe("Installable: verification", func() {
		It("fails a package whose files changed after hashing", tc.Req("VERIFY-PACKAGE-HASH"), func() {
			dir := tc.Fixture("full-app")
			rel := tc.ReleaseOf(dir)
			Expect(tc.Verify(dir, rel).OK).To(BeTrue(), "the untouched package must verify against its own release")
			AppendFile(dir, tamperTarget(tc, dir), []byte("\n// changed after hashing\n"))
			refused, said := tc.VerifyRefuses(dir, rel)
			Expect(refused).To(BeTrue(), "a package changed after hashing verified: %s", said)
		})

		It("fails a package whose APP.md does not match the expected manifestHash", tc.Req("VERIFY-MANIFEST-HASH"), func() {
			dir := tc.Fixture("minimal-app")
			rel := tc.ReleaseOf(dir)
			Expect(tc.Verify(dir, rel).OK).To(BeTrue(), "the untouched package must verify against its own release")
			rel.ManifestHash = agentpkg.HashManifest([]byte("another APP.md"))
			rel.PackageHash = ""
			refused, said := tc.VerifyRefuses(dir, rel)
			Expect(refused).To(BeTrue(), "a wrong manifestHash verified: %s", said)
		})

		// One check over three packages: the tricky names are where hosts
		// go wrong; the minimal and full apps show the common case agrees.
		It("computes packageHash and manifestHash as the standard's tooling does", tc.Req("VERIFY-HASH-ALGORITHM"), func() {
			tricky := tc.Fixture("hash-tricky-names")
			// Names whose per-folder order differs from full-path and UTF-8
			// order are in the fixture; .git and node_modules must be skipped.
			WriteFile(tricky, ".git/HEAD", []byte("ref: refs/heads/main\n"))
			WriteFile(tricky, "deep/node_modules/x/index.js", []byte("module.exports = 1\n"))
			// A link that stays inside is hashed as the file it points to.
			mustSymlink(filepath.Join(tricky, "a.txt"), filepath.Join(tricky, "b-link.txt"))
			for _, dir := range []string{tc.Fixture("minimal-app"), tc.Fixture("full-app"), tricky} {
				want := tc.ReleaseOf(dir)
				got := tc.Verify(dir, nil)
				Expect(got.PackageHash).To(EqualFold(want.PackageHash), "packageHash of %s", filepath.Base(dir))
				Expect(got.ManifestHash).To(EqualFold(want.ManifestHash), "manifestHash of %s", filepath.Base(dir))
			}
		})

		It("fails a package whose app.signature.yaml names another manifest hash", tc.Req("VERIFY-SIGNATURE-FILE"), func() {
			dir := tc.Fixture("signature-mismatch")
			refused, said := tc.VerifyRefuses(dir, tc.ReleaseOf(dir))
			Expect(refused).To(BeTrue(), "a signature file disagreeing with APP.md verified: %s", said)
			good := tc.Fixture("full-app")
			Expect(tc.Verify(good, tc.ReleaseOf(good)).OK).To(BeTrue(), "a package with a matching signature file must verify")
		})

		It("refuses or blocks an app whose requires.lime range the host's app runtime does not satisfy, naming it", tc.Req("VERIFY-HOST-VERSION"), func() {
			dir := tc.Fixture("incompatible-host-version")
			refused, said := tc.VerifyRefuses(dir, tc.ReleaseOf(dir))
			if refused {
				Expect(said).To(ContainSubstring("appRuntime"), "the refusal must name requires.lime.appRuntime")
				tc.Reading("incompatible host version", "refused at verification")
				return
			}
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusBlocked),
				"an app requiring appRuntime >=2.0.0 verified and is not blocked: %s", raw)
			Expect(string(raw)).To(ContainSubstring("appRuntime"), "readiness must name requires.lime.appRuntime")
			tc.Reading("incompatible host version", "verified, blocked in readiness")
		})

		It("fails a package whose capability version ranges the host does not satisfy, naming the capability", tc.Req("VERIFY-COMPATIBILITY"), func() {
			dir := tc.Fixture("incompatible-capability")
			refused, said := tc.VerifyRefuses(dir, tc.ReleaseOf(dir))
			Expect(refused).To(BeTrue(), "lime.agent >=9.0.0 verified on a host offering an older lime.agent: %s", said)
			Expect(said).To(ContainSubstring("lime.agent"), "the refusal must name the capability")
		})
	})
}

// tamperTarget picks a file other than APP.md to change after hashing, so
// that only the package hash can catch it.
func tamperTarget(tc *TestContext, dir string) string {
	GinkgoHelper()
	_, files, err := agentpkg.HashPackage(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	Expect(err).NotTo(HaveOccurred())
	for _, f := range files {
		if f.Path != "APP.md" && filepath.Ext(f.Path) != "" {
			return f.Path
		}
	}
	Fail("fixture has no file besides APP.md to tamper with")
	return ""
}
