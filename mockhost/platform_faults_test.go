//go:build !mutation

package mockhost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
)

// platformApp is tiny-app declaring the Desktop P3 capabilities, with a
// brand of its own and an entry (paid) that needs lime.billing.
const platformApp = "manifestVersion: 0.10.0\n" +
	"requires:\n  capabilities:\n    lime.ui: current\n    lime.modelSettings: current\n    lime.cloudSession: current\n" +
	"    lime.branding: current\n    lime.billing: current\n    lime.appUpdates: current\n    lime.evidence: current\n" +
	"install:\n  branding:\n    name: Tiny Own Brand\n" +
	"runtimePackage:\n  ui:\n    path: ./dist/ui\n    entry: index.html\n    format: static\n" +
	"entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n    requiredCapabilities: [lime.ui]\n" +
	"  - key: paid\n    kind: page\n    title: Paid\n    route: /paid\n    requiredCapabilities: [lime.ui, lime.billing]\n"

// installPlatformApp configures the host with p and installs platformApp.
func installPlatformApp(t *testing.T, x *harness, p protocol.ConfigureParams) {
	t.Helper()
	x.configureWith(p)
	dir := pkg(t, "tiny-app", map[string]string{"APP.md": manifest(platformApp), "dist/ui/index.html": "<!doctype html><p>tiny</p>\n"})
	if _, err := x.install(dir, nil, true); err != nil {
		t.Fatal(err)
	}
}

// platformCall calls capability.method as tiny-app's main entry through
// app/invoke and reports the bridge answer's type and payload.
func platformCall(t *testing.T, x *harness, capability, method string, args any) string {
	t.Helper()
	raw, _ := json.Marshal(args)
	var r protocol.InvokeResult
	if err := x.call(protocol.MethodInvoke, protocol.InvokeParams{AppID: "tiny-app", EntryKey: "main", RequestID: "r1",
		Capability: capability, Method: method, Args: raw}, &r); err != nil {
		t.Fatal(err)
	}
	var m hostbridge.Message
	if err := json.Unmarshal(r.Answer, &m); err != nil {
		t.Fatal(err)
	}
	return m.Type + " " + string(m.Payload)
}

// updatesProbe publishes tiny-app 1.1.0 for tenant t1, installs 1.0.0 and
// reports lime.appUpdates check, with the registry down when down is set.
func updatesProbe(down bool) probe {
	return func(t *testing.T, x *harness) string {
		g := startRegistry(t)
		v2 := publishApp(t, g, app(t, ""), "1.1.0", nil)
		g.EnableVersion("t1", v2.AppID, v2.Version)
		installPlatformApp(t, x, protocol.ConfigureParams{RegistryURL: g.URL()})
		if down {
			g.SetMode(registry.Down)
		}
		return platformCall(t, x, "lime.appUpdates", "check", nil)
	}
}

func platformProbes() map[string]probe {
	billing := func(quota string) protocol.ConfigureParams {
		return protocol.ConfigureParams{Billing: &protocol.Billing{Plan: "team", Quota: quota, Ledger: "ledger-canary", PaymentCredential: "card-canary"}}
	}
	return map[string]probe{
		"model-settings-expose-provider-key": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{ModelSettings: &protocol.ModelSettings{Profile: "balanced", ProviderKey: "key-canary", Routing: "routing-canary"}})
			return platformCall(t, x, "lime.modelSettings", "get", nil)
		},
		"model-settings-app-writable": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{ModelSettings: &protocol.ModelSettings{Profile: "balanced"}})
			set := platformCall(t, x, "lime.modelSettings", "set", map[string]any{"profile": "app-profile"})
			return set + " | " + platformCall(t, x, "lime.modelSettings", "get", nil)
		},
		"branding-from-package": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{Branding: &protocol.Branding{Name: "OEM"}})
			return platformCall(t, x, "lime.branding", "get", nil)
		},
		"billing-ledger-in-answer": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, billing(protocol.QuotaOK))
			return platformCall(t, x, "lime.billing", "getStatus", nil)
		},
		"billing-ignores-quota": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, billing(protocol.QuotaExhausted))
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app", Entry: "paid"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status + " " + raw(r.Blockers)
		},
		"evidence-record-dropped": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{})
			answer := platformCall(t, x, "lime.evidence", "record", map[string]any{"subject": "s1"})
			var o protocol.ObserveResult
			x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
			return answer + " " + raw(o.Evidence)
		},
		"holds-no-platform-credentials": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "session-canary"},
				ModelSettings: &protocol.ModelSettings{Profile: "balanced", ProviderKey: "key-canary", Routing: "routing-canary"},
				Billing:       &protocol.Billing{Plan: "team", Quota: protocol.QuotaOK, Ledger: "ledger-canary", PaymentCredential: "card-canary"}})
			var o protocol.ObserveResult
			x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
			return raw(o.Holds)
		},
		"jit-token-absent":             jitProbe,
		"jit-token-other-session":      jitProbe,
		"jit-token-cached":             jitProbe,
		"forced-login-refused":         jitProbe,
		"jit-token-in-snapshot-after":  jitProbe,
		"jit-token-in-app-config":      jitProbe,
		"app-updates-ignores-registry": updatesProbe(false),
		"app-updates-fabricated":       updatesProbe(true),
	}
}

