package suites

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// describeContainment checks that a host never reads outside the package
// and survives hostile manifests (SPEC-NOTES, Symlinks; guide clauses).
func describeContainment(tc *TestContext) {
	Describe("Installable: the package is a closed box", func() {
		It("rejects references that climb out of the package, naming the field", tc.Req("PKG-NO-PARENT-REFS"), func() {
			refused, said := tc.VerifyRefuses(tc.Fixture("parent-ref"), nil)
			Expect(refused).To(BeTrue(), "a package referring to ../ paths was accepted: %s", said)
			Expect(ContainsAny(said, "runtimePackage", "persona")).To(BeTrue(), "the refusal must name the field: %s", said)
		})

		DescribeTable("rejects links that leave the package, dangle or loop, and special files, and never reads them",
			func(plant func(tc *TestContext, dir string) string) {
				dir := tc.Fixture("minimal-app")
				secret := plant(tc, dir)
				refused, said := tc.VerifyRefuses(dir, nil)
				Expect(refused).To(BeTrue(), "the package was accepted: %s", said)
				if secret != "" {
					Expect(said).NotTo(ContainSubstring(secret), "the host read a file outside the package")
					expectOutsideNotHashed(tc, dir)
				}
			},
			Entry("a symlink to a file outside", tc.Req("PKG-NO-ESCAPING-LINKS"), plantEscapingLink),
			Entry("a dangling symlink", tc.Req("PKG-NO-ESCAPING-LINKS"), func(tc *TestContext, dir string) string {
				mustSymlink(filepath.Join(dir, "missing-target"), filepath.Join(dir, "assets-dangling"))
				return ""
			}),
			Entry("a symlink cycle", tc.Req("PKG-NO-ESCAPING-LINKS"), func(tc *TestContext, dir string) string {
				mustSymlink(filepath.Join(dir, "loop-b"), filepath.Join(dir, "loop-a"))
				mustSymlink(filepath.Join(dir, "loop-a"), filepath.Join(dir, "loop-b"))
				return ""
			}),
			Entry("a FIFO", tc.Req("PKG-NO-ESCAPING-LINKS"), func(tc *TestContext, dir string) string {
				Expect(syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644)).To(Succeed())
				return ""
			}),
		)

		DescribeTable("rejects hostile manifests and keeps answering",
			func(fixture string, derive func(dir string)) {
				dir := tc.Fixture(fixture)
				if derive != nil {
					derive(dir)
				}
				refused, said := tc.VerifyRefuses(dir, nil)
				Expect(refused).To(BeTrue(), "a hostile manifest was accepted: %s", said)
				Expect(said).To(ContainSubstring("APP.md"), "the refusal must name the file")
				Expect(tc.Verify(tc.Fixture("minimal-app"), nil).OK).To(BeTrue(), "the host must keep answering after a hostile manifest")
			},
			Entry("an alias bomb", tc.Req("PKG-HOSTILE-YAML"), "alias-bomb", nil),
			Entry("nesting 5000 levels deep", tc.Req("PKG-HOSTILE-YAML"), "deep-nesting", nil),
			Entry("malformed YAML", tc.Req("PKG-HOSTILE-YAML"), "malformed-yaml", nil),
			Entry("non-UTF-8 bytes in the frontmatter", tc.Req("PKG-HOSTILE-YAML"), "minimal-app", func(dir string) {
				rewriteAppMD(dir, func(md []byte) []byte {
					return bytes.Replace(md, []byte("description: "), []byte("description: \xff\xfe "), 1)
				})
			}),
			Entry("an 8 MiB frontmatter", tc.Req("PKG-HOSTILE-YAML"), "minimal-app", func(dir string) {
				rewriteAppMD(dir, func(md []byte) []byte {
					pad := "metadata:\n  padding: \"" + strings.Repeat("x", 8<<20) + "\"\n"
					return bytes.Replace(md, []byte("---\n"), []byte("---\n"+pad), 1)
				})
			}),
		)
	})
}

// plantEscapingLink links assets/leak.txt to a canary file outside the package.
func plantEscapingLink(tc *TestContext, dir string) string {
	GinkgoHelper()
	outside := filepath.Join(filepath.Dir(dir), "outside-secret.txt")
	secret := "outside-content-" + tc.Config.Canaries.OtherSecret
	Expect(os.WriteFile(outside, []byte(secret), 0o644)).To(Succeed())
	Expect(os.MkdirAll(filepath.Join(dir, "assets"), 0o755)).To(Succeed())
	mustSymlink(outside, filepath.Join(dir, "assets", "leak.txt"))
	return secret
}

func mustSymlink(target, link string) {
	GinkgoHelper()
	Expect(os.Symlink(target, link)).To(Succeed())
}

func rewriteAppMD(dir string, edit func([]byte) []byte) {
	GinkgoHelper()
	p := filepath.Join(dir, "APP.md")
	md, err := os.ReadFile(p)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(p, edit(md), 0o644)).To(Succeed())
}

// expectOutsideNotHashed fails when the host's verdict carries the package
// hash computed through the escaping link: then it read the file outside,
// even though it refused the package afterwards.
func expectOutsideNotHashed(tc *TestContext, dir string) {
	GinkgoHelper()
	followed, _, err := agentpkg.HashPackage(dir, agentpkg.LoadOptions{FollowEscapingLinks: true})
	Expect(err).NotTo(HaveOccurred(), "harness hashing through the link")
	var res protocol.VerifyResult
	if tc.Call(protocol.MethodVerify, protocol.PackageParams{Path: dir}, &res) != nil {
		return // an error refusal carries no hash
	}
	Expect(strings.EqualFold(res.PackageHash, followed)).To(BeFalse(),
		"the host hashed the file the link points to outside the package")
}
