//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutLProbes observe the faults of heldOutLFaults (TestEveryFaultChangesTheAnswer).
func heldOutLProbes() map[string]probe {
	const slot = "secrets:\n  - key: provider_api_key\n    required: true\n"
	consent := protocol.Consent{Granted: true, By: "user"}
	newer := strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)
	return map[string]probe{
		// beta-app's readiness once alpha-app, declaring a slot of the
		// same name, has it bound
		"secret-binding-by-slot-name": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			for _, name := range []string{"alpha-app", "beta-app"} {
				dir := pkg(t, name, map[string]string{"APP.md": strings.Replace(manifest(withDefaults(slot)), "name: tiny-app", "name: "+name, 1)})
				if _, err := x.install(dir, nil, true); err != nil {
					t.Fatal(err)
				}
			}
			x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "alpha-app", Key: "provider_api_key", Value: "bound-to-alpha"}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "beta-app"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// readiness of an app with its secret bound, after disable and enable
		"disable-drops-secret-bindings": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(app(t, slot), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_api_key", Value: "bound"}, nil)
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			x.must(protocol.MethodEnable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// a call from main, which policy now denies, whose envelope names
		// the ready entry tasks
		"call-gate-reads-envelope-entry": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"main"}}}})
			env := s.envelope(hostbridge.TypeInvoke, "l08", map[string]any{"capability": "lime.storage", "method": "get", "args": map[string]any{"key": "k"}})
			env["entryKey"] = "tasks"
			return s.only(s.sendRaw(raw(env))).Type
		},
		// app/update to a newer release the revocation service says is
		// revoked (1.0.0 was not, when it was installed)
		"revocation-skipped-for-installed-app": func(t *testing.T, x *harness) string {
			var revoked atomic.Bool
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"revoked": %v}`, revoked.Load())
			}))
			t.Cleanup(srv.Close)
			x.configure(nil, nil, "")
			sig := "signature:\n  revocation:\n    checkUrl: " + srv.URL + "/check\n    cacheSeconds: 0\n"
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{"app.signature.yaml": sig}), nil, true); err != nil {
				t.Fatal(err)
			}
			revoked.Store(true)
			err := x.call(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Consent: consent,
				Path: pkg(t, "tiny-app", map[string]string{"app.signature.yaml": sig, "APP.md": newer})}, nil)
			return map[bool]string{true: "refused", false: "updated"}[err != nil]
		},
		// app/rollback after an update, an uninstall keeping data and a
		// reinstall of the newer release
		"reinstall-keeps-release-history": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: pkg(t, "tiny-app", map[string]string{"APP.md": newer}), Consent: consent}, nil)
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: true}, nil)
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{"APP.md": newer}), nil, true); err != nil {
				t.Fatal(err)
			}
			err := x.call(protocol.MethodRollback, protocol.RollbackParams{AppID: "tiny-app"}, nil)
			return map[bool]string{true: "refused", false: "rolled back"}[err != nil]
		},
		// whether host/observe of tiny-app shows what tiny-app-pro recorded
		"evidence-listed-by-app-prefix": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			for _, name := range []string{"tiny-app", "tiny-app-pro"} {
				if _, err := x.install(surfaceApp(t, name), nil, true); err != nil {
					t.Fatal(err)
				}
			}
			x.must(protocol.MethodInvoke, protocol.InvokeParams{AppID: "tiny-app-pro", EntryKey: "main", RequestID: "l19-pro",
				Capability: "lime.evidence", Method: "record", Args: json.RawMessage(`{"subject":"pro-only"}`)}, &protocol.InvokeResult{})
			var o protocol.ObserveResult
			x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
			return fmt.Sprint(len(o.Evidence))
		},
		// whether export then delete holds a number the app stored
		"export-drops-non-text-values": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			s.invoke("l14", "lime.storage", "set", map[string]any{"key": "count", "value": 424242})
			var u protocol.UninstallResult
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", ExportTo: t.TempDir()}, &u)
			var all strings.Builder
			for _, f := range u.Exported {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				all.Write(b)
			}
			return map[bool]string{true: "exported", false: "left out"}[strings.Contains(all.String(), "424242")]
		},
	}
}
