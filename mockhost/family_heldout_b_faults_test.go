//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutBProbes observe the faults of heldOutBFaults (TestEveryFaultChangesTheAnswer).
func heldOutBProbes() map[string]probe {
	newer := func(t *testing.T) string {
		return pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)})
	}
	installed := func(t *testing.T, x *harness) {
		x.configure(nil, nil, "")
		if _, err := x.install(app(t, ""), nil, true); err != nil {
			t.Fatal(err)
		}
	}
	consent := protocol.Consent{Granted: true, By: "user"}
	return map[string]probe{
		// a second package at the same checkUrl, revoked, after a first one was not
		"revocation-cache-by-url": func(t *testing.T, x *harness) string {
			var revoked string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintf(w, `{"revoked": %v}`, r.URL.Query().Get("packageHash") == revoked)
			}))
			t.Cleanup(srv.Close)
			sig := "signature:\n  revocation:\n    checkUrl: " + srv.URL + "/check\n    cacheSeconds: 600\n"
			one := pkg(t, "tiny-app", map[string]string{"app.signature.yaml": sig})
			two := pkg(t, "other-app", map[string]string{"app.signature.yaml": sig, "APP.md": manifest(withDefaults("")) + "\nA second release.\n"})
			p, err := agentpkg.Load(two, agentpkg.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			revoked = p.PackageHash
			x.configure(nil, nil, "2026-06-01T00:00:00Z")
			return fmt.Sprint(x.verify(one, nil).OK, x.verify(two, nil).OK)
		},
		// the version after update, rollback and a second rollback
		"second-rollback-rolls-forward": func(t *testing.T, x *harness) string {
			installed(t, x)
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer(t), Consent: consent}, nil)
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			_ = x.call(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, &protocol.RollbackResult{})
			return raw(x.list())
		},
		// the answer to a capability call whose envelope says version "1"
		"bridge-version-string-accepted": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "2026-06-01T00:00:00Z")
			s := x.mount("open-app", "main")
			m := s.envelope(hostbridge.TypeInvoke, "v-text", map[string]any{"capability": "lime.storage", "method": "set", "args": map[string]any{"key": "k", "value": 1}})
			m["version"] = "1"
			return raw(s.sendRaw(raw(m)))
		},
		// the app center of an entry needing two secrets that are not configured
		"center-shows-first-blocker": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(app(t, "secrets:\n  - key: key_a\n    required: true\n  - key: key_b\n    required: true\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			var c protocol.CenterResult
			x.must(protocol.MethodCenter, nil, &c)
			resp, err := http.Get(c.URL)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			return fmt.Sprint(strings.Count(string(body), "data-blocker="))
		},
		// the turns a task asking for no retries starts for output failing its schema
		"zero-retries-taken-as-default": structuredProbe(0),
		// the run another app is answered when it starts the same workflow with the same key
		"workflow-idempotency-across-apps": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			for _, name := range []string{"tiny-app", "other-app"} {
				m := strings.Replace(manifest(withDefaults(reviewFlowApp)), "name: tiny-app", "name: "+name, 1)
				if _, err := x.install(pkg(t, name, map[string]string{"APP.md": m, "dist/ui/index.html": "<p>flow</p>\n"}), nil, true); err != nil {
					t.Fatal(err)
				}
			}
			a := workflowInvoke(t, x, "tiny-app", "start", map[string]any{"idempotencyKey": "job-1", "input": map[string]any{"doc": "A"}})
			b := workflowInvoke(t, x, "other-app", "start", map[string]any{"idempotencyKey": "job-1", "input": map[string]any{"doc": "B"}})
			return fmt.Sprint(a["runId"] == b["runId"])
		},
		// respond to a run interrupted at its review
		"workflow-review-answered-while-interrupted": func(t *testing.T, x *harness) string {
			id := runAtReview(t, x)
			workflowInvoke(t, x, "tiny-app", "interrupt", map[string]any{"runId": id})
			r := workflowInvoke(t, x, "tiny-app", "respond", map[string]any{"runId": id, "decision": "approve"})
			return fmt.Sprint(r["status"], r["code"])
		},
		// 1.1.0 is enabled for tiny-app 1.0.0; 1.2.0 was enabled and withdrawn
		"app-updates-offers-withdrawn": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			for _, v := range []string{"1.1.0", "1.2.0"} {
				rel := publishApp(t, g, app(t, ""), v, nil)
				g.EnableVersion("t1", rel.AppID, rel.Version)
			}
			g.Withdraw("tiny-app", "1.2.0")
			installPlatformApp(t, x, protocol.ConfigureParams{RegistryURL: g.URL()})
			return platformCall(t, x, "lime.appUpdates", "check", nil)
		},
		// an artifact that quotes the session token inside a list
		"redaction-skips-lists": func(t *testing.T, x *harness) string {
			const token = "canary-listed-token"
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": map[string]any{"artifactId": "a1", "cookies": []any{"sid=" + token}}}})
			appServerFor(t, x, sc, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": token}})
			read := x.mount("tiny-app", "main").invoke("r1", "lime.artifacts", "read", map[string]any{"artifactId": "a1"})
			return fmt.Sprint(strings.Contains(string(read.Payload), token))
		},
		// app/list after an update to a release with a second entry
		"update-keeps-old-registrations": func(t *testing.T, x *harness) string {
			installed(t, x)
			v2 := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1),
				"entries:\n", "entries:\n  - key: extra\n    kind: page\n    title: Extra\n    route: /extra\n", 1)})
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: v2, Consent: consent}, nil)
			return raw(x.list().Apps[0].Registered)
		},
		// the state of a disabled app after app/update
		"update-reenables-disabled-app": func(t *testing.T, x *harness) string {
			installed(t, x)
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer(t), Consent: consent}, nil)
			return raw(x.list())
		},
		// an entry's readiness after the installed copy was edited
		"entry-readiness-skips-integrity": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			r, err := x.install(pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults("")), "dist/ui/index.html": "<p>tiny</p>\n"}), nil, true)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(r.App.InstalledPath, "dist/ui/index.html"), []byte("<p>edited</p>\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			e, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app", Entry: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return e.Status
		},
		// readiness with grants stated for another app only
		"grants-unnamed-app-all-granted": func(t *testing.T, x *harness) string {
			dir := app(t, "permissions:\n  - key: files_rw\n    scope: filesystem\n    access: read-write\n    required: true\n    reason: Save drafts\n")
			x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"other-app": {"files_rw"}}})
			r, err := x.readiness(protocol.ReadinessParams{Path: dir})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
	}
}

