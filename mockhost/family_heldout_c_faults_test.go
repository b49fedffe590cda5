//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutCProbes observe the faults of heldOutCFaults (TestEveryFaultChangesTheAnswer).
func heldOutCProbes() map[string]probe {
	consent := protocol.Consent{Granted: true, By: "user"}
	installed := func(t *testing.T, x *harness, extra string) {
		x.configure(nil, nil, "")
		if _, err := x.install(app(t, extra), nil, true); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(x *harness, method string, params any) string {
		if err := x.call(method, params, nil); err != nil {
			return err.Error()
		}
		return "ok"
	}
	return map[string]probe{
		// app/update of tiny-app with a package of tiny-app-pro
		"update-identity-by-prefix": func(t *testing.T, x *harness) string {
			installed(t, x, "")
			other := pkg(t, "tiny-app-pro", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "name: tiny-app\n", "name: tiny-app-pro\n", 1)})
			return answer(x, protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: other, Consent: consent})
		},
		// the state of an app updated, disabled, then rolled back
		"rollback-reenables-disabled": func(t *testing.T, x *harness) string {
			installed(t, x, "")
			newer := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)})
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer, Consent: consent}, nil)
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			return x.list().Apps[0].State
		},
		// app/disable of TINY-APP
		"state-change-id-case-folded": func(t *testing.T, x *harness) string {
			installed(t, x, "")
			return answer(x, protocol.MethodDisable, protocol.AppIDParams{AppID: "TINY-APP"}) + " " + x.list().Apps[0].State
		},
		// app/secret of PROVIDER_API_KEY for the slot provider_api_key
		"secret-slot-case-folded": func(t *testing.T, x *harness) string {
			installed(t, x, "secrets:\n  - key: provider_api_key\n    required: true\n")
			return answer(x, protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "PROVIDER_API_KEY", Value: "v"})
		},
		// app/overlay of Workspace_Rules for the template workspace_rules
		"overlay-key-case-folded": func(t *testing.T, x *harness) string {
			installed(t, x, "overlayTemplates:\n  - key: workspace_rules\n    scope: workspace\n")
			return answer(x, protocol.MethodOverlay, protocol.OverlayParams{AppID: "tiny-app", Key: "Workspace_Rules", Scope: "workspace",
				Values: map[string]json.RawMessage{"tone": json.RawMessage(`"formal"`)}})
		},
		// a message from tiny-app's frame naming TINY-APP
		"bridge-appid-case-folded": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			env := s.envelope(hostbridge.TypeInvoke, "c13", map[string]any{"capability": "lime.ui", "method": "getLocale"})
			env["appId"] = "TINY-APP"
			return s.only(s.sendRaw(raw(env))).Type
		},
		// signal to a run waiting at its human review
		"workflow-signal-passes-review": func(t *testing.T, x *harness) string {
			id := runAtReview(t, x)
			r := workflowInvoke(t, x, "tiny-app", "signal", map[string]any{"runId": id})
			return fmt.Sprint(r["type"], r["code"])
		},
		// tiny-app resumes a session other-app started in the same workspace
		"agent-resume-other-app-session": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			as.Script().Seed(appserver.Session{SessionID: "of-other-app", AppID: "other-app", WorkspaceID: "w1"})
			s := x.mount("tiny-app", "main")
			return s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "sessionId": "of-other-app"}).Type
		},
	}
}
