package data

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// userStateFixture has a required knowledge template (knowledgeTemplate)
// and a sample workspace file (sampleFile) its release ships.
const (
	userStateFixture  = harness.UserStateFixture
	knowledgeTemplate = harness.KnowledgeTemplate
	sampleFile        = "notes.md"
)

// newerUserState is user-state-app's next release: its own knowledge
// template file and its own sample of sampleFile, under the same names
// (spec 003: "Official package defaults can change").
func newerUserState(tc *harness.TestContext) string {
	GinkgoHelper()
	dir := tc.Fixture(userStateFixture)
	harness.WriteFile(dir, "knowledge-templates/"+knowledgeTemplate+".yaml",
		[]byte("key: "+knowledgeTemplate+"\ndescription: the newer release's own template of this slot.\n"))
	harness.WriteFile(dir, "examples/workspace/"+sampleFile, []byte("The newer release's own sample notes.\n"))
	return dir
}

// knowledgeCall calls app/knowledge and answers the pack bound after it
// ("" for none).
func knowledgeCall(tc *harness.TestContext, p protocol.KnowledgeParams) string {
	GinkgoHelper()
	var res protocol.KnowledgeResult
	userStateCall(tc, protocol.MethodKnowledge, p, &res, "no knowledge pack can be bound to an app",
		fmt.Sprintf("%s's template %s", p.AppID, p.Template))
	if res.Pack == nil {
		return ""
	}
	return *res.Pack
}

// fileCall calls app/file and answers what the workspace file holds after
// it (ok false for no such file).
func fileCall(tc *harness.TestContext, p protocol.FileParams) (string, bool) {
	GinkgoHelper()
	var res protocol.FileResult
	userStateCall(tc, protocol.MethodFile, p, &res, "no workspace file can be written", fmt.Sprintf("%s's %s", p.AppID, p.Path))
	if res.Content == nil {
		return "", false
	}
	return *res.Content, true
}

// userStateCall makes a call that sets or reads what a user keeps of an
// app: a host without the method (-32601) leaves nothing to judge
// (blocked, saying what cannot be done); a refusal of it fails the spec,
// naming what was asked; no usable answer is an error.
func userStateCall(tc *harness.TestContext, method string, params, result any, cannot, asked string) {
	GinkgoHelper()
	err := tc.Call(method, params, result)
	if code, isErr := tc.HostErrorCode(method, err); isErr {
		if code == protocol.CodeMethodNotFound {
			tc.Blockedf("the host does not implement %s (-32601), so %s", method, cannot)
		}
		tc.Failf("%s of %s was refused: %v", method, asked, err)
	}
}

// updatedToVersion updates appID to the package in dir at version, its
// release naming rollbackTarget (when not ""), as a precondition.
func updatedToVersion(tc *harness.TestContext, appID, dir, version, rollbackTarget string) protocol.InstalledApp {
	GinkgoHelper()
	var row protocol.InstalledApp
	tc.Precondition("app/update takes "+appID+" to "+version, func() {
		harness.SetField(dir, "version", version)
		rel := tc.ReleaseOf(dir)
		rel.RollbackTarget = rollbackTarget
		if _, err := tc.TryUpdate(appID, dir, rel); err != nil {
			tc.FailCall(protocol.MethodUpdate, err)
		}
		row, _ = tc.ListedApp(appID)
		if row.Version != version {
			tc.Failf("app/list shows %s at version %q after app/update to %s", appID, row.Version, version)
		}
	})
	return row
}

// releases are the versions a rollback spec installs, then updates to
// twice, in SemVer order.
type releases [3]string

// tablesOf lists the tables host/observe shows in appID's namespace; a
// host that shows no storage leaves nothing to judge.
func tablesOf(tc *harness.TestContext, appID string) []string {
	GinkgoHelper()
	var out []string
	seen := false
	for _, ns := range tc.Observe(appID).Storage {
		if ns.AppID == appID {
			seen = true
			out = append(out, ns.Tables...)
		}
	}
	if !seen {
		tc.Blockedf("host/observe of %s shows no storage namespace (observe.storage), which this check needs", appID)
	}
	return out
}

