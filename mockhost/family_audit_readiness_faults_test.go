//go:build !mutation

package mockhost

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// readinessAuditProbes answer, per fault of readinessAuditFaults, the call whose
// answer the fault changes.
func readinessAuditProbes() map[string]probe {
	secretSlot := "secrets:\n  - key: api_key\n    required: true\n"
	return map[string]probe{
		"installed-readiness-trusts-review": installedReadinessProbe(secretSlot, nil),
		"installed-readiness-tiers-block":   installedReadinessProbe("", readinessYAML("performance")),
		"installed-readiness-drops-ok":      installedReadinessProbe("", nil),
		"installed-readiness-echoes-secret": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Secrets: map[string]string{"api_key": "canary-held"}})
			if _, err := x.install(app(t, secretSlot), nil, true); err != nil {
				t.Fatal(err)
			}
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			return fmt.Sprint(err, " ", strings.Contains(raw(r), "canary-held"))
		},
		"installed-readiness-ignores-entry": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			if _, err := x.install(app(t, layeredEntries), nil, true); err != nil {
				t.Fatal(err)
			}
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"extra"}}}})
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app", Entry: "extra"})
			return fmt.Sprint(err, " ", r.Status, " ", r.Blockers)
		},
		"setup-actions-skip-capabilities": readyProbe("", map[string]string{"evals/readiness.yaml": "readiness:\n  required:\n    - check: capability_available\n      capability: lime.ui\n"}, nil,
			map[string]protocol.Capability{"lime.ui": {Version: "0.10.0", Enabled: false}}, "", "", func(r protocol.ReadinessResult) string {
				return raw(r.SetupActions)
			}),
		"irreversible-risk-first-only": func(t *testing.T, x *harness) string {
			dir := pkg(t, "tiny-app", map[string]string{
				"APP.md": manifest(withDefaults("storage:\n  namespace: tiny-app\n  migrations: ./storage/migrations\n" +
					"lifecycle:\n  upgrade:\n    migrations:\n" +
					"      - storage: ./storage/migrations/001_notes.sql\n        reversible: false\n        risk: drops the old index\n" +
					"      - storage: ./storage/migrations/002_more.sql\n        reversible: false\n        risk: drops the old tags\n")),
				"storage/migrations/001_notes.sql": notesMigration,
				"storage/migrations/002_more.sql":  "CREATE TABLE more_notes (id INTEGER);\n",
			})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(r.Warnings)
		},
	}
}

// installedReadinessProbe installs a package with the frontmatter extra and
// files under the default profile and answers its readiness by appId.
func installedReadinessProbe(extra string, files map[string]string) probe {
	return func(t *testing.T, x *harness) string {
		x.configureWith(protocol.ConfigureParams{})
		if files == nil {
			files = map[string]string{}
		}
		files["APP.md"] = manifest(withDefaults(extra))
		if _, err := x.install(pkg(t, "tiny-app", files), nil, true); err != nil {
			t.Fatal(err)
		}
		r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("%s ok=%v blockers=%v", r.Status, r.OK, r.Blockers)
	}
}
