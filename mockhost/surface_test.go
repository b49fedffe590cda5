//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

func TestLaunchIsGatedByReadiness(t *testing.T) {
	x := start(t)
	x.configure(nil, agentOff(), "")
	if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
		t.Fatal(err)
	}
	err := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "tasks"}, nil)
	c, msg, data := hostErrorData(err)
	if c != protocol.CodeNotReady || !strings.Contains(msg, "needs-setup") || !strings.Contains(msg, "lime.agent") {
		t.Fatalf("launching a needs-setup entry: %v", err)
	}
	var d protocol.ErrorData
	if err := json.Unmarshal([]byte(data), &d); err != nil || d.Readiness == nil ||
		d.Readiness.Status != protocol.StatusNeedsSetup || len(d.Readiness.Blockers) == 0 {
		t.Errorf("error data = %s, want the readiness answer", data)
	}

	var r protocol.LaunchResult
	x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, &r)
	if !strings.HasPrefix(r.URL, "http://127.0.0.1:") || !strings.Contains(r.URL, "/surface/") ||
		!strings.HasPrefix(r.RuntimeOrigin, "http://127.0.0.") || strings.HasPrefix(r.RuntimeOrigin, "http://127.0.0.1:") {
		t.Errorf("launch = %+v", r)
	}

	for _, c := range []struct {
		p    protocol.LaunchParams
		code int64
		want string
	}{
		{protocol.LaunchParams{AppID: "nope", EntryKey: "main"}, protocol.CodeAppNotFound, "nope"},
		{protocol.LaunchParams{AppID: "tiny-app", EntryKey: "nope"}, protocol.CodeInvalidParams, "entryKey"},
		{protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main", Route: "//evil.example"}, protocol.CodeInvalidParams, "route"},
		{protocol.LaunchParams{AppID: "tiny-app"}, protocol.CodeInvalidParams, "entryKey"},
	} {
		if err := x.call(protocol.MethodLaunch, c.p, nil); code(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("launch %+v: %v, want %d naming %s", c.p, err, c.code, c.want)
		}
	}

	// A package without a UI cannot be mounted.
	fixture, err := filepath.Abs("../fixtures/platform-conformance/packages/capability-app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.install(fixture, nil, true); err != nil {
		t.Fatal(err)
	}
	err = x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "capability-app", EntryKey: "home_page"}, nil)
	if code(err) != protocol.CodeUnsupported || !strings.Contains(err.Error(), "runtimePackage.ui") {
		t.Errorf("launching an app without a UI: %v", err)
	}
}

func TestHostPageAndFrameServer(t *testing.T) {
	x := start(t)
	x.configureWith(protocol.ConfigureParams{Secrets: map[string]string{"api_key": "canary-secret"},
		SessionTokens: map[string]string{"cloud": "canary-session"}})
	s := x.mount("tiny-app", "main")

	_, _, hd := s.get(s.res.URL)
	csp := hd.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'nonce-", "frame-src " + s.res.RuntimeOrigin, "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("host page CSP %q lacks %q", csp, want)
		}
	}
	for _, want := range []string{`sandbox="allow-scripts allow-same-origin"`, `referrerpolicy="no-referrer"`, `id="host-toasts"`} {
		if !strings.Contains(s.page, want) {
			t.Errorf("host page lacks %s", want)
		}
	}
	if !strings.HasPrefix(s.frame, s.res.RuntimeOrigin+"/app/") || !strings.HasSuffix(s.frame, "/index.html") || strings.Contains(s.frame, s.token) {
		t.Errorf("frame src %q: want the runtime origin, its own token, the entry file", s.frame)
	}
	x.h.mu.Lock()
	tmp := x.h.tmpDir
	x.h.mu.Unlock()
	for _, leak := range []string{"canary-secret", "canary-session", s.dir, tmp} {
		if strings.Contains(s.page, leak) {
			t.Errorf("host page carries %q", leak)
		}
	}

	status, body, hd := s.get(s.frame)
	if status != http.StatusOK || body != surfaceIndex || hd.Get("Content-Type") != "text/html; charset=utf-8" || hd.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("entry file: %d %q %v", status, body, hd)
	}
	frameBase := strings.TrimSuffix(s.frame, "index.html")
	if status, _, hd := s.get(frameBase + "js/app.js"); status != http.StatusOK || !strings.HasPrefix(hd.Get("Content-Type"), "text/javascript") {
		t.Errorf("js file: %d %s", status, hd.Get("Content-Type"))
	}
	linkOut(t, s.dir, "link.txt")
	u, _ := url.Parse(s.frame)
	refused := []string{
		frameBase + "../outside.txt",
		frameBase + "..%2f..%2foutside.txt",
		frameBase + "%2e%2e/%2e%2e/outside.txt",
		frameBase + "link.txt",
		frameBase + "js",
		frameBase + "nope.html",
		s.res.RuntimeOrigin + "/surface/" + s.token,
		s.host + u.Path, // frame files are not on the host origin
		s.res.RuntimeOrigin + "/app/" + s.token + "/index.html",
	}
	for _, r := range refused {
		if status, body, _ := s.get(r); status == http.StatusOK || strings.Contains(body, "outside the UI") {
			t.Errorf("GET %s = %d %q, want it refused", r, status, body)
		}
	}
	// Another Host header (DNS rebinding) is refused.
	req, _ := http.NewRequest(http.MethodGet, s.frame, nil)
	req.Host = "evil.example:80"
	if status, _, _ := s.do(req); status != http.StatusMisdirectedRequest {
		t.Errorf("frame server answered Host evil.example: %d", status)
	}
}

