//go:build !mutation

package mockhost

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

func TestHelloShape(t *testing.T) {
	x := start(t)
	if err := x.c.HelloErr(); err != nil {
		t.Fatalf("hello: %v", err)
	}
	got := x.c.Hello()
	if got.Host != (protocol.HostIdentity{Name: Name, Version: Version, Kind: "reference"}) {
		t.Errorf("host = %+v", got.Host)
	}
	if got.ProtocolVersion != protocol.Version {
		t.Errorf("protocolVersion = %q", got.ProtocolVersion)
	}
	if want := len(agentpkg.SDKCapabilities()); len(got.Capabilities) != want {
		t.Errorf("%d capabilities, want every SDK capability (%d)", len(got.Capabilities), want)
	}
	for name, c := range got.Capabilities {
		if c != (protocol.Capability{Version: "0.10.0", Enabled: true}) {
			t.Errorf("capability %s = %+v", name, c)
		}
	}
	if !slices.Equal(got.Levels, ClaimedLevels()) || !slices.Contains(got.Levels, "desktop-p2") {
		t.Errorf("levels = %v", got.Levels)
	}
}

func TestErrors(t *testing.T) {
	x := start(t)
	for _, m := range append([]string{"no/such-method"}, protocol.ReservedMethods()...) {
		if err := x.call(m, nil, nil); code(err) != protocol.CodeMethodNotFound {
			t.Errorf("%s: err = %v, want -32601", m, err)
		}
	}
	cases := []struct {
		method string
		params any
		field  string
	}{
		{protocol.MethodInstall, map[string]any{"path": "/tmp/x"}, "consent"},
		{protocol.MethodInstall, map[string]any{"path": "/tmp/x", "consent": map[string]any{"granted": "yes"}}, "consent.granted"},
		{protocol.MethodVerify, map[string]any{}, "path"},
		{protocol.MethodUninstall, map[string]any{"appId": 3, "keepData": false}, "appId"},
		{protocol.MethodConfigure, map[string]any{"tenantId": "t", "workspaceId": "w", "userId": "u", "clock": "yesterday"}, "clock"},
	}
	for _, c := range cases {
		err := x.call(c.method, c.params, nil)
		if code(err) != protocol.CodeInvalidParams || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s %s: err = %v, want -32602 naming %s", c.method, raw(c.params), err, c.field)
		}
	}
}

func TestResetClearsEverything(t *testing.T) {
	x := start(t)
	x.configure(map[string]string{"api_key": "s3cr3t"}, nil, "2030-01-01T00:00:00Z")
	one := app(t, "")
	if _, err := x.install(one, nil, true); err != nil {
		t.Fatal(err)
	}
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: true}, nil)
	if _, err := x.install(one, nil, true); err != nil {
		t.Fatal(err)
	}
	x.must(protocol.MethodReset, nil, nil)
	if l := x.list(); len(l.Apps) != 0 || len(l.Retained) != 0 {
		t.Fatalf("after reset: %s", raw(l))
	}
	if cfg, clock := x.h.config(); cfg.Secrets != nil || !clock.IsZero() {
		t.Errorf("configuration survived reset: %+v %v", cfg, clock)
	}
}

func TestInstallUninstall(t *testing.T) {
	x := start(t)
	dir := app(t, "")
	if _, err := x.install(dir, nil, false); code(err) != protocol.CodeConsentRequired {
		t.Fatalf("install without consent: %v, want -32003", err)
	}
	if l := x.list(); len(l.Apps) != 0 {
		t.Fatalf("installed without consent: %s", raw(l))
	}
	r, err := x.install(dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.App.AppID != "tiny-app" || r.App.PackageHash != p.PackageHash || r.App.ManifestHash != p.ManifestHash || r.App.HasData {
		t.Fatalf("install answer = %s", raw(r))
	}

	var u protocol.UninstallResult
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: true}, &u)
	if u.DataRemoved {
		t.Errorf("keepData: dataRemoved = true")
	}
	if l := x.list(); len(l.Apps) != 0 || len(l.Retained) != 1 || l.Retained[0].AppID != "tiny-app" {
		t.Errorf("after keep-data uninstall: %s", raw(l))
	}
	if _, err := x.install(dir, nil, true); err != nil {
		t.Fatal(err)
	}
	if l := x.list(); len(l.Retained) != 0 || !l.Apps[0].HasData {
		t.Errorf("reinstall did not take the retained data back: %s", raw(l))
	}
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, &u)
	if !u.DataRemoved {
		t.Errorf("delete: dataRemoved = false")
	}
	if l := x.list(); len(l.Apps) != 0 || len(l.Retained) != 0 {
		t.Errorf("after delete-data uninstall: %s", raw(l))
	}
	if err := x.call(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil); code(err) != protocol.CodeAppNotFound {
		t.Errorf("second uninstall: %v, want -32004", err)
	}
}

