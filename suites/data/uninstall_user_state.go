package data

import (
	"fmt"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeUninstallUserState declares the spec of what the user keeps of an
// app beside its storage across an uninstall: a knowledge pack bound to one
// of its templates (app/knowledge) and a file written in its workspace
// (app/file) are the app's data (docs/host-control-protocol.md: "Both are
// the app's data, as secret bindings are"), so uninstall keeping data keeps
// both for a reinstall and uninstall deleting data removes both (spec 002,
// Required desktop host behavior, Cleanup).
func describeUninstallUserState(tc *harness.TestContext) {
	Describe("Product: user state across uninstall", func() {
		DescribeTable("finds the knowledge pack the user bound and the file the user wrote again after uninstall keeping data and a reinstall, and neither after uninstall deleting data:",
			func(keep bool) {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(userStateFixture)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				pack, content := harness.Nonce("pack"), harness.Nonce("content")
				file := "drafts/" + harness.Nonce("mine") + ".md"
				tc.Precondition("app/knowledge binds a pack to "+app+"'s "+knowledgeTemplate+" and app/file writes "+file+" of its workspace, each read back", func() {
					if got := knowledgeCall(tc, protocol.KnowledgeParams{AppID: app, Template: knowledgeTemplate, Pack: pack}); got != pack {
						tc.Failf("app/knowledge bound %q to %s's %s and answered %q", pack, app, knowledgeTemplate, got)
					}
					if got, ok := fileCall(tc, protocol.FileParams{AppID: app, Path: file, Content: &content}); !ok || got != content {
						tc.Failf("app/file wrote %q to %s of %s and answered %q (a file: %t)", content, file, app, got, ok)
					}
				})
				tc.Uninstall(app, keep)
				again := tc.Fixture(userStateFixture)
				tc.Install(again, tc.ReleaseOf(again))
				gotPack := knowledgeCall(tc, protocol.KnowledgeParams{AppID: app, Template: knowledgeTemplate})
				gotFile, found := fileCall(tc, protocol.FileParams{AppID: app, Path: file})
				// Each member on its own: a host that keeps or drops one
				// of them with the data shows in that member alone.
				var wrong []string
				mode := "deleting data"
				if keep {
					mode = "keeping data"
					if gotPack != pack {
						wrong = append(wrong, fmt.Sprintf("app/knowledge answers %q for %s, not the pack %q bound before", gotPack, knowledgeTemplate, pack))
					}
					if !found || gotFile != content {
						wrong = append(wrong, fmt.Sprintf("app/file reads %s as %q (a file: %t), not the %q written before", file, gotFile, found, content))
					}
				} else {
					if gotPack == pack {
						wrong = append(wrong, fmt.Sprintf("app/knowledge still answers the pack %q bound to %s before", pack, knowledgeTemplate))
					}
					if found && gotFile == content {
						wrong = append(wrong, fmt.Sprintf("app/file still reads %s as the %q written before", file, content))
					}
				}
				if len(wrong) > 0 {
					tc.Failf("after uninstall %s and a reinstall of %s: %s", mode, app, strings.Join(wrong, "; "))
				}
			},
			Entry("keeping data", tc.Req("UNINSTALL-USER-STATE", levels.EveryMember, levels.EveryTransition), true),
			Entry("deleting data", tc.Req("UNINSTALL-USER-STATE", levels.EveryMember, levels.EveryTransition), false),
		)
	})
}