func TestBridgeEndpointsAnswerOnlyTheHostPage(t *testing.T) {
	x := start(t)
	s := x.mount("tiny-app", "main")
	ready := raw(s.envelope(hostbridge.TypeReady, "", nil))
	for _, c := range []struct {
		name, method, path, origin, tok string
	}{
		{"frame origin", http.MethodPost, "/message", s.res.RuntimeOrigin, s.token},
		{"no token", http.MethodPost, "/message", s.host, ""},
		{"wrong token", http.MethodPost, "/message", s.host, "x" + s.token},
		{"no origin", http.MethodPost, "/message", "", s.token},
		{"frame origin rejected", http.MethodPost, "/rejected", s.res.RuntimeOrigin, s.token},
		{"events without token", http.MethodGet, "/events", "", ""},
		{"events from frame", http.MethodGet, "/events", s.res.RuntimeOrigin, s.token},
		{"preflight from frame", http.MethodOptions, "/message", s.res.RuntimeOrigin, ""},
	} {
		status, _, hd := s.endpoint(c.method, c.path, c.origin, c.tok, ready)
		if status != http.StatusForbidden || hd.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: %d ACAO=%q, want 403 without CORS", c.name, status, hd.Get("Access-Control-Allow-Origin"))
		}
	}
	if status, _, _ := s.endpoint(http.MethodGet, "/message", "", s.token, ""); status != http.StatusMethodNotAllowed {
		t.Errorf("GET message: %d, want 405", status)
	}
	if a := s.sendRaw(ready); len(a.Post) != 1 || a.Post[0].Type != hostbridge.TypeSnapshot {
		t.Errorf("the host page's own app:ready: %s", raw(a))
	}
	if got := s.observe().Calls; len(got) != 1 {
		t.Errorf("refused requests were recorded as calls: %s", raw(got))
	}
}

