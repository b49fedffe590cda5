package install

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeContainment checks that a host never reads outside the package
// and survives hostile manifests (SPEC-NOTES, Symlinks; guide clauses).
func describeContainment(tc *harness.TestContext) {
	Describe("Installable: the package is a closed box", func() {
		// Each reference field in turn, on the package just accepted.
		DescribeTable("rejects references that climb out of the package, naming the field",
			func(inside, outside, field string) {
				dir := tc.Fixture("parent-ref")
				harness.ReplaceIn(dir, "APP.md", "path: ../../outside-ui", "path: dist/ui")
				harness.ReplaceIn(dir, "APP.md", "path: ../outside-worker", "path: dist/worker")
				harness.ReplaceIn(dir, "APP.md", "persona: ../secrets.md", "persona: persona.md")
				harness.WriteFile(dir, "dist/ui/index.html", []byte("<!doctype html><title>ui</title>\n"))
				harness.WriteFile(dir, "dist/worker/run.sh", []byte("#!/bin/sh\n"))
				harness.WriteFile(dir, "persona.md", []byte("# persona\n"))
				tc.ExpectVerifies(dir, nil)
				// What the reference climbs to exists, holding a canary: a
				// host that follows it before refusing shows it.
				_, ref, _ := strings.Cut(outside, ": ")
				secret := plantOutside(tc, dir, ref)
				harness.ReplaceIn(dir, "APP.md", inside, outside)
				r := tc.VerifyRefusal(dir, nil)
				tc.ExpectRefused(r, harness.Planted{What: "the reference " + outside,
					Codes: []string{"path-escapes-package"}, File: "APP.md", Field: field, Name: field})
				expectNotFollowed(tc, dir, secret, r)
			},
			Entry("runtimePackage.ui.path", tc.Req("PKG-NO-PARENT-REFS", levels.EveryMember, levels.EveryEntryPoint), "path: dist/ui", "path: ../outside-ui", "runtimePackage"),
			Entry("runtimePackage.worker.path", tc.Req("PKG-NO-PARENT-REFS", levels.EveryMember, levels.EveryEntryPoint), "path: dist/worker", "path: ../outside-worker", "runtimePackage"),
			Entry("an entry's persona", tc.Req("PKG-NO-PARENT-REFS", levels.EveryMember, levels.EveryEntryPoint), "persona: persona.md", "persona: ../secrets.md", "persona"),
		)

		DescribeTable("rejects links that leave the package, dangle or loop, and special files, naming them, and never reads them",
			func(plant func(tc *harness.TestContext, dir string) (path, secret string)) {
				dir := tc.Fixture("minimal-app")
				tc.ExpectVerifies(dir, nil)
				path, secret := plant(tc, dir)
				r := tc.VerifyRefusal(dir, nil)
				tc.ExpectRefused(r, harness.Planted{What: path, File: path})
				if secret != "" {
					if strings.Contains(r.String(), secret) {
						tc.Failf("the refusal quotes the file outside the package: %s", harness.Truncate(r.String(), 300))
					}
					expectOutsideNotHashed(tc, dir)
				}
			},
			Entry("a symlink to a file outside", tc.Req("PKG-NO-ESCAPING-LINKS", levels.EveryMember), harness.PlantEscapingLink),
			Entry("a dangling symlink", tc.Req("PKG-NO-ESCAPING-LINKS", levels.EveryMember), func(tc *harness.TestContext, dir string) (string, string) {
				harness.MustSymlink(filepath.Join(dir, "missing-target"), filepath.Join(dir, "assets-dangling"))
				return "assets-dangling", ""
			}),
			Entry("a symlink cycle", tc.Req("PKG-NO-ESCAPING-LINKS", levels.EveryMember), func(tc *harness.TestContext, dir string) (string, string) {
				harness.MustSymlink(filepath.Join(dir, "loop-b"), filepath.Join(dir, "loop-a"))
				harness.MustSymlink(filepath.Join(dir, "loop-a"), filepath.Join(dir, "loop-b"))
				return "loop-a", ""
			}),
			Entry("a FIFO", tc.Req("PKG-NO-ESCAPING-LINKS", levels.EveryMember), func(tc *harness.TestContext, dir string) (string, string) {
				if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
					harness.Errorf("the harness could not make a FIFO in the package: %v", err)
				}
				return "pipe", ""
			}),
		)

		DescribeTable("rejects hostile manifests and keeps answering",
			func(hostile string, derive func(dir string)) {
				dir := tc.Fixture("minimal-app")
				tc.ExpectVerifies(dir, nil)
				if hostile != "" {
					md, err := os.ReadFile(filepath.Join(tc.Fixture(hostile), "APP.md"))
					if err != nil {
						harness.Errorf("reading the APP.md of %s: %v", hostile, err)
					}
					harness.WriteFile(dir, "APP.md", md)
				}
				if derive != nil {
					derive(dir)
				}
				tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: "a hostile APP.md", File: "APP.md"})
				Expect(tc.Verify(tc.Fixture("minimal-app"), nil).OK).To(BeTrue(), harness.At(protocol.MethodVerify, []any{"ok"}, "of minimal-app after a hostile manifest: the host must keep answering"))
			},
			Entry("an alias bomb", tc.Req("PKG-HOSTILE-YAML", levels.EveryMember), "alias-bomb", nil),
			Entry("nesting 5000 levels deep", tc.Req("PKG-HOSTILE-YAML", levels.EveryMember, levels.RepresentationLimit), "deep-nesting", nil),
			Entry("malformed YAML", tc.Req("PKG-HOSTILE-YAML", levels.EveryMember), "malformed-yaml", nil),
			Entry("non-UTF-8 bytes in the frontmatter", tc.Req("PKG-HOSTILE-YAML", levels.EveryMember), "", func(dir string) {
				harness.RewriteAppMD(dir, func(md []byte) []byte {
					return bytes.Replace(md, []byte("description: "), []byte("description: \xff\xfe "), 1)
				})
			}),
			Entry("an 8 MiB frontmatter", tc.Req("PKG-HOSTILE-YAML", levels.EveryMember, levels.RepresentationLimit), "", func(dir string) {
				harness.RewriteAppMD(dir, func(md []byte) []byte {
					pad := "metadata:\n  padding: \"" + strings.Repeat("x", 8<<20) + "\"\n"
					return bytes.Replace(md, []byte("---\n"), []byte("---\n"+pad), 1)
				})
			}),
		)
	})
}

