//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutKProbes observe the faults of heldOutKFaults (TestEveryFaultChangesTheAnswer).
func heldOutKProbes() map[string]probe {
	return map[string]probe{
		// readiness of a package requiring a secret in the folder beside
		// the installed tiny-app whose name extends its own
		"readiness-path-by-prefix": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			dir := app(t, "")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			next := dir + "-next"
			if err := os.MkdirAll(next, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(next, "APP.md"), []byte(manifest(withDefaults("secrets:\n  - key: k04_key\n    required: true\n"))), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := x.readiness(protocol.ReadinessParams{Path: next})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// host:navigate to "/\t/evil.example/x"
		"navigate-route-controls-kept": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			return s.only(s.send(hostbridge.TypeNavigate, "n1", map[string]any{"route": "/\t/evil.example/x"})).Type
		},
		// what beta-app reads of the key alpha-app set, both declaring
		// the storage namespace shared-notes
		"storage-bucket-by-declared-namespace": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			for _, name := range []string{"alpha-app", "beta-app"} {
				dir := pkg(t, name, map[string]string{
					"APP.md":             strings.Replace(manifest(withDefaults(surfaceExtra+"storage:\n  namespace: shared-notes\n")), "name: tiny-app", "name: "+name, 1),
					"dist/ui/index.html": surfaceIndex,
				})
				if _, err := x.install(dir, nil, true); err != nil {
					t.Fatal(err)
				}
			}
			x.launchEntry("alpha-app", "main").invoke("r1", "lime.storage", "set", map[string]any{"key": "note", "value": "alpha's note"})
			return string(x.launchEntry("beta-app", "main").invoke("r2", "lime.storage", "get", map[string]any{"key": "note"}).Payload)
		},
		// a start with count 1 after an update raised typed inputs'
		// minimum from 1 to 2
		"workflow-inputs-cached-by-key": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			at := func(version string, min int) string {
				flow := "requires:\n  capabilities:\n    lime.ui: current\n    lime.workflow: current\n" +
					"workflows:\n  - key: typed\n    inputs:\n      type: object\n      properties:\n        count:\n          type: integer\n" +
					fmt.Sprintf("          minimum: %d\n", min) +
					"    states:\n      - key: begin\n        kind: start\n        next: finish\n      - key: finish\n        kind: end\n"
				return pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults(flow)), "version: 1.0.0", "version: "+version, 1), "dist/ui/index.html": "<p>flow</p>\n"})
			}
			if _, err := x.install(at("1.0.0", 1), nil, true); err != nil {
				t.Fatal(err)
			}
			start := map[string]any{"workflowKey": "typed", "input": map[string]any{"count": 1}}
			workflowInvoke(t, x, "tiny-app", "start", start)
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: at("1.1.0", 2), Consent: protocol.Consent{Granted: true, By: "user", Migrations: true}}, nil)
			return fmt.Sprint(workflowInvoke(t, x, "tiny-app", "start", start)["type"])
		},
		// lime.appUpdates check of the installed 1.0.0, its arguments
		// claiming 1.1.0, while the registry enables 1.1.0
		"app-updates-version-from-app": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			v2 := publishApp(t, g, app(t, ""), "1.1.0", nil)
			g.EnableVersion("t1", v2.AppID, v2.Version)
			installPlatformApp(t, x, protocol.ConfigureParams{RegistryURL: g.URL()})
			return platformCall(t, x, "lime.appUpdates", "check", map[string]any{"currentVersion": "1.1.0"})
		},
	}
}
