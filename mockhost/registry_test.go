//go:build !mutation

package mockhost

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
)

// registryProbe starts a registry, publishes tiny-app as 1.0.0 and 1.1.0
// (the second with requires when incompatible is set), lets script enable
// and withdraw, configures the host with it as tenant t1 and reports what
// act observes.
func registryProbe(script func(g *registry.Registry, v1, v2 registry.Release), act func(t *testing.T, x *harness, g *registry.Registry) string) probe {
	return func(t *testing.T, x *harness) string {
		g := startRegistry(t)
		v1 := publishApp(t, g, app(t, ""), "1.0.0", nil)
		v2 := publishApp(t, g, app(t, "requires:\n  capabilities:\n    lime.agent: \">=9.0.0\"\n"), "1.1.0",
			map[string]any{"capabilities": map[string]any{"lime.agent": ">=9.0.0"}})
		script(g, v1, v2)
		x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
		return act(t, x, g)
	}
}

// startRegistry starts the harness's registry on loopback for one test.
func startRegistry(t testing.TB) *registry.Registry {
	t.Helper()
	g, err := registry.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// publishApp publishes the package in dir as tiny-app at version, with
// compat as its release's compatibility.
func publishApp(t *testing.T, g *registry.Registry, dir, version string, compat map[string]any) registry.Release {
	t.Helper()
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	archive, err := registry.Archive(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel := registry.Release{AppID: "tiny-app", Version: version, PackageHash: p.PackageHash, ManifestHash: p.ManifestHash}
	if compat != nil {
		if rel.Compatibility, err = json.Marshal(compat); err != nil {
			t.Fatal(err)
		}
	}
	return g.Publish(rel, archive)
}

// listed reports registry/list as appId@version pairs, or the error code.
func listed(x *harness) string {
	var r protocol.RegistryListResult
	if err := x.call(protocol.MethodRegistryList, nil, &r); err != nil {
		return fmt.Sprintf("error %d", code(err))
	}
	s := ""
	for _, rel := range r.Releases {
		s += rel.AppID + "@" + rel.Version + " "
	}
	return s
}

// installSource installs src and reports the installed hash or the error code.
func installSource(x *harness, src protocol.Source) string {
	var r protocol.InstallResult
	err := x.call(protocol.MethodInstall, protocol.InstallParams{Source: &src, Consent: protocol.Consent{Granted: true, By: "user"}}, &r)
	if err != nil {
		return fmt.Sprintf("error %d", code(err))
	}
	return r.App.Version + " " + r.App.PackageHash
}

func registryProbes() map[string]probe {
	enableV1 := func(g *registry.Registry, v1, _ registry.Release) { g.EnableVersion("t1", v1.AppID, v1.Version) }
	return map[string]probe{
		"registry-ignores-tenant": registryProbe(enableV1, func(_ *testing.T, x *harness, _ *registry.Registry) string { return listed(x) }),
		"bootstrap-cached-across-tenants": registryProbe(func(g *registry.Registry, v1, v2 registry.Release) {
			g.EnableVersion("t1", v1.AppID, v1.Version)
			g.EnableVersion("t2", v2.AppID, v2.Version)
		}, func(_ *testing.T, x *harness, g *registry.Registry) string {
			first := listed(x)
			x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "t2", WorkspaceID: "w1", UserID: "u1", RegistryURL: g.URL()}, nil)
			return first + "| " + listed(x)
		}),
		"install-not-enabled": registryProbe(enableV1, func(_ *testing.T, x *harness, _ *registry.Registry) string {
			return installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.1.0"})
		}),
		"list-withdrawn": registryProbe(func(g *registry.Registry, v1, v2 registry.Release) {
			enableV1(g, v1, v2)
			g.Withdraw(v1.AppID, v1.Version)
		}, func(_ *testing.T, x *harness, _ *registry.Registry) string { return listed(x) }),
		"signed-withdrawn-installed": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			dir := app(t, "")
			rel := publishApp(t, g, dir, "1.0.0", nil)
			archive, err := registry.Archive(dir)
			if err != nil {
				t.Fatal(err)
			}
			rel.SignatureBundle = json.RawMessage(`{"mediaType":"application/vnd.dev.sigstore.bundle+json;version=0.3"}`)
			g.Publish(rel, archive)
			g.EnableVersion("t1", rel.AppID, rel.Version)
			g.Withdraw(rel.AppID, rel.Version)
			x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
			return installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.0.0"})
		},
		"registry-records-latest": registryProbe(func(g *registry.Registry, v1, _ registry.Release) {
			g.Pin(v1.AppID, "stable", v1.Version)
			g.EnableChannel("t1", v1.AppID, "stable")
		}, func(_ *testing.T, x *harness, _ *registry.Registry) string {
			return installSource(x, protocol.Source{AppID: "tiny-app", Channel: "stable"})
		}),
		"download-before-compatibility": registryProbe(func(g *registry.Registry, _, v2 registry.Release) {
			g.EnableVersion("t1", v2.AppID, v2.Version)
		}, func(_ *testing.T, x *harness, g *registry.Registry) string {
			out := installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.1.0"})
			return fmt.Sprintf("%s fetched=%d", out, len(g.Requests(registry.PackagePath("tiny-app", "1.1.0"))))
		}),
		"download-pinned-to-itself": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			// A release whose package changed after its hashes were taken.
			rel := publishApp(t, g, app(t, ""), "1.0.0", nil)
			changed, err := registry.Archive(app(t, "keywords: [changed]\n"))
			if err != nil {
				t.Fatal(err)
			}
			g.Publish(rel, changed)
			g.EnableVersion("t1", rel.AppID, rel.Version)
			x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
			return installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.0.0"})
		},
		"list-needs-registry": registryProbe(enableV1, func(_ *testing.T, x *harness, g *registry.Registry) string {
			installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.0.0"})
			g.SetMode(registry.Down)
			var r protocol.ListResult
			if err := x.call(protocol.MethodList, nil, &r); err != nil {
				return fmt.Sprintf("error %d", code(err))
			}
			return fmt.Sprint(len(r.Apps))
		}),
	}
}

