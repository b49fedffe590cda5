package migrations

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// reachFile is the migration the data boundary specs plant: it first makes
// reachTable, then, in its hostile form, reaches outside the app's database.
const (
	reachFile  = "003_reach.sql"
	reachName  = "003_reach"
	reachTable = "reach_marker"
)

// updateWithoutApproving updates appID to the package in dir (a newer
// release) without approving its new migrations, as a precondition.
func updateWithoutApproving(tc *harness.TestContext, appID, dir string) {
	GinkgoHelper()
	tc.RequireMethod(protocol.MethodUpdate)
	tc.Precondition("app/update takes "+appID+" to its newer release without approving its new migration", func() {
		var res protocol.UpdateResult
		if err := tc.Call(protocol.MethodUpdate, protocol.UpdateParams{AppID: appID, Path: dir, Release: tc.ReleaseOf(dir),
			Consent: protocol.Consent{Granted: true, By: "user"}}, &res); err != nil {
			tc.FailCall(protocol.MethodUpdate, err)
		}
	})
}

// storageSeen is what host/observe shows of appID's storage: the state of
// each migration by file name, the tables of its namespace, and the digest
// of the host's core state. A host that shows none of it leaves nothing to
// judge: the spec is blocked.
type storageSeen struct {
	migrations map[string]string
	tables     []string
	digest     string
}

func storageOf(tc *harness.TestContext, appID string) storageSeen {
	GinkgoHelper()
	o := tc.Observe(appID)
	s := storageSeen{migrations: map[string]string{}}
	for _, m := range o.Migrations {
		if m.AppID == appID || m.AppID == "" {
			s.migrations[strings.TrimSuffix(filepath.Base(m.Name), ".sql")] = m.State
		}
	}
	for _, ns := range o.Storage {
		if ns.AppID == appID {
			s.tables = append(s.tables, ns.Tables...)
		}
	}
	if o.HostState != nil {
		s.digest = o.HostState.Digest
	}
	return s
}

// requireStorageSeen blocks the spec unless host/observe reports the app's
// migrations (and, with digest, the host state digest): what the data
// boundary specs judge by.
func requireStorageSeen(tc *harness.TestContext, appID string, digest bool) storageSeen {
	GinkgoHelper()
	s := storageOf(tc, appID)
	if len(s.migrations) == 0 {
		tc.Blockedf("host/observe of %s reports no storage migrations (observe.migrations), which this check needs", appID)
	}
	if digest && s.digest == "" {
		tc.Blockedf("host/observe reports no digest of the host's core state (observe.hostState), which this check needs")
	}
	return s
}

// namesMigration reports whether a readiness answer names one of the
// migrations given in a failing check, a blocker or an entry's blocker.
func namesMigration(r protocol.ReadinessResult, names ...string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return harness.NamesFailingCheck(r, n) })
}

// reachVariant is a hostile form of reachFile: after creating reachTable it
// does stmt, which reaches outside the app's own database.
type reachVariant struct {
	stmt string
	// confinable is true when the statement may run inside the app's own
	// namespace (it only names host tables); otherwise it must be refused.
	confinable bool
}

// hostTables names the tables a host core database typically has.
const hostTables = "DROP TABLE IF EXISTS apps; CREATE TABLE IF NOT EXISTS apps (app_id TEXT); DELETE FROM apps;\n" +
	"CREATE TABLE IF NOT EXISTS migrations (name TEXT); DELETE FROM migrations;\n" +
	"CREATE TABLE IF NOT EXISTS installed_apps (app_id TEXT); DELETE FROM installed_apps;\n"

