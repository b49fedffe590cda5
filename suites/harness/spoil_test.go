package harness

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
	RewriteSignatureHash(dir, planted)
	SetField(dir, "description", "Changed once more.")
	if !strings.Contains(names(), planted) {
		t.Error("a spoiler rewrote a signature planted to name another hash")
	}
}

// DropCapabilities takes a capability out of every place full-app requires
// it, and nothing else: afterwards the package requires it nowhere, still
// loads, still requires the others, and its signature names its APP.md.
func TestDropCapabilitiesLeavesTheRest(t *testing.T) {
	dir, err := platformconformance.Materialize("full-app", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	DropCapabilities(dir, "lime.agent")
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{})
	if err != nil {
		t.Fatalf("the fitted full-app does not load: %v", err)
	}
	for _, f := range p.Findings {
		if f.Severity == "error" {
			t.Errorf("the fitted full-app has a finding: %+v", f)
		}
	}
	var names []string
	for _, r := range agentpkg.RequiredCapabilities(p.Manifest) {
		names = append(names, r.Name)
	}
	if got := strings.Join(names, ","); got != "lime.artifacts,lime.storage,lime.ui" {
		t.Errorf("requires.capabilities after dropping lime.agent: %s", got)
	}
	for _, f := range []string{"APP.md", "app.entries.yaml", "app.capabilities.yaml", "app.boundary.yaml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "lime.agent") && !strings.Contains(l, "lime.agent-task") {
				t.Errorf("%s still requires lime.agent: %q", f, l)
			}
		}
		if f == "app.boundary.yaml" && !strings.Contains(string(b), "requires: [lime.storage, lime.artifacts]") {
			t.Errorf("app.boundary.yaml lost what it required besides lime.agent:\n%s", b)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "APP.md"))
	sig, _ := os.ReadFile(filepath.Join(dir, "app.signature.yaml"))
	if !strings.Contains(string(sig), agentpkg.HashManifest(md)) {
		t.Error("the signature does not name the fitted APP.md")
	}
	if !strings.Contains(string(md), "keywords: [conformance, fixture, catalog]") {
		t.Error("a flow list naming no dropped capability was rewritten")
	}
}
