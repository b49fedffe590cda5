//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// userStateApp materializes user-state-app at version, its sample
// workspace file notes.md saying which release shipped it.
func userStateApp(t *testing.T, version string) string {
	t.Helper()
	dir := fixtureCopy(t, "user-state-app", "version: 1.0.0", "version: "+version)
	if err := os.WriteFile(filepath.Join(dir, "examples", "workspace", "notes.md"), []byte("sample of "+version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// userStateThen installs user-state-app, binds its knowledge template and
// writes two workspace files, updates it to 1.1.0 and reports readiness,
// the binding and both files before and after the update.
func userStateThen(t *testing.T, x *harness) string {
	x.configure(nil, nil, "")
	if _, err := x.install(userStateApp(t, "1.0.0"), nil, true); err != nil {
		t.Fatal(err)
	}
	const app = "user-state-app"
	seen := func() string {
		var r protocol.ReadinessResult
		x.must(protocol.MethodReadiness, protocol.ReadinessParams{AppID: app}, &r)
		var k protocol.KnowledgeResult
		x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: "project_knowledge"}, &k)
		out := r.Status + " pack=" + deref(k.Pack)
		for _, f := range []string{"notes.md", "drafts/mine.md"} {
			var res protocol.FileResult
			x.must(protocol.MethodFile, protocol.FileParams{AppID: app, Path: f}, &res)
			out += " " + f + "=" + strings.TrimSpace(deref(res.Content))
		}
		return out
	}
	before := seen()
	x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: "project_knowledge", Pack: "pack-of-user"}, nil)
	for _, f := range []string{"notes.md", "drafts/mine.md"} {
		content := "user's " + f
		x.must(protocol.MethodFile, protocol.FileParams{AppID: app, Path: f, Content: &content}, nil)
	}
	set := seen()
	x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: app, Path: userStateApp(t, "1.1.0"),
		Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
	return before + " | " + set + " | " + seen()
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}

// TestUserStateSurvivesAnUpdate: the sample workspace seeds what is not
// there, the binding makes the app ready, and the update keeps both.
func TestUserStateSurvivesAnUpdate(t *testing.T) {
	want := "needs-setup pack=<none> notes.md=sample of 1.0.0 drafts/mine.md=<none> | " +
		"ready pack=pack-of-user notes.md=user's notes.md drafts/mine.md=user's drafts/mine.md | " +
		"ready pack=pack-of-user notes.md=user's notes.md drafts/mine.md=user's drafts/mine.md"
	if got := userStateThen(t, start(t)); got != want {
		t.Errorf("before | bound and written | after update:\n got %s\nwant %s", got, want)
	}
	x := start(t)
	x.configure(nil, nil, "")
	if _, err := x.install(userStateApp(t, "1.0.0"), nil, true); err != nil {
		t.Fatal(err)
	}
	if err := x.call(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: "user-state-app", Template: "no_such", Pack: "p"}, nil); code(err) != protocol.CodeInvalidParams {
		t.Errorf("binding a template the app does not declare: %v", err)
	}
	for _, p := range []string{"../escape.md", "/abs.md", `a\b.md`} {
		if err := x.call(protocol.MethodFile, protocol.FileParams{AppID: "user-state-app", Path: p}, nil); code(err) != protocol.CodeInvalidParams {
			t.Errorf("workspace path %q: %v", p, err)
		}
	}
}

// rollbackChain installs tiny-app 1.0.0 (with migration-app's storage),
// updates it to 1.1.0 (a migration making drafts, and a downgrade migration
// dropping it) and to 1.2.0 whose release names target, rolls back and
// reports the version and the tables of the app's namespace.
func rollbackChain(t *testing.T, x *harness, target string) string {
	scripts := map[string]string{"001_notes.sql": notesMigration}
	first := migrationApp(t, scripts)
	if _, err := x.install(first, nil, true); err != nil {
		t.Fatal(err)
	}
	x.must(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
	scripts["002_drafts.sql"] = "CREATE TABLE drafts (id TEXT PRIMARY KEY);\n"
	scripts["down/002_drafts.sql"] = "DROP TABLE drafts;\n"
	updateMigrationApp(t, x, scripts, "1.1.0", "")
	updateMigrationApp(t, x, scripts, "1.2.0", target)
	var rb protocol.RollbackResult
	x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, &rb)
	return fmt.Sprintf("%s %v", rb.App.Version, tablesOfTiny(x))
}

