package data

import (
	"strings"

	"github.com/agentapp/conformance/suites/harness"
	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeScoping checks that an app's lime.storage is scoped by tenant and
// workspace as well as by app (spec 002, Required desktop host behavior:
// "Namespace app data, outputs, logs, and evidence by app, workspace, and
// tenant"), through app/invoke: the same app, run in another workspace or
// tenant, must not find what it stored in the first.
func describeScoping(tc *harness.TestContext) {
	Describe("Runtime: app storage scoped by workspace and tenant", func() {
		DescribeTable("keeps what an app stores in one workspace and tenant from the same app run in",
			func(elsewhere func(protocol.ConfigureParams) protocol.ConfigureParams, homeAs ...func(protocol.ConfigureParams) protocol.ConfigureParams) {
				home := tc.DefaultConfigure()
				for _, edit := range homeAs {
					home = edit(home)
				}
				app := tc.InstallProbe(home)
				key, value, theirs := harness.Nonce("scoped"), harness.Nonce("value"), harness.Nonce("value")
				tc.Precondition("lime.storage set and get through app/invoke keep "+key+" in "+home.WorkspaceID, func() {
					expectStoredAsApp(tc, app, key, value)
				})
				away := elsewhere(home)
				tc.Configure(away)
				if m := tc.StorageCall(app, "get", map[string]any{"key": key}); m.Type == hostbridge.TypeResponse && harness.ContainsText(m.Payload, value) {
					tc.Failf("%s in workspace %s of tenant %s reads %q = %s, which it stored in workspace %s of tenant %s",
						app, away.WorkspaceID, away.TenantID, key, m.Payload, home.WorkspaceID, home.TenantID)
				}
				if m := tc.StorageCall(app, "list", nil); m.Type == hostbridge.TypeResponse && harness.ContainsText(m.Payload, key) {
					tc.Failf("lime.storage list of %s in workspace %s of tenant %s names %q, which it stored in workspace %s of tenant %s: %s",
						app, away.WorkspaceID, away.TenantID, key, home.WorkspaceID, home.TenantID, m.Payload)
				}
				// A write there must not reach home either.
				tc.StorageCall(app, "set", map[string]any{"key": key, "value": theirs})
				tc.Configure(home)
				m := tc.StorageCall(app, "get", map[string]any{"key": key})
				if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, value) {
					tc.Failf("back in workspace %s of tenant %s, %s reads %q as %s, not the %q it stored there (a write in workspace %s of tenant %s came between)",
						home.WorkspaceID, home.TenantID, app, key, harness.AnswerText(m, true), value, away.WorkspaceID, away.TenantID)
				}
			},
			Entry("another workspace of the same tenant", tc.Req("STORAGE-SCOPED", levels.EveryMember, levels.EveryEntryPoint), func(p protocol.ConfigureParams) protocol.ConfigureParams {
				p.WorkspaceID = "workspace-elsewhere"
				return p
			}),
			Entry("the same workspace id in another tenant", tc.Req("STORAGE-SCOPED", levels.EveryMember, levels.EveryEntryPoint), func(p protocol.ConfigureParams) protocol.ConfigureParams {
				p.TenantID = harness.OtherTenant
				return p
			}),
			// A host that lists by prefix of a key path shows here: the
			// first workspace's id begins with this one's.
			Entry("a workspace of the same tenant whose id the first's begins with", tc.Req("STORAGE-SCOPED", levels.ConfusableIdentity), func(p protocol.ConfigureParams) protocol.ConfigureParams {
				p.WorkspaceID = p.WorkspaceID[:len(p.WorkspaceID)-1]
				return p
			}),
			// A host that keys storage by tenant and workspace joined with
			// a separator, unescaped, shows here: tenant "T/x" with
			// workspace "W" and tenant "T" with workspace "x/W" join alike.
			Entry("a tenant and workspace whose ids joined with a slash spell the first pair's (tenant T/x, workspace W; then tenant T, workspace x/W)", tc.Req("STORAGE-SCOPED", levels.ConfusableIdentity, levels.RepresentationLimit), func(p protocol.ConfigureParams) protocol.ConfigureParams {
				p.TenantID = strings.TrimSuffix(p.TenantID, "/x")
				p.WorkspaceID = "x/" + p.WorkspaceID
				return p
			}, func(p protocol.ConfigureParams) protocol.ConfigureParams {
				p.TenantID += "/x"
				return p
			}),
		)
	})
}

// expectStoredAsApp sets key = value as the app and reads it back: the
// positive control of the scoping specs.
func expectStoredAsApp(tc *harness.TestContext, app, key, value string) {
	GinkgoHelper()
	if m := tc.StorageCall(app, "set", map[string]any{"key": key, "value": value}); m.Type != hostbridge.TypeResponse {
		tc.Failf("lime.storage set of %s got %s", app, harness.AnswerText(m, true))
	}
	m := tc.StorageCall(app, "get", map[string]any{"key": key})
	if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, value) {
		tc.Failf("lime.storage get of %q, just set to %q, got %s", key, value, harness.AnswerText(m, true))
	}
	if l := tc.StorageCall(app, "list", nil); l.Type != hostbridge.TypeResponse || !harness.ContainsText(l.Payload, key) {
		tc.Failf("lime.storage list does not name %q, just set: %s", key, harness.AnswerText(l, true))
	}
}