func TestBridgeChecksTheEnvelope(t *testing.T) {
	x := start(t)
	s := x.mount("tiny-app", "main")
	with := func(change map[string]any) string {
		m := s.envelope(hostbridge.TypeGetSnapshot, "r1", nil)
		for k, v := range change {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return raw(m)
	}
	cases := []struct {
		name, body, reason, rid string
	}{
		{"null", "null", protocol.RejectMalformed, ""},
		{"string", `"app:ready"`, protocol.RejectMalformed, ""},
		{"array", `[1]`, protocol.RejectMalformed, ""},
		{"no type", with(map[string]any{"type": nil}), protocol.RejectMalformed, "r1"},
		{"protocol", with(map[string]any{"protocol": "other.bridge"}), protocol.RejectProtocol, "r1"},
		{"no protocol", with(map[string]any{"protocol": nil}), protocol.RejectProtocol, "r1"},
		{"version string", with(map[string]any{"version": "1"}), protocol.RejectVersion, "r1"},
		{"version 2", with(map[string]any{"version": 2}), protocol.RejectVersion, "r1"},
		{"appId", with(map[string]any{"appId": "other-app"}), protocol.RejectAppID, "r1"},
		{"no requestId", with(map[string]any{"requestId": nil}), protocol.RejectMalformed, ""},
		{"numeric requestId", with(map[string]any{"requestId": 7}), protocol.RejectMalformed, ""},
		{"empty requestId", with(map[string]any{"requestId": ""}), protocol.RejectMalformed, ""},
		{"long requestId", with(map[string]any{"requestId": strings.Repeat("r", 201)}), protocol.RejectMalformed, ""},
	}
	for _, c := range cases {
		m := s.only(s.sendRaw(c.body))
		e := hostbridge.ErrorOf(m)
		if m.Type != hostbridge.TypeError || e.Code != hostbridge.CodeInvalidRequest || e.Message == "" || m.RequestID != c.rid ||
			m.EnvelopeProblem() != "" || m.AppID != "tiny-app" {
			t.Errorf("%s: answered %s", c.name, raw(m))
		}
	}
	obs := s.observe()
	if len(obs.Calls) != 0 || len(obs.Rejected) != len(cases) {
		t.Fatalf("observe = %s", raw(obs))
	}
	for i, c := range cases {
		if obs.Rejected[i].Reason != c.reason {
			t.Errorf("%s: rejected as %q, want %q", c.name, obs.Rejected[i].Reason, c.reason)
		}
	}
	// app:ready needs no requestId.
	if m := s.only(s.send(hostbridge.TypeReady, "", nil)); m.Type != hostbridge.TypeSnapshot || m.RequestID != "" {
		t.Errorf("app:ready: %s", raw(m))
	}
	// The page reports what it ignored.
	status, _, _ := s.endpoint(http.MethodPost, "/rejected", s.host, s.token, `{"type":"app:ready","reason":"source","origin":"http://localhost:1"}`)
	if status != http.StatusOK {
		t.Fatalf("POST rejected: %d", status)
	}
	if status, _, _ := s.endpoint(http.MethodPost, "/rejected", s.host, s.token, `{"reason":"bored"}`); status != http.StatusBadRequest {
		t.Errorf("unknown rejection reason: %d", status)
	}
	last := s.observe().Rejected
	if got := last[len(last)-1]; got != (protocol.RejectedMessage{Type: "app:ready", Reason: "source", Origin: "http://localhost:1"}) {
		t.Errorf("reported rejection = %+v", got)
	}
}

func TestBridgeSnapshot(t *testing.T) {
	x := start(t)
	x.configureWith(protocol.ConfigureParams{Capabilities: agentOff(), Locale: "nl-NL", Timezone: "Europe/Amsterdam",
		Secrets: map[string]string{"api_key": "canary-secret"}, SessionTokens: map[string]string{"cloud": "canary-session"}})
	s := x.mount("tiny-app", "main")
	for _, c := range []struct{ typ, rid string }{{hostbridge.TypeReady, ""}, {hostbridge.TypeReady, "r0"}, {hostbridge.TypeGetSnapshot, "r1"}} {
		a := s.send(c.typ, c.rid, nil)
		if len(a.Post) != 1 {
			t.Fatalf("%s: %s", c.typ, raw(a))
		}
		m := a.Post[0]
		if m.Type != hostbridge.TypeSnapshot || m.RequestID != c.rid || m.EnvelopeProblem() != "" || m.AppID != "tiny-app" || m.EntryKey != "main" {
			t.Errorf("%s: envelope %s", c.typ, raw(m))
		}
		if v := raw(a); !strings.Contains(v, `"version":1,`) {
			t.Errorf("version is not the number 1: %s", v)
		}
		for _, leak := range []string{"canary-secret", "canary-session", "u1", "userId", s.dir, "token"} {
			if strings.Contains(string(m.Payload), leak) {
				t.Errorf("snapshot carries %q: %s", leak, m.Payload)
			}
		}
		var p hostbridge.Snapshot
		if err := json.Unmarshal(m.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.AppID != "tiny-app" || p.EntryKey != "main" || p.Route != "/main" || p.RuntimeOrigin != s.res.RuntimeOrigin ||
			p.Locale != "nl-NL" || p.Timezone != "Europe/Amsterdam" || p.WorkspaceID != "w1" || p.TenantID != "t1" ||
			p.Readiness == nil || p.Readiness.Status != protocol.StatusReady {
			t.Errorf("snapshot = %s", m.Payload)
		}
		if p.Theme == nil || p.Theme.ThemeMode != "light" || p.Theme.EffectiveThemeMode != "light" || p.Theme.ColorSchemeID == "" ||
			p.Theme.Variables["--lime-color-background"] == "" {
			t.Errorf("theme = %+v", p.Theme)
		}
		var names []string
		for _, c := range p.Capabilities {
			names = append(names, c.Name)
			if c.Available != (c.Name != "lime.agent") || (c.Reason == "") == (c.Name == "lime.agent") {
				t.Errorf("capability %+v", c)
			}
		}
		if want := []string{"lime.agent", "lime.artifacts", "lime.cloudSession", "lime.evidence", "lime.secrets", "lime.storage", "lime.ui"}; !slices.Equal(names, want) {
			t.Errorf("capabilities %v, want the declared %v", names, want)
		}
	}
	calls := s.observe().Calls
	if len(calls) != 3 || calls[2] != (protocol.BridgeCall{Type: hostbridge.TypeGetSnapshot, RequestID: "r1", Decision: protocol.DecisionAllowed}) {
		t.Errorf("calls = %s", raw(calls))
	}
}

func TestBridgeCapabilityGates(t *testing.T) {
	x := start(t)
	x.configureWith(protocol.ConfigureParams{Capabilities: agentOff(), Secrets: map[string]string{"api_key": "canary-secret"},
		SessionTokens: map[string]string{"cloud": "canary-session"},
		Policy:        &protocol.Policy{DeniedCapabilities: []string{"lime.evidence"}, ApprovalRequired: []string{"lime.cloudSession"}}})
	s := x.mount("tiny-app", "main")
	denied := []struct {
		capability, method, gate, code string
	}{
		{"lime.billing", "getPlan", protocol.GateAllowlist, hostbridge.CodeNotDeclared},
		{"lime.agent", "run", protocol.GateReadiness, hostbridge.CodeNotReady},
		{"lime.evidence", "record", protocol.GatePolicy, hostbridge.CodePolicyDenied},
		{"lime.cloudSession", "getSnapshot", protocol.GateApproval, hostbridge.CodeApprovalRequired},
		{"lime.storage", "drop", protocol.GateValidation, hostbridge.CodeUnsupported},
		{"lime.storage", "set", protocol.GateValidation, hostbridge.CodeInvalidRequest}, // no key
	}
	for i, d := range denied {
		rid := fmt.Sprintf("d%d", i)
		m := s.invoke(rid, d.capability, d.method, map[string]any{"subject": "x"})
		if e := hostbridge.ErrorOf(m); m.Type != hostbridge.TypeError || e.Code != d.code || e.Message == "" || m.RequestID != rid {
			t.Errorf("%s.%s: %s, want host:error %s", d.capability, d.method, raw(m), d.code)
		}
	}
	allowed := []struct {
		capability, method string
		args               any
		want               string
	}{
		{"lime.ui", "getLocale", nil, `{"locale":"en-US"}`},
		{"lime.storage", "get", map[string]any{"key": "k"}, `{"key":"k","value":null}`},
		{"lime.storage", "set", map[string]any{"key": "k", "value": map[string]any{"n": 1}}, `{"ok":true}`},
		{"lime.storage", "get", map[string]any{"key": "k"}, `{"key":"k","value":{"n":1}}`},
		{"lime.storage", "list", nil, `{"keys":["k"]}`},
		{"lime.secrets", "status", map[string]any{"key": "api_key"}, `{"configured":true,"key":"api_key","message":"The secret \"api_key\" is configured."}`},
		{"lime.secrets", "status", map[string]any{"key": "other"}, `{"configured":false,"key":"other","message":"The secret \"other\" is not configured."}`},
	}
	for i, a := range allowed {
		rid := fmt.Sprintf("a%d", i)
		m := s.invoke(rid, a.capability, a.method, a.args)
		if m.Type != hostbridge.TypeResponse || string(m.Payload) != a.want || m.RequestID != rid {
			t.Errorf("%s.%s: %s, want host:response %s", a.capability, a.method, raw(m), a.want)
		}
	}
	if m := s.invoke("t", "lime.ui", "getTheme", nil); payload(t, m)["themeMode"] != "light" {
		t.Errorf("getTheme: %s", raw(m))
	}
	calls := s.observe().Calls
	if len(calls) != len(denied)+len(allowed)+1 {
		t.Fatalf("calls = %s", raw(calls))
	}
	for i, d := range denied {
		want := protocol.BridgeCall{Type: hostbridge.TypeInvoke, RequestID: fmt.Sprintf("d%d", i), Capability: d.capability,
			Method: d.method, Decision: protocol.DecisionDenied, Gate: d.gate, Code: d.code}
		if calls[i] != want {
			t.Errorf("call %d = %+v, want %+v", i, calls[i], want)
		}
	}
	if c := calls[len(denied)]; c.Decision != protocol.DecisionAllowed || c.Gate != "" || c.Capability != "lime.ui" {
		t.Errorf("allowed call recorded as %+v", c)
	}

	// Without the policy: the session is a presence, evidence is kept.
	x.configureWith(protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "canary-session"}})
	if m := s.invoke("c", "lime.cloudSession", "getSnapshot", nil); string(m.Payload) != `{"signedIn":true,"tenantId":"t1"}` {
		t.Errorf("cloud session: %s", raw(m))
	}
	if m := s.invoke("e", "lime.evidence", "record", map[string]any{"subject": "report"}); m.Type != hostbridge.TypeResponse {
		t.Errorf("evidence: %s", raw(m))
	}
	if ev := s.observe().Evidence; len(ev) != 1 || ev[0] != (protocol.EvidenceRecord{Kind: "app-record", Capability: "lime.evidence", RequestID: "e", AppID: "tiny-app", Version: "1.0.0"}) {
		t.Errorf("evidence = %s", raw(ev))
	}

	// Storage is per app.
	other := x.mount("other-app", "main")
	if m := other.invoke("o", "lime.storage", "list", nil); string(m.Payload) != `{"keys":[]}` {
		t.Errorf("another app sees storage: %s", raw(m))
	}
	if obs := other.observe(); len(obs.Calls) != 1 || len(obs.Evidence) != 0 {
		t.Errorf("another app's log: %s", raw(obs))
	}
}