// A release installed from the registry is the package at its packageUrl,
// pinned to the release's hashes, unpacked into the host's own folder.
func TestInstallFromRegistry(t *testing.T) {
	x := start(t)
	got := registryProbe(func(g *registry.Registry, v1, _ registry.Release) {
		g.EnableVersion("t1", v1.AppID, v1.Version)
	}, func(t *testing.T, x *harness, _ *registry.Registry) string {
		out := installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.0.0"})
		rows := x.list().Apps
		if len(rows) != 1 || rows[0].AppID != "tiny-app" {
			t.Fatalf("app/list after a registry install: %+v", rows)
		}
		return out
	})(t, x)
	if got[:6] != "1.0.0 " {
		t.Fatalf("install from the registry: %s", got)
	}
}

// Without a registry configured, registry/list says so; a registry that
// is down is -32008.
func TestRegistryListErrors(t *testing.T) {
	x := start(t)
	x.configureWith(protocol.ConfigureParams{})
	if got := listed(x); got != fmt.Sprintf("error %d", protocol.CodeNotConfigured) {
		t.Errorf("no registryUrl: %s", got)
	}
	g := startRegistry(t)
	g.SetMode(registry.Garbage)
	x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
	if got := listed(x); got != fmt.Sprintf("error %d", protocol.CodeRegistryFailed) {
		t.Errorf("a registry answering garbage: %s", got)
	}
}

// unzip refuses entries that leave the package or are not files or
// folders, and writes nothing outside the target.
func TestUnzipRefusesEscapes(t *testing.T) {
	for _, name := range []string{"../evil.txt", "/abs.txt", "a/../../evil.txt", `a\..\evil.txt`} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("x"))
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		root := t.TempDir()
		dir := filepath.Join(root, "pkg")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unzip(buf.Bytes(), dir, unzipFaults{}); err == nil {
			t.Errorf("entry %q: unpacked without error", name)
		}
		if _, err := os.Stat(filepath.Join(root, "evil.txt")); err == nil {
			t.Errorf("entry %q: wrote outside the package", name)
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "link"}
	h.SetMode(os.ModeSymlink | 0o777)
	w, err := zw.CreateHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("/etc/passwd"))
	_ = zw.Close()
	if err := unzip(buf.Bytes(), t.TempDir(), unzipFaults{}); err == nil {
		t.Error("a symlink entry unpacked without error")
	}
}
