//go:build !mutation

package mockhost

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// BenchmarkLifecycleRound measures one whole lifecycle round of an app over
// the control protocol (install, a lime.storage write through its launched
// surface, disable, enable, update, rollback, uninstall with export then
// delete) with 1, 10 and 100 apps installed.
func BenchmarkLifecycleRound(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("apps=%d", n), func(b *testing.B) {
			x := withOtherApps(b, n-1)
			v1 := surfaceApp(b, "app-a")
			v2 := surfaceApp(b, "app-a")
			rewrite(b, v2, "APP.md", func(s string) string { return strings.Replace(s, "version: 1.0.0", "version: 1.1.0", 1) })
			rel1, rel2 := releaseOf(b, v1), releaseOf(b, v2)
			exports := b.TempDir()
			round := 0
			for b.Loop() {
				round++
				if _, err := x.install(v1, rel1, true); err != nil {
					b.Fatal(err)
				}
				storageSet(x.launchEntry("app-a", "main"), "k", "v")
				x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "app-a"}, nil)
				x.must(protocol.MethodEnable, protocol.AppIDParams{AppID: "app-a"}, nil)
				x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "app-a", Path: v2, Release: rel2,
					Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
				x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "app-a"}, nil)
				x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "app-a",
					ExportTo: filepath.Join(exports, fmt.Sprint(round))}, nil)
			}
		})
	}
}

// BenchmarkMigrationRound measures an app's storage migrations through the
// control protocol: install without approving them, readiness (waiting),
// app/migrate (two migrations into the app's own SQLite file), readiness
// (ready), host/observe (states, tables, the core-state digest) and
// uninstall deleting data, with 1, 10 and 100 apps installed.
func BenchmarkMigrationRound(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("apps=%d", n), func(b *testing.B) {
			x := withOtherApps(b, n-1)
			dir := migrationApp(b, map[string]string{"001_notes.sql": notesMigration, "002_tags.sql": "ALTER TABLE notes ADD COLUMN tags TEXT;\n"})
			for b.Loop() {
				if _, err := x.install(dir, nil, true); err != nil {
					b.Fatal(err)
				}
				if got := observed(x); !strings.HasPrefix(got, "needs-setup") {
					b.Fatalf("before app/migrate: %s", got)
				}
				x.must(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true}}, nil)
				if got := observed(x); !strings.HasPrefix(got, "ready") {
					b.Fatalf("after app/migrate: %s", got)
				}
				x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			}
		})
	}
}

// withOtherApps is a host with n other apps installed.
func withOtherApps(b *testing.B, n int) *harness {
	x := start(b)
	x.configureWith(protocol.ConfigureParams{})
	for i := 1; i <= n; i++ {
		if _, err := x.install(surfaceApp(b, fmt.Sprintf("other-%03d", i)), nil, true); err != nil {
			b.Fatal(err)
		}
	}
	return x
}