// updateMigrationApp updates tiny-app to migrationApp(scripts) at
// version, its release naming target, approving its migrations.
func updateMigrationApp(t *testing.T, x *harness, scripts map[string]string, version, target string) {
	t.Helper()
	dir := migrationApp(t, scripts)
	md := filepath.Join(dir, "APP.md")
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte(strings.Replace(string(b), "version: 1.0.0", "version: "+version, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := releaseOf(t, dir)
	rel.RollbackTarget = target
	x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: dir, Release: rel,
		Consent: protocol.Consent{Granted: true, By: "user", Migrations: true}}, nil)
}

// tablesOfTiny lists the tables host/observe shows of tiny-app.
func tablesOfTiny(x *harness) []string {
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
	var tables []string
	for _, ns := range o.Storage {
		tables = append(tables, ns.Tables...)
	}
	return tables
}

// rollbackExport installs tiny-app 1.0.0 (with migration-app's storage),
// updates it to 1.1.0 (a migration making drafts with one row, and a
// downgrade migration dropping it), rolls back with downMigrations and
// exportTo, and reports whether the export holds the row, how many files
// it lists, and the tables after it (or the refusal).
func rollbackExport(t *testing.T, x *harness) string {
	scripts := map[string]string{"001_notes.sql": notesMigration}
	if _, err := x.install(migrationApp(t, scripts), nil, true); err != nil {
		t.Fatal(err)
	}
	x.must(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
	scripts["002_drafts.sql"] = "CREATE TABLE drafts (id TEXT PRIMARY KEY, body TEXT);\nINSERT INTO drafts VALUES ('d1', 'kept-' || 'draft');\n"
	scripts["down/002_drafts.sql"] = "DROP TABLE drafts;\n"
	updateMigrationApp(t, x, scripts, "1.1.0", "")
	var rb protocol.RollbackResult
	if err := x.call(protocol.MethodRollback, protocol.RollbackParams{AppID: "tiny-app", DownMigrations: true, ExportTo: t.TempDir()}, &rb); err != nil {
		return fmt.Sprintf("%v, tables %v", err, tablesOfTiny(x)) // the rollback-never-downgrades variant
	}
	var export strings.Builder
	for _, f := range rb.Exported {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		export.Write(b)
	}
	return fmt.Sprintf("%d files, row exported %v, tables %v", len(rb.Exported), strings.Contains(export.String(), "kept-draft"), tablesOfTiny(x))
}

func TestRollbackGoesToTheNamedTargetAndRunsNoDowngrade(t *testing.T) {
	for target, want := range map[string]string{"": "1.1.0 [drafts notes]", "1.0.0": "1.0.0 [drafts notes]", "1.1.0": "1.1.0 [drafts notes]"} {
		if got := rollbackChain(t, start(t), target); got != want {
			t.Errorf("rollback from 1.2.0 naming %q: %s, want %s", target, got, want)
		}
	}
}

func upgradeProbes() map[string]probe {
	return map[string]probe{
		"update-resets-knowledge-bindings":  userStateThen,
		"update-overwrites-workspace-files": userStateThen,
		"update-replaces-workspace":         userStateThen,
		"rollback-to-first-release":         func(t *testing.T, x *harness) string { return rollbackChain(t, x, "1.1.0") },
		"rollback-ignores-target":           func(t *testing.T, x *harness) string { return rollbackChain(t, x, "1.0.0") },
		"rollback-runs-down-migrations":     func(t *testing.T, x *harness) string { return rollbackChain(t, x, "") },
		"rollback-export-after-down":        rollbackExport,
		// app/rollback with exportTo and no downMigrations
		"rollback-export-without-down-ignored": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			x.must(protocol.MethodUpdate, map[string]any{"appId": "tiny-app", "path": pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)}), "consent": map[string]any{"granted": true, "by": "user"}}, nil)
			err := x.call(protocol.MethodRollback, protocol.RollbackParams{AppID: "tiny-app", ExportTo: t.TempDir()}, nil)
			return fmt.Sprintf("%v, version %s", err, x.list().Apps[0].Version)
		},
		"rollback-export-ignored": rollbackExport,
	}
}
