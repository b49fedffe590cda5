//go:build !mutation

package mockhost

import (
	"fmt"

	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/appserver"

	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutEProbes observe the faults of heldOutEFaults (TestEveryFaultChangesTheAnswer).
func heldOutEProbes() map[string]probe {
	return map[string]probe{
		// app/uninstall of an installed app with keepData and exportTo
		"export-with-keep-data": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			return fmt.Sprint(x.call(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: true, ExportTo: t.TempDir()}, nil))
		},
		// app/enable of an installed app that is not disabled
		"state-change-repeat-refused": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			return fmt.Sprint(x.call(protocol.MethodEnable, protocol.AppIDParams{AppID: "tiny-app"}, nil))
		},
		// app/rollback of tiny-app updated from 1.0.0 to 1.1.0
		"rolled-back-from-target": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			newer := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)})
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer, Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
			var r protocol.RollbackResult
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, &r)
			return r.RolledBackFrom
		},
		// package/verify of tiny-app against a release pinning another packageHash
		"verify-echoes-release-hash": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			return x.verify(app(t, ""), &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 62) + "aa"}).PackageHash
		},
		// app/install of tiny-app after a policy denying it, then a configure with none
		"configure-keeps-policy": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedApps: []string{"tiny-app"}}})
			x.configure(nil, nil, "")
			_, err := x.install(app(t, ""), nil, true)
			return fmt.Sprint(err)
		},
		// readiness of entry main, policy denying tiny-app [other main]
		"denied-entries-first-only": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"other", "main"}}}})
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, ""), Entry: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// readiness of an app whose endOfLifeAt is 02:00Z at the clock 03:00+05:00 (22:00Z the day before)
		"clock-offset-dropped": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "2030-01-01T03:00:00+05:00")
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, "endOfLifeAt: 2030-01-01T02:00:00Z\n")})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// readiness of another tiny-app folder, requiring a secret, with tiny-app installed
		"readiness-path-by-folder-name": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, "secrets:\n  - key: w17_key\n    required: true\n")})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// install of an app named tiny after tiny-app was uninstalled keeping its data
		"retained-data-by-prefix": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: true}, nil)
			other := pkg(t, "tiny", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "name: tiny-app", "name: tiny", 1)})
			r, err := x.install(other, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(r.App.HasData)
		},
		// app/file read of ../../x
		"file-read-path-unchecked": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			return fmt.Sprint(x.call(protocol.MethodFile, protocol.FileParams{AppID: "tiny-app", Path: "../../w14-outside.txt"}, nil))
		},
		// readiness of an entry needing lime.billing, the quota exhausted with a ledger and no blocked reason
		"billing-reason-quotes-ledger": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Billing: &protocol.Billing{Plan: "team", Quota: protocol.QuotaExhausted, Ledger: "canary-ledger-e13"}})
			dir := app(t, "requires:\n  capabilities:\n    lime.billing: current\n"+
				"entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n    requiredCapabilities: [lime.billing]\n")
			r, err := x.readiness(protocol.ReadinessParams{Path: dir, Entry: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(r.Checks)
		},
		// review_flow at its review, answered with a respond naming no decision
		"workflow-respond-no-decision-approves": func(t *testing.T, x *harness) string {
			return reviewFlow(t, x, "")
		},
		// lime.workflow resume of a run waiting at its review
		"workflow-resume-not-interrupted": func(t *testing.T, x *harness) string {
			d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
			run := d.start("review_flow")
			d.settle(run)
			return d.call("resume", map[string]any{"runId": run}).Type
		},
		// lime.artifacts read of an artifact artifact/read answers with null
		"appserver-null-as-empty-success": func(t *testing.T, x *harness) string {
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": nil}})
			appServerFor(t, x, sc, protocol.ConfigureParams{})
			m := x.mount("tiny-app", "main").invoke("r1", "lime.artifacts", "read", map[string]any{"artifactId": "a1"})
			return m.Type + " " + string(m.Payload)
		},
	}
}
