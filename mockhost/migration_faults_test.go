//go:build !mutation

package mockhost

import (
	"fmt"
	"slices"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// migrationApp is tiny-app with a storage namespace and the migration
// scripts given, by file name.
func migrationApp(t testing.TB, scripts map[string]string) string {
	files := map[string]string{"APP.md": manifest(withDefaults("storage:\n  namespace: tiny-app\n  migrations: ./storage/migrations\n"))}
	for name, sql := range scripts {
		files["storage/migrations/"+name] = sql
	}
	return pkg(t, "tiny-app", files)
}

// hostTablesMigration names the host database's tables: harmless in the
// app's own database.
const hostTablesMigration = "DROP TABLE IF EXISTS apps; CREATE TABLE apps (x); CREATE TABLE IF NOT EXISTS migrations (x TEXT); DELETE FROM migrations;\n"

const notesMigration = "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);\n"

// migrationState installs a migration app without approving its
// migrations and reports readiness, then approves them (with consent
// granted or not) and reports readiness, the observed migration states and
// tables again.
func migrationState(x *harness, granted bool) string {
	dir := migrationApp(x.t, map[string]string{"001_notes.sql": notesMigration})
	if _, err := x.install(dir, nil, true); err != nil {
		x.t.Fatal(err)
	}
	out := observed(x)
	err := x.call(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: granted}}, nil)
	return out + fmt.Sprintf(" migrate=%d ", code(err)) + observed(x)
}

// observed is the app's readiness status, migration states, tables and
// the host state digest's presence.
func observed(x *harness) string {
	r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
	if err != nil {
		x.t.Fatal(err)
	}
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
	out := r.Status
	for _, m := range o.Migrations {
		out += " " + m.Name + "=" + m.State
	}
	for _, s := range o.Storage {
		out += fmt.Sprintf(" %s %v", s.Namespace, s.Tables)
	}
	return out
}

// hostileMigration installs a migration app whose migration starts with a
// harmless table and then does stmt, approves it, and reports the answer,
// the tables of the app's namespace and whether the host state changed.
func hostileMigration(x *harness, stmt string) string {
	dir := migrationApp(x.t, map[string]string{"001_hostile.sql": notesMigration + stmt})
	if _, err := x.install(dir, nil, true); err != nil {
		x.t.Fatal(err)
	}
	var before, after protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &before)
	err := x.call(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true}}, nil)
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &after)
	var tables []string
	for _, s := range after.Storage {
		tables = append(tables, s.Tables...)
	}
	return fmt.Sprintf("code=%d tables=%v hostChanged=%v", code(err), tables, before.HostState.Digest != after.HostState.Digest)
}

// reinstalledMigrations installs a migration app with its migrations
// approved, uninstalls it keeping data or not, installs it again without
// approving them and reports what host/observe shows.
func reinstalledMigrations(x *harness, keep bool) string {
	dir := migrationApp(x.t, map[string]string{"001_notes.sql": notesMigration})
	x.must(protocol.MethodInstall, protocol.InstallParams{Path: dir, Consent: protocol.Consent{Granted: true, Migrations: true}}, nil)
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: keep}, nil)
	if _, err := x.install(dir, nil, true); err != nil {
		x.t.Fatal(err)
	}
	return observed(x)
}

func migrationProbes() map[string]probe {
	return map[string]probe{
		"readiness-by-path-ignores-install": func(t *testing.T, x *harness) string {
			dir := migrationApp(t, map[string]string{"001_notes.sql": notesMigration})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			r, err := x.readiness(protocol.ReadinessParams{Path: dir})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		"uninstall-keep-drops-database": func(t *testing.T, x *harness) string { return reinstalledMigrations(x, true) },
		"uninstall-delete-keeps-ledger": func(t *testing.T, x *harness) string { return reinstalledMigrations(x, false) },
		"irreversible-risk-hidden": func(t *testing.T, x *harness) string {
			dir := pkg(t, "tiny-app", map[string]string{
				"APP.md": manifest(withDefaults("storage:\n  namespace: tiny-app\n  migrations: ./storage/migrations\n" +
					"lifecycle:\n  upgrade:\n    migrations:\n      - storage: ./storage/migrations/001_notes.sql\n        reversible: false\n        risk: drops the old index\n")),
				"storage/migrations/001_notes.sql": notesMigration,
			})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(r.Warnings)
		},
		"migrate-first-pending-only": func(t *testing.T, x *harness) string {
			dir := migrationApp(x.t, map[string]string{"001_notes.sql": notesMigration, "002_more.sql": "CREATE TABLE more_notes (id INTEGER);\n"})
			if _, err := x.install(dir, nil, true); err != nil {
				x.t.Fatal(err)
			}
			x.must(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true}}, nil)
			return observed(x)
		},
		"readiness-ignores-migrations": func(t *testing.T, x *harness) string { return migrationState(x, true) },
		"migrations-without-consent":   func(t *testing.T, x *harness) string { return migrationState(x, true) },
		"migrate-ignores-consent":      func(t *testing.T, x *harness) string { return migrationState(x, false) },
		"migrations-unvetted": func(t *testing.T, x *harness) string {
			return hostileMigration(x, "PRAGMA writable_schema = ON;\n")
		},
		"migrations-in-host-db": func(t *testing.T, x *harness) string {
			return hostileMigration(x, hostTablesMigration)
		},
		"migration-partial": func(t *testing.T, x *harness) string {
			return hostileMigration(x, "ATTACH DATABASE ':memory:' AS host;\n")
		},
	}
}

