//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/revocation"
)

// heldOutGProbes observe the faults of heldOutGFaults (TestEveryFaultChangesTheAnswer).
func heldOutGProbes() map[string]probe {
	return map[string]probe{
		"uninstall-delete-keeps-knowledge": userStateAfterUninstall(false),
		"uninstall-keep-drops-knowledge":   userStateAfterUninstall(true),
		"uninstall-delete-keeps-workspace": userStateAfterUninstall(false),
		"uninstall-keep-drops-workspace":   userStateAfterUninstall(true),
		// a second package/verify while the revocation service answers 503
		"revocation-failure-cached": func(t *testing.T, x *harness) string {
			svc, err := revocation.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = svc.Close() })
			svc.SetMode(revocation.ErrorStatus)
			dir := pkg(t, "tiny-app", map[string]string{"app.signature.yaml": fmt.Sprintf(
				"signature:\n  revocation:\n    checkUrl: %s\n    cacheSeconds: 600\n", svc.URL())})
			x.verify(dir, nil)
			return verdict(x.verify(dir, nil))
		},
		// lime.appUpdates check with 1.1.0 enabled and 2.0.0 only published
		"app-updates-from-catalogue": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			v2 := publishApp(t, g, app(t, ""), "1.1.0", nil)
			g.EnableVersion("t1", v2.AppID, v2.Version)
			publishApp(t, g, app(t, ""), "2.0.0", nil)
			installPlatformApp(t, x, protocol.ConfigureParams{RegistryURL: g.URL()})
			return platformCall(t, x, "lime.appUpdates", "check", nil)
		},
		// a start of flow_b reusing the idempotency key of a start of flow_a
		"workflow-idempotency-across-workflows": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(twoWaitingFlows)), "dist/ui/index.html": surfaceIndex}), nil, true); err != nil {
				t.Fatal(err)
			}
			a := workflowInvoke(t, x, "tiny-app", "start", map[string]any{"workflowKey": "flow_a", "idempotencyKey": "k1"})
			b := workflowInvoke(t, x, "tiny-app", "start", map[string]any{"workflowKey": "flow_b", "idempotencyKey": "k1"})
			return fmt.Sprint(a["runId"] == b["runId"], b["workflowKey"])
		},
		// app/rollback after 1.0.0, 1.1.0 naming rollbackTarget 1.0.0, 1.2.0 naming none
		"rollback-target-carried-over": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{}), nil, true); err != nil {
				t.Fatal(err)
			}
			for _, step := range [][2]string{{"1.1.0", "1.0.0"}, {"1.2.0", ""}} {
				dir := pkg(t, "tiny-app", map[string]string{})
				md := filepath.Join(dir, "APP.md")
				b, err := os.ReadFile(md)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(md, []byte(strings.Replace(string(b), "version: 1.0.0", "version: "+step[0], 1)), 0o644); err != nil {
					t.Fatal(err)
				}
				rel := releaseOf(t, dir)
				rel.RollbackTarget = step[1]
				x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: dir, Release: rel, Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
			}
			var r protocol.RollbackResult
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, &r)
			return r.App.Version
		},
		// lime.ui getLocale with a requestId of 100 bytes
		"requestid-clipped": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			return x.mount("tiny-app", "main").invoke(strings.Repeat("r", 100), "lime.ui", "getLocale", nil).RequestID
		},
		// readiness of tiny-app's entry main with its startup check storage_accessible failing
		"health-skipped-for-entry": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Health: &protocol.HealthSignals{Failing: []string{"storage_accessible"}}})
			dir := pkg(t, "tiny-app", map[string]string{"evals/health.yaml": "health:\n  startup:\n    - {check: storage_accessible, critical: true}\n"})
			r, err := x.readiness(protocol.ReadinessParams{Path: dir, Entry: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// the provenance package/project gives tiny-app with a release naming another packageHash
		"provenance-from-release": func(t *testing.T, x *harness) string {
			var r protocol.ProjectResult
			x.must(protocol.MethodProject, protocol.PackageParams{Path: pkg(t, "tiny-app", map[string]string{}),
				Release: &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 64)}}, &r)
			return string(r.Projection)
		},
		// lime.artifacts read answered by an App Server error quoting the session token twice
		"redaction-first-copy-only": func(t *testing.T, x *harness) string {
			const token = "canary-quoted-token"
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{
				"a1": &jsonrpc2.Error{Code: -32000, Message: "refused " + token + "; retried with " + token}}})
			appServerFor(t, x, sc, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": token}})
			s := x.mount("tiny-app", "main")
			return fmt.Sprint(strings.Contains(string(s.invoke("r1", "lime.artifacts", "read", map[string]any{"artifactId": "a1"}).Payload), token))
		},
		// lime.artifacts read answered by an App Server error quoting a key a second host/configure gave
		"redaction-stale-after-configure": func(t *testing.T, x *harness) string {
			const key = "canary-second-key"
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": &jsonrpc2.Error{Code: -32000, Message: "refused " + key}}})
			cfg := protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "canary-first-token"}}
			srv := appServerFor(t, x, sc, cfg)
			s := x.mount("tiny-app", "main")
			cfg.Secrets = map[string]string{"provider_api_key": key}
			cfg.AppServer = &protocol.AppServerConfig{Transport: protocol.AppServerSocket, Address: srv.Addr()}
			x.configureWith(cfg)
			return fmt.Sprint(strings.Contains(string(s.invoke("r1", "lime.artifacts", "read", map[string]any{"artifactId": "a1"}).Payload), key))
		},
		// app/update of tiny-app after tenant policy came to deny it
		"update-skips-tenant-policy": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{}), nil, true); err != nil {
				t.Fatal(err)
			}
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedApps: []string{"tiny-app"}}})
			dir := pkg(t, "tiny-app", map[string]string{})
			err := x.call(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: dir, Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
			return fmt.Sprint(code(err))
		},
		// host:getSnapshot after host/configure switched lime.storage off on a mounted surface
		"snapshot-capabilities-cached": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			s.only(s.send(hostbridge.TypeGetSnapshot, "g20-1", nil))
			x.configureWith(protocol.ConfigureParams{Capabilities: map[string]protocol.Capability{"lime.storage": {Version: "0.10.0", Enabled: false}}})
			return string(s.only(s.send(hostbridge.TypeGetSnapshot, "g20-2", nil)).Payload)
		},
		// lime.storage get of a key set under tenant acme/x, workspace w,
		// read under tenant acme, workspace x/w
		"storage-scope-unescaped": func(t *testing.T, x *harness) string {
			x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "acme/x", WorkspaceID: "w", UserID: "u1"}, nil)
			s := x.mount("tiny-app", "main")
			s.invoke("g03-set", "lime.storage", "set", map[string]any{"key": "plan", "value": "tenant acme/x"})
			x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "acme", WorkspaceID: "x/w", UserID: "u1"}, nil)
			return string(s.invoke("g03-get", "lime.storage", "get", map[string]any{"key": "plan"}).Payload)
		},
	}
}

