package suites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/agentpkg"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// A derived package stays valid in every respect but the one planted: a
// spoiler that rewrites APP.md keeps app.signature.yaml naming its hash, so
// a host that verifies before it projects is not refused for a stale hash.
// A signature planted to name another hash stays planted.
func TestSpoilersKeepTheSignatureCurrent(t *testing.T) {
	dir, err := platformconformance.Materialize("full-app", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	names := func() string {
		t.Helper()
		sig, err := os.ReadFile(filepath.Join(dir, "app.signature.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return string(sig)
	}
	current := func() string {
		t.Helper()
		md, err := os.ReadFile(filepath.Join(dir, "APP.md"))
		if err != nil {
			t.Fatal(err)
		}
		return agentpkg.HashManifest(md)
	}
	if !strings.Contains(names(), current()) {
		t.Fatal("fixture sanity: full-app's signature does not name its APP.md")
	}
	for what, spoil := range map[string]func(){
		"SetField":   func() { SetField(dir, "description", "Changed by a spoiler.") },
		"DropField":  func() { DropField(dir, "keywords") },
		"ReplaceIn":  func() { ReplaceIn(dir, "APP.md", "Full Conformance App", "Fuller Conformance App") },
		"AppendFile": func() { AppendFile(dir, "APP.md", []byte("\nA line more.\n")) },
	} {
		spoil()
		if !strings.Contains(names(), current()) {
			t.Errorf("after %s the signature file names a stale manifest hash", what)
		}
	}
	planted := agentpkg.HashManifest([]byte("another APP.md"))
	rewriteSignatureHash(dir, planted)
	SetField(dir, "description", "Changed once more.")
	if !strings.Contains(names(), planted) {
		t.Error("a spoiler rewrote a signature planted to name another hash")
	}
}
