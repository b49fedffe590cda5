//go:build !mutation

package mockhost

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// invokeProbe mounts the tiny app's main entry under cfg and reports what
// one capability call got.
func invokeProbe(cfg protocol.ConfigureParams, capability, method string, args any) probe {
	return func(t *testing.T, x *harness) string {
		x.configureWith(cfg)
		m := x.mount("tiny-app", "main").invoke("r1", capability, method, args)
		return m.Type + " " + m.RequestID + " " + hostbridge.ErrorOf(m).Code + " " + string(m.Payload)
	}
}

// sendProbe mounts the tiny app's main entry and reports the types of the
// messages one request got back.
func sendProbe(typ string, payload any, change map[string]any) probe {
	return func(t *testing.T, x *harness) string {
		s := x.mount("tiny-app", "main")
		m := s.envelope(typ, "r1", payload)
		for k, v := range change {
			m[k] = v
		}
		var types []string
		for _, p := range s.sendRaw(raw(m)).Post {
			types = append(types, p.Type+" "+hostbridge.ErrorOf(p).Code)
		}
		return strings.Join(types, ",")
	}
}

// pageProbe reports whether the host page carries want.
func pageProbe(want string) probe {
	return func(t *testing.T, x *harness) string {
		return fmt.Sprint(strings.Contains(x.mount("tiny-app", "main").page, want))
	}
}

// pushProbe sends two host/set changes and reports the first push.
func pushProbe(first, second protocol.SetParams) probe {
	return func(t *testing.T, x *harness) string {
		ev := x.mount("tiny-app", "main").events()
		x.must(protocol.MethodSet, first, nil)
		x.must(protocol.MethodSet, second, nil)
		return next(ev, 5*time.Second).Type
	}
}

// snapshotProbe configures, mounts main and reports the snapshot's payload.
func snapshotProbe(cfg protocol.ConfigureParams, read func(p map[string]any) string) probe {
	return func(t *testing.T, x *harness) string {
		x.configureWith(cfg)
		s := x.mount("tiny-app", "main")
		return read(payload(t, s.only(s.send(hostbridge.TypeReady, "", nil))))
	}
}