// TestMigrationsWaitForApprovalAndStayInTheirNamespace walks the healthy
// path: pending after install, needs-setup, applied by app/migrate with
// consent, ready; a hostile migration is refused with nothing run.
func TestMigrationsWaitForApprovalAndStayInTheirNamespace(t *testing.T) {
	x := start(t)
	if got, want := migrationState(x, true), "needs-setup 001_notes.sql=pending tiny-app [] migrate=0 ready 001_notes.sql=applied tiny-app [notes]"; got != want {
		t.Errorf("approval path:\n got %s\nwant %s", got, want)
	}
	for _, stmt := range []string{"ATTACH DATABASE ':memory:' AS host;", "PRAGMA writable_schema = ON;", "VACUUM INTO 'copy.sqlite';",
		"SELECT load_extension('x');", "detach host;"} {
		x.must(protocol.MethodReset, nil, nil)
		if got, want := hostileMigration(x, stmt), fmt.Sprintf("code=%d tables=[] hostChanged=false", protocol.CodeMigrationRefused); got != want {
			t.Errorf("%s:\n got %s\nwant %s", stmt, got, want)
		}
	}
	x.must(protocol.MethodReset, nil, nil)
	if got, want := hostileMigration(x, hostTablesMigration), "code=0 tables=[apps migrations notes] hostChanged=true"; got != want {
		// hostChanged: the host's ledger records the applied migration.
		t.Errorf("host table names:\n got %s\nwant %s", got, want)
	}
	r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
	if err != nil || r.Status != protocol.StatusReady {
		t.Errorf("after a confined migration readiness is %s (%v)", r.Status, err)
	}
	if l := x.list(); len(l.Apps) != 1 || l.Apps[0].AppID != "tiny-app" {
		t.Errorf("a migration naming host tables changed app/list: %s", raw(l))
	}
}

// TestInstallWithApprovedMigrationsRunsThem: consent.migrations at install
// applies them; a refused one takes the install back.
func TestInstallWithApprovedMigrationsRunsThem(t *testing.T) {
	x := start(t)
	dir := migrationApp(t, map[string]string{"001_notes.sql": notesMigration, "002_more.sql": "ALTER TABLE notes ADD COLUMN tags TEXT;"})
	var r protocol.InstallResult
	x.must(protocol.MethodInstall, protocol.InstallParams{Path: dir, Consent: protocol.Consent{Granted: true, Migrations: true}}, &r)
	if got := observed(x); got != "ready 001_notes.sql=applied 002_more.sql=applied tiny-app [notes]" {
		t.Errorf("after install with approved migrations: %s", got)
	}
	x.must(protocol.MethodReset, nil, nil)
	bad := migrationApp(t, map[string]string{"001_notes.sql": notesMigration, "002_bad.sql": "ATTACH ':memory:' AS h;"})
	err := x.call(protocol.MethodInstall, protocol.InstallParams{Path: bad, Consent: protocol.Consent{Granted: true, Migrations: true}}, nil)
	if code(err) != protocol.CodeMigrationRefused {
		t.Errorf("install with a hostile approved migration: %v", err)
	}
	if l := x.list(); len(l.Apps) != 0 {
		t.Errorf("a refused install stayed installed: %s", raw(l))
	}
}

func TestSplitStatementsSkipsStringsAndComments(t *testing.T) {
	got := splitStatements("-- a; comment\nCREATE TABLE t (x TEXT DEFAULT ';');\n/* ; */ INSERT INTO \"at;tach\" VALUES ('attach');;\n")
	want := []string{"-- a; comment\nCREATE TABLE t (x TEXT DEFAULT ';')", "/* ; */ INSERT INTO \"at;tach\" VALUES ('attach')"}
	if !slices.Equal(got, want) {
		t.Errorf("splitStatements = %q, want %q", got, want)
	}
	for stmt, word := range map[string]string{
		"INSERT INTO t VALUES ('ATTACH')": "", `SELECT "pragma" FROM t`: "", "-- pragma\nSELECT 1": "",
		"attach ':memory:' as x": "ATTACH", "Pragma foo": "PRAGMA", "SELECT load_extension('x')": "LOAD_EXTENSION", "vacuum": "VACUUM",
	} {
		if got := forbiddenWord(stmt); got != word {
			t.Errorf("forbiddenWord(%q) = %q, want %q", stmt, got, word)
		}
	}
}