// jitProbe fetches tiny-app's just-in-time token twice, the session's
// token changed between, with a forced login after, and reports every
// answer, the snapshot and the app's overlay after.
func jitProbe(t *testing.T, x *harness) string {
	p := protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "tok-1", "cloud-admin": "tok-admin"}}
	installPlatformApp(t, x, p)
	out := []string{platformCall(t, x, "lime.cloudSession", x.h.accessTokenMethod(), nil)}
	p.SessionTokens = map[string]string{"cloud": "tok-2", "cloud-admin": "tok-admin"}
	x.configureWith(p)
	out = append(out, platformCall(t, x, "lime.cloudSession", x.h.accessTokenMethod(), nil),
		platformCall(t, x, "lime.cloudSession", "requestLogin", map[string]any{"force": true}),
		platformCall(t, x, "lime.cloudSession", "getSnapshot", nil))
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
	return strings.Join(append(out, raw(o.Overlay)), " | ")
}

// TestPlatformCapabilities checks the clean host's Desktop P3 answers.
func TestPlatformCapabilities(t *testing.T) {
	x := start(t)
	installPlatformApp(t, x, protocol.ConfigureParams{
		ModelSettings: &protocol.ModelSettings{Profile: "balanced", ProviderKey: "key-canary", Routing: "routing-canary"},
		Branding:      &protocol.Branding{Name: "OEM"},
		Billing:       &protocol.Billing{Plan: "team", Quota: protocol.QuotaExhausted, Ledger: "ledger-canary", PaymentCredential: "card-canary"}})
	for _, c := range []struct{ capability, method, want, never string }{
		{"lime.modelSettings", "get", `"profile":"balanced"`, "canary"},
		{"lime.branding", "get", `"name":"OEM"`, "Tiny Own Brand"},
		{"lime.billing", "getStatus", `"blocked":true`, "canary"},
		{"lime.modelSettings", "set", hostbridge.TypeError, "ok"},
	} {
		got := platformCall(t, x, c.capability, c.method, map[string]any{"profile": "mine"})
		if !strings.Contains(got, c.want) || strings.Contains(got, c.never) {
			t.Errorf("%s %s = %s, want %s and never %s", c.capability, c.method, got, c.want, c.never)
		}
	}
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
	// sha256("key-canary"): host/observe shows the key held, not the key.
	if got, want := o.Holds["modelSettings.providerKey"], "sha256:"+sha256Hex("key-canary"); got != want || len(o.Holds) != 4 {
		t.Errorf("host/observe holds = %v, want modelSettings.providerKey %s among the four credentials planted", o.Holds, want)
	}
	main, _ := x.readiness(protocol.ReadinessParams{AppID: "tiny-app", Entry: "main"})
	paid, _ := x.readiness(protocol.ReadinessParams{AppID: "tiny-app", Entry: "paid"})
	if main.Status != protocol.StatusReady || paid.Status != protocol.StatusNeedsSetup {
		t.Errorf("readiness with the quota exhausted: main %s, paid %s; want ready and needs-setup", main.Status, paid.Status)
	}
	if got := updatesProbe(true)(t, start(t)); !strings.Contains(got, hostbridge.TypeError) {
		t.Errorf("lime.appUpdates check with the registry down = %s, want host:error", got)
	}
	if got := updatesProbe(false)(t, start(t)); !strings.Contains(got, `"latestVersion":"1.1.0"`) || !strings.Contains(got, `"updateAvailable":true`) {
		t.Errorf("lime.appUpdates check = %s, want 1.1.0 available", got)
	}
}

// sha256Hex is the hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