func surfaceProbes() map[string]probe {
	off := protocol.ConfigureParams{Capabilities: agentOff()}
	return map[string]probe{
		"launch-ignores-readiness": func(t *testing.T, x *harness) string {
			x.configure(nil, agentOff(), "")
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(code(x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "tasks"}, nil)))
		},
		"launch-keeps-install-consent": func(t *testing.T, x *harness) string {
			x.configure(nil, nil, "")
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedApps: []string{"tiny-app"}}})
			return fmt.Sprint(code(x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, nil)))
		},
		"locale-fixed":       localeProbe,
		"locale-read-once":   localeProbe,
		"no-snapshot-on-get": sendProbe(hostbridge.TypeGetSnapshot, nil, nil),
		"snapshot-on-timer": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			ev := s.events()
			answered := len(s.send(hostbridge.TypeReady, "r1", nil).Post)
			m := next(ev, 2*time.Second)
			return fmt.Sprint(answered, m.Type, m.RequestID)
		},
		"storage-answer-names-path": invokeProbe(protocol.ConfigureParams{}, "lime.storage", "set", map[string]any{"key": "k", "value": "v"}),
		"snapshot-default-locale-on-top": snapshotProbe(protocol.ConfigureParams{Locale: "zh-CN", Timezone: "Asia/Shanghai"}, func(p map[string]any) string {
			return raw(p["locale"]) + raw(p["timezone"])
		}),
		"snapshot-without-theme": snapshotProbe(protocol.ConfigureParams{}, func(p map[string]any) string {
			return raw(p["theme"]) + raw(p["timezone"])
		}),
		"snapshot-offers-profile": snapshotProbe(protocol.ConfigureParams{}, func(p map[string]any) string {
			return fmt.Sprint(len(p["capabilities"].([]any)))
		}),
		"version-as-string": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			_, body, _ := s.endpoint(http.MethodPost, "/message", s.host, s.token, raw(s.envelope(hostbridge.TypeReady, "", nil)))
			return fmt.Sprint(strings.Contains(body, `"version":1,`))
		},
		"response-without-requestid": invokeProbe(protocol.ConfigureParams{}, "lime.billing", "getPlan", nil),
		"silent-on-invalid": func(t *testing.T, x *harness) string {
			return fmt.Sprint(len(x.mount("tiny-app", "main").sendRaw("null").Post))
		},
		"bridge-trusts-any-source": pageProbe(`"checkSource":true`),
		"bridge-trusts-any-origin": pageProbe(`"checkOrigin":true`),
		"toast-innerhtml":          pageProbe(`"toastHTML":false`),
		"host-page-spins":          pageProbe(`"spin":false`),
		"forge-probe":              pageProbe(`window.addEventListener("message"`),
		"forge-probe-devtools": func(t *testing.T, x *harness) string {
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			var res protocol.LaunchResult
			x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, &res)
			return fmt.Sprint(res.URL != "", res.DevTools != nil)
		},
		"bridge-ignores-version": sendProbe(hostbridge.TypeGetSnapshot, nil, map[string]any{"version": "2", "protocol": "x"}),
		"bridge-ignores-appid":   sendProbe(hostbridge.TypeGetSnapshot, nil, map[string]any{"appId": "other-app"}),
		"bridge-acts-as-message-appid": func(t *testing.T, x *harness) string {
			other := pkg(t, "other-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "name: tiny-app", "name: other-app", 1)})
			if _, err := x.install(other, nil, true); err != nil {
				t.Fatal(err)
			}
			return sendProbe(hostbridge.TypeGetSnapshot, nil, map[string]any{"appId": "other-app"})(t, x)
		},
		"invoke-undeclared":           invokeProbe(protocol.ConfigureParams{}, "lime.billing", "getPlan", nil),
		"invoke-unready-mock-success": invokeProbe(off, "lime.agent", "run", nil),
		"invoke-ignores-policy": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedCapabilities: []string{"lime.storage"}}},
			"lime.storage", "list", nil),
		"invoke-ignores-approval": invokeProbe(protocol.ConfigureParams{Policy: &protocol.Policy{ApprovalRequired: []string{"lime.storage"}}},
			"lime.storage", "list", nil),
		"snapshot-carries-session-token": snapshotProbe(protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "canary-session"}},
			func(p map[string]any) string { return fmt.Sprint(strings.Contains(raw(p), "canary-session")) }),
		"error-echoes-secret": invokeProbe(protocol.ConfigureParams{Secrets: map[string]string{"api_key": "canary-secret"}},
			"lime.secrets", "status", map[string]any{"key": "api_key"}),
		"host-page-logs-secret": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Secrets: map[string]string{"api_key": "canary-secret"}})
			s := x.mount("tiny-app", "main")
			a := s.sendRaw(raw(s.envelope(hostbridge.TypeInvoke, "r1", map[string]any{"capability": "lime.secrets", "method": "status", "args": map[string]any{"key": "api_key"}})))
			return a.Log
		},
		"frame-connect-unrestricted": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			_, _, hd := s.get(s.frame)
			return hd.Get("Content-Security-Policy")
		},
		"frame-gets-node-globals": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			_, body, _ := s.get(s.frame)
			return fmt.Sprint(strings.Contains(body, "window.require"))
		},
		"frames-share-one-origin": func(t *testing.T, x *harness) string {
			a, b := x.mount("tiny-app", "main"), x.mount("tiny-app-b", "main")
			return fmt.Sprint(a.res.RuntimeOrigin == b.res.RuntimeOrigin)
		},
		"frame-origins-by-port-only": func(t *testing.T, x *harness) string {
			return x.mount("tiny-app", "main").res.RuntimeOrigin[:len("http://127.0.0.1:")]
		},
		"frame-same-origin-as-host": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			status, _, _ := s.get(s.frame)
			return fmt.Sprint(s.res.RuntimeOrigin == s.host, status)
		},
		"host-endpoints-open": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			status, _, hd := s.endpoint(http.MethodPost, "/message", s.res.RuntimeOrigin, "", raw(s.envelope(hostbridge.TypeReady, "", nil)))
			return fmt.Sprint(status, hd.Get("Access-Control-Allow-Origin"))
		},
		"navigate-anywhere":     sendProbe(hostbridge.TypeNavigate, map[string]any{"route": "https://evil.example/"}, nil),
		"open-external-any-url": sendProbe(hostbridge.TypeOpenExternal, map[string]any{"url": "javascript:alert(1)"}, nil),
		"download-any-url":      sendProbe(hostbridge.TypeDownload, map[string]any{"url": "https://evil.example/x"}, nil),
		"theme-update-previous-mode": func(t *testing.T, x *harness) string {
			ev := x.mount("tiny-app", "main").events()
			x.must(protocol.MethodSet, protocol.SetParams{Theme: &protocol.Theme{Mode: "dark", Tokens: map[string]string{}}}, nil)
			return string(next(ev, 5*time.Second).Payload)
		},
		"push-without-version": func(t *testing.T, x *harness) string {
			ev := x.mount("tiny-app", "main").events()
			x.must(protocol.MethodSet, protocol.SetParams{Visibility: "hidden"}, nil)
			m := next(ev, 5*time.Second)
			return fmt.Sprint(m.Type, " ", m.Version)
		},
		"no-theme-update":     pushProbe(protocol.SetParams{Theme: &protocol.Theme{Mode: "dark", Tokens: map[string]string{}}}, protocol.SetParams{Visibility: "hidden"}),
		"no-visibility-event": pushProbe(protocol.SetParams{Visibility: "hidden"}, protocol.SetParams{Locale: "de-DE"}),
		"center-omits-ready-apps": func(t *testing.T, x *harness) string {
			if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
				t.Fatal(err)
			}
			var r protocol.CenterResult
			x.must(protocol.MethodCenter, nil, &r)
			_, body, _ := (&surface{t: t, client: http.DefaultClient}).get(r.URL)
			return fmt.Sprint(strings.Count(body, "data-app-id="))
		},
		"center-hides-blockers": func(t *testing.T, x *harness) string {
			body := blockedAppCenter(t, x)
			return fmt.Sprint(strings.Count(body, "data-blocker="), strings.Count(body, "data-setup-action="))
		},
	}
}