// reviewFlowApp is a manifest tail with one entry and a workflow that waits
// at a human review.
const reviewFlowApp = "entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n    workflow: review_flow\n    requiredCapabilities: [lime.workflow]\n" +
	"workflows:\n  - key: review_flow\n    states:\n      - key: begin\n        kind: start\n        next: [check]\n      - key: check\n        kind: human-review\n        next: [finish]\n      - key: finish\n        kind: end\n"

// runAtReview installs tiny-app with review_flow, starts a run and waits
// (at most 5 s) until it waits at its human review; it returns the run id.
func runAtReview(t *testing.T, x *harness) any {
	t.Helper()
	x.configure(nil, nil, "")
	if _, err := x.install(pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(reviewFlowApp)), "dist/ui/index.html": "<p>flow</p>\n"}), nil, true); err != nil {
		t.Fatal(err)
	}
	run := workflowInvoke(t, x, "tiny-app", "start", map[string]any{"input": map[string]any{"doc": "A"}})
	id := run["runId"]
	for deadline := time.Now().Add(5 * time.Second); run["status"] != "waiting" && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		run = workflowInvoke(t, x, "tiny-app", "read", map[string]any{"runId": id})
	}
	return id
}

// workflowInvoke calls lime.workflow method as appId's entry main through
// app/invoke and returns the answer's payload, with its type as "type".
func workflowInvoke(t *testing.T, x *harness, appID, method string, args any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(args)
	var r protocol.InvokeResult
	x.must(protocol.MethodInvoke, protocol.InvokeParams{AppID: appID, EntryKey: "main", RequestID: "r-" + method,
		Capability: "lime.workflow", Method: method, Args: b}, &r)
	var m struct {
		Type    string         `json:"type"`
		Payload map[string]any `json:"payload"`
	}
	if err := json.Unmarshal(r.Answer, &m); err != nil {
		t.Fatal(err)
	}
	if m.Payload == nil {
		m.Payload = map[string]any{}
	}
	m.Payload["type"] = m.Type
	return m.Payload
}
