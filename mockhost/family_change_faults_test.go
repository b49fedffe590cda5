//go:build !mutation

package mockhost

import (
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// changeAndTransitionProbes observe the faults of this family (TestEveryFaultChangesTheAnswer).
func changeAndTransitionProbes() map[string]probe {
	return map[string]probe{
		// a second configure naming no capability brings back the hello profile
		"configure-merges-capabilities": func(t *testing.T, x *harness) string {
			dir := app(t, "requires:\n  capabilities:\n    lime.ui: current\n    lime.storage: current\n")
			x.configure(nil, map[string]protocol.Capability{"lime.storage": {Version: "0.10.0", Enabled: false}}, "2026-06-01T00:00:00Z")
			x.configure(nil, nil, "2026-06-01T00:00:00Z")
			r, err := x.readiness(protocol.ReadinessParams{Path: dir})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status + " " + raw(r.Blockers)
		},
		// a slot bound before host/reset does not count for the app installed after it
		"reset-keeps-secret-bindings": func(t *testing.T, x *harness) string {
			dir := app(t, "secrets:\n  - key: provider_api_key\n    required: true\n    description: Provider key\n")
			x.configure(nil, nil, "2026-06-01T00:00:00Z")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_api_key", Value: "canary-00112233445566778899aabbccddeeff"}, nil)
			x.must(protocol.MethodReset, nil, nil)
			x.configure(nil, nil, "2026-06-01T00:00:00Z")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		// the open surface of an app disabled since it mounted
		"surface-readiness-cached-at-mount": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "2026-06-01T00:00:00Z")
			s := x.mount("open-app", "main")
			first := s.invoke("r0", "lime.storage", "set", map[string]any{"key": "k", "value": 1})
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "open-app"}, nil)
			m := s.invoke("r1", "lime.storage", "set", map[string]any{"key": "k", "value": 2})
			return first.Type + " " + m.Type
		},
		// registry/list, then the registry withdraws the release, then app/install of it
		"install-from-listed-bootstrap": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			rel := publishApp(t, g, app(t, ""), "1.0.0", nil)
			g.EnableVersion("t1", rel.AppID, rel.Version)
			x.configureWith(protocol.ConfigureParams{Clock: "2026-06-01T00:00:00Z", RegistryURL: g.URL()})
			var l protocol.RegistryListResult
			x.must(protocol.MethodRegistryList, nil, &l)
			g.Withdraw(rel.AppID, rel.Version)
			err := x.call(protocol.MethodInstall, protocol.InstallParams{Source: &protocol.Source{AppID: rel.AppID, Version: rel.Version},
				Consent: protocol.Consent{Granted: true, By: "user"}}, &protocol.InstallResult{})
			return raw(l.Releases) + " " + errString(err)
		},
	}
}

// errString is err's text, or "ok" for none.
func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}