// host-page-spins also makes the app center spin, once it has loaded: the
// page is served whole (its text is there) with a script, allowed by its
// nonce alone, that loops for ever after the load event. A healthy app
// center runs no script.
func TestHostPageSpinsSpinsTheAppCenterOnceLoaded(t *testing.T) {
	for _, faults := range [][]string{nil, {"host-page-spins"}} {
		x := start(t, faults...)
		if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
			t.Fatal(err)
		}
		var r protocol.CenterResult
		x.must(protocol.MethodCenter, nil, &r)
		status, body, hd := (&surface{t: t, client: http.DefaultClient}).get(r.URL)
		spins := strings.Contains(body, "for (;;) {}")
		csp := hd.Get("Content-Security-Policy")
		if status != http.StatusOK || !strings.Contains(body, `data-app-id="tiny-app"`) {
			t.Errorf("faults %v: the app center is not served whole: %d\n%s", faults, status, body)
		}
		if want := faults != nil; spins != want || strings.Contains(csp, "script-src 'nonce-") != want {
			t.Errorf("faults %v: spinning script %v, CSP %q; want a script only under the fault", faults, spins, csp)
		}
		if spins && !strings.Contains(body, `addEventListener("load"`) {
			t.Errorf("the app center spins before it has loaded:\n%s", body)
		}
	}
}

// blockedAppCenter is the app center page of a host whose one app, tiny-app,
// needs lime.agent, switched off.
func blockedAppCenter(t *testing.T, x *harness) string {
	x.configure(nil, agentOff(), "")
	if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
		t.Fatal(err)
	}
	var r protocol.CenterResult
	x.must(protocol.MethodCenter, nil, &r)
	_, body, _ := (&surface{t: t, client: http.DefaultClient}).get(r.URL)
	return body
}

// localeProbe reads lime.ui getLocale with zh-CN configured, and again
// after host/set changes it to ja-JP.
func localeProbe(t *testing.T, x *harness) string {
	x.configureWith(protocol.ConfigureParams{Locale: "zh-CN"})
	s := x.mount("tiny-app", "main")
	first := string(s.invoke("l1", "lime.ui", "getLocale", nil).Payload)
	x.must(protocol.MethodSet, protocol.SetParams{Locale: "ja-JP"}, nil)
	return first + string(s.invoke("l2", "lime.ui", "getLocale", nil).Payload)
}
