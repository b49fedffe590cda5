//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// heldOutFProbes observe the faults of heldOutFFaults (TestEveryFaultChangesTheAnswer).
func heldOutFProbes() map[string]probe {
	return map[string]probe{
		// host:getSnapshot from tiny-app's frame carrying another app's appId
		"handshake-appid-unchecked": sendProbe(hostbridge.TypeGetSnapshot, nil, map[string]any{"appId": "other-app"}),
		// host:navigate to the route /\evil.example/x
		"navigate-backslash-route": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			return s.only(s.send(hostbridge.TypeNavigate, "n1", map[string]any{"route": "/\\evil.example/x"})).Type
		},
		// lime.cloudSession getSnapshot under a policy denying lime.cloudSession
		"policy-capability-lowercased": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedCapabilities: []string{"lime.cloudSession"}}}, "lime.cloudSession", "getSnapshot", nil),
		// lime.storage list under a policy needing approval for lime.storage, then lime.billing
		"approval-last-member-only": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{ApprovalRequired: []string{"lime.storage", "lime.billing"}}}, "lime.storage", "list", nil),
		// app/knowledge of user-state-app installed again after host/reset, bound before it
		"reset-keeps-knowledge-bindings": func(t *testing.T, x *harness) string {
			const app = "user-state-app"
			for range 2 {
				x.configure(nil, nil, "")
				if _, err := x.install(userStateApp(t, "1.0.0"), nil, true); err != nil {
					t.Fatal(err)
				}
				var k protocol.KnowledgeResult
				x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: "project_knowledge"}, &k)
				if k.Pack != nil {
					return deref(k.Pack)
				}
				x.must(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: "project_knowledge", Pack: "pack-before-reset"}, nil)
				x.must(protocol.MethodReset, nil, nil)
			}
			return ""
		},
		// a second app/migrate of a migration app, nothing pending
		"migrate-answers-every-file": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(migrationApp(t, map[string]string{"001_notes.sql": notesMigration}), nil, true); err != nil {
				t.Fatal(err)
			}
			var r protocol.MigrateResult
			for range 2 {
				x.must(protocol.MethodMigrate, protocol.MigrateParams{AppID: "tiny-app", Consent: protocol.Consent{Granted: true, By: "user"}}, &r)
			}
			return fmt.Sprint(r.Applied)
		},
		// app/update of a disabled tiny-app to 1.1.0
		"update-answers-install-row": func(t *testing.T, x *harness) string {
			x.installedTinyApp(t)
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			newer := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)})
			var r protocol.UpdateResult
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer, Consent: protocol.Consent{Granted: true, By: "user"}}, &r)
			return r.App.State
		},
		// lime.ui getLocale from tiny-app's open main entry, denied by policy after it mounted
		"call-gate-app-readiness": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"main"}}}})
			return s.invoke("r1", "lime.ui", "getLocale", nil).Type
		},
		// app/list's name (locale zh-CN) of tiny-app rolled back from a 1.1.0 renamed in zh-CN
		"rollback-keeps-newer-display-names": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Locale: "zh-CN"})
			named := func(version, name string) string {
				md := strings.Replace(manifest(withDefaults("displayNameI18n:\n  zh-CN: "+name+"\n")), "version: 1.0.0", "version: "+version, 1)
				return pkg(t, "tiny-app", map[string]string{"APP.md": md})
			}
			if _, err := x.install(named("1.0.0", "old-name"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: named("1.1.0", "new-name"), Consent: protocol.Consent{Granted: true, By: "user"}}, nil)
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			return fmt.Sprint(x.list().Apps)
		},
		// package/verify of tiny-app against its own packageHash and another manifestHash
		"manifest-hash-unchecked-with-package-hash": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			dir := app(t, "")
			own := x.verify(dir, nil)
			return fmt.Sprint(x.verify(dir, &protocol.Release{PackageHash: own.PackageHash, ManifestHash: "sha256:" + strings.Repeat("0", 62) + "bb"}).OK)
		},
		// app/secret of gateway_token, which only a readiness check of tiny-app names
		"secret-readiness-slot-refused": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			dir := pkg(t, "tiny-app", map[string]string{"evals/readiness.yaml": "readiness:\n  required:\n    - check: secret_configured\n      secret: gateway_token\n"})
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(code(x.call(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "gateway_token", Value: "canary-0123456789abcdef0123456789abcdef"}, nil)))
		},
		// lime.secrets status of a secret asked, then configured, then asked again on the same surface
		"secret-status-cached-per-surface": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			s := x.mount("tiny-app", "main")
			first := string(s.invoke("r1", "lime.secrets", "status", map[string]any{"key": "api_key"}).Payload)
			x.configureWith(protocol.ConfigureParams{Secrets: map[string]string{"api_key": "canary-0123456789abcdef0123456789abcdef"}})
			return first + " | " + string(s.invoke("r2", "lime.secrets", "status", map[string]any{"key": "api_key"}).Payload)
		},
		// the projection of an app named in zh-CN under the locale zh-CN
		"projection-follows-locale": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Locale: "zh-CN"})
			var r json.RawMessage
			x.must(protocol.MethodProject, protocol.PackageParams{Path: app(t, "displayNameI18n:\n  zh-CN: zh-name\n")}, &r)
			return string(r)
		},
		// app.signature.yaml's trust naming the release's publisher by its name
		"publisher-id-matches-name": verifyProbe(map[string]string{
			"APP.md":             manifest(withDefaults("")),
			"app.signature.yaml": "signature:\n  trust:\n    publisherId: tiny-publisher\n    verifiedDomain: tiny.example.org\n",
		}, &protocol.Release{Publisher: &protocol.Publisher{PublisherID: "pub-7f3a", Name: "tiny-publisher", Verified: true, VerifiedDomain: "tiny.example.org"}}),
	}
}
