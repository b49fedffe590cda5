package agentpkg

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

var clock = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

func env() Env { return Env{Now: clock, Capabilities: defaultCaps(), Secrets: map[string]bool{}} }

func actionKinds(r protocol.ReadinessResult) map[string]string {
	out := map[string]string{}
	for _, a := range r.SetupActions {
		out[a.Target] = a.Kind
	}
	return out
}

func TestReadinessTiers(t *testing.T) {
	cases := []struct {
		fixture, status, target, kind, tier string
	}{
		{"full-app", protocol.StatusReady, "", "", ""},
		{"minimal-app", protocol.StatusReady, "", "", ""},
		{"readiness-required-fail", protocol.StatusNeedsSetup, "brand_guidelines", "bind-knowledge", "required"},
		{"readiness-recommended-fail", protocol.StatusReadyDegraded, "product_catalog", "bind-knowledge", "recommended"},
		{"readiness-performance-fail", protocol.StatusReadyDegraded, "usage_history", "bind-knowledge", "performance"},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			r := Readiness(fixture(t, tc.fixture), env())
			if r.Status != tc.status {
				t.Fatalf("status = %s, want %s (checks %+v)", r.Status, tc.status, r.Checks)
			}
			if r.OK != (tc.status == protocol.StatusReady || tc.status == protocol.StatusReadyDegraded) {
				t.Errorf("ok = %v", r.OK)
			}
			if tc.target == "" {
				if len(r.SetupActions) != 0 || len(r.Blockers) != 0 {
					t.Errorf("a ready app has actions %v blockers %v", r.SetupActions, r.Blockers)
				}
				return
			}
			if actionKinds(r)[tc.target] != tc.kind {
				t.Errorf("setup actions = %+v", r.SetupActions)
			}
			var failing *protocol.ReadinessCheck
			for i, c := range r.Tiers[tc.tier] {
				if c.Key == tc.target {
					failing = &r.Tiers[tc.tier][i]
				}
			}
			if failing == nil || failing.Severity == SeverityInfo || !strings.Contains(failing.Message, tc.target) {
				t.Errorf("tier %s = %+v", tc.tier, r.Tiers[tc.tier])
			}
			if (tc.tier == "required") != (len(r.Blockers) > 0) {
				t.Errorf("blockers = %v", r.Blockers)
			}
		})
	}
}

func TestReadinessLifecycleUsesClock(t *testing.T) {
	eol := fixture(t, "end-of-life-app")
	before, after := env(), env()
	after.Now = time.Date(2030, 1, 1, 0, 0, 1, 0, time.UTC)
	if r := Readiness(eol, before); r.Status != protocol.StatusReady {
		t.Errorf("before EOL: %s %+v", r.Status, r.Checks)
	}
	r := Readiness(eol, after)
	if r.Status != protocol.StatusBlocked || r.OK || r.SupersededBy != "2.0.0" {
		t.Fatalf("after EOL: status %s supersededBy %q", r.Status, r.SupersededBy)
	}
	if !slices.Contains(r.Blockers, "lifecycle:endOfLifeAt") || actionKinds(r)["2.0.0"] != "external" {
		t.Errorf("blockers %v actions %+v", r.Blockers, r.SetupActions)
	}
	for _, e := range r.Entries {
		if e.Status != protocol.StatusBlocked {
			t.Errorf("entry %s not blocked after EOL", e.Key)
		}
	}

	dep := fixture(t, "deprecated-app")
	if r := Readiness(dep, before); len(r.Warnings) != 0 {
		t.Errorf("warned before deprecation: %v", r.Warnings)
	}
	after.Now = time.Date(2030, 6, 1, 0, 0, 0, 0, time.UTC)
	r = Readiness(dep, after)
	if !r.OK || r.Status == protocol.StatusBlocked || len(r.Warnings) == 0 || r.SupersededBy != "1.5.0" {
		t.Errorf("deprecated: %+v", r)
	}
}

