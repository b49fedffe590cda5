package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"unicode/utf8"

	"github.com/agentapp/conformance/drivers/agentpkg"
	. "github.com/onsi/ginkgo/v2"
)

// PlantEscapingLink links assets/leak.txt to a canary file outside the package.
func PlantEscapingLink(tc *TestContext, dir string) (string, string) {
	GinkgoHelper()
	outside := filepath.Join(filepath.Dir(dir), "outside-secret.txt")
	secret := "outside-content-" + tc.Config.Canaries.OtherSecret
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		Errorf("the harness could not write the file outside the package: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "assets"), 0o755); err != nil {
		Errorf("the harness could not make assets/ in the package: %v", err)
	}
	MustSymlink(outside, filepath.Join(dir, "assets", "leak.txt"))
	return "assets/leak.txt", secret
}

// MustSymlink plants a link; a link the harness cannot make is its own
// trouble (error), never the host's.
func MustSymlink(target, link string) {
	GinkgoHelper()
	if err := os.Symlink(target, link); err != nil {
		Errorf("the harness could not plant the link %s: %v", filepath.Base(link), err)
	}
}

func RewriteAppMD(dir string, edit func([]byte) []byte) {
	GinkgoHelper()
	p := filepath.Join(dir, "APP.md")
	md, err := os.ReadFile(p)
	if err != nil {
		Errorf("the harness could not read the APP.md it edits: %v", err)
	}
	WriteFile(dir, "APP.md", edit(md))
}

// Truncate cuts s to about n bytes on a rune boundary.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("\n… (%d more bytes)", len(s)-n)
}

// EditSameSize changes one byte of a package file, keeping its size.
func EditSameSize(dir, rel string) {
	GinkgoHelper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil || len(b) == 0 {
		Errorf("fixture sanity: %s cannot be edited (%v)", rel, err)
	}
	b[len(b)/2] ^= 0x01
	WriteFile(dir, rel, b)
}

// TamperTarget picks a file other than APP.md to change after hashing, so
// that only the package hash can catch it.
func TamperTarget(tc *TestContext, dir string) string {
	GinkgoHelper()
	_, files, err := agentpkg.HashPackage(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		// The harness's own hashing: its trouble, never the host's.
		Errorf("the harness could not list the files of %s: %v", filepath.Base(dir), err)
	}
	for _, f := range files {
		if f.Path != "APP.md" && filepath.Ext(f.Path) != "" {
			return f.Path
		}
	}
	Errorf("fixture sanity: %s has no file besides APP.md to tamper with", filepath.Base(dir))
	return ""
}

// RewriteSignatureHash makes app.signature.yaml name another manifest hash.
func RewriteSignatureHash(dir, hash string) {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, "app.signature.yaml"))
	if err != nil {
		Errorf("reading app.signature.yaml: %v", err)
	}
	re := regexp.MustCompile(`hash: sha256:[0-9a-f]{64}`)
	if !re.Match(b) {
		Errorf("fixture sanity: app.signature.yaml names no manifest hash")
	}
	WriteFile(dir, "app.signature.yaml", re.ReplaceAll(b, []byte("hash: "+hash)))
}

// RevokedPlanted is what a spec planting a revoked package expects a
// refusal to name (spec 000, Package signing and revocation: "Call
// revocation.checkUrl ... Block install and alert on any failure").
var RevokedPlanted = Planted{What: "a revoked package", Codes: []string{"revoked"}, File: "app.signature.yaml", Field: "revocation"}

// NameRevocation makes the package in dir name the harness's revocation
// service in app.signature.yaml (spec 000, Package signing and revocation:
// signature.revocation.checkUrl and cacheSeconds), adding the file when the
// package has none.
func (tc *TestContext) NameRevocation(dir string, cacheSeconds int) {
	GinkgoHelper()
	block := fmt.Sprintf("  revocation:\n    checkUrl: %s\n    cacheSeconds: %d\n", tc.Revocation().URL(), cacheSeconds)
	if _, err := os.Stat(filepath.Join(dir, "app.signature.yaml")); err != nil {
		WriteFile(dir, "app.signature.yaml", []byte("signature:\n"+block))
		return
	}
	AppendFile(dir, "app.signature.yaml", []byte(block))
}
