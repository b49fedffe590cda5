//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutDProbes observe the faults of heldOutDFaults (TestEveryFaultChangesTheAnswer).
func heldOutDProbes() map[string]probe {
	return map[string]probe{
		// readiness of an app past its endOfLifeAt by a clock, then configured with none
		"configure-keeps-clock": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Clock: "2031-01-01T00:00:00Z"})
			x.configure(nil, nil, "")
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, "endOfLifeAt: 2030-01-01T00:00:00Z\n")})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// verification of a package requiring lime.ui >=0.10.0 with lime.ui offered at version ""
		"empty-version-keeps-hello": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Capabilities: map[string]protocol.Capability{"lime.ui": {Version: "", Enabled: true}}})
			var v protocol.VerifyResult
			err := x.call(protocol.MethodVerify, protocol.PackageParams{Path: app(t, "requires:\n  capabilities:\n    lime.ui: \">=0.10.0\"\n")}, &v)
			return fmt.Sprint(v.OK, err)
		},
		// app/rollback of a never-updated app
		"rollback-noop-ok": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			return fmt.Sprint(x.call(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, nil))
		},
		// lime.workflow start of typed_flow with no input
		"workflow-absent-input-unchecked": func(t *testing.T, x *harness) string {
			d := newWorkflowDriver(t, x, nil, nil)
			m := d.call("start", map[string]any{"workflowKey": "typed_flow"})
			return m.Type
		},
		// startTask while the App Server is silent at agentSession/turn/start
		"agent-turn-timeout-taken-as-started": func(t *testing.T, x *harness) string {
			sc := appserver.NewScript()
			sc.SilentOn = appserver.MethodTurnStart
			appServerFor(t, x, sc, protocol.ConfigureParams{Timeouts: &protocol.PeerTimeouts{AppServerMs: 200}})
			return x.mount("tiny-app", "main").invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"}).Type
		},
		// host:navigate to entry main with a scheme-relative route
		"navigate-route-unchecked-with-entry": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			m := s.only(s.send(hostbridge.TypeNavigate, "n1", map[string]any{"entryKey": "main", "route": "//evil.example/x"}))
			return m.Type
		},
		// a capability:invoke of protocol lime.agentApp.bridge_2
		"bridge-protocol-by-prefix": sendProbe(hostbridge.TypeInvoke, map[string]any{"capability": "lime.ui", "method": "getLocale"},
			map[string]any{"protocol": hostbridge.Protocol + "_2"}),
		// lime.secrets status of a slot bound with app/secret
		"secret-status-ignores-binding": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(app(t, "secrets:\n  - key: provider_api_key\n    required: true\nrequires:\n  capabilities:\n    lime.secrets: current\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_api_key", Value: "v"}, nil)
			m := x.mount("tiny-app", "main").invoke("r1", "lime.secrets", "status", map[string]any{"key": "provider_api_key"})
			return string(m.Payload)
		},
		// the projection of a package with a secret slot, the slot's secret configured
		"projection-marks-configured-secrets": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Secrets: map[string]string{"provider_api_key": "v"}})
			var r json.RawMessage
			x.must(protocol.MethodProject, protocol.PackageParams{Path: app(t, "secrets:\n  - key: provider_api_key\n    required: true\n")}, &r)
			return string(r)
		},
		// app/install by channel stable, whose one release is withdrawn
		"withdrawn-installed-by-channel": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			rel := publishApp(t, g, app(t, ""), "1.0.0", nil)
			g.Pin(rel.AppID, "stable", rel.Version)
			g.EnableChannel("t1", rel.AppID, "stable")
			g.Withdraw(rel.AppID, rel.Version)
			x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
			return installSource(x, protocol.Source{AppID: "tiny-app", Channel: "stable"})
		},
		// app/file of drafts\plan.md
		"workspace-path-backslash": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			content := "c"
			return fmt.Sprint(x.call(protocol.MethodFile, protocol.FileParams{AppID: "tiny-app", Path: `drafts\plan.md`, Content: &content}, nil))
		},
	}
}