func TestBridgeHostActions(t *testing.T) {
	x := start(t)
	s := x.mount("tiny-app", "main")
	frameBase := strings.TrimSuffix(s.frame, "index.html")
	cases := []struct {
		typ     string
		payload any
		code    string // "" when allowed
	}{
		{hostbridge.TypeNavigate, map[string]any{"entryKey": "tasks"}, ""},
		{hostbridge.TypeNavigate, map[string]any{"route": "/reports/1"}, ""},
		{hostbridge.TypeNavigate, map[string]any{"entryKey": "nope"}, hostbridge.CodeInvalidRequest},
		{hostbridge.TypeNavigate, map[string]any{"route": "//evil.example/x"}, hostbridge.CodeInvalidRequest},
		{hostbridge.TypeNavigate, map[string]any{"route": "https://evil.example/"}, hostbridge.CodeInvalidRequest},
		{hostbridge.TypeNavigate, map[string]any{}, hostbridge.CodeInvalidRequest},
		{hostbridge.TypeToast, map[string]any{"message": "Saved", "level": "success"}, ""},
		{hostbridge.TypeToast, map[string]any{"level": "info"}, hostbridge.CodeInvalidRequest},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "https://tiny.example.org/pricing"}, ""},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "https://docs.tiny.example.org:443/x"}, ""},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "http://tiny.example.org/"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "https://evil.example/"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "https://tiny.example.org@evil.example/"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "javascript:alert(1)"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "file:///etc/passwd"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeOpenExternal, map[string]any{"url": "data:text/html,hi"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeDownload, map[string]any{"url": "report.txt"}, ""},
		{hostbridge.TypeDownload, map[string]any{"url": frameBase + "js/app.js"}, ""},
		{hostbridge.TypeDownload, map[string]any{"url": frameBase + "missing.txt"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeDownload, map[string]any{"url": "../outside.txt"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeDownload, map[string]any{"url": s.host + "/surface/" + s.token}, hostbridge.CodeURLRefused},
		{hostbridge.TypeDownload, map[string]any{"url": "https://evil.example/report.txt"}, hostbridge.CodeURLRefused},
		{hostbridge.TypeDownload, map[string]any{"url": "javascript:alert(1)"}, hostbridge.CodeURLRefused},
		{"host:launchMissiles", map[string]any{}, hostbridge.CodeInvalidRequest},
	}
	for i, c := range cases {
		rid := fmt.Sprintf("r%d", i)
		m := s.only(s.send(c.typ, rid, c.payload))
		if c.code == "" && (m.Type != hostbridge.TypeResponse || payload(t, m)["ok"] != true) ||
			c.code != "" && (m.Type != hostbridge.TypeError || hostbridge.ErrorOf(m).Code != c.code) || m.RequestID != rid {
			t.Errorf("%s %s: %s", c.typ, raw(c.payload), raw(m))
		}
	}
	calls := s.observe().Calls
	if len(calls) != len(cases) {
		t.Fatalf("calls = %s", raw(calls))
	}
	for i, c := range cases {
		got := calls[i]
		if got.Type != c.typ || (got.Decision == protocol.DecisionAllowed) != (c.code == "") ||
			c.code != "" && (got.Gate != protocol.GateValidation || got.Code != c.code) {
			t.Errorf("call %d (%s) recorded as %+v", i, c.typ, got)
		}
	}
	long := strings.Repeat("é", 400) + "<img src=x onerror=alert(1)>"
	a := s.send(hostbridge.TypeToast, "long", map[string]any{"message": long, "level": "shout"})
	if a.Toast == nil || len([]rune(a.Toast.Message)) != maxToastRunes || a.Toast.Level != "info" {
		t.Errorf("toast = %+v", a.Toast)
	}
	if !strings.Contains(s.page, `"toastHTML":false`) || !strings.Contains(s.page, "el.textContent = String(t.message)") {
		t.Error("the host page does not insert toasts as text")
	}
}

