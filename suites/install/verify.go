package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	"github.com/Masterminds/semver/v3"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeVerification checks package verification (spec 000, Package
// signing and revocation; Runtime contract 2; spec 002, Verification).
func describeVerification(tc *harness.TestContext) {
	Describe("Installable: verification", func() {
		It("fails a package whose files changed after hashing", tc.Req("VERIFY-PACKAGE-HASH"), func() {
			dir := tc.Fixture("full-app")
			rel := tc.ReleaseOf(dir)
			tc.ExpectVerifies(dir, rel)
			harness.AppendFile(dir, harness.TamperTarget(tc, dir), []byte("\n// changed after hashing\n"))
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "a file changed after hashing",
				Codes: []string{"package-hash-mismatch"}, Field: "packageHash"})
		})

		// package/verify's packageHash is "the hash the host computed": a
		// release pinning another one is what the host compares with, never
		// what it reports (docs/host-control-protocol.md, package/verify).
		It("reports the packageHash it computed, not the one a release pins, when the two differ", tc.Req("VERIFY-PACKAGE-HASH", levels.WhoAnswers), func() {
			dir := tc.Fixture("minimal-app")
			rel := tc.ReleaseOf(dir)
			tc.ExpectVerifies(dir, rel)
			computed := rel.PackageHash
			pinned := &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 62) + "aa"}
			var res protocol.VerifyResult
			err := tc.Call(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: pinned}, &res)
			if err != nil {
				// Refused as an error: nothing reported to judge but the refusal.
				tc.ExpectRefused(tc.VerifyRefusal(dir, pinned), harness.Planted{What: "a release pinning another packageHash",
					Codes: []string{"package-hash-mismatch"}, Field: "packageHash"})
				return
			}
			if !strings.EqualFold(res.PackageHash, computed) {
				tc.Failf("package/verify of %s with a release pinning %s answered packageHash %s, not the package's own %s", filepath.Base(dir), pinned.PackageHash, res.PackageHash, computed)
			}
			tc.ExpectRefused(harness.Refusal{Refused: !res.OK, Findings: res.Findings}, harness.Planted{What: "a release pinning another packageHash",
				Codes: []string{"package-hash-mismatch"}, Field: "packageHash"})
		})

		It("fails a package whose APP.md does not match the expected manifestHash", tc.Req("VERIFY-MANIFEST-HASH", levels.EveryMember), func() {
			dir := tc.Fixture("minimal-app")
			rel := tc.ReleaseOf(dir)
			tc.ExpectVerifies(dir, rel)
			rel.ManifestHash = agentpkg.HashManifest([]byte("another APP.md"))
			// Every member the release pins is compared: with the package's
			// own packageHash beside it, and alone.
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "a release naming the package's own packageHash and another manifestHash",
				Codes: []string{"manifest-hash-mismatch"}, Field: "manifestHash"})
			rel.PackageHash = ""
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "a release naming another manifestHash",
				Codes: []string{"manifest-hash-mismatch"}, Field: "manifestHash"})
		})

		// The raw bytes, not the text they read as: APP.md given trailing
		// blank lines reads the same, but it is another APP.md than the one
		// the release pinned.
		It("fails a package whose APP.md gained trailing blank lines after the release pinned its manifestHash", tc.Req("VERIFY-MANIFEST-HASH", levels.RepresentationLimit), func() {
			dir := tc.Fixture("minimal-app")
			rel := tc.ReleaseOf(dir)
			tc.ExpectVerifies(dir, rel)
			harness.AppendFile(dir, "APP.md", []byte("\n\n"))
			rel.PackageHash = ""
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "APP.md given trailing blank lines after the release pinned its manifestHash",
				Codes: []string{"manifest-hash-mismatch"}, Field: "manifestHash"})
		})

		// One check over three packages: the tricky names are where hosts
		// go wrong; the minimal and full apps show the common case agrees.
		It("computes packageHash and manifestHash as the standard's tooling does", tc.Req("VERIFY-HASH-ALGORITHM", levels.RepresentationLimit), func() {
			tricky := tc.Fixture("hash-tricky-names")
			// Names whose per-folder order differs from full-path and UTF-8
			// order are in the fixture; .git and node_modules must be skipped.
			harness.WriteFile(tricky, ".git/HEAD", []byte("ref: refs/heads/main\n"))
			harness.WriteFile(tricky, "deep/node_modules/x/index.js", []byte("module.exports = 1\n"))
			// A link that stays inside is hashed as the file it points to.
			harness.MustSymlink(filepath.Join(tricky, "a.txt"), filepath.Join(tricky, "b-link.txt"))
			for _, dir := range []string{tc.Fixture("minimal-app"), tc.Fixture("full-app"), tricky} {
				want := tc.ReleaseOf(dir)
				got := tc.Verify(dir, nil)
				Expect(got.PackageHash).To(harness.EqualFold(want.PackageHash), harness.At(protocol.MethodVerify, []any{"packageHash"}, "of "+filepath.Base(dir)))
				Expect(got.ManifestHash).To(harness.EqualFold(want.ManifestHash), harness.At(protocol.MethodVerify, []any{"manifestHash"}, "of "+filepath.Base(dir)))
			}
		})

		// Generated trees: every seed is a package the oracle hashes; the
		// host must agree on each (failures name the seed).
		It("computes packageHash as the standard's tooling does on generated package trees", tc.Req("VERIFY-HASH-ALGORITHM"), func() {
			for seed := uint64(1); seed <= harness.GeneratedTrees; seed++ {
				dir := tc.Fixture("minimal-app")
				harness.PlantGeneratedFiles(dir, seed, 12)
				want := tc.ReleaseOf(dir)
				got := tc.Verify(dir, nil)
				Expect(got.PackageHash).To(harness.EqualFold(want.PackageHash), harness.At(protocol.MethodVerify, []any{"packageHash"}, fmt.Sprintf("of minimal-app with the files of generated tree %d", seed)))
			}
		})

		DescribeTable("fails a generated package tree changed after hashing",
			func(change harness.TreeChange) {
				dir := tc.Fixture("minimal-app")
				planted := harness.PlantGeneratedFiles(dir, harness.ChangedTreeSeed, 12)
				// The release is the host's own hash of the tree, so that
				// what is judged is whether the host sees the change, not
				// whether it hashes as the oracle does (the check above).
				var rel *protocol.Release
				tc.Precondition("the host hashes the generated tree", func() {
					got := tc.Verify(dir, nil)
					rel = &protocol.Release{PackageHash: got.PackageHash, ManifestHash: got.ManifestHash}
				})
				tc.ExpectVerifies(dir, rel)
				change.Apply(dir, planted)
				tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: change.What + " (generated tree " + fmt.Sprint(harness.ChangedTreeSeed) + ")",
					Codes: []string{"package-hash-mismatch"}, Field: "packageHash"})
			},
			harness.TreeChangeEntries(tc),
		)

		It("fails a package whose app.signature.yaml names another manifest hash", tc.Req("VERIFY-SIGNATURE-FILE"), func() {
			dir := tc.Fixture("full-app")
			tc.ExpectVerifies(dir, tc.ReleaseOf(dir))
			harness.RewriteSignatureHash(dir, agentpkg.HashManifest([]byte("another APP.md")))
			// The release is of the package as it now is: only the
			// signature file can tell.
			tc.ExpectRefused(tc.VerifyRefusal(dir, tc.ReleaseOf(dir)), harness.Planted{What: "a signature file naming another manifest hash",
				Codes: []string{"signature-manifest-hash-mismatch"}, File: "app.signature.yaml"})
		})

		// The same raw-bytes boundary for the signature file: the release
		// pins the package as it now is and no manifestHash, so only
		// app.signature.yaml, naming APP.md's hash before the blank lines,
		// can tell.
		It("fails a package whose APP.md gained trailing blank lines after app.signature.yaml named its hash", tc.Req("VERIFY-SIGNATURE-FILE", levels.RepresentationLimit), func() {
			dir := tc.Fixture("full-app")
			named := tc.ReleaseOf(dir)
			tc.ExpectVerifies(dir, named)
			// Writing APP.md keeps the signature file current: it is made to
			// name the hash of the APP.md before the blank lines again.
			harness.AppendFile(dir, "APP.md", []byte("\n\n"))
			harness.RewriteSignatureHash(dir, named.ManifestHash)
			rel := tc.ReleaseOf(dir)
			rel.ManifestHash = ""
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "APP.md given trailing blank lines after app.signature.yaml named its hash",
				Codes: []string{"signature-manifest-hash-mismatch"}, File: "app.signature.yaml"})
		})

		// Both sides of the range boundary: the host's own version of
		// requires.lime.appRuntime is accepted, just above it is not.
		DescribeTable("refuses or blocks an app whose requires.lime range the host's app runtime does not satisfy, naming it",
			func(planted string) {
				dir := tc.Fixture("incompatible-host-version")
				const original = `appRuntime: ">=2.0.0 <3.0.0"`
				harness.ReplaceIn(dir, "APP.md", original, `appRuntime: ">=`+agentpkg.StandardVersion+` <1.0.0"`)
				tc.ExpectVerifies(dir, nil)
				tc.ExpectReady("the same package with a range the host satisfies is ready", dir, "")
				harness.ReplaceIn(dir, "APP.md", `appRuntime: ">=`+agentpkg.StandardVersion+` <1.0.0"`, `appRuntime: "`+planted+`"`)
				if r := tc.VerifyRefusal(dir, nil); r.Refused {
					tc.ExpectRefused(r, harness.Planted{What: "requires.lime.appRuntime " + planted,
						Codes: []string{"incompatible-host-version"}, Field: "appRuntime", Name: "appRuntime"})
					tc.Reading("incompatible host version", "refused at verification")
					return
				}
				r, raw := tc.Readiness(dir, "")
				// failed is blocked's older spelling (SPEC-NOTES; docs/decisions.md).
				if !slices.Contains(blockedStatuses(), r.Status) {
					tc.Failf("an app requiring appRuntime %s verified and readiness is %q, not blocked (or its older spelling failed); the answer: %s", planted, r.Status, harness.Excerpt(raw))
				}
				if !harness.NamesFailingCheck(r, "appRuntime") {
					tc.Failf("app/readiness is blocked but names no failing check for requires.lime.appRuntime; the answer: %s", harness.Excerpt(raw))
				}
				tc.Reading("incompatible host version", "verified, blocked in readiness")
			},
			Entry("far above: >=2.0.0 <3.0.0", tc.Req("VERIFY-HOST-VERSION", levels.RepresentationLimit), ">=2.0.0 <3.0.0"),
			Entry("just above the host's version", tc.Req("VERIFY-HOST-VERSION", levels.RepresentationLimit), ">"+agentpkg.StandardVersion),
		)

		DescribeTable("fails a package whose capability version ranges the host does not satisfy, naming the capability",
			func(above func(v string) string, unversioned bool) {
				capability, v := rangedCapability(tc.Host().Hello().Capabilities)
				if v == "" {
					tc.Blockedf("the host's hello names no enabled capability with a SemVer version, so no range can be set against one")
				}
				dir := tc.Fixture("incompatible-capability")
				harness.ReplaceIn(dir, "APP.md", `lime.agent: ">=9.0.0"`, capability+`: ">=`+v+`"`)
				tc.ExpectVerifies(dir, nil)
				planted := above(v)
				what := "requires.capabilities " + capability + " " + planted
				if unversioned {
					// The profile offers the capability and states no
					// version: it meets no range (the protocol's capability
					// profile), whatever version the hello gave it.
					p := tc.DefaultConfigure()
					p.Capabilities = map[string]protocol.Capability{capability: {Version: "", Enabled: true}}
					tc.Configure(p)
					what += ", the profile offering " + capability + ` with version ""`
				}
				harness.ReplaceIn(dir, "APP.md", capability+`: ">=`+v+`"`, capability+`: "`+planted+`"`)
				tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: what,
					Codes: []string{"incompatible-capability"}, Field: "capabilities", Name: capability})
			},
			Entry("far above: >=9.0.0", tc.Req("VERIFY-COMPATIBILITY", levels.RepresentationLimit), func(string) string { return ">=9.0.0" }, false),
			Entry("just above the host's version", tc.Req("VERIFY-COMPATIBILITY", levels.RepresentationLimit), func(v string) string { return ">" + v }, false),
			Entry("the range met before, the profile now stating no version", tc.Req("VERIFY-COMPATIBILITY", levels.RepresentationLimit, levels.ChangeBetweenReads), func(v string) string { return ">=" + v }, true),
		)
	})
}

// rangedCapability picks the capability of the host's profile that
// VERIFY-COMPATIBILITY sets a range against, and its version: lime.agent
// when the host offers it enabled with a SemVer version, else the first
// such lime.* capability by name (a Desktop P0 host may have no agent
// runtime). "" when the profile has none.
func rangedCapability(profile map[string]protocol.Capability) (string, string) {
	usable := func(c protocol.Capability) bool {
		_, err := semver.StrictNewVersion(c.Version)
		return c.Enabled && err == nil
	}
	if usable(profile["lime.agent"]) {
		return "lime.agent", profile["lime.agent"].Version
	}
	names := make([]string, 0, len(profile))
	for n := range profile {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(n, "lime.") && usable(profile[n]) {
			return n, profile[n].Version
		}
	}
	return "", ""
}
