//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutJProbes observe the faults of heldOutJFaults (TestEveryFaultChangesTheAnswer).
func heldOutJProbes() map[string]probe {
	return map[string]probe{
		// a rollback from 1.1.0, which names rollbackTarget 1.0.1, with
		// 1.0.1 then 1.0.10 installed before it
		"rollback-target-by-prefix": func(t *testing.T, x *harness) string {
			at := func(v string) string {
				return pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: "+v, 1)})
			}
			if _, err := x.install(at("1.0.1"), nil, true); err != nil {
				t.Fatal(err)
			}
			consent := protocol.Consent{Granted: true, By: "user"}
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: at("1.0.10"), Consent: consent}, nil)
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: at("1.1.0"), Consent: consent,
				Release: &protocol.Release{RollbackTarget: "1.0.1"}}, nil)
			var r protocol.RollbackResult
			x.must(protocol.MethodRollback, protocol.RollbackParams{AppID: "tiny-app"}, &r)
			return r.App.Version
		},
		// whether a start keyed JOB-1 is answered with the run keyed job-1
		"workflow-idempotency-key-folded": func(t *testing.T, x *harness) string {
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(reviewFlowApp)), "dist/ui/index.html": "<p>flow</p>\n"}), nil, true); err != nil {
				t.Fatal(err)
			}
			a := workflowInvoke(t, x, "tiny-app", "start", map[string]any{"idempotencyKey": "job-1", "input": map[string]any{"doc": "A"}})
			b := workflowInvoke(t, x, "tiny-app", "start", map[string]any{"idempotencyKey": "JOB-1", "input": map[string]any{"doc": "B"}})
			return fmt.Sprint(a["runId"] == b["runId"])
		},
		// the release an evidence record names whose arguments claim 9.9.9
		"evidence-version-from-app": func(t *testing.T, x *harness) string {
			x.mount("tiny-app", "main").invoke("r1", "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": "r1"}, "version": "9.9.9"})
			var o protocol.ObserveResult
			x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
			return fmt.Sprint(o.Evidence)
		},
		// a start while the app's permission of scope workflow is not granted
		"workflow-permission-unchecked": func(t *testing.T, x *harness) string {
			flow := "permissions:\n  - key: run-workflows\n    scope: workflow\n    access: read-write\n    required: false\n    reason: runs\n" + reviewFlowApp
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(flow)), "dist/ui/index.html": "<p>flow</p>\n"}), nil, true); err != nil {
				t.Fatal(err)
			}
			x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}}})
			return fmt.Sprint(workflowInvoke(t, x, "tiny-app", "start", map[string]any{"input": map[string]any{"doc": "A"}})["type"])
		},
		// a call from an open entry whose required secret was withdrawn
		"call-gate-passes-needs-setup": func(t *testing.T, x *harness) string {
			x.configure(map[string]string{"gate_token": "v"}, nil, "")
			dir := pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(surfaceExtra + "secrets:\n  - key: gate_token\n    required: true\n")), "dist/ui/index.html": surfaceIndex})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			s := x.launchEntry("tiny-app", "main")
			x.configure(nil, nil, "")
			return s.invoke("r1", "lime.ui", "getLocale", nil).Type
		},
		// the answer to a forced login with a cloud session token configured
		"request-login-answers-token": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "tok"}})
			return string(x.mount("tiny-app", "main").invoke("r1", "lime.cloudSession", "requestLogin", map[string]any{"force": true}).Payload)
		},
		// what app/list registers after a rollback from a release with an
		// entry more
		"rollback-keeps-newer-registrations": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			newer := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n  - key: extra\n    kind: page\n    title: Extra\n    route: /extra\n")), "version: 1.0.0", "version: 1.1.0", 1)})
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer, Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
			x.must(protocol.MethodRollback, protocol.RollbackParams{AppID: "tiny-app"}, nil)
			return fmt.Sprint(x.list().Apps[0].Registered)
		},
		// lime.ui getLocale of an app installed after host/reset, the
		// locale having been set to is-IS before it
		"reset-keeps-theme-and-locale": func(t *testing.T, x *harness) string {
			x.must(protocol.MethodSet, protocol.SetParams{Locale: "is-IS"}, nil)
			x.must(protocol.MethodReset, struct{}{}, nil)
			x.configure(nil, nil, "")
			return string(x.mount("tiny-app", "main").invoke("r1", "lime.ui", "getLocale", nil).Payload)
		},
		// the answer app/backend relays for probe/echo, which the probe
		// precedes with a notification and an answer to another id
		"backend-answer-without-id": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			var r protocol.BackendResult
			err := x.call(protocol.MethodBackend, protocol.BackendParams{AppID: "tiny-app", Service: "probe", Method: "probe/echo", Params: json.RawMessage(`{"text": "mine"}`)}, &r)
			return fmt.Sprintf("%s %v", r.Result, err)
		},
		// the App Server's respond to an allow naming web.search, for the
		// approval of a tool the tenant denies
		"approval-tool-named-by-app": approvalDecisionProbe(true, "allow", "web.search"),
		// readiness after the user bound the required slot Gateway_TOKEN
		"secret-binding-key-folded": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, "secrets:\n  - key: Gateway_TOKEN\n    required: true\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "Gateway_TOKEN", Value: "bound"}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return string(r.Status)
		},
	}
}