func TestHostSetPushesToOpenSurfaces(t *testing.T) {
	x := start(t)
	s := x.mount("tiny-app", "main")
	ev := s.events()
	x.must(protocol.MethodSet, protocol.SetParams{Theme: &protocol.Theme{Mode: "dark", ColorSchemeID: "forest",
		Tokens: map[string]string{"--lime-color-accent": "#00ff00"}}}, nil)
	m := next(ev, 5*time.Second)
	p := payload(t, m)
	vars, _ := p["variables"].(map[string]any)
	if m.Type != hostbridge.TypeThemeUpdate || m.EnvelopeProblem() != "" || m.AppID != "tiny-app" || p["themeMode"] != "dark" ||
		p["effectiveThemeMode"] != "dark" || p["colorSchemeId"] != "forest" || vars["--lime-color-accent"] != "#00ff00" || vars["--lime-color-background"] == nil {
		t.Errorf("theme push: %s", raw(m))
	}
	x.must(protocol.MethodSet, protocol.SetParams{Visibility: "hidden"}, nil)
	if m := next(ev, 5*time.Second); m.Type != hostbridge.TypeVisibility || string(m.Payload) != `{"visible":false}` {
		t.Errorf("visibility push: %s", raw(m))
	}
	x.must(protocol.MethodSet, protocol.SetParams{Locale: "de-DE"}, nil)
	if m := next(ev, 5*time.Second); m.Type != hostbridge.TypeSnapshot || payload(t, m)["locale"] != "de-DE" {
		t.Errorf("locale push: %s", raw(m))
	}
	// The snapshot an app asks for carries the new state too.
	snap := payload(t, s.only(s.send(hostbridge.TypeGetSnapshot, "r", nil)))
	if snap["locale"] != "de-DE" || snap["theme"].(map[string]any)["themeMode"] != "dark" {
		t.Errorf("snapshot after host/set: %v", snap)
	}
	for _, c := range []struct {
		p     protocol.SetParams
		field string
	}{
		{protocol.SetParams{Theme: &protocol.Theme{Mode: "neon", Tokens: map[string]string{}}}, "theme.mode"},
		{protocol.SetParams{Theme: &protocol.Theme{Mode: "dark", Tokens: map[string]string{"color": "red"}}}, "theme.tokens"},
		{protocol.SetParams{Visibility: "minimised"}, "visibility"},
		{protocol.SetParams{Locale: "not a tag!"}, "locale"},
	} {
		if err := x.call(protocol.MethodSet, c.p, nil); code(err) != protocol.CodeInvalidParams || !strings.Contains(err.Error(), c.field) {
			t.Errorf("host/set %s: %v", raw(c.p), err)
		}
	}
}