func TestReadinessSecrets(t *testing.T) {
	p := fixture(t, "secret-required-app")
	e := env()
	r := Readiness(p, e)
	if r.Status != protocol.StatusNeedsSetup || actionKinds(r)["provider_api_key"] != "configure-secret" {
		t.Fatalf("no secret: %+v", r)
	}
	e.Secrets = map[string]bool{"provider_api_key": true}
	if r := Readiness(p, e); r.Status != protocol.StatusReady {
		t.Errorf("secret configured: %s %+v", r.Status, r.Checks)
	}
	// Optional secrets never block.
	if r := Readiness(fixture(t, "full-app"), env()); r.Status != protocol.StatusReady {
		t.Errorf("optional secret blocks: %+v", r.Blockers)
	}
}

func TestReadinessCapabilities(t *testing.T) {
	p := fixture(t, "capability-app")
	e := env()
	e.Capabilities["lime.ui"] = protocol.Capability{Version: StandardVersion, Enabled: false}
	if r := Readiness(p, e); r.Status != protocol.StatusNeedsSetup || actionKinds(r)["lime.ui"] != "open-settings" {
		t.Fatalf("app with lime.ui (required app-wide) disabled: %+v", r)
	}
	e.Capabilities["lime.ui"] = protocol.Capability{Version: StandardVersion, Enabled: true}
	// lime.agent is needed by the chat entry only: the app stays launchable.
	e.Capabilities["lime.agent"] = protocol.Capability{Version: StandardVersion, Enabled: false}
	r := Readiness(p, e)
	if r.Status != protocol.StatusReady {
		t.Fatalf("app with lime.agent (chat only) disabled: %+v", r)
	}
	got := map[string]string{}
	for _, er := range r.Entries {
		got[er.Key] = er.Status
	}
	if got["chat"] != protocol.StatusNeedsSetup || got["home_page"] != protocol.StatusReady {
		t.Errorf("entries = %v", got)
	}
	e.Entry = "home_page"
	if r := Readiness(p, e); r.Status != protocol.StatusReady || r.Entry != "home_page" || len(r.Entries) != 0 {
		t.Errorf("home_page: %+v", r)
	}
	e.Entry = "chat"
	if r := Readiness(p, e); r.Status != protocol.StatusNeedsSetup || !slices.Contains(r.Blockers, "capability_available:lime.agent") {
		t.Errorf("chat: %+v", r)
	}
	e.Entry = "nope"
	if r := Readiness(p, e); r.OK || r.Status != protocol.StatusUnknown {
		t.Errorf("unknown entry: %+v", r)
	}

	r = Readiness(fixture(t, "incompatible-capability"), env())
	if r.Status != protocol.StatusBlocked || actionKinds(r)["lime.agent"] != "external" {
		t.Errorf("incompatible version: %+v", r)
	}
}

func TestReadinessUnknownCheckAndNoSecretValues(t *testing.T) {
	p := loadTree(t, map[string]string{
		"APP.md":               appMD(requiredFields + "secrets:\n  - {key: token, required: true}\n"),
		"evals/readiness.yaml": "readiness:\n  required:\n    - check: crystal_ball\n      blocker: true\n",
	}, LoadOptions{})
	e := env()
	e.Secrets = map[string]bool{"token": true}
	r := Readiness(p, e)
	if r.Status != protocol.StatusReady || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "crystal_ball") {
		t.Errorf("unknown check kind: %+v", r)
	}
	raw, _ := json.Marshal(Readiness(p, env()))
	if !strings.Contains(string(raw), `"key":"token"`) {
		t.Errorf("readiness does not name the secret key: %s", raw)
	}
}

func TestReadinessInvalidPackageBlocked(t *testing.T) {
	r := Readiness(fixture(t, "legacy-entry-kinds"), env())
	if r.Status != protocol.StatusBlocked || r.OK {
		t.Errorf("invalid package: %+v", r)
	}
}

