//go:build !mutation

package mockhost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
)

// installAuditProbes answer, per fault of installAuditFaults, the call whose
// answer the fault changes.
func installAuditProbes() map[string]probe {
	return map[string]probe{
		"consent-by-named-party": func(t *testing.T, x *harness) string {
			err := x.call(protocol.MethodInstall, protocol.InstallParams{Path: app(t, ""),
				Consent: protocol.Consent{Granted: false, By: "workspace"}}, nil)
			return fmt.Sprint(code(err), len(x.list().Apps))
		},
		"policy-denies-by-prefix": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedApps: []string{"tiny"}}})
			_, err := x.install(app(t, ""), nil, true)
			return fmt.Sprint(code(err))
		},
		"channel-install-downloads-first": registryProbe(func(g *registry.Registry, _, v2 registry.Release) {
			g.Pin(v2.AppID, "beta", v2.Version)
			g.EnableChannel("t1", v2.AppID, "beta")
		}, func(_ *testing.T, x *harness, g *registry.Registry) string {
			out := installSource(x, protocol.Source{AppID: "tiny-app", Channel: "beta"})
			return fmt.Sprintf("%s fetched=%d", out, len(g.Requests(registry.PackagePath("tiny-app", "1.1.0"))))
		}),
		"projection-services-carry-session": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "canary-session"}})
			dir := app(t, "services:\n  - key: api\n    kind: app-backend\n    executionPlane: client-local\n    protocol: stdio-jsonrpc\n    command: bin/api\n")
			return fmt.Sprint(strings.Contains(x.projectRaw(dir), "canary-session"))
		},
	}
}