// describeUpgrades declares the specs of what a release upgrade keeps
// beside app storage (spec 003, What must not be overwritten: "user
// Knowledge bindings", "workspace files") and of where a rollback goes
// (Release object: rollbackTarget; Rollback: "avoid running downgrade
// migrations automatically").
func describeUpgrades(tc *harness.TestContext) {
	Describe("Product: upgrades", func() {
		It("keeps the knowledge pack the user bound across an update to a release shipping its own template of that name", tc.Req("UPDATE-KEEPS-KNOWLEDGE-BINDINGS", levels.EveryTransition), func() {
			tc.Configure(tc.DefaultConfigure())
			dir := tc.Fixture(userStateFixture)
			app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			pack := harness.Nonce("pack")
			tc.Precondition(app+" needs setup until app/knowledge binds a pack to "+knowledgeTemplate+"; bound, it reads back and the app is ready", func() {
				if r := tc.AppReadiness(app); harness.ReadyStatus(r.Status) {
					tc.Failf("%s is %q with its required knowledge template %s unbound", app, r.Status, knowledgeTemplate)
				}
				if got := knowledgeCall(tc, protocol.KnowledgeParams{AppID: app, Template: knowledgeTemplate, Pack: pack}); got != pack {
					tc.Failf("app/knowledge bound %q to %s's %s and answered %q", pack, app, knowledgeTemplate, got)
				}
				if r := tc.AppReadiness(app); !harness.ReadyStatus(r.Status) {
					tc.Failf("with %s bound, %s is %q", knowledgeTemplate, app, r.Status)
				}
			})
			tc.UpdatedDir(app, func() string { return newerUserState(tc) })
			if got := knowledgeCall(tc, protocol.KnowledgeParams{AppID: app, Template: knowledgeTemplate}); got != pack {
				tc.Failf("the user bound %q to %s's knowledge template %s; after app/update to %s app/knowledge answers %q", pack, app, knowledgeTemplate, harness.NewerProbeVersion, got)
			}
			if r := tc.AppReadiness(app); !harness.ReadyStatus(r.Status) {
				tc.Failf("after app/update %s is %q: the pack bound to its template %s no longer counts", app, r.Status, knowledgeTemplate)
			}
		})

		// Each member of what the protocol refuses, after the control: a
		// host that checks some of them writes outside the workspace (or
		// under a name the app never reads) for the others.
		It("writes and reads only relative paths inside the app's workspace and binds only the app's own knowledge templates, refusing every other with -32602 naming it",
			tc.Req("PROTO-USER-STATE-EXACT", levels.EveryMember, levels.ConfusableIdentity, levels.RepresentationLimit), func() {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(userStateFixture)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				content := harness.Nonce("content")
				tc.Precondition("app/file writes drafts/plan.md of "+app+"'s workspace and reads it back, and app/knowledge binds "+knowledgeTemplate, func() {
					if got, ok := fileCall(tc, protocol.FileParams{AppID: app, Path: "drafts/plan.md", Content: &content}); !ok || got != content {
						tc.Failf("app/file wrote %q to drafts/plan.md of %s and answered %q (a file: %t)", content, app, got, ok)
					}
					if got, ok := fileCall(tc, protocol.FileParams{AppID: app, Path: "drafts/plan.md"}); !ok || got != content {
						tc.Failf("app/file read drafts/plan.md of %s as %q (a file: %t), not the %q it wrote", app, got, ok, content)
					}
					pack := harness.Nonce("pack")
					if got := knowledgeCall(tc, protocol.KnowledgeParams{AppID: app, Template: knowledgeTemplate, Pack: pack}); got != pack {
						tc.Failf("app/knowledge bound %q to %s's %s and answered %q", pack, app, knowledgeTemplate, got)
					}
				})
				var taken []string
				for _, p := range []string{"/tmp/" + harness.Nonce("abs") + ".md", "../" + harness.Nonce("up") + ".md", "drafts/../../" + harness.Nonce("up") + ".md",
					`drafts\plan.md`, `..\` + harness.Nonce("up") + ".md"} {
					// A write and a read alike: without content the call only
					// reads, and the same paths are refused (app/file).
					for _, c := range []*string{&content, nil} {
						err := tc.Call(protocol.MethodFile, protocol.FileParams{AppID: app, Path: p, Content: c}, nil)
						if !harness.InvalidParamsNaming(err, "path") {
							taken = append(taken, fmt.Sprintf("app/file %s of path %q answered %s", map[bool]string{true: "write", false: "read"}[c != nil], p, harness.AnswerOf(err)))
						}
					}
				}
				for _, t := range harness.ConfusableSpellings(knowledgeTemplate) {
					pack := harness.Nonce("pack")
					err := tc.Call(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: t, Pack: pack}, nil)
					if !harness.InvalidParamsNaming(err, "template") {
						taken = append(taken, fmt.Sprintf("app/knowledge template %q answered %s", t, harness.AnswerOf(err)))
					}
				}
				if len(taken) > 0 {
					tc.Failf("%s's user state took what the app does not have instead of refusing it with -32602 naming the member: %s", app, strings.Join(taken, "; "))
				}
			})

		DescribeTable("keeps the files the user wrote in the app's workspace across an update:",
			func(path func() string) {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(userStateFixture)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				p, content := path(), harness.Nonce("written-by-the-user")
				tc.Precondition("app/file writes "+p+" of "+app+"'s workspace and reads it back", func() {
					if got, ok := fileCall(tc, protocol.FileParams{AppID: app, Path: p, Content: &content}); !ok || got != content {
						tc.Failf("app/file wrote %q to %s of %s and answered %q (a file: %t)", content, p, app, got, ok)
					}
				})
				tc.UpdatedDir(app, func() string { return newerUserState(tc) })
				if got, ok := fileCall(tc, protocol.FileParams{AppID: app, Path: p}); !ok || got != content {
					tc.Failf("the user wrote %q to %s of %s's workspace; after app/update to %s app/file reads %q (a file: %t)", content, p, app, harness.NewerProbeVersion, got, ok)
				}
			},
			Entry("a file the newer release ships a sample of", tc.Req("UPDATE-KEEPS-WORKSPACE-FILES", levels.EveryTransition, levels.EveryMember), func() string { return sampleFile }),
			Entry("a file only the user has", tc.Req("UPDATE-KEEPS-WORKSPACE-FILES", levels.EveryTransition, levels.EveryMember), func() string { return "drafts/" + harness.Nonce("mine") + ".md" }),
		)

		// Both sides: the target named is older than the release the last
		// update replaced, or is that release; and a transition after one
		// that named a target: the release installed now names none, so the
		// target is the release the last update replaced, not one an
		// earlier release named. And a confusable pair: the target 1.0.1 is
		// a prefix of 1.0.10, the release the last update replaced, so a
		// host matching the name by prefix lands on the wrong one.
		DescribeTable("rolls back to the release its release object names as rollbackTarget, or without one to the release the last update replaced:",
			func(vs releases, secondNamesFirst bool, third string) {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture("minimal-app")
				harness.SetField(dir, "version", vs[0])
				a := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				first, _ := tc.ListedApp(a)
				namedBySecond := ""
				if secondNamesFirst {
					namedBySecond = first.Version
				}
				second := updatedToVersion(tc, a, tc.Fixture("minimal-app"), vs[1], namedBySecond)
				target, named := second, ""
				switch third {
				case "first":
					target, named = first, first.Version
				case "second":
					named = second.Version
				}
				updatedToVersion(tc, a, tc.Fixture("minimal-app"), vs[2], named)
				tc.RequireMethod(protocol.MethodRollback)
				var res protocol.RollbackResult
				tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &res)
				row, _ := tc.ListedApp(a)
				if row.Version != target.Version || !strings.EqualFold(row.PackageHash, target.PackageHash) {
					tc.Failf("release %s of %s names rollbackTarget %q (%s named %q); after app/rollback app/list shows %s (packageHash %s), not %s (%s)",
						vs[2], a, named, vs[1], namedBySecond, row.Version, row.PackageHash, target.Version, target.PackageHash)
				}
				// The answer says both ends of the move: the app as app/list
				// now shows it, and the release it left
				// (docs/host-control-protocol.md, app/rollback).
				if res.RolledBackFrom != vs[2] || res.App.Version != row.Version {
					tc.Failf("app/rollback of %s from %s to %s answered rolledBackFrom %q and app version %q, not %q and %q",
						a, vs[2], target.Version, res.RolledBackFrom, res.App.Version, vs[2], row.Version)
				}
			},
			Entry("an older release than the one the last update replaced", tc.Req("ROLLBACK-TO-TARGET", levels.EveryTransition), releases{"1.0.0", "1.1.0", "1.2.0"}, false, "first"),
			Entry("the release the last update replaced", tc.Req("ROLLBACK-TO-TARGET", levels.EveryTransition), releases{"1.0.0", "1.1.0", "1.2.0"}, false, "second"),
			Entry("none named by 1.2.0, 1.1.0 having named 1.0.0: the release the last update replaced", tc.Req("ROLLBACK-TO-TARGET", levels.EveryTransition), releases{"1.0.0", "1.1.0", "1.2.0"}, true, ""),
			Entry("1.0.1, a prefix of 1.0.10, the release the last update replaced", tc.Req("ROLLBACK-TO-TARGET", levels.ConfusableIdentity), releases{"1.0.1", "1.0.10", "1.1.0"}, false, "first"),
		)

		// The row app/list shows after a rollback is the older release's,
		// every member: its name in the host's locale too, not the name
		// the release it left gave itself.
		It("shows the older release's name in the host's locale after it rolls back", tc.Req("ROLLBACK-TO-TARGET", levels.EveryTransition, levels.EveryMember), func() {
			p := tc.DefaultConfigure()
			p.Locale = "zh-CN"
			tc.Configure(p)
			dir := tc.Fixture("full-app")
			old, _ := harness.MapOf(tc.Oracle(dir).Manifest["displayNameI18n"])["zh-CN"].(string)
			a := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			first, _ := tc.ListedApp(a)
			newer, renamed := tc.Fixture("full-app"), "新版 "+harness.Nonce("name")
			harness.RewriteAppMD(newer, func(md []byte) []byte { return bytes.Replace(md, []byte("zh-CN: "+old), []byte("zh-CN: "+renamed), 1) })
			tc.Precondition("app/list shows "+a+" under the zh-CN name of each release", func() {
				if first.DisplayName != old {
					tc.Failf("with locale zh-CN app/list shows %s as %q, not %q", a, first.DisplayName, old)
				}
				updatedToVersion(tc, a, newer, "1.3.0", "")
				if row, _ := tc.ListedApp(a); row.DisplayName != renamed {
					tc.Failf("with locale zh-CN app/list shows %s 1.3.0 as %q, not %q", a, row.DisplayName, renamed)
				}
			})
			tc.RequireMethod(protocol.MethodRollback)
			tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &protocol.RollbackResult{})
			if row, _ := tc.ListedApp(a); row.Version != first.Version || row.DisplayName != old {
				tc.Failf("after app/rollback from 1.3.0, app/list shows %s at %s named %q (locale zh-CN), not %s named %q", a, row.Version, row.DisplayName, first.Version, old)
			}
		})

		It("runs no downgrade migration the release it leaves ships when it rolls back", tc.Req("ROLLBACK-NO-DOWN-MIGRATIONS", levels.EveryTransition), func() {
			tc.Configure(tc.DefaultConfigure())
			a := updatedOverDowngrade(tc, "")
			tc.RequireMethod(protocol.MethodRollback)
			tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &protocol.RollbackResult{})
			if tables := tablesOf(tc, a); !slices.Contains(tables, downTable) {
				tc.Failf("after app/rollback host/observe shows %s's tables %v: %s, which the newer release's migration made, is gone (its downgrade migration ran unasked)", a, tables, downTable)
			}
		})

		// Spec 003, Rollback: "expose export before delete when data loss
		// is possible". The downgrade the user asks for drops the newer
		// release's table: the export written before it holds the table's
		// row, and the table is gone after it (docs/decisions.md, "Export
		// before a downgrade").
		It("writes an export holding what the downgrade migrations drop before it runs them, when a rollback asks for both", tc.Req("ROLLBACK-EXPORT-BEFORE-DELETE", levels.EveryTransition), func() {
			tc.Configure(tc.DefaultConfigure())
			stored := harness.Nonce("draft")
			half := len(stored) / 2
			// The value is joined by SQLite, so only the app's database
			// holds it whole, not its package.
			a := updatedOverDowngrade(tc, fmt.Sprintf("INSERT INTO %s VALUES ('%s', '%s' || '%s');\n", downTable, harness.Nonce("id"), stored[:half], stored[half:]))
			tc.RequireMethod(protocol.MethodRollback)
			dir := exportFolder(tc, "rollback-export")
			var res protocol.RollbackResult
			err := tc.Call(protocol.MethodRollback, protocol.RollbackParams{AppID: a, DownMigrations: true, ExportTo: dir}, &res)
			if neverDowngrades(tc, err) {
				tc.NotApplicablef("app/rollback of %s asking for its downgrade migrations answered %s: a host that never runs them loses no data in a rollback, so there is nothing to export before", a, harness.AnswerOf(err))
			}
			if err != nil {
				tc.FailCall(protocol.MethodRollback, err)
			}
			if len(res.Exported) == 0 {
				tc.Failf("app/rollback of %s with downMigrations and exportTo %s answered without naming an exported file", a, dir)
			}
			text, err := harness.ExportText(dir, res.Exported)
			if err != nil {
				tc.Failf("app/rollback of %s with downMigrations and exportTo: %v", a, err)
			}
			if !bytes.Contains(text, []byte(stored)) {
				tc.Failf("the export app/rollback of %s wrote before its downgrade (%v) does not hold %q, which the table %s held: the downgrade dropped it unexported", a, res.Exported, stored, downTable)
			}
			if tables := tablesOf(tc, a); slices.Contains(tables, downTable) {
				tc.Failf("app/rollback of %s asked to run its downgrade migrations, but host/observe still shows %s among its tables %v", a, downTable, tables)
			}
		})

		// Without downMigrations a rollback deletes nothing, so an export
		// before delete contradicts it: refused naming exportTo, as
		// app/uninstall's exportTo with keepData, and the app stays.
		It("refuses exportTo on a rollback that runs no downgrade migration, naming exportTo, and stays on the newer release", tc.Req("ROLLBACK-EXPORT-BEFORE-DELETE", levels.EveryTransition), func() {
			tc.Configure(tc.DefaultConfigure())
			a := updatedOverDowngrade(tc, "")
			tc.RequireMethod(protocol.MethodRollback)
			err := tc.Call(protocol.MethodRollback, protocol.RollbackParams{AppID: a, ExportTo: exportFolder(tc, "rollback-export")}, nil)
			if !harness.InvalidParamsNaming(err, "exportTo") {
				tc.Failf("app/rollback of %s with exportTo and no downMigrations answered %s, not -32602 naming exportTo", a, harness.AnswerOf(err))
			}
			if row, _ := tc.ListedApp(a); row.Version != harness.NewerProbeVersion {
				tc.Failf("app/rollback of %s with exportTo and no downMigrations was refused, but app/list shows it at %s, not %s", a, row.Version, harness.NewerProbeVersion)
			}
		})
	})
}

// downTable is the table the newer migration-app release's migration
// downFile makes, and its downgrade migration down/downFile drops.
const (
	downFile  = "003_drafts.sql"
	downTable = "drafts"
)

// newerWithDowngrade is migration-app's newer release: its migration
// downFile makes downTable, then runs extra (SQL), and its downgrade
// migration down/downFile drops the table, declared too the way 003's
// migration notes declare an upgrade's, from the newer release to the
// older.
func newerWithDowngrade(tc *harness.TestContext, extra string) string {
	GinkgoHelper()
	newer := tc.Fixture("migration-app")
	harness.WriteFile(newer, "storage/migrations/"+downFile, []byte("CREATE TABLE "+downTable+" (id TEXT PRIMARY KEY, body TEXT NOT NULL);\n"+extra))
	harness.WriteFile(newer, "storage/migrations/down/"+downFile, []byte("DROP TABLE "+downTable+";\n"))
	harness.EditFrontmatter(newer, func(lines []string) []string {
		return append(lines, "lifecycle:", "  upgrade:", "    migrations:",
			`      - from: "`+harness.NewerProbeVersion+`"`, `        to: "1.0.0"`,
			"        storage: ./storage/migrations/down/"+downFile, "        reversible: true")
	})
	return newer
}

// updatedOverDowngrade installs migration-app approving its migrations and
// updates it to newerWithDowngrade(extra), host/observe showing downTable
// after it (a precondition), and answers the app id.
func updatedOverDowngrade(tc *harness.TestContext, extra string) string {
	GinkgoHelper()
	a := tc.InstallMigrating(tc.Fixture("migration-app"), true)
	updatedToVersion(tc, a, newerWithDowngrade(tc, extra), harness.NewerProbeVersion, "")
	tc.Precondition("host/observe shows the table "+downTable+" the newer release's approved migration made", func() {
		if tables := tablesOf(tc, a); !slices.Contains(tables, downTable) {
			tc.Failf("after app/update approving its migrations host/observe shows %s's tables %v, without %s", a, tables, downTable)
		}
	})
	return a
}

// neverDowngrades tells whether err is a host's answer that it never runs
// downgrade migrations: -32602 naming downMigrations, or -32006
// unsupported (docs/decisions.md, "Export before a downgrade").
func neverDowngrades(tc *harness.TestContext, err error) bool {
	GinkgoHelper()
	if harness.InvalidParamsNaming(err, "downMigrations") {
		return true
	}
	code, isErr := tc.HostErrorCode(protocol.MethodRollback, err)
	return isErr && code == protocol.CodeUnsupported
}

// exportFolder makes a fresh, empty folder named name in the spec's
// scratch space for a host to export into.
func exportFolder(tc *harness.TestContext, name string) string {
	GinkgoHelper()
	dir := filepath.Join(tc.Scratch(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		harness.Errorf("making the export folder %s: %v", dir, err)
	}
	return dir
}
