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

// identityAndEntryPointProbes observe the faults of this family (TestEveryFaultChangesTheAnswer).
func identityAndEntryPointProbes() map[string]probe {
	return map[string]probe{
		"update-without-consent": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			if _, err := x.install(app(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			v2 := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "version: 1.0.0", "version: 1.1.0", 1)})
			err := x.call(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: v2, Consent: protocol.Consent{Granted: false, By: "user"}}, nil)
			return fmt.Sprint(code(err), " ", x.list().Apps[0].Version)
		},
		"secret-refusal-echoes-value": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			if _, err := x.install(app(t, "secrets:\n  - key: provider_api_key\n    required: true\n    description: Provider key\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			err := x.call(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_apikey", Value: "canary-typed"}, nil)
			return fmt.Sprint(code(err), " ", err != nil && strings.Contains(err.Error(), "canary-typed"))
		},
		"secret-answers-echo-value": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			if _, err := x.install(app(t, "secrets:\n  - key: provider_api_key\n    required: true\n    description: Provider key\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			var r json.RawMessage
			err := x.call(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_api_key", Value: "canary-own"}, &r)
			return fmt.Sprint(err, " ", strings.Contains(string(r), "canary-own"))
		},
		"displayname-language-fallback": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Locale: "zh-TW"})
			if _, err := x.install(app(t, "displayNameI18n:\n  zh-CN: 小应用\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			return x.list().Apps[0].DisplayName
		},
		"capability-name-trimmed-after-policy": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedCapabilities: []string{"lime.storage"}}},
			" lime.storage", "list", nil),
		"open-external-suffix-origin": sendProbe(hostbridge.TypeOpenExternal, map[string]any{"url": "https://eviltiny.example.org/home"}, nil),
	}
}
