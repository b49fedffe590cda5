//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// storageGet is what the app of s reads for key through lime.storage.
func storageGet(s *surface, key string) string {
	return string(s.invoke("get-"+key, "lime.storage", "get", map[string]any{"key": key}).Payload)
}

// storageSet stores key = value through lime.storage of s's app.
func storageSet(s *surface, key, value string) {
	s.invoke("set-"+key, "lime.storage", "set", map[string]any{"key": key, "value": value})
}

// appState calls app/disable or app/enable and then reports every app's
// app/list state and the readiness status of appID.
func appState(x *harness, method, appID string) string {
	x.must(method, protocol.AppIDParams{AppID: appID}, nil)
	var l protocol.ListResult
	x.must(protocol.MethodList, struct{}{}, &l)
	var r protocol.ReadinessResult
	x.must(protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID}, &r)
	out := r.Status
	for _, a := range l.Apps {
		out += " " + a.AppID + "=" + a.State
	}
	return out
}

// reinstalled uninstalls the app of s (keeping its data or not), installs
// it again from the same folder and reads key.
func reinstalled(x *harness, s *surface, appID string, keep bool, key string) string {
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: appID, KeepData: keep}, nil)
	if _, err := x.install(s.dir, nil, true); err != nil {
		x.t.Fatalf("reinstalling %s: %v", appID, err)
	}
	return storageGet(x.launchEntry(appID, "main"), key)
}

// exported stores k = a in app-a (and k = b in app-b), uninstalls app-a
// with export then delete, and reports the export's files and what a
// reinstalled app-a reads for k.
func exported(x *harness) string {
	x.configureWith(protocol.ConfigureParams{})
	s := x.mount("app-a", "main")
	storageSet(s, "k", "value-of-a")
	storageSet(x.mount("app-b", "main"), "k", "value-of-b")
	var r protocol.UninstallResult
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "app-a", ExportTo: filepath.Join(x.t.TempDir(), "export")}, &r)
	out := fmt.Sprint(r.DataRemoved)
	for _, f := range r.Exported {
		b, err := os.ReadFile(f)
		if err != nil {
			x.t.Fatal(err)
		}
		out += " " + filepath.Base(f) + ":" + fmt.Sprint(strings.Contains(string(b), "value-of-a"), strings.Contains(string(b), "value-of-b"))
	}
	if _, err := x.install(s.dir, nil, true); err != nil {
		x.t.Fatalf("reinstalling app-a: %v", err)
	}
	return out + " " + storageGet(x.launchEntry("app-a", "main"), "k")
}

// cleanupModes uninstalls app-a keeping data, deleting data and with export
// then delete (reinstalling it between), and lists the cleanup records
// host/observe gives.
func cleanupModes(x *harness) string {
	x.configureWith(protocol.ConfigureParams{})
	s := x.mount("app-a", "main")
	for _, p := range []protocol.UninstallParams{{AppID: "app-a", KeepData: true}, {AppID: "app-a"},
		{AppID: "app-a", ExportTo: filepath.Join(x.t.TempDir(), "export")}} {
		x.must(protocol.MethodUninstall, p, nil)
		if _, err := x.install(s.dir, nil, true); err != nil {
			x.t.Fatalf("reinstalling app-a: %v", err)
		}
	}
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "app-a"}, &o)
	return fmt.Sprint(o.Cleanup)
}

// evidenceAcrossUpdate records evidence in app-a, updates it, records
// again and lists the records host/observe gives as requestId@version.
func evidenceAcrossUpdate(x *harness) string {
	if _, err := updatedAppAfter(x, false, func(s *surface) {
		s.invoke("ev-1", "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": 1}})
	}); err != nil {
		x.t.Fatal(err)
	}
	x.launchEntry("app-a", "main").invoke("ev-2", "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": 2}})
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "app-a"}, &o)
	out := ""
	for _, e := range o.Evidence {
		out += e.RequestID + "@" + e.Version + " "
	}
	return out
}

// rolledBackEntry updates app-a to a release with an extra entry, rolls
// back, and reports whether extra and main launch.
func rolledBackEntry(x *harness) string {
	x.configureWith(protocol.ConfigureParams{})
	x.mount("app-a", "main")
	dir := surfaceApp(x.t, "app-a")
	rewrite(x.t, dir, "APP.md", func(b string) string {
		b = strings.Replace(b, "version: 1.0.0", "version: 1.1.0", 1)
		return strings.Replace(b, "  - key: tasks\n", "  - key: extra\n    kind: page\n    title: Extra\n    route: /extra\n    requiredCapabilities: [lime.ui]\n  - key: tasks\n", 1)
	})
	x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "app-a", Path: dir, Release: releaseOf(x.t, dir),
		Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
	before := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "extra"}, nil)
	x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, nil)
	after := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "extra"}, nil)
	main := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "main"}, nil)
	return fmt.Sprint(before == nil, " ", code(after), " ", main == nil)
}

