//go:build !mutation

package mockhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// installedSurfaceApp installs the surface app from a fresh folder and returns
// the install answer and the folder it came from.
func installedSurfaceApp(x *harness, name string) (protocol.InstalledApp, string) {
	x.t.Helper()
	dir := surfaceApp(x.t, name)
	r, err := x.install(dir, nil, true)
	if err != nil {
		x.t.Fatalf("installing %s: %v", name, err)
	}
	return r.App, dir
}

// tamperedReadiness installs app-a, changes its installed copy with change
// and reports the readiness status by appId and its blockers.
func tamperedReadiness(x *harness, change func(dir string)) string {
	x.t.Helper()
	app, _ := installedSurfaceApp(x, "app-a")
	change(app.InstalledPath)
	r, err := x.readiness(protocol.ReadinessParams{AppID: app.AppID})
	if err != nil {
		x.t.Fatal(err)
	}
	return r.Status + " " + strings.Join(r.Blockers, "; ")
}

// editSameSize changes one byte of rel in dir, keeping its size.
func editSameSize(t testing.TB, dir, rel string) {
	t.Helper()
	rewrite(t, dir, rel, func(s string) string { return strings.Replace(s, "tiny", "tinz", 1) })
}

func installedProbes() map[string]probe {
	return map[string]probe{
		"readiness-trusts-install": func(t *testing.T, x *harness) string {
			return tamperedReadiness(x, func(dir string) { editSameSize(t, dir, "dist/ui/js/app.js") })
		},
		"installed-hash-by-size": func(t *testing.T, x *harness) string {
			return tamperedReadiness(x, func(dir string) { editSameSize(t, dir, "dist/ui/js/app.js") })
		},
		"installed-hash-known-files": func(t *testing.T, x *harness) string {
			return tamperedReadiness(x, func(dir string) {
				if err := os.WriteFile(filepath.Join(dir, "dist/ui/planted.js"), []byte("planted\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			})
		},
	}
}

// The host installs a copy of its own: installedPath lies under its data
// root, not in the folder install was given; links inside the package are
// copied as their targets; what happens to the source folder afterwards
// changes nothing, and launch serves the copy.
func TestInstallKeepsACopyOfItsOwn(t *testing.T) {
	x := start(t)
	dir := surfaceApp(t, "app-a")
	if err := os.Symlink("index.html", filepath.Join(dir, "dist/ui/alias.html")); err != nil {
		t.Fatal(err)
	}
	r, err := x.install(dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	root, err := x.h.dataRoot()
	if err != nil {
		t.Fatal(err)
	}
	installed := r.App.InstalledPath
	if !strings.HasPrefix(installed, root+string(filepath.Separator)) {
		t.Fatalf("installedPath %q is not under the host's data root %s", installed, root)
	}
	if l := x.list(); len(l.Apps) != 1 || l.Apps[0].InstalledPath != installed {
		t.Errorf("app/list row does not name the installed copy %s: %s", installed, raw(l.Apps))
	}
	if fi, err := os.Lstat(filepath.Join(installed, "dist/ui/alias.html")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("a link inside the package is not copied as its target: %v %v", fi, err)
	}
	// The source folder goes: readiness and launch read the copy.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if got, err := x.readiness(protocol.ReadinessParams{AppID: "app-a"}); err != nil || got.Status != protocol.StatusReady {
		t.Errorf("readiness with the source folder gone: %s %v", got.Status, err)
	}
	s := x.launchEntry("app-a", "main")
	if status, body, _ := s.get(s.frame); status != 200 || !strings.Contains(body, "tiny ui") {
		t.Errorf("the frame server does not serve the installed copy: %d %s", status, body)
	}
}

// Readiness blocks an app whose installed copy changed, naming the file
// and the packageHash, and is ready again once the file is restored.
func TestReadinessRehashesTheInstalledCopy(t *testing.T) {
	for _, c := range []struct {
		name, file string
		change     func(t *testing.T, dir string) (restore func())
	}{
		{"edited at the same size", "dist/ui/js/app.js", func(t *testing.T, dir string) func() {
			editSameSize(t, dir, "dist/ui/js/app.js")
			return func() {
				rewrite(t, dir, "dist/ui/js/app.js", func(s string) string { return strings.Replace(s, "tinz", "tiny", 1) })
			}
		}},
		{"added", "dist/ui/planted.js", func(t *testing.T, dir string) func() {
			p := filepath.Join(dir, "dist/ui/planted.js")
			if err := os.WriteFile(p, []byte("planted\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return func() { _ = os.Remove(p) }
		}},
		{"removed", "outside.txt", func(t *testing.T, dir string) func() {
			p := filepath.Join(dir, "outside.txt")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			return func() { _ = os.WriteFile(p, b, 0o644) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := start(t)
			app, _ := installedSurfaceApp(x, "app-a")
			restore := c.change(t, app.InstalledPath)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "app-a"})
			if err != nil {
				t.Fatal(err)
			}
			text := raw(r)
			if r.OK || r.Status != protocol.StatusBlocked || !strings.Contains(text, c.file) || !strings.Contains(text, app.PackageHash) {
				t.Errorf("readiness with %s %s: %s", c.file, c.name, text)
			}
			if err := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "main"}, nil); code(err) != protocol.CodeNotReady {
				t.Errorf("launch with %s %s: %v", c.file, c.name, err)
			}
			restore()
			if r, err := x.readiness(protocol.ReadinessParams{AppID: "app-a"}); err != nil || r.Status != protocol.StatusReady {
				t.Errorf("readiness after restoring %s: %s %v", c.file, raw(r), err)
			}
		})
	}
}

// Uninstall, host/reset and Close remove the installed copies, those of
// earlier releases too.
func TestInstalledCopiesAreRemoved(t *testing.T) {
	x := start(t)
	gone := func(what string, dirs ...string) {
		t.Helper()
		for _, d := range dirs {
			if _, err := os.Stat(d); !os.IsNotExist(err) {
				t.Errorf("%s left the installed copy %s (%v)", what, d, err)
			}
		}
	}
	var older string
	if _, err := updatedAppAfter(x, false, func(*surface) { older = x.list().Apps[0].InstalledPath }); err != nil {
		t.Fatal(err)
	}
	newer := x.list().Apps[0].InstalledPath
	if newer == older {
		t.Fatalf("update kept the older release's copy %s", older)
	}
	x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, nil)
	if got := x.list().Apps[0].InstalledPath; got != older {
		t.Errorf("after rollback app/list names %s, not the older release's copy %s", got, older)
	}
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "app-a"}, nil)
	gone("uninstall", older, newer)

	b, _ := installedSurfaceApp(x, "app-b")
	x.must(protocol.MethodReset, nil, nil)
	gone("host/reset", b.InstalledPath)

	c, _ := installedSurfaceApp(x, "app-c")
	if err := x.h.Close(); err != nil {
		t.Fatal(err)
	}
	gone("Close", c.InstalledPath)
}