// TestReadinessGrantsAndPolicy: a required permission not granted needs
// setup naming it, an optional one never holds the app back, and no grants
// stated means nothing is checked; a denied entry is blocked alone, a
// denied app as a whole.
func TestReadinessGrantsAndPolicy(t *testing.T) {
	p := loadTree(t, map[string]string{
		"APP.md": appMD(requiredFields + "entries:\n  - {key: a, kind: page, title: A, route: /a, permissions: [net]}\n" +
			"  - {key: b, kind: page, title: B, route: /b}\n"),
		"app.permissions.yaml": "permissions:\n  - {key: files, scope: filesystem, required: true}\n  - {key: net, scope: network, required: false}\n",
	}, LoadOptions{})
	for name, tc := range map[string]struct {
		granted map[string]bool
		status  string
		blocker string
	}{
		"no grants stated":     {nil, protocol.StatusReady, ""},
		"required granted":     {map[string]bool{"files": true}, protocol.StatusReady, ""},
		"required not granted": {map[string]bool{"net": true}, protocol.StatusNeedsSetup, "permission_granted:files"},
		"nothing granted":      {map[string]bool{}, protocol.StatusNeedsSetup, "permission_granted:files"},
	} {
		e := env()
		e.Granted = tc.granted
		r := Readiness(p, e)
		if r.Status != tc.status || (tc.blocker != "" && !slices.Contains(r.Blockers, tc.blocker)) {
			t.Errorf("%s: status %s blockers %v, want %s with %q", name, r.Status, r.Blockers, tc.status, tc.blocker)
		}
	}
	e := env()
	e.Granted = map[string]bool{"files": true}
	e.Entry = "a"
	if r := Readiness(p, e); r.Status != protocol.StatusNeedsSetup {
		t.Errorf("entry a needs net, not granted: status %s", r.Status)
	}
	e = env()
	e.DeniedEntries = map[string]bool{"a": true}
	r := Readiness(p, e)
	if r.Status != protocol.StatusReady || len(r.Entries) != 2 || r.Entries[0].Status != protocol.StatusBlocked || r.Entries[1].Status != protocol.StatusReady {
		t.Errorf("a denied entry blocks itself only: app %s, entries %+v", r.Status, r.Entries)
	}
	e = env()
	e.AppDenied = true
	if r := Readiness(p, e); r.Status != protocol.StatusBlocked || !slices.Contains(r.Blockers, "policy:demo-app") {
		t.Errorf("a denied app: status %s, blockers %v", r.Status, r.Blockers)
	}
}

// TestReadinessAvailability: a required tool, skill (by id) or eval the
// host lacks needs setup naming it; optional ones and kinds the host did
// not state change nothing.
func TestReadinessAvailability(t *testing.T) {
	p := loadTree(t, map[string]string{"APP.md": appMD(requiredFields +
		"toolRefs:\n  - {key: pdf, required: true}\n  - {key: ocr, required: false}\n" +
		"skillRefs:\n  - {id: summarise, required: true}\n" +
		"evals:\n  - {key: gate, kind: readiness, required: true}\n")}, LoadOptions{})
	for name, tc := range map[string]struct {
		available map[string]map[string]bool
		status    string
		blocker   string
	}{
		"nothing stated":    {nil, protocol.StatusReady, ""},
		"all there":         {map[string]map[string]bool{"tools": {"pdf": true}, "skills": {"summarise": true}, "evals": {"gate": true}}, protocol.StatusReady, ""},
		"tool missing":      {map[string]map[string]bool{"tools": {"ocr": true}}, protocol.StatusNeedsSetup, "tool_available:pdf"},
		"skill missing":     {map[string]map[string]bool{"skills": {}}, protocol.StatusNeedsSetup, "skill_available:summarise"},
		"eval missing":      {map[string]map[string]bool{"evals": {}}, protocol.StatusNeedsSetup, "eval_available:gate"},
		"only optional off": {map[string]map[string]bool{"tools": {"pdf": true}}, protocol.StatusReady, ""},
	} {
		e := env()
		e.Available = tc.available
		r := Readiness(p, e)
		if r.Status != tc.status || (tc.blocker != "" && !slices.Contains(r.Blockers, tc.blocker)) {
			t.Errorf("%s: status %s blockers %v, want %s with %q", name, r.Status, r.Blockers, tc.status, tc.blocker)
		}
	}
}
