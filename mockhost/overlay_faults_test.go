//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// overlayApp is tiny-app with one overlayTemplate per scope.
const overlayApp = "overlayTemplates:\n" +
	"  - key: tenant_defaults\n    scope: tenant\n" +
	"  - key: user_preferences\n    scope: user\n" +
	"  - key: workspace_rules\n    scope: workspace\n"

// setOverlays installs tiny-app with overlayApp's templates and sets tone
// in each scope, in the order given.
func setOverlays(t *testing.T, x *harness, scopes ...string) {
	dir := pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(overlayApp))})
	if _, err := x.install(dir, nil, true); err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{protocol.ScopeTenant: "tenant_defaults", protocol.ScopeUser: "user_preferences", protocol.ScopeWorkspace: "workspace_rules"}
	for _, s := range scopes {
		x.must(protocol.MethodOverlay, protocol.OverlayParams{AppID: "tiny-app", Key: keys[s], Scope: s,
			Values: map[string]json.RawMessage{"tone": json.RawMessage(`"` + s + `"`)}}, &protocol.OK{})
	}
}

// toneInEffect is what host/observe says is in effect for tone.
func toneInEffect(x *harness) string {
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
	return fmt.Sprint(o.Overlay["tone"].Scope)
}

func overlayProbes() map[string]probe {
	return map[string]probe{
		"overlay-last-write-wins": func(t *testing.T, x *harness) string {
			setOverlays(t, x, protocol.ScopeWorkspace, protocol.ScopeTenant)
			return toneInEffect(x)
		},
		"overlay-user-over-workspace": func(t *testing.T, x *harness) string {
			setOverlays(t, x, protocol.ScopeUser, protocol.ScopeWorkspace)
			return toneInEffect(x)
		},
		"overlay-empty-values-kept": func(t *testing.T, x *harness) string {
			setOverlays(t, x, protocol.ScopeTenant, protocol.ScopeWorkspace)
			x.must(protocol.MethodOverlay, protocol.OverlayParams{AppID: "tiny-app", Key: "workspace_rules", Scope: protocol.ScopeWorkspace,
				Values: map[string]json.RawMessage{}}, &protocol.OK{})
			return toneInEffect(x)
		},
		"overlay-written-into-package": func(t *testing.T, x *harness) string {
			setOverlays(t, x, protocol.ScopeTenant)
			var names []string
			for _, a := range x.list().Apps {
				entries, _ := os.ReadDir(a.InstalledPath)
				for _, e := range entries {
					names = append(names, e.Name())
				}
			}
			sort.Strings(names)
			return strings.Join(names, ",")
		},
		"overlay-grants-permissions":   bypassProbe(`{"grants": ["files_rw"]}`),
		"overlay-enables-denied-entry": bypassProbe(`{"enabledEntries": ["main"]}`),
		"overlay-skips-readiness":      bypassProbe(`{"skipReadiness": true}`),
		"update-resets-overlays": func(t *testing.T, x *harness) string {
			setOverlays(t, x, protocol.ScopeUser)
			newer := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults(overlayApp)), "version: 1.0.0", "version: 1.1.0", 1)})
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer, Release: releaseOf(t, newer),
				Consent: protocol.Consent{Granted: true, By: "user"}}, &protocol.UpdateResult{})
			return toneInEffect(x)
		},
	}
}

// bypassProbe installs tiny-app with overlayApp's templates and a required
// permission, then, with the permission ungranted and entry main denied by
// policy, sets the workspace overlay to values and answers the readiness
// of the app and of main.
func bypassProbe(values string) probe {
	return func(t *testing.T, x *harness) string {
		dir := pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(overlayApp)),
			"app.permissions.yaml": "permissions:\n  - {key: files_rw, scope: filesystem, access: read-write, required: true}\n"})
		x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {"files_rw"}}})
		if _, err := x.install(dir, nil, true); err != nil {
			t.Fatal(err)
		}
		x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}},
			Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"main"}}}})
		var v map[string]json.RawMessage
		if err := json.Unmarshal([]byte(values), &v); err != nil {
			t.Fatal(err)
		}
		x.must(protocol.MethodOverlay, protocol.OverlayParams{AppID: "tiny-app", Key: "workspace_rules", Scope: protocol.ScopeWorkspace, Values: v}, &protocol.OK{})
		app, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
		if err != nil {
			t.Fatal(err)
		}
		main, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app", Entry: "main"})
		if err != nil {
			t.Fatal(err)
		}
		return app.Status + " " + main.Status
	}
}
