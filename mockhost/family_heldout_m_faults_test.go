//go:build !mutation

package mockhost

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutMProbes observe the faults of heldOutMFaults (TestEveryFaultChangesTheAnswer).
func heldOutMProbes() map[string]probe {
	const docs = "knowledgeTemplates:\n  - key: docs\n    standard: agentknowledge\n    type: reference\n" +
		"readiness:\n  required:\n    - check: knowledge_bound\n      template: docs\n"
	return map[string]probe{
		// other-app's readiness once tiny-app, declaring a template of
		// the same key, has a pack bound to it
		"knowledge-bound-across-apps": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			for _, name := range []string{"tiny-app", "other-app"} {
				dir := pkg(t, name, map[string]string{"APP.md": strings.Replace(manifest(withDefaults(docs)), "name: tiny-app", "name: "+name, 1)})
				if _, err := x.install(dir, nil, true); err != nil {
					t.Fatal(err)
				}
			}
			x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: "tiny-app", Template: "docs", Pack: "pack-1"}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "other-app"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// main's status in the app center opened again after policy
		// denied it
		"center-readiness-kept": func(t *testing.T, x *harness) string {
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			page := func() string {
				var r protocol.CenterResult
				x.must(protocol.MethodCenter, nil, &r)
				_, body, _ := (&surface{t: t, client: http.DefaultClient}).get(r.URL)
				return body
			}
			page()
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"main"}}}})
			return fmt.Sprint(strings.Contains(page(), `data-entry-key="main" data-status="ready"`))
		},
		// what one host/set of a theme and a visibility pushes
		"set-pushes-theme-only":      setPushesProbe,
		"set-pushes-visibility-only": setPushesProbe,
		// the entryKey of the snapshot answering a host:getSnapshot whose
		// envelope names tasks, from main
		"snapshot-of-envelope-entry": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			env := s.envelope(hostbridge.TypeGetSnapshot, "snap-1", nil)
			env["entryKey"] = "tasks"
			return fmt.Sprint(payload(t, s.only(s.sendRaw(raw(env))))["entryKey"])
		},
		// app/backend of a method the running backend never answers
		"backend-silence-as-success": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			err := x.call(protocol.MethodBackend, protocol.BackendParams{AppID: "tiny-app", Service: "probe", Method: "probe/silent"}, nil)
			return fmt.Sprint(code(err))
		},
		// which App Server gets the task started after host/configure
		// named a second one
		"appserver-change-keeps-old-connection": func(t *testing.T, x *harness) string {
			first := appServerFor(t, x, nil, protocol.ConfigureParams{})
			s := x.mount("tiny-app", "main")
			s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "idempotencyKey": "k1"})
			second := appServerFor(t, x, nil, protocol.ConfigureParams{})
			s.invoke("r2", "lime.agent", "startTask", map[string]any{"input": "y", "idempotencyKey": "k2"})
			starts := func(as *appserver.Server) int {
				n := 0
				for _, m := range as.Messages() {
					if m.Dir == appserver.FromHost && m.Method == appserver.MethodSessionStart {
						n++
					}
				}
				return n
			}
			return fmt.Sprintf("first %d, second %d", starts(first), starts(second))
		},
		// the row of pay, which needs lime.billing, in the whole app's
		// readiness while the quota is exhausted
		"billing-gate-per-entry-only": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Billing: &protocol.Billing{Plan: "team", Quota: protocol.QuotaExhausted}})
			dir := app(t, "entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n"+
				"  - key: pay\n    kind: page\n    title: Pay\n    route: /pay\n    requiredCapabilities: [lime.billing]\n")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			all, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(all.Entries)
		},
		// whether two apps declaring one storage namespace launch on one
		// origin
		"frame-partition-by-namespace": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			var origins []string
			for _, name := range []string{"tiny-app", "other-app"} {
				dir := pkg(t, name, map[string]string{
					"APP.md":             strings.Replace(manifest(withDefaults(surfaceExtra+"storage:\n  namespace: notes\n")), "name: tiny-app", "name: "+name, 1),
					"dist/ui/index.html": surfaceIndex,
				})
				if _, err := x.install(dir, nil, true); err != nil {
					t.Fatal(err)
				}
				origins = append(origins, x.launchEntry(name, "main").res.RuntimeOrigin)
			}
			return fmt.Sprint(origins[0] == origins[1])
		},
		// whether the artifact body reached the collector when the app's
		// read asked captureContent
		"telemetry-app-asks-content": func(t *testing.T, x *harness) string {
			var body strings.Builder
			for _, e := range telemetryExportsReading(t, x, map[string]any{"artifactId": "a1", "captureContent": true}) {
				body.Write(e.Body)
			}
			return fmt.Sprint(strings.Contains(body.String(), "planted-body"))
		},
	}
}

// setPushesProbe lists the types host/set pushes to a mounted app when it
// changes the theme and the visibility at once.
func setPushesProbe(t *testing.T, x *harness) string {
	x.configure(nil, nil, "")
	s := x.mount("tiny-app", "main")
	ch := s.events()
	x.must(protocol.MethodSet, protocol.SetParams{Theme: &protocol.Theme{Mode: "dark"}, Visibility: "hidden"}, nil)
	var seen []string
	for m := next(ch, 2*time.Second); m.Type != ""; m = next(ch, 500*time.Millisecond) {
		seen = append(seen, m.Type)
	}
	return strings.Join(seen, ",")
}