// twoWaitingFlows declares two workflows that each wait after their start.
const twoWaitingFlows = "requires:\n  capabilities:\n    lime.ui: current\n    lime.workflow: current\n" +
	"workflows:\n" +
	"  - key: flow_a\n    states:\n      - key: begin\n        kind: start\n        next: hold\n      - key: hold\n        kind: wait\n" +
	"  - key: flow_b\n    states:\n      - key: begin\n        kind: start\n        next: hold\n      - key: hold\n        kind: wait\n"

// userStateAfterUninstall binds a pack to user-state-app and writes a
// workspace file, uninstalls it keeping or deleting data, installs it
// again and answers what app/knowledge and app/file read then.
func userStateAfterUninstall(keep bool) probe {
	return func(t *testing.T, x *harness) string {
		const app = "user-state-app"
		x.configure(nil, nil, "")
		if _, err := x.install(userStateApp(t, "1.0.0"), nil, true); err != nil {
			t.Fatal(err)
		}
		content := "the user's draft"
		x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: "project_knowledge", Pack: "pack-before"}, nil)
		x.must(protocol.MethodFile, protocol.FileParams{AppID: app, Path: "drafts/mine.md", Content: &content}, nil)
		x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: app, KeepData: keep}, nil)
		if _, err := x.install(userStateApp(t, "1.0.0"), nil, true); err != nil {
			t.Fatal(err)
		}
		var k protocol.KnowledgeResult
		x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: "project_knowledge"}, &k)
		var f protocol.FileResult
		x.must(protocol.MethodFile, protocol.FileParams{AppID: app, Path: "drafts/mine.md"}, &f)
		return "pack " + deref(k.Pack) + ", file " + deref(f.Content)
	}
}
