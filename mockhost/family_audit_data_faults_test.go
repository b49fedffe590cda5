//go:build !mutation

package mockhost

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// dataAuditProbes answer, per fault of dataAuditFaults, the call whose
// answer the fault changes.
func dataAuditProbes() map[string]probe {
	return map[string]probe{
		"disable-by-prefix": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.mount("app-a-b", "main")
			return appState(x, protocol.MethodDisable, "app-a")
		},
		"secret-bindings-dropped-by-prefix": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			slot := "secrets:\n  - key: provider_api_key\n    required: true\n    description: Provider key\n"
			for _, name := range []string{"tiny-app", "tiny-app-b"} {
				dir := pkg(t, name, map[string]string{"APP.md": strings.Replace(manifest(withDefaults(slot)), "name: tiny-app", "name: "+name, 1)})
				if _, err := x.install(dir, nil, true); err != nil {
					t.Fatal(err)
				}
				x.must(protocol.MethodSecret, protocol.SecretParams{AppID: name, Key: "provider_api_key", Value: "v"}, nil)
			}
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app-b"})
			return fmt.Sprint(r.Status, err)
		},
		"outputs-dropped-by-prefix": artifactsAfter(func(t *testing.T, x *harness) {
			dir := fixtureCopy(t, "workflow-app", "name: workflow-app", "name: workflow")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "workflow"}, nil)
		}),
		"storage-list-by-prefix": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "in-w1", "a")
			x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "t1", WorkspaceID: "w", UserID: "u1"}, nil)
			return string(x.launchEntry("app-a", "main").invoke("l", "lime.storage", "list", nil).Payload)
		},
		"export-by-prefix": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "k", "value-of-a")
			storageSet(x.mount("app-a-b", "main"), "k", "value-of-a-b")
			var r protocol.UninstallResult
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "app-a", ExportTo: filepath.Join(t.TempDir(), "export")}, &r)
			held := false
			for _, f := range r.Exported {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				held = held || strings.Contains(string(b), "value-of-a-b")
			}
			return fmt.Sprint(len(r.Exported), held)
		},
		"cloud-session-carries-other-token": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "canary-cloud", "refresh": "canary-refresh"}})
			return platformCall(t, x, "lime.cloudSession", "getSnapshot", nil)
		},
		"branding-without-shell-copy": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{Branding: &protocol.Branding{Name: "OEM", ShellCopy: "OEM copy"}})
			return platformCall(t, x, "lime.branding", "get", nil)
		},
	}
}