// updatedApp mounts app-a, stores k = a, and updates it to version 1.1.0
// from a copy of its package (tampered when tamper is set).
func updatedApp(x *harness, tamper bool) (*surface, error) {
	return updatedAppAfter(x, tamper, func(*surface) {})
}

// updatedAppAfter is updatedApp with before run on app-a's surface before
// the update.
func updatedAppAfter(x *harness, tamper bool, before func(*surface)) (*surface, error) {
	x.configureWith(protocol.ConfigureParams{})
	s := x.mount("app-a", "main")
	storageSet(s, "k", "a")
	before(s)
	dir := surfaceApp(x.t, "app-a")
	rewrite(x.t, dir, "APP.md", func(b string) string { return strings.Replace(b, "version: 1.0.0", "version: 1.1.0", 1) })
	rel := releaseOf(x.t, dir)
	if tamper {
		rewrite(x.t, dir, "dist/ui/index.html", func(b string) string { return b + "<!-- changed -->\n" })
	}
	return s, x.call(protocol.MethodUpdate, protocol.UpdateParams{AppID: "app-a", Path: dir, Release: rel,
		Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
}

// versionAndKey is app-a's listed version and what it reads for k.
func versionAndKey(x *harness) string {
	var l protocol.ListResult
	x.must(protocol.MethodList, struct{}{}, &l)
	out := ""
	for _, a := range l.Apps {
		out += a.AppID + "@" + a.Version + "=" + a.State + " "
	}
	return out + storageGet(x.launchEntry("app-a", "main"), "k")
}

func lifecycleProbes() map[string]probe {
	return map[string]probe{
		"update-skips-verification": func(t *testing.T, x *harness) string {
			_, err := updatedApp(x, true)
			return fmt.Sprint(err == nil, " ", versionAndKey(x))
		},
		"update-drops-data": func(t *testing.T, x *harness) string {
			if _, err := updatedApp(x, false); err != nil {
				t.Fatal(err)
			}
			return versionAndKey(x)
		},
		"update-disables-others": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-b", "main")
			if _, err := updatedApp(x, false); err != nil {
				t.Fatal(err)
			}
			return versionAndKey(x)
		},
		"rollback-drops-data": func(t *testing.T, x *harness) string {
			if _, err := updatedApp(x, false); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, nil)
			return versionAndKey(x)
		},
		"rollback-keeps-newer": func(t *testing.T, x *harness) string {
			if _, err := updatedApp(x, false); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, nil)
			return versionAndKey(x)
		},
		"storage-shared-namespace": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "k", "a")
			storageSet(x.mount("app-b", "main"), "k", "b")
			return storageGet(x.launchEntry("app-a", "main"), "k")
		},
		"storage-ignores-workspace": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "kept", "in w1")
			x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "t1", WorkspaceID: "w2", UserID: "u1"}, nil)
			return string(x.launchEntry("app-a", "main").invoke("g", "lime.storage", "get", map[string]any{"key": "kept"}).Payload)
		},
		"storage-list-every-app": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "only-a", "a")
			return string(x.mount("app-b", "main").invoke("l", "lime.storage", "list", nil).Payload)
		},
		"disable-still-launches": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "app-a"}, nil)
			return fmt.Sprint(x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "main"}, nil) == nil)
		},
		"disable-drops-data": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "k", "a")
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "app-a"}, nil)
			x.must(protocol.MethodEnable, protocol.AppIDParams{AppID: "app-a"}, nil)
			return storageGet(x.launchEntry("app-a", "main"), "k")
		},
		"enable-stays-disabled": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "app-a"}, nil)
			return appState(x, protocol.MethodEnable, "app-a")
		},
		"disable-affects-all": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.mount("app-b", "main")
			return appState(x, protocol.MethodDisable, "app-a")
		},
		"rollback-keeps-new-entries":  func(t *testing.T, x *harness) string { return rolledBackEntry(x) },
		"update-drops-evidence":       func(t *testing.T, x *harness) string { return evidenceAcrossUpdate(x) },
		"evidence-stamped-current":    func(t *testing.T, x *harness) string { return evidenceAcrossUpdate(x) },
		"export-keeps-data":           func(t *testing.T, x *harness) string { return exported(x) },
		"export-without-storage":      func(t *testing.T, x *harness) string { return exported(x) },
		"export-every-app":            func(t *testing.T, x *harness) string { return exported(x) },
		"no-cleanup-record":           func(t *testing.T, x *harness) string { return cleanupModes(x) },
		"cleanup-record-says-deleted": func(t *testing.T, x *harness) string { return cleanupModes(x) },
		"uninstall-keep-drops-storage": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			s := x.mount("app-a", "main")
			storageSet(s, "k", "a")
			return reinstalled(x, s, "app-a", true, "k")
		},
		"uninstall-delete-keeps-browser-storage": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			s := x.mount("app-a", "main")
			before := s.res.RuntimeOrigin
			reinstalled(x, s, "app-a", false, "k")
			return fmt.Sprint(x.launchEntry("app-a", "main").res.RuntimeOrigin == before)
		},
		"uninstall-delete-keeps-storage": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			s := x.mount("app-a", "main")
			storageSet(s, "k", "a")
			return reinstalled(x, s, "app-a", false, "k")
		},
	}
}

