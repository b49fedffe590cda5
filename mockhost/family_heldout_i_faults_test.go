//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/drivers/revocation"
	"github.com/agentapp/conformance/drivers/telemetry"
)

// heldOutIProbes observe the faults of heldOutIFaults (TestEveryFaultChangesTheAnswer).
func heldOutIProbes() map[string]probe {
	return map[string]probe{
		// a verification after host/reset of a package revoked since an
		// answer was cached for 600 s
		"reset-keeps-revocation-cache": func(t *testing.T, x *harness) string {
			svc, err := revocation.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = svc.Close() })
			dir := pkg(t, "tiny-app", map[string]string{"app.signature.yaml": fmt.Sprintf(
				"signature:\n  revocation:\n    checkUrl: %s\n    cacheSeconds: 600\n", svc.URL())})
			svc.Revoke(x.verify(dir, nil).PackageHash, "after the first check")
			x.must(protocol.MethodReset, struct{}{}, nil)
			return verdict(x.verify(dir, nil))
		},
		// the case of an eval naming entry second, which the policy
		// denies, while entry main names the same workflow first
		"evals-ignore-named-entry": func(t *testing.T, x *harness) string {
			dir := pkg(t, "tiny-app", map[string]string{
				"APP.md": manifest(withDefaults("requires:\n  capabilities:\n    lime.ui: current\n    lime.workflow: current\n" +
					"runtimePackage:\n  ui:\n    path: ./dist/ui\n    entry: index.html\n" +
					"entries:\n  - key: main\n    kind: workflow\n    title: Main\n    route: /main\n    workflow: flow\n" +
					"  - key: second\n    kind: workflow\n    title: Second\n    route: /second\n    workflow: flow\n" +
					"workflows:\n  - key: flow\n    states:\n      - key: begin\n        kind: start\n        next: done\n      - key: done\n        kind: end\n" +
					"evals:\n  - key: as_second\n    kind: regression\n    workflow: flow\n    entry: second\n    cases:\n" +
					"      - key: refused-for-second\n        input: {}\n        expect: refused\n")),
				"dist/ui/index.html": "<!doctype html><html><body>tiny</body></html>\n",
			})
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"second"}}}})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			var ev protocol.EvalsResult
			x.must(protocol.MethodEvals, protocol.AppIDParams{AppID: "tiny-app"}, &ev)
			return raw(ev)
		},
		// the review's compatibility step with lime.ui configured below
		// what the package requires
		"review-compatibility-from-hello": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Capabilities: map[string]protocol.Capability{"lime.ui": {Version: "0.0.1", Enabled: true}}})
			var res protocol.ReviewResult
			x.must(protocol.MethodReview, protocol.ReviewParams{Path: pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults("requires:\n  capabilities:\n    lime.ui: \">=0.5.0\"\n"))})}, &res)
			return reviewStatusOf(res, protocol.StepCompatibility)
		},
		// the readiness of a package whose startup check states no
		// critical, with that check failing
		"health-critical-absent-read-as-false": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Health: &protocol.HealthSignals{Failing: []string{"sdk_connection"}}})
			dir := pkg(t, "tiny-app", map[string]string{"evals/health.yaml": "health:\n  startup:\n    - {check: sdk_connection, timeout: 5s}\n"})
			r, err := x.readiness(protocol.ReadinessParams{Path: dir})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// the entries a disabled app's readiness lists
		"disabled-entries-keep-status": func(t *testing.T, x *harness) string {
			dir := pkg(t, "tiny-app", map[string]string{})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(r.Entries)
		},
		// what a get reads, granted, after a set refused for its permission
		"storage-write-lands-when-permission-denied": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}}})
			if _, err := x.install(permittedApp(t), nil, true); err != nil {
				t.Fatal(err)
			}
			s := x.launchEntry("tiny-app", "main")
			s.invoke("r1", "lime.storage", "set", map[string]any{"key": "k", "value": "refused"})
			x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {"app-records"}}})
			return string(s.invoke("r2", "lime.storage", "get", map[string]any{"key": "k"}).Payload)
		},
		// a write from a surface left open across an uninstall
		"call-gate-readiness-error-passes": func(t *testing.T, x *harness) string {
			if _, err := x.install(permittedApp(t), nil, true); err != nil {
				t.Fatal(err)
			}
			s := x.launchEntry("tiny-app", "main")
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			return s.invoke("r1", "lime.storage", "set", map[string]any{"key": "k", "value": "v"}).Type
		},
		// the snapshot's locale after the user changed it
		"snapshot-locale-from-configure": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Locale: "zh-CN"})
			if _, err := x.install(permittedApp(t), nil, true); err != nil {
				t.Fatal(err)
			}
			s := x.launchEntry("tiny-app", "main")
			x.must(protocol.MethodSet, protocol.SetParams{Locale: "ja-JP"}, nil)
			return string(s.only(s.send(hostbridge.TypeGetSnapshot, "s1", nil)).Payload)
		},
		"approval-defer-sent-as-allow": approvalDecisionProbe(false, "defer"),
		// the evidence of a rejected review
		"workflow-reject-leaves-no-evidence": func(t *testing.T, x *harness) string {
			reviewFlow(t, x, "reject")
			var o protocol.ObserveResult
			x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "workflow-app"}, &o)
			var states []string
			for _, e := range o.Evidence {
				states = append(states, e.State)
			}
			return fmt.Sprint(states)
		},
		// the snapshot with billing configured
		"snapshot-carries-billing-record": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Billing: &protocol.Billing{Plan: "team", Quota: protocol.QuotaOK, Ledger: "ledger-1"}})
			if _, err := x.install(permittedApp(t), nil, true); err != nil {
				t.Fatal(err)
			}
			s := x.launchEntry("tiny-app", "main")
			return fmt.Sprint(strings.Contains(string(s.only(s.send(hostbridge.TypeGetSnapshot, "s1", nil)).Payload), "ledger-1"))
		},
		// readiness after an approved migration failed
		"migration-recorded-before-run": func(t *testing.T, x *harness) string {
			dir := migrationApp(x.t, map[string]string{"001_broken.sql": "INSERT INTO no_such_table VALUES (1);\n"})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			_ = x.call(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true}}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// whether the export of export then delete holds a bound secret
		"export-includes-secret-bindings": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, "secrets:\n  - key: provider_api_key\n    required: true\n    description: Provider key\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_api_key", Value: "canary-bound"}, nil)
			var r protocol.UninstallResult
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", ExportTo: filepath.Join(t.TempDir(), "export")}, &r)
			var all strings.Builder
			for _, f := range r.Exported {
				b, _ := os.ReadFile(f)
				all.Write(b)
			}
			return fmt.Sprint(strings.Contains(all.String(), "canary-bound"))
		},
		// whether a workflow run's input reaches the collector, content
		// export off
		"workflow-span-carries-input": func(t *testing.T, x *harness) string {
			col, err := telemetry.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer col.Close()
			as := appServerFor(t, x, nil, protocol.ConfigureParams{Telemetry: &protocol.Telemetry{Endpoint: col.URL()}})
			if _, err := x.install(fixtureCopy(t, "workflow-app", "", ""), nil, true); err != nil {
				t.Fatal(err)
			}
			d := &wfDriver{t: t, x: x, as: as}
			mark := time.Now()
			d.call("start", map[string]any{"workflowKey": "typed_flow", "input": map[string]any{"topic": "input-of-the-run", "count": 1}})
			return fmt.Sprint(strings.Contains(exportedSince(col, mark), "input-of-the-run"))
		},
		// whether a release whose compatibility names a host version the
		// host is not is downloaded
		"release-compatibility-lime-unread": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			rel := publishApp(t, g, app(t, "requires:\n  lime:\n    appRuntime: \">=9.0.0\"\n"), "1.0.0",
				map[string]any{"lime": map[string]any{"appRuntime": ">=9.0.0"}})
			g.EnableVersion("t1", rel.AppID, rel.Version)
			x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
			out := installSource(x, protocol.Source{AppID: "tiny-app", Version: "1.0.0"})
			return fmt.Sprintf("%s fetched=%d", out, len(g.Requests(registry.PackagePath("tiny-app", "1.0.0"))))
		},
	}
}

// reviewStatusOf is the status the review gives step.
func reviewStatusOf(r protocol.ReviewResult, step string) string {
	for _, c := range r.Checks {
		if c.Step == step {
			return c.Status
		}
	}
	return "missing"
}
