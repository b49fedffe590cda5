//go:build !mutation

package mockhost

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// permittedApp is the tiny app with app.permissions.yaml declaring one
// optional storage permission, app-records: readiness never waits for it.
func permittedApp(t testing.TB) string {
	t.Helper()
	dir := surfaceApp(t, "tiny-app")
	perms := "permissions:\n  - key: app-records\n    scope: storage\n    access: read-write\n    required: false\n"
	if err := os.WriteFile(filepath.Join(dir, "app.permissions.yaml"), []byte(perms), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// permittedCall configures cfg, mounts the permitted tiny app's main entry
// and reports what one lime.storage set got.
func permittedCall(cfg protocol.ConfigureParams) probe {
	return func(t *testing.T, x *harness) string {
		x.configureWith(cfg)
		if _, err := x.install(permittedApp(t), nil, true); err != nil {
			t.Fatal(err)
		}
		m := x.launchEntry("tiny-app", "main").invoke("r1", "lime.storage", "set", map[string]any{"key": "k", "value": "v"})
		return m.Type + " " + hostbridge.ErrorOf(m).Code + " " + string(m.Payload)
	}
}

func permissionProbes() map[string]probe {
	return map[string]probe{
		"permissions-checked-at-readiness-only": permittedCall(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}}}),
		"invoke-approval-before-policy": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{
			DeniedCapabilities: []string{"lime.storage"}, ApprovalRequired: []string{"lime.storage"}}}, "lime.storage", "list", nil),
		// lime.billing, which the tiny app does not declare, denied by policy too
		"invoke-policy-first": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{
			DeniedCapabilities: []string{"lime.billing"}}}, "lime.billing", "getStatus", nil),
		"invoke-approval-before-permission": permittedCall(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}},
			Policy: &protocol.Policy{ApprovalRequired: []string{"lime.storage"}}}),
		"grant-overrides-policy-deny": permittedCall(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {"app-records"}},
			Policy: &protocol.Policy{DeniedCapabilities: []string{"lime.storage"}}}),
	}
}