func TestVerifyTamperedFixture(t *testing.T) {
	x := start(t)
	dir, err := platformconformance.Materialize("full-app", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := x.verify(dir, nil)
	if !good.OK || good.AppName != "full-app" {
		t.Fatalf("pristine fixture: %s", raw(good))
	}
	rel := &protocol.Release{PackageHash: good.PackageHash, ManifestHash: good.ManifestHash}
	if r := x.verify(dir, rel); !r.OK {
		t.Fatalf("pristine fixture against its own release: %s", raw(r))
	}
	if err := os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), []byte("tampered\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := x.verify(dir, rel)
	if r.OK || !hasCode(r.Findings, agentpkg.CodePackageHashMismatch) {
		t.Fatalf("tampered fixture verified: %s", raw(r))
	}
	if _, err := x.install(dir, rel, true); code(err) != protocol.CodeVerificationFailed {
		t.Fatalf("tampered install: %v, want -32002", err)
	}
}

func TestReadinessEndOfLifeByClock(t *testing.T) {
	x := start(t)
	dir := app(t, "endOfLifeAt: 2030-01-01T00:00:00Z\nsupportWindow:\n  supersededBy: 2.0.0\n")
	x.configure(nil, nil, "2029-12-31T00:00:00Z")
	r, err := x.readiness(protocol.ReadinessParams{Path: dir})
	if err != nil || r.Status != protocol.StatusReady {
		t.Fatalf("before end of life: %s %v", raw(r), err)
	}
	x.configure(nil, nil, "2030-01-02T00:00:00Z")
	r, err = x.readiness(protocol.ReadinessParams{Path: dir})
	if err != nil || r.Status != protocol.StatusBlocked || r.SupersededBy != "2.0.0" || r.OK {
		t.Fatalf("after end of life: %s %v", raw(r), err)
	}
}

func hasCode(fs []protocol.Finding, code string) bool {
	return slices.ContainsFunc(fs, func(f protocol.Finding) bool { return f.Code == code })
}

// TestCapabilityWithoutAVersion: host/configure takes a capability offered
// without a version (docs/host-control-protocol.md, Capability profile); it
// meets "current" and no SemVer range.
func TestCapabilityWithoutAVersion(t *testing.T) {
	x := start(t)
	x.configure(nil, map[string]protocol.Capability{"lime.agent": {Version: "", Enabled: true}}, "")
	if r := x.verify(app(t, "requires:\n  capabilities:\n    lime.agent: current\n"), nil); !r.OK {
		t.Errorf("\"current\" is not met by a capability without a version: %s", verdict(r))
	}
	if r := x.verify(app(t, "requires:\n  capabilities:\n    lime.agent: \">=0.10.0\"\n"), nil); r.OK {
		t.Errorf("a SemVer range is met by a capability without a version: %s", verdict(r))
	}
}

// TestEmptySecretIsNotConfigured: a required secret configured with an
// empty value leaves the app needing setup (docs/decisions.md, "A secret
// configured empty"); any non-empty value satisfies it.
func TestEmptySecretIsNotConfigured(t *testing.T) {
	for value, want := range map[string]string{"": protocol.StatusNeedsSetup, "k": protocol.StatusReady} {
		x := start(t)
		x.configure(map[string]string{"api_key": value}, nil, "")
		r, err := x.readiness(protocol.ReadinessParams{Path: app(t, "secrets:\n  - key: api_key\n    required: true\n")})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != want {
			t.Errorf("api_key = %q: status %s, want %s", value, r.Status, want)
		}
	}
}