func TestResetClosesSurfaces(t *testing.T) {
	x := start(t)
	s := x.mount("tiny-app", "main")
	ev := s.events()
	s.invoke("r", "lime.storage", "set", map[string]any{"key": "k", "value": 1})
	x.must(protocol.MethodReset, nil, nil)
	select {
	case _, open := <-ev:
		if open {
			t.Error("the event stream got a message at reset")
		}
	case <-time.After(5 * time.Second):
		t.Error("the event stream is still open after host/reset")
	}
	if status, _, _ := s.get(s.res.URL); status != http.StatusNotFound {
		t.Errorf("GET %s after reset: %d", s.res.URL, status)
	}
	if status, _, _ := s.get(s.frame); status != http.StatusNotFound {
		t.Errorf("GET %s after reset: %d", s.frame, status)
	}
	if status, _, _ := s.endpoint(http.MethodPost, "/message", s.host, s.token, "{}"); status != http.StatusNotFound {
		t.Errorf("POST message after reset: %d", status)
	}
	obs := s.observe()
	obs.HostState = nil // the digest of the (empty) host database is always there
	if raw(obs) != `{"calls":[],"rejected":[],"evidence":[]}` {
		t.Errorf("observe after reset = %s", raw(obs))
	}
	again := x.mount("tiny-app", "main")
	if m := again.invoke("g", "lime.storage", "get", map[string]any{"key": "k"}); string(m.Payload) != `{"key":"k","value":null}` {
		t.Errorf("storage after reset: %s", raw(m))
	}
}