// Disable keeps the package and the data and hides every entry; enable
// brings both back; an unknown app is -32004.
func TestDisableAndEnable(t *testing.T) {
	x := start(t)
	x.configureWith(protocol.ConfigureParams{})
	storageSet(x.mount("app-a", "main"), "k", "a")
	if got := appState(x, protocol.MethodDisable, "app-a"); got != "disabled app-a=disabled" {
		t.Errorf("after app/disable: %s", got)
	}
	err := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "main"}, nil)
	if he, ok := err.(*control.HostError); !ok || he.Code != protocol.CodeNotReady {
		t.Errorf("launch of a disabled app: %v", err)
	}
	if got := appState(x, protocol.MethodEnable, "app-a"); got != "ready app-a=installed" {
		t.Errorf("after app/enable: %s", got)
	}
	if got := storageGet(x.launchEntry("app-a", "main"), "k"); got != `{"key":"k","value":"a"}` {
		t.Errorf("data after enable: %s", got)
	}
	err = x.call(protocol.MethodDisable, protocol.AppIDParams{AppID: "nobody"}, nil)
	if he, ok := err.(*control.HostError); !ok || he.Code != protocol.CodeAppNotFound {
		t.Errorf("app/disable of an unknown app: %v", err)
	}
}

// rewrite changes the file rel of the package in dir.
func rewrite(t testing.TB, dir, rel string, change func(string) string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(change(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// releaseOf is the release a registry would publish for the package in dir.
func releaseOf(t testing.TB, dir string) *protocol.Release {
	t.Helper()
	ph, _, err := agentpkg.HashPackage(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "APP.md"))
	if err != nil {
		t.Fatal(err)
	}
	return &protocol.Release{PackageHash: ph, ManifestHash: agentpkg.HashManifest(md)}
}

// Update keeps the data and the state and makes the older release the
// rollback target; rollback brings it back with the data; a tampered
// update is refused; rollback without an update is invalid params.
func TestUpdateAndRollback(t *testing.T) {
	x := start(t)
	if _, err := updatedApp(x, true); err == nil {
		t.Error("a tampered update was installed")
	}
	if got := versionAndKey(x); got != `app-a@1.0.0=installed {"key":"k","value":"a"}` {
		t.Errorf("after a refused update: %s", got)
	}
	err := x.call(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, nil)
	if he, ok := err.(*control.HostError); !ok || he.Code != jsonrpc2.CodeInvalidParams {
		t.Errorf("rollback with no earlier release: %v", err)
	}
	if _, err := updatedApp(x, false); err != nil {
		t.Fatal(err)
	}
	if got := versionAndKey(x); got != `app-a@1.1.0=installed {"key":"k","value":"a"}` {
		t.Errorf("after update: %s", got)
	}
	var rb protocol.RollbackResult
	x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, &rb)
	if rb.App.Version != "1.0.0" || rb.RolledBackFrom != "1.1.0" {
		t.Errorf("rollback answered %+v", rb)
	}
	if got := versionAndKey(x); got != `app-a@1.0.0=installed {"key":"k","value":"a"}` {
		t.Errorf("after rollback: %s", got)
	}
}

// Export then delete writes what the app stored, and nothing of another
// app, before deleting it; every uninstall leaves a cleanup record with its
// mode; export with keepData is -32602.
func TestExportThenDeleteAndCleanupRecords(t *testing.T) {
	x := start(t)
	if got := exported(x); got != `true app-a.export.json:true false state.json:false false {"key":"k","value":null}` {
		t.Errorf("export then delete: %s", got)
	}
	x = start(t)
	if got := cleanupModes(x); got != "[{app-a 1.0.0 keep-data [package projection]} {app-a 1.0.0 delete-data [package projection storage data]} {app-a 1.0.0 export-then-delete [package projection storage data]}]" {
		t.Errorf("cleanup records: %s", got)
	}
	err := x.call(protocol.MethodUninstall, protocol.UninstallParams{AppID: "app-a", KeepData: true, ExportTo: t.TempDir()}, nil)
	if code(err) != jsonrpc2.CodeInvalidParams || !strings.Contains(err.Error(), "exportTo") {
		t.Errorf("export with keepData: %v", err)
	}
}

// Evidence recorded before an update stays, with the release that made it.
func TestEvidenceKeepsItsReleaseAcrossUpdate(t *testing.T) {
	if got := evidenceAcrossUpdate(start(t)); got != "ev-1@1.0.0 ev-2@1.1.0 " {
		t.Errorf("evidence after update: %s", got)
	}
}

// After a rollback the newer release's extra entry is refused -32602 and
// the older release's entries launch.
func TestRollbackRetiresTheNewerReleasesEntries(t *testing.T) {
	if got := rolledBackEntry(start(t)); got != "true -32602 true" {
		t.Errorf("launch of extra before and after rollback, and of main: %s", got)
	}
}
