package agentpkg

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// fixture materializes and loads a conformance fixture.
func fixture(t testing.TB, name string) *Package {
	t.Helper()
	dir, err := platformconformance.Materialize(name, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatalf("loading fixture %s: %v", name, err)
	}
	return p
}

// defaultCaps is a default host profile: every lime.* capability enabled at 0.10.0.
func defaultCaps() map[string]protocol.Capability {
	caps := map[string]protocol.Capability{}
	for _, c := range []string{"lime.ui", "lime.storage", "lime.files", "lime.agent", "lime.knowledge", "lime.tools",
		"lime.artifacts", "lime.workflow", "lime.policy", "lime.evidence", "lime.secrets", "lime.events"} {
		caps[c] = protocol.Capability{Version: StandardVersion, Enabled: true}
	}
	return caps
}

func verifyCodes(p *Package, rel *protocol.Release, caps map[string]protocol.Capability) []string {
	return codesOf(Verify(p, rel, caps), SeverityError)
}

func TestVerifyHashes(t *testing.T) {
	p := fixture(t, "full-app")
	if codes := verifyCodes(p, &protocol.Release{PackageHash: p.PackageHash, ManifestHash: p.ManifestHash}, defaultCaps()); len(codes) != 0 {
		t.Fatalf("a matching release fails: %v", Verify(p, nil, defaultCaps()))
	}
	upper := &protocol.Release{PackageHash: strings.ToUpper(strings.TrimPrefix(p.PackageHash, "sha256:")),
		ManifestHash: "sha256:" + strings.ToUpper(strings.TrimPrefix(p.ManifestHash, "sha256:"))}
	if codes := verifyCodes(p, upper, nil); len(codes) != 0 {
		t.Errorf("hex case or a missing prefix matters: %v", codes)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	codes := verifyCodes(p, &protocol.Release{PackageHash: other, ManifestHash: other}, nil)
	for _, want := range []string{CodePackageHashMismatch, CodeManifestHashMismatch} {
		if !slices.Contains(codes, want) {
			t.Errorf("codes %v lack %s", codes, want)
		}
	}
}

func TestVerifySignatureFile(t *testing.T) {
	if codes := verifyCodes(fixture(t, "full-app"), nil, nil); len(codes) != 0 {
		t.Errorf("full-app's signature does not verify: %v", codes)
	}
	p := fixture(t, "signature-mismatch")
	fs := Verify(p, nil, nil)
	f, ok := hasCode(fs, CodeSignatureManifestHashMismatch)
	if !ok || f.File != "app.signature.yaml" || f.Field != "signature.manifest.hash" {
		t.Errorf("findings = %v", fs)
	}
	// signature.package.hash is compared with the release only.
	p.Signature = map[string]any{"package": map[string]any{"hash": strings.Repeat("a", 64)}}
	if codes := verifyCodes(p, nil, nil); len(codes) != 0 {
		t.Errorf("package hash compared without a release: %v", codes)
	}
	if codes := verifyCodes(p, &protocol.Release{PackageHash: p.PackageHash}, nil); !slices.Contains(codes, CodePackageHashMismatch) {
		t.Errorf("signature package hash vs release: %v", codes)
	}
}

func TestVerifyCapabilityRanges(t *testing.T) {
	caps := defaultCaps()
	if codes := verifyCodes(fixture(t, "full-app"), nil, caps); len(codes) != 0 {
		t.Errorf("full-app incompatible with a default host: %v", codes)
	}
	fs := Verify(fixture(t, "incompatible-capability"), nil, caps)
	f, ok := hasCode(fs, CodeIncompatibleCapability)
	if !ok || f.Field != "requires.capabilities.lime.agent" || !strings.Contains(f.Message, "lime.agent") {
		t.Errorf("findings = %v", fs)
	}
	p := fixture(t, "full-app") // lime.artifacts: ">=0.3.0 <1.0.0"
	for name, c := range map[string]map[string]protocol.Capability{
		"missing":    {},
		"disabled":   {"lime.artifacts": {Version: "0.10.0", Enabled: false}},
		"too new":    {"lime.artifacts": {Version: "1.2.0", Enabled: true}},
		"not semver": {"lime.artifacts": {Version: "banana", Enabled: true}},
	} {
		codes := verifyCodes(p, nil, c)
		if !slices.Equal(codes, []string{CodeIncompatibleCapability}) {
			t.Errorf("%s: codes = %v (\"current\" ranges must always pass)", name, codes)
		}
	}
}

func TestVerifyIncludesValidationErrors(t *testing.T) {
	p := fixture(t, "parent-ref")
	if codes := verifyCodes(p, nil, nil); !slices.Contains(codes, CodePathEscapesPackage) {
		t.Errorf("codes = %v", codes)
	}
}

// TestHostVersionRanges: requires.lime ranges against the host's component
// versions, with an entry stating no version meeting no range.
func TestHostVersionRanges(t *testing.T) {
	req := CapabilityRequirement{Name: "appRuntime", Range: ">=0.3.0 <1.0.0"}
	for name, tc := range map[string]struct {
		caps map[string]protocol.Capability
		ok   bool
	}{
		"no entry: the standard version": {map[string]protocol.Capability{}, true},
		"entry in range":                 {map[string]protocol.Capability{"lime.appRuntime": {Version: "0.5.0", Enabled: true}}, true},
		"entry just below":               {map[string]protocol.Capability{"lime.appRuntime": {Version: "0.2.9", Enabled: true}}, false},
		"entry at the exclusive top":     {map[string]protocol.Capability{"lime.appRuntime": {Version: "1.0.0", Enabled: true}}, false},
		"entry without a version":        {map[string]protocol.Capability{"lime.appRuntime": {Version: "", Enabled: true}}, false},
		"entry that is not SemVer":       {map[string]protocol.Capability{"lime.appRuntime": {Version: "banana", Enabled: true}}, false},
	} {
		if got := hostVersionProblem(req, tc.caps); (got == "") != tc.ok {
			t.Errorf("%s: problem %q, want satisfied=%v", name, got, tc.ok)
		}
	}
	other := CapabilityRequirement{Name: "shell", Range: ">=2.0.0"}
	if got := hostVersionProblem(other, map[string]protocol.Capability{}); got != "" {
		t.Errorf("a component the host does not report is not judged; got %q", got)
	}
	if got := hostVersionProblem(CapabilityRequirement{Name: "shell", Range: "*"},
		map[string]protocol.Capability{"lime.shell": {Version: "", Enabled: true}}); got != "" {
		t.Errorf("\"*\" asks for no version; got %q", got)
	}
}
