//go:build !mutation

package mockhost

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// surfaceAuditProbes answer, per fault of surfaceAuditFaults, the call whose
// answer the fault changes.
func surfaceAuditProbes() map[string]probe {
	return map[string]probe{
		"launch-checks-capabilities-only": func(t *testing.T, x *harness) string {
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"tasks"}}}})
			return fmt.Sprint(code(x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "tasks"}, nil)))
		},
		"center-hides-policy-blockers": func(t *testing.T, x *harness) string {
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"main"}}}})
			var r protocol.CenterResult
			x.must(protocol.MethodCenter, nil, &r)
			_, body, _ := (&surface{t: t, client: http.DefaultClient}).get(r.URL)
			return fmt.Sprint(strings.Count(body, "policy"))
		},
		"requestid-answer-by-prefix": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			s.send(hostbridge.TypeInvoke, "ok-1", map[string]any{"capability": "lime.ui", "method": "getLocale"})
			var ids []string
			for _, m := range s.send(hostbridge.TypeInvoke, "ok-10", map[string]any{"capability": "lime.billing", "method": "getStatus"}).Post {
				ids = append(ids, m.RequestID)
			}
			return strings.Join(ids, ",")
		},
		"open-external-scheme-blocklist": sendProbe(hostbridge.TypeOpenExternal, map[string]any{"url": "JavaScript:alert(1)"}, nil),
		"download-checks-origin-only": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			var types []string
			for _, m := range s.send(hostbridge.TypeDownload, "r1", map[string]any{"url": s.res.RuntimeOrigin + "/app/another-app/report.txt"}).Post {
				types = append(types, m.Type)
			}
			return strings.Join(types, ",")
		},
		"refused-url-still-carried-out": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			s.send(hostbridge.TypeOpenExternal, "r1", map[string]any{"url": "file:///etc/passwd"})
			var o protocol.ObserveResult
			x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
			return fmt.Sprint(o.Calls)
		},
		"toast-error-level-html": func(t *testing.T, x *harness) string {
			a := x.mount("tiny-app", "main").send(hostbridge.TypeToast, "r1", map[string]any{"message": "<b>x</b>", "level": "error"})
			return fmt.Sprint(a.Toast != nil && a.Toast.HTML)
		},
	}
}