func TestCloseStopsTheServers(t *testing.T) {
	x := start(t)
	s := x.mount("tiny-app", "main")
	frame, _ := url.Parse(s.frame)
	addrs := []string{strings.TrimPrefix(s.host, "http://"), frame.Host}
	for _, a := range addrs {
		c, err := net.Dial("tcp", a)
		if err != nil {
			t.Fatalf("dialing %s before Close: %v", a, err)
		}
		_ = c.Close()
	}
	if err := x.h.Close(); err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, 2*time.Second); err == nil {
			_ = c.Close()
			t.Errorf("%s still listens after Close", a)
		}
	}
	if err := x.call(protocol.MethodCenter, nil, nil); err == nil {
		t.Error("app/center after Close started the servers again")
	}
}

func TestAppCenterShowsReasons(t *testing.T) {
	x := start(t)
	x.configure(nil, agentOff(), "")
	if _, err := x.install(surfaceApp(t, "tiny-app"), nil, true); err != nil {
		t.Fatal(err)
	}
	var r protocol.CenterResult
	x.must(protocol.MethodCenter, nil, &r)
	s := &surface{t: t, client: &http.Client{Timeout: 10 * time.Second}}
	status, body, hd := s.get(r.URL)
	if status != http.StatusOK || !strings.Contains(hd.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("center: %d %v", status, hd)
	}
	for _, want := range []string{
		`data-app-id="tiny-app"`, "Tiny App",
		`data-entry-key="main" data-status="ready"`,
		`data-entry-key="tasks" data-status="needs-setup"`,
		`data-blocker="capability_available:lime.agent">capability lime.agent is disabled`,
		`data-setup-action="`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("center lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script") {
		t.Error("the app center runs script")
	}
	if status, _, _ := s.get(strings.TrimSuffix(r.URL, "/") + "x"); status != http.StatusNotFound {
		t.Errorf("unknown center token: %d", status)
	}
}

func TestHelloListsTheSurfaceMethods(t *testing.T) {
	x := start(t)
	var h protocol.HelloResult
	x.must(protocol.MethodHello, protocol.HelloParams{HarnessName: "t", ProtocolVersion: protocol.Version}, &h)
	for _, m := range []string{protocol.MethodLaunch, protocol.MethodCenter, protocol.MethodObserve, protocol.MethodSet} {
		if !slices.Contains(h.Methods, m) {
			t.Errorf("hello does not list %s", m)
		}
	}
}

// Ids that join into the same text must not share a storage bucket
// (spec 002: namespace app data "by app, workspace, and tenant").
func TestStorageBucketsOfJoinableIdsDiffer(t *testing.T) {
	pairs := [][2][3]string{
		{{"app", "t/a", "b"}, {"app", "t", "a/b"}},
		{{"a@b", "t", "w"}, {"a", "b@t", "w"}},
		{{"app", "t", "w"}, {"app", "t", "w"}},
	}
	for i, p := range pairs {
		x, y := storageBucket(p[0][0], p[0][1], p[0][2]), storageBucket(p[1][0], p[1][1], p[1][2])
		if same := x == y; same != (p[0] == p[1]) {
			t.Errorf("%v and %v: buckets %q and %q (same: %v)", p[0], p[1], x, y, same)
		}
		if got := bucketOwner(x); got != p[0][0] {
			t.Errorf("pair %d: owner of %q = %q, want %q", i, x, got, p[0][0])
		}
	}
}