// A host that never hashes the installed copy again, or compares sizes,
// or known files only, answers ready where the healthy host blocks.
func TestInstalledHashFaults(t *testing.T) {
	for name, pr := range installedProbes() {
		t.Run(name, func(t *testing.T) {
			healthy, faulty := pr(t, start(t)), pr(t, start(t, name))
			if !strings.HasPrefix(healthy, protocol.StatusBlocked+" ") || !strings.HasPrefix(faulty, protocol.StatusReady) {
				t.Errorf("healthy %q, under %s %q", healthy, name, faulty)
			}
		})
	}
}

// Readiness by path of a package installed from that folder is its
// readiness by appId: disabled once the app is disabled, not ready as a
// package that was never installed.
func TestReadinessByPathOfAnInstalledPackage(t *testing.T) {
	x := start(t)
	dir := pkg(t, "tiny-app", map[string]string{})
	if _, err := x.install(dir, nil, true); err != nil {
		t.Fatal(err)
	}
	x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
	byPath, err := x.readiness(protocol.ReadinessParams{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	byID, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
	if err != nil {
		t.Fatal(err)
	}
	if byPath.Status != protocol.StatusDisabled || byPath.Status != byID.Status {
		t.Errorf("readiness of the disabled app: by path %q, by appId %q; want both %q", byPath.Status, byID.Status, protocol.StatusDisabled)
	}
}