// plantOutside writes what a reference that climbs out of the package at
// dir points to (a file, or a folder's files, one level up: the spec's own
// scratch folder) with a fresh value, and returns the value.
func plantOutside(tc *harness.TestContext, dir, ref string) string {
	GinkgoHelper()
	secret := harness.Nonce("outside-content")
	target := filepath.Join(dir, filepath.FromSlash(ref))
	if rel, err := filepath.Rel(filepath.Dir(dir), target); err != nil || strings.HasPrefix(rel, "..") {
		harness.Errorf("fixture sanity: %s does not stay in the spec's scratch folder", ref)
	}
	files := []string{target}
	if filepath.Ext(target) == "" { // a folder: the files a UI or worker entry names
		files = []string{filepath.Join(target, "index.html"), filepath.Join(target, "run.sh")}
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			harness.Errorf("the harness could not make %s: %v", filepath.Dir(f), err)
		}
		if err := os.WriteFile(f, []byte(secret+"\n"), 0o644); err != nil {
			harness.Errorf("the harness could not write %s outside the package: %v", filepath.Base(f), err)
		}
	}
	return secret
}

// expectNotFollowed is the "never followed" of PKG-NO-PARENT-REFS: neither
// the refusal r nor what package/project and app/readiness answer for the
// package at dir carries secret, the content of what its reference climbs
// to.
func expectNotFollowed(tc *harness.TestContext, dir, secret string, r harness.Refusal) {
	GinkgoHelper()
	if strings.Contains(r.String(), secret) {
		tc.Failf("package/verify's refusal quotes the file outside the package the reference points to")
	}
	for method, params := range map[string]any{protocol.MethodProject: protocol.PackageParams{Path: dir},
		protocol.MethodReadiness: protocol.ReadinessParams{Path: dir}} {
		var raw json.RawMessage
		err := tc.Call(method, params, &raw)
		if he, ok := harness.HostError(err); ok {
			raw = append(raw, []byte(he.Message+" "+string(he.Data))...)
		}
		if bytes.Contains(raw, []byte(secret)) {
			tc.Failf("%s of the package carries the content of the file outside it that its reference points to: the reference was followed", method)
		}
	}
}

// expectOutsideNotHashed fails when the host's verdict carries the package
// hash computed through the escaping link: then it read the file outside,
// even though it refused the package afterwards.
func expectOutsideNotHashed(tc *harness.TestContext, dir string) {
	GinkgoHelper()
	followed, _, err := agentpkg.HashPackage(dir, agentpkg.LoadOptions{FollowEscapingLinks: true})
	if err != nil {
		harness.Errorf("the harness could not hash the package through the link: %v", err)
	}
	var res protocol.VerifyResult
	if tc.Call(protocol.MethodVerify, protocol.PackageParams{Path: dir}, &res) != nil {
		return // an error refusal carries no hash
	}
	if strings.EqualFold(res.PackageHash, followed) {
		tc.Failf("the host hashed the file the link points to outside the package: its packageHash %s is the hash of the package with the link followed", res.PackageHash)
	}
}
