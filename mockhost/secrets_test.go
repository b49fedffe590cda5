//go:build !mutation

package mockhost

import (
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// secretApp materializes secret-required-app, at version when not "".
func secretApp(t *testing.T, version string) string {
	t.Helper()
	if version == "" {
		return fixtureCopy(t, "secret-required-app", "", "")
	}
	return fixtureCopy(t, "secret-required-app", "version: 1.0.0", "version: "+version)
}

// boundThen installs secret-required-app, binds its slot and reports its
// readiness before binding, after binding, and after then.
func boundThen(then func(t *testing.T, x *harness)) probe {
	return func(t *testing.T, x *harness) string {
		x.configure(nil, nil, "")
		if _, err := x.install(secretApp(t, ""), nil, true); err != nil {
			t.Fatal(err)
		}
		status := func() string {
			var r protocol.ReadinessResult
			x.must(protocol.MethodReadiness, protocol.ReadinessParams{AppID: "secret-required-app"}, &r)
			return r.Status
		}
		before := status()
		x.must(protocol.MethodSecret, protocol.SecretParams{AppID: "secret-required-app", Key: "provider_api_key", Value: "canary-bound"}, nil)
		bound := status()
		then(t, x)
		return before + " " + bound + " " + status()
	}
}

func TestSecretBindingsFollowTheAppsData(t *testing.T) {
	for name, tc := range map[string]struct {
		then func(t *testing.T, x *harness)
		want string
	}{
		"update":      {func(t *testing.T, x *harness) { updateSecretApp(t, x) }, "needs-setup ready ready"},
		"keep data":   {reinstallSecretApp(true), "needs-setup ready ready"},
		"delete data": {reinstallSecretApp(false), "needs-setup ready needs-setup"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := boundThen(tc.then)(t, start(t)); got != tc.want {
				t.Errorf("readiness before binding, bound, after %s: %q, want %q", name, got, tc.want)
			}
		})
	}
	x := start(t)
	x.configure(nil, nil, "")
	if _, err := x.install(secretApp(t, ""), nil, true); err != nil {
		t.Fatal(err)
	}
	if err := x.call(protocol.MethodSecret, protocol.SecretParams{AppID: "secret-required-app", Key: "no_such_slot", Value: "v"}, nil); code(err) != protocol.CodeInvalidParams {
		t.Errorf("binding a slot the app does not declare: %v", err)
	}
}

func updateSecretApp(t *testing.T, x *harness) {
	x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "secret-required-app", Path: secretApp(t, "1.1.0"),
		Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
}

func reinstallSecretApp(keep bool) func(t *testing.T, x *harness) {
	return func(t *testing.T, x *harness) {
		x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "secret-required-app", KeepData: keep}, nil)
		if _, err := x.install(secretApp(t, ""), nil, true); err != nil {
			t.Fatal(err)
		}
	}
}

func secretProbes() map[string]probe {
	return map[string]probe{
		"update-drops-secret-bindings":      boundThen(updateSecretApp),
		"delete-data-keeps-secret-bindings": boundThen(reinstallSecretApp(false)),
		"keep-data-drops-secret-bindings":   boundThen(reinstallSecretApp(true)),
	}
}
