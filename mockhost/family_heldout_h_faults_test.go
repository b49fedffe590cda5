//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutHProbes observe the faults of heldOutHFaults (TestEveryFaultChangesTheAnswer).
func heldOutHProbes() map[string]probe {
	return map[string]probe{
		// lime.storage set with the storage permission that reads granted
		// and the one that writes not
		"permission-scope-covers-access": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {"storage_read"}}})
			dir := pkg(t, "tiny-app", map[string]string{
				"APP.md": manifest(withDefaults("requires:\n  capabilities:\n    lime.ui: current\n    lime.storage: current\n" +
					"permissions:\n  - key: storage_read\n    scope: storage\n    access: read\n    reason: Read notes.\n" +
					"  - key: storage_write\n    scope: storage\n    access: write\n    reason: Save notes.\n")),
				"dist/ui/index.html": "<!doctype html><title>tiny</title>",
			})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			var r protocol.InvokeResult
			x.must(protocol.MethodInvoke, map[string]any{"appId": "tiny-app", "entryKey": "main", "requestId": "w1",
				"capability": "lime.storage", "method": "set", "args": map[string]any{"key": "k", "value": "v"}}, &r)
			return string(r.Answer)
		},
		// readiness of an app requiring a secret after a configuration
		// naming none follows one naming it
		"configure-keeps-secrets": func(t *testing.T, x *harness) string {
			dir := app(t, "secrets:\n  - key: provider_api_key\n    provider: generic-llm\n    required: true\n    scope: workspace\n")
			x.configure(map[string]string{"provider_api_key": "canary-0123456789abcdef0123456789abcdef"}, nil, "")
			x.configure(nil, nil, "")
			r, err := x.readiness(protocol.ReadinessParams{Path: dir})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// what the export of an app holds after it stored a value in each
		// of two workspaces
		"export-current-workspace-only": func(t *testing.T, x *harness) string {
			dir := pkg(t, "tiny-app", map[string]string{
				"APP.md":             manifest(withDefaults("requires:\n  capabilities:\n    lime.ui: current\n    lime.storage: current\n")),
				"dist/ui/index.html": "<!doctype html><title>tiny</title>",
			})
			set := func(workspace, value string) {
				x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "t1", WorkspaceID: workspace, UserID: "u1"}, nil)
				var r protocol.InvokeResult
				x.must(protocol.MethodInvoke, map[string]any{"appId": "tiny-app", "entryKey": "main", "requestId": "set-" + workspace,
					"capability": "lime.storage", "method": "set", "args": map[string]any{"key": "note", "value": value}}, &r)
			}
			x.configureWith(protocol.ConfigureParams{})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			set("w1", "stored-in-workspace-one")
			set("w2", "stored-in-workspace-two")
			var u protocol.UninstallResult
			x.must(protocol.MethodUninstall, map[string]any{"appId": "tiny-app", "keepData": false, "exportTo": t.TempDir()}, &u)
			var held []string
			for _, f := range u.Exported {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range []string{"stored-in-workspace-one", "stored-in-workspace-two"} {
					if strings.Contains(string(b), v) {
						held = append(held, v)
					}
				}
			}
			return strings.Join(held, " ")
		},
		// app/evals of a regression eval with threshold 0 whose one case
		// does not hold
		"eval-zero-threshold-ignored": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			dir := pkg(t, "tiny-app", map[string]string{
				"APP.md": manifest("manifestVersion: 0.10.0\n" +
					"requires:\n  capabilities:\n    lime.ui: current\n    lime.workflow: current\n" +
					"entries:\n  - key: main\n    kind: workflow\n    title: Flow\n    route: /main\n    workflow: quick_flow\n    requiredCapabilities: [lime.ui, lime.workflow]\n" +
					"workflows:\n  - key: quick_flow\n    states:\n      - key: begin\n        kind: start\n        next: done\n      - key: done\n        kind: end\n" +
					"evals:\n  - key: lenient\n    kind: regression\n    workflow: quick_flow\n    threshold: 0\n    cases:\n      - key: expects-a-failure\n        input: {}\n        expect: failed\n"),
				"dist/ui/index.html": "<!doctype html><title>tiny</title>",
			})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			var r protocol.EvalsResult
			x.must(protocol.MethodEvals, map[string]any{"appId": "tiny-app"}, &r)
			return fmt.Sprintf("%+v", r.Evals)
		},
		// app/enable of an app uninstalled with its data kept
		"state-change-retained-app": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			x.must(protocol.MethodUninstall, map[string]any{"appId": "tiny-app", "keepData": true}, nil)
			var r protocol.AppStateResult
			err := x.call(protocol.MethodEnable, map[string]any{"appId": "tiny-app"}, &r)
			return fmt.Sprintf("%v %+v", err, r)
		},
		// app/list's name of an app in its locale after an update to a
		// release naming it otherwise
		"update-keeps-localized-names": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Locale: "zh-CN"})
			v1 := app(t, "displayNameI18n:\n  zh-CN: Old Name\n")
			v2 := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("displayNameI18n:\n  zh-CN: New Name\n")), "version: 1.0.0", "version: 1.1.0", 1)})
			if _, err := x.install(v1, nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodUpdate, map[string]any{"appId": "tiny-app", "path": v2, "consent": map[string]any{"granted": true, "by": "user"}}, nil)
			return fmt.Sprintf("%+v", x.list().Apps)
		},
		// lime.evidence export whose args name another app: the appId
		// evidence/export was asked for
		"projection-app-from-args": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			x.mount("tiny-app", "main").invoke("r1", "lime.evidence", "export", map[string]any{"appId": "other-app"})
			return paramsOf(as.Messages(), appserver.MethodEvidence)
		},
		// startTask resuming a session whose agentSession/read answer
		// states no workspace
		"agent-resume-unstated-workspace": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			as.Script().SeedAnswer("unstated", map[string]any{"sessionId": "unstated", "appId": "tiny-app"})
			return x.mount("tiny-app", "main").invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "sessionId": "unstated"}).Type
		},
		// an artifact that quotes the session token as a member name
		"redaction-skips-member-names": func(t *testing.T, x *harness) string {
			const token = "canary-keyed-token"
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": map[string]any{"artifactId": "a1",
				"request": map[string]any{"headers": map[string]any{"Bearer " + token: "authorization"}}}}})
			appServerFor(t, x, sc, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": token}})
			read := x.mount("tiny-app", "main").invoke("r1", "lime.artifacts", "read", map[string]any{"artifactId": "a1"})
			return fmt.Sprint(strings.Contains(string(read.Payload), token))
		},
	}
}