// describeMigrations checks storage migrations: readiness waits for them,
// they run only after approval, and never outside the app's namespace.
func describeMigrations(tc *harness.TestContext) {
	Describe("Storage migrations", func() {
		// Both entry points of app/readiness: by appId, and by the path of
		// the package installed, which is judged as it is by appId
		// (docs/host-control-protocol.md, app/readiness).
		It("keeps an installed app whose storage migrations wait for approval from ready, asked by appId and by its package's path, naming them; approved, it is ready", tc.Req("READY-MIGRATIONS", levels.ChangeBetweenReads, levels.EveryEntryPoint), func() {
			tc.Precondition("installed with its migrations approved, the app is ready", func() {
				tc.ReadyWithMigrations(tc.InstallMigrating(tc.MigrationApp(harness.Nonce("control"), nil), true))
			})
			dir := tc.MigrationApp(harness.Nonce("migrating"), nil)
			app := tc.InstallMigrating(dir, false)
			for _, ask := range []struct {
				how    string
				params protocol.ReadinessParams
			}{
				{"by appId " + app, protocol.ReadinessParams{AppID: app}},
				{"by the path of its installed package", protocol.ReadinessParams{Path: dir}},
			} {
				r, raw := tc.ReadinessOf(ask.params)
				if !slices.Contains(harness.NotReady(), r.Status) {
					tc.Failf("app/readiness %s is %q while the app's storage migrations wait for the user's approval", ask.how, r.Status)
				}
				if !namesMigration(r, "001_notes", "002_note_tags") {
					tc.Failf("app/readiness %s is %q but names neither waiting migration (001_notes, 002_note_tags) in a failing check: %s", ask.how, r.Status, harness.Excerpt(raw))
				}
			}
			tc.Migrated(app)
			if r := tc.AppReadiness(app); r.Status != protocol.StatusReady {
				tc.Failf("app/readiness of %s is %q after its migrations were approved and applied, not ready", app, r.Status)
			}
		})

		// A migration that fails is neither complete nor waiting for
		// approval: the app is not ready, however the host recorded the
		// attempt.
		It("keeps an app whose approved storage migration failed from ready", tc.Req("READY-MIGRATIONS", levels.EveryTransition), func() {
			dir := tc.MigrationApp(harness.Nonce("failing"), map[string]string{"003_broken.sql": "INSERT INTO no_such_table_of_the_app VALUES (1);\n"})
			app := tc.InstallMigrating(dir, false)
			if _, err := tc.Migrate(app, true); err == nil {
				tc.Blockedf("app/migrate of %s succeeded although its migration 003_broken inserts into a table no migration made: the failure to judge never came", app)
			}
			if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app}); harness.IsLaunchable(r.Status) {
				tc.Failf("app/readiness of %s is %q after app/migrate failed on its migration 003_broken: a failed migration is neither complete nor waiting for approval: %s", app, r.Status, harness.Excerpt(raw))
			}
		})

		It("keeps an updated app from ready while the migration its newer release brings waits for approval", tc.Req("READY-MIGRATIONS", levels.EveryTransition, levels.ChangeBetweenReads), func() {
			name := harness.Nonce("migrating")
			app := tc.InstallMigrating(tc.MigrationApp(name, nil), true)
			tc.ReadyWithMigrations(app)
			newer := tc.MigrationApp(name, map[string]string{"004_more.sql": "CREATE TABLE more_notes (id TEXT PRIMARY KEY);\n"})
			harness.SetField(newer, "version", "1.1.0")
			updateWithoutApproving(tc, app, newer)
			r := tc.AppReadiness(app)
			if !slices.Contains(harness.NotReady(), r.Status) || !namesMigration(r, "004_more") {
				tc.Failf("after an update whose migration 004_more waits for approval, app/readiness of %s is %q and names it: %v", app, r.Status, namesMigration(r, "004_more"))
			}
			tc.Migrated(app)
			if r := tc.AppReadiness(app); r.Status != protocol.StatusReady {
				tc.Failf("app/readiness of %s is %q after 004_more was approved and applied, not ready", app, r.Status)
			}
		})

		It("runs an app's storage migrations only after the user approved them", tc.Req("MIGRATIONS-AFTER-CONSENT", levels.EveryEntryPoint), func() {
			tc.Precondition("approved through app/migrate, the migrations show as applied and their table is in the app's namespace", func() {
				app := tc.InstallMigrating(tc.MigrationApp(harness.Nonce("control"), nil), false)
				tc.Migrated(app)
				s := requireStorageSeen(tc, app, false)
				if s.migrations["001_notes"] != protocol.MigrationApplied || !slices.Contains(s.tables, "notes") {
					tc.Blockedf("host/observe of %s shows migrations %v and tables %v after app/migrate", app, s.migrations, s.tables)
				}
			})
			app := tc.InstallMigrating(tc.MigrationApp(harness.Nonce("migrating"), nil), false)
			expectNotRun := func(after string) {
				GinkgoHelper()
				s := requireStorageSeen(tc, app, false)
				for m, state := range s.migrations {
					if state == protocol.MigrationApplied {
						tc.Failf("host/observe shows migration %s of %s applied after %s, which did not approve it", m, app, after)
					}
				}
				if slices.Contains(s.tables, "notes") {
					tc.Failf("the namespace of %s holds the table notes, which only its migration makes, after %s, which did not approve it", app, after)
				}
			}
			expectNotRun("an install without consent.migrations")
			_, err := tc.Migrate(app, false)
			if code, ok := tc.HostErrorCode(protocol.MethodMigrate, err); !ok || code != protocol.CodeConsentRequired {
				tc.Failf("app/migrate of %s without the user's approval was not refused with -32003 (consent required): %v", app, err)
			}
			expectNotRun("app/migrate without consent")
		})

		// app/migrate answers the migrations it applied, by file name, in
		// order, and none when none was pending
		// (docs/host-control-protocol.md, app/migrate).
		It("answers app/migrate with the migrations it applied, and with none when none was pending", tc.Req("MIGRATIONS-AFTER-CONSENT", levels.WhoAnswers), func() {
			app := tc.InstallMigrating(tc.MigrationApp(harness.Nonce("migrating"), nil), false)
			first, err := tc.Migrate(app, true)
			if err != nil {
				tc.FailCall(protocol.MethodMigrate, err)
			}
			var names []string
			for _, f := range first.Applied {
				names = append(names, strings.TrimSuffix(f, ".sql"))
			}
			if want := []string{"001_notes", "002_note_tags"}; !slices.Equal(names, want) {
				tc.Failf("app/migrate of %s, whose migrations 001_notes.sql and 002_note_tags.sql waited for approval, answered applied %v", app, first.Applied)
			}
			again, err := tc.Migrate(app, true)
			if err != nil {
				tc.Failf("app/migrate of %s with nothing pending answered %s, not ok with applied empty", app, harness.AnswerOf(err))
			}
			if len(again.Applied) > 0 {
				tc.Failf("app/migrate of %s with nothing pending answered applied %v: it applied none of them", app, again.Applied)
			}
		})

		It("shows the risk each irreversible migration of an update declares before it is approved", tc.Req("MIGRATION-IRREVERSIBLE-RISK", levels.EveryMember), func() {
			name := harness.Nonce("migrating")
			app := tc.InstallMigrating(tc.MigrationApp(name, nil), true)
			tc.ReadyWithMigrations(app)
			// Two irreversible migrations, each with its own risk: a host
			// that shows only the first leaves the second unsaid.
			risks := map[string]string{
				"004_drop_index.sql": "deletes the old notes index for good " + harness.Nonce("risk"),
				"005_drop_tags.sql":  "drops the old note tags for good " + harness.Nonce("risk"),
			}
			newer := tc.MigrationApp(name, map[string]string{"004_drop_index.sql": "DROP INDEX notes_body;\n", "005_drop_tags.sql": "DROP TABLE IF EXISTS old_note_tags;\n"})
			harness.SetField(newer, "version", "1.1.0")
			withIrreversible(newer, risks)
			// The review is one of two places the risk may show: an
			// unusable review answer is judged only if readiness does not
			// show it either.
			var review json.RawMessage
			var reviewErr error
			if slices.Contains(tc.Host().Hello().Methods, protocol.MethodReview) {
				reviewErr = tc.Call(protocol.MethodReview, protocol.ReviewParams{Path: newer, Release: tc.ReleaseOf(newer)}, &review)
			}
			updateWithoutApproving(tc, app, newer)
			var readiness json.RawMessage
			tc.MustCall(protocol.MethodReadiness, protocol.ReadinessParams{AppID: app}, &readiness)
			for _, file := range slices.Sorted(maps.Keys(risks)) {
				risk := risks[file]
				if !strings.Contains(string(review), risk) && !strings.Contains(string(readiness), risk) {
					if reviewErr != nil {
						tc.Errorf("the risk %q that 1.1.0 declares for %s is not in app/readiness of %s, and app/review of the release gave no answer to look in (%v)", risk, file, app, reviewErr)
					}
					tc.Failf("the risk %q that 1.1.0 declares for its irreversible migration %s is shown neither in app/review of the release nor in app/readiness of %s while it waits: %s", risk, file, app, readiness)
				}
			}
		})

		It("keeps what an app's migrations made across uninstall keeping data, and leaves none of it, nor their record, after uninstall deleting data", tc.Req("UNINSTALL-APP-DATABASE", levels.EveryTransition, levels.EveryMember), func() {
			dir := tc.MigrationApp(harness.Nonce("migrating"), nil)
			app := tc.InstallMigrating(dir, true)
			tc.Precondition("installed with its migrations approved, the app's namespace holds their table notes", func() {
				if s := requireStorageSeen(tc, app, false); !slices.Contains(s.tables, "notes") {
					tc.Migrated(app)
				}
				if s := requireStorageSeen(tc, app, false); !slices.Contains(s.tables, "notes") || s.migrations["001_notes"] != protocol.MigrationApplied {
					tc.Blockedf("host/observe of %s shows migrations %v and tables %v after they were approved", app, s.migrations, s.tables)
				}
			})
			tc.Uninstall(app, true)
			tc.InstallMigrating(dir, false)
			if s := requireStorageSeen(tc, app, false); !slices.Contains(s.tables, "notes") {
				tc.Failf("after uninstall keeping data and a reinstall, the namespace of %s has no table notes, which its migration made before (tables %v)", app, s.tables)
			}
			tc.Uninstall(app, false)
			tc.InstallMigrating(dir, false)
			s := requireStorageSeen(tc, app, false)
			if slices.Contains(s.tables, "notes") {
				tc.Failf("after uninstall deleting data and a reinstall, the namespace of %s still holds the table notes of the old install", app)
			}
			for m, state := range s.migrations {
				if state == protocol.MigrationApplied {
					tc.Failf("after uninstall deleting data and a reinstall that did not approve them, host/observe shows migration %s of %s applied: the record of the old install outlived its data", m, app)
				}
			}
		})

		DescribeTable("refuses a migration that reaches outside the app's database before any of it runs, and the host's core state stays as it was",
			func(v reachVariant) {
				other := tc.InstallMigrating(tc.MigrationApp(harness.Nonce("neighbour"), nil), true)
				otherRow, _ := tc.ListedApp(other)
				if s := requireStorageSeen(tc, other, true); s.migrations["001_notes"] == protocol.MigrationApplied && !slices.Contains(s.tables, "notes") {
					tc.Failf("host/observe shows migration 001_notes of %s applied, but its namespace has no table notes (it has %v): the migration ran outside the app's namespace", other, s.tables)
				}
				control := tc.InstallMigrating(tc.MigrationApp(harness.Nonce("control"), map[string]string{reachFile: "CREATE TABLE " + reachTable + " (x TEXT);\n"}), false)
				var seen storageSeen
				tc.Precondition("the same migration without its reaching statement is applied", func() {
					tc.Migrated(control)
					if seen = requireStorageSeen(tc, control, true); seen.migrations[reachName] != protocol.MigrationApplied {
						tc.Blockedf("host/observe shows %s of %s as %q after app/migrate", reachFile, control, seen.migrations[reachName])
					}
				})
				if !slices.Contains(seen.tables, reachTable) {
					tc.Failf("app/migrate applied %s, but the namespace of %s has no table %s (it has %v): the migration ran outside the app's namespace", reachFile, control, reachTable, seen.tables)
				}
				scratch := tc.Scratch()
				stmt := strings.ReplaceAll(v.stmt, "SCRATCH", scratch)
				app := tc.InstallMigrating(tc.MigrationApp(harness.Nonce("reaching"), map[string]string{reachFile: "CREATE TABLE " + reachTable + " (x TEXT);\n" + stmt}), false)
				before := requireStorageSeen(tc, app, true)
				_, err := tc.Migrate(app, true)
				after := requireStorageSeen(tc, app, true)
				he, refused := harness.HostError(err)
				switch {
				case err != nil && !refused:
					tc.Errorf("no usable answer to app/migrate: %v", err)
				case refused && (he.Code != protocol.CodeMigrationRefused || !strings.Contains(harness.HostErrorText(he), reachName)):
					tc.Failf("app/migrate of %s was answered %s, not -32010 (migration refused) naming %s", app, harness.HostErrorText(he), reachFile)
				case refused:
					if slices.Contains(after.tables, reachTable) || after.migrations[reachName] == protocol.MigrationApplied {
						tc.Failf("app/migrate refused %s, but its first statement ran: host/observe shows it %q and tables %v", reachFile, after.migrations[reachName], after.tables)
					}
					if before.digest != after.digest {
						tc.Failf("the host's core state changed (%s -> %s) across a refused migration of %s", before.digest, after.digest, app)
					}
				case !v.confinable:
					tc.Failf("app/migrate of %s ran %s, which does %q: it reaches outside the app's own database and must be refused", app, reachFile, strings.TrimSpace(v.stmt))
				case !slices.Contains(after.tables, reachTable):
					tc.Failf("app/migrate applied %s, which names host tables, but its table %s is not in the namespace of %s (%v): it ran elsewhere", reachFile, reachTable, app, after.tables)
				}
				if strings.Contains(v.stmt, "SCRATCH") {
					if _, err := os.Stat(filepath.Join(scratch, "reach-copy.sqlite")); err == nil {
						tc.Failf("the migration of %s wrote a copy of its database outside the app's storage", app)
					}
				}
				// The host keeps working: the neighbour is as it was, and
				// another package still installs.
				if row, listed := tc.ListedApp(other); !listed || row.State != otherRow.State || row.PackageHash != otherRow.PackageHash {
					tc.Failf("after the migration of %s, app/list shows the neighbour %s as %+v (listed %v), not as before: %+v", app, other, row, listed, otherRow)
				}
				if r := tc.AppReadiness(other); r.Status != protocol.StatusReady {
					tc.Failf("after the migration of %s, the neighbour %s is %q, not ready", app, other, r.Status)
				}
				if _, err := tc.TryInstall(tc.Fixture("minimal-app"), nil, true); err != nil {
					tc.Failf("after the migration of %s, installing minimal-app fails: %v", app, err)
				}
			},
			Entry("ATTACH DATABASE", tc.Req("MIGRATION-NO-HOST-WRITE", levels.EveryMember), reachVariant{stmt: "ATTACH DATABASE ':memory:' AS host;\n"}),
			Entry("a PRAGMA", tc.Req("MIGRATION-NO-HOST-WRITE", levels.EveryMember), reachVariant{stmt: "PRAGMA writable_schema = ON;\n"}),
			Entry("VACUUM INTO a file", tc.Req("MIGRATION-NO-HOST-WRITE", levels.EveryMember), reachVariant{stmt: "VACUUM INTO 'SCRATCH/reach-copy.sqlite';\n"}),
			Entry("load_extension", tc.Req("MIGRATION-NO-HOST-WRITE", levels.EveryMember), reachVariant{stmt: "SELECT load_extension('reach');\n"}),
			Entry("host table names", tc.Req("MIGRATION-NO-HOST-WRITE", levels.EveryMember), reachVariant{stmt: hostTables, confinable: true}),
		)
	})
}

// withIrreversible declares, in the release notes of the package in dir
// (lifecycle.upgrade.migrations), that each migration file of risks is
// irreversible with its risk.
func withIrreversible(dir string, risks map[string]string) {
	GinkgoHelper()
	harness.EditFrontmatter(dir, func(lines []string) []string {
		lines = append(lines, "lifecycle:", "  upgrade:", "    migrations:")
		for _, file := range slices.Sorted(maps.Keys(risks)) {
			lines = append(lines, `      - from: "1.0.x"`, `        to: "1.1.0"`,
				"        storage: ./storage/migrations/"+file, "        reversible: false", "        risk: "+risks[file])
		}
		return lines
	})
}
