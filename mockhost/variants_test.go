//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// variantProbes observe, through the protocol and the surface only, what
// each variant changes; many reuse the probe of a fault that breaks the
// same behaviour.
func variantProbes() map[string]probe {
	secretSlot := "secrets:\n  - key: api_key\n    required: true\n"
	faults := faultProbes()
	maps.Copy(faults, surfaceProbes())
	maps.Copy(faults, lifecycleProbes())
	maps.Copy(faults, backendProbes())
	return map[string]probe{
		"refusals-as-errors": func(t *testing.T, x *harness) string {
			return fmt.Sprint(code(x.call(protocol.MethodVerify, protocol.PackageParams{Path: app(t, "manifestVersion: 9.9.9\n")}, nil)))
		},
		"install-manifest-as-invalid": func(t *testing.T, x *harness) string {
			_, err := x.install(app(t, "manifestVersion: 9.9.9\n"), nil, true)
			return fmt.Sprint(code(err))
		},
		"verify-before-project": projProbe(map[string]string{"APP.md": manifest(withDefaults("requires:\n  capabilities:\n    lime.ui: \">=2.0.0\"\n"))},
			func(map[string]any) string { return "projected" }),
		"legacy-kinds-marked": projProbe(map[string]string{"APP.md": manifest(withDefaults("entries:\n  - key: start\n    kind: home\n    title: Home\n"))},
			func(p map[string]any) string { return raw(p["entries"]) }),
		"host-version-at-readiness":  faults["ignore-host-version"],
		"runtime-range-at-readiness": runtimeBackedProbe,
		"no-runtime-backed":          runtimeBackedProbe,
		"links-outside-intake-form": func(t *testing.T, x *harness) string {
			err := x.call(protocol.MethodVerify, protocol.PackageParams{Path: appWithOutsideLink(t)}, nil)
			_, _, data := hostErrorData(err)
			return fmt.Sprint(code(err), data)
		},
		"setup-as-blocked":           readyProbe(secretSlot, nil, nil, nil, "", "", status),
		"readiness-old-vocabulary":   readyProbe(secretSlot, nil, nil, nil, "", "", status),
		"performance-stays-ready":    faults["performance-tier-blocks"],
		"superseded-in-setup-action": faults["hide-superseded-by"],
		"deprecation-check-only": readyProbe("deprecatedAt: 2020-01-01T00:00:00Z\n", nil, nil, nil, "2021-01-01T00:00:00Z", "",
			func(r protocol.ReadinessResult) string { return raw(r.Warnings) }),
		"setup-action-host-kinds":      faults["omit-setup-actions"],
		"no-agent-runtime-no-registry": func(t *testing.T, x *harness) string { return string(x.c.HelloRaw()) },
		"desktop-p2-without-agent":     func(t *testing.T, x *harness) string { return string(x.c.HelloRaw()) },
		"activation-asks-consent":      faults["launch-keeps-install-consent"],
		"visibility-as-word":           visibilityProbe,
		"center-own-words":             centerReasonsProbe,
		EveryReading:                   visibilityProbe,
		"visibility-as-state":          visibilityProbe,
		"capabilities-as-map": snapshotProbe(protocol.ConfigureParams{}, func(p map[string]any) string {
			return raw(p["capabilities"])
		}),
		"locale-as-string":    localeProbe,
		"jit-token-bare":      jitProbe,
		"telemetry-otlp-json": telemetryEncodingProbe,
		"telemetry-none":      telemetryEncodingProbe,
		"partition-per-launch": func(t *testing.T, x *harness) string {
			return fmt.Sprint(x.mount("tiny-app", "main").res.RuntimeOrigin == x.launchEntry("tiny-app", "main").res.RuntimeOrigin)
		},
		"locale-reloads-frame": pushProbe(protocol.SetParams{Locale: "de-DE"}, protocol.SetParams{Locale: "fr-FR"}),
		"jit-token-named-get-token": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "tok-1"}})
			return platformCall(t, x, "lime.cloudSession", "getAccessToken", nil)
		},
		"snapshot-grouped": snapshotProbe(protocol.ConfigureParams{}, func(p map[string]any) string {
			return raw(p["appId"]) + raw(p["locale"])
		}),
		"snapshots-pushed-unasked": faults["snapshot-on-timer"],
		"errors-on-envelope":       invokeProbe(protocol.ConfigureParams{}, "lime.billing", "getStatus", nil),
		"navigate-reloads-frame": func(t *testing.T, x *harness) string {
			a := x.mount("tiny-app", "main").send(hostbridge.TypeNavigate, "r1", map[string]any{"route": "/settings"})
			return raw(a)
		},
		"download-needs-permission": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			return s.only(s.send(hostbridge.TypeDownload, "r1", map[string]any{"url": "report.txt"})).Type
		},
		"open-external-needs-permission": func(t *testing.T, x *harness) string {
			s := x.mount("tiny-app", "main")
			return s.only(s.send(hostbridge.TypeOpenExternal, "r1", map[string]any{"url": "https://docs.tiny.example.org/guide"})).Type
		},
		"permission-denied-as-policy": func(t *testing.T, x *harness) string {
			return permittedCall(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}}})(t, x)
		},
		"approval-policy-first": func(t *testing.T, x *harness) string {
			appServerFor(t, x, appserver.ApprovalTurn(), protocol.ConfigureParams{Policy: &protocol.Policy{DeniedTools: []string{"publish"}}})
			s := x.mount("tiny-app", "main")
			ev := s.events()
			s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"})
			var seen []string
			for m := next(ev, 2*time.Second); m.Type != ""; m = next(ev, 2*time.Second) {
				var e hostbridge.TaskEvent
				_ = json.Unmarshal(m.Payload, &e)
				if seen = append(seen, e.Type); e.Type == "result" || e.Type == "approval:requested" {
					break
				}
			}
			return strings.Join(seen, ",")
		},
		"billing-blocks-app": func(t *testing.T, x *harness) string {
			installPlatformApp(t, x, protocol.ConfigureParams{Billing: &protocol.Billing{Plan: "team", Quota: protocol.QuotaExhausted}})
			r, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		"model-settings-in-readiness": readyProbe("requires:\n  capabilities:\n    lime.modelSettings: current\n", nil, nil, nil, "", "", status),
		"export-as-zip":               func(t *testing.T, x *harness) string { return exported(x) },
		"app-id-syntax-checked": func(t *testing.T, x *harness) string {
			err := x.call(protocol.MethodDisable, protocol.AppIDParams{AppID: "TINY-APP"}, nil)
			return fmt.Sprint(err)
		},
		"retired-entry-disabled":            faults["rollback-keeps-new-entries"],
		"workspace-not-seeded":              userStateThen,
		"rollback-never-downgrades":         rollbackExport,
		"backend-crash-reported":            faults["backend-crash-ignored"],
		"workflow-input-checked-in-run":     typedStarts,
		"workflow-branch-last-target":       branchRun,
		"workflow-idempotent-start-refused": repeatedKey,
		"frame-facts-end-task":              frameFactProbe,
		"storage-namespace-exclusive":       sharedNamespaceInstall,
	}
}

// sharedNamespaceInstall installs alpha-app and then beta-app, both
// declaring storage namespace shared-notes, and reports the second answer.
func sharedNamespaceInstall(t *testing.T, x *harness) string {
	x.configure(nil, nil, "")
	var err error
	for _, name := range []string{"alpha-app", "beta-app"} {
		dir := pkg(t, name, map[string]string{
			"APP.md": strings.Replace(manifest(withDefaults("storage:\n  namespace: shared-notes\n")), "name: tiny-app", "name: "+name, 1)})
		_, err = x.install(dir, nil, true)
	}
	return fmt.Sprint(err)
}

// visibilityProbe mounts main, hides the surface and reports the
// host:visibility payload pushed.
func visibilityProbe(t *testing.T, x *harness) string {
	ev := x.mount("tiny-app", "main").events()
	x.must(protocol.MethodSet, protocol.SetParams{Visibility: "hidden"}, nil)
	return string(next(ev, 5*time.Second).Payload)
}

// TestEveryVariantChangesTheAnswer runs each variant's probe on a default
// host and on a host taking only that variant's reading: the observations
// must differ, or the variant proves nothing.
// centerReasonsProbe is the text of the reasons the app center shows for
// an app whose agent capability is off.
func centerReasonsProbe(t *testing.T, x *harness) string {
	body := blockedAppCenter(t, x)
	return fmt.Sprint(regexp.MustCompile(`data-blocker="[^"]*">([^<]*)<`).FindAllStringSubmatch(body, -1))
}

func TestEveryVariantChangesTheAnswer(t *testing.T) {
	probes := variantProbes()
	for _, v := range Variants() {
		pr, ok := probes[v.Name]
		if !ok {
			t.Errorf("variant %s has no probe", v.Name)
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			def := pr(t, start(t))
			taken := pr(t, startVariants(t, v.Name))
			t.Logf("default: %s\nvariant: %s", def, taken)
			if def == taken {
				t.Errorf("variant %s changes nothing the probe sees: %s", v.Name, def)
			}
		})
	}
	for name := range probes {
		if _, err := ParseVariants([]string{name}); err != nil {
			t.Errorf("probe for unknown variant: %v", err)
		}
	}
}

// TestEveryVariantLivesAtOneMarkedPlace keeps the promise that a reader
// finds a variant's code by grepping `// variant: NAME`: exactly one such
// comment per variant in mockhost's sources.
func TestEveryVariantLivesAtOneMarkedPlace(t *testing.T) {
	src := sourceOfMockhost(t)
	for _, v := range Variants() {
		if n := strings.Count(src, "// variant: "+v.Name+" "); n != 1 {
			t.Errorf("variant %s is marked at %d places, want 1", v.Name, n)
		}
	}
}

// TestVariantsNameKnownRequirementsAndCiteAClause checks each variant's
// declaration: a description, the clause that allows it, requirement ids
// (and prefixes) the catalog knows, opt-outs among what it touches, and a
// name no fault has.
func TestVariantsNameKnownRequirementsAndCiteAClause(t *testing.T) {
	cat := levels.Default()
	faults := map[string]bool{}
	for _, f := range Faults() {
		faults[f.Name] = true
	}
	for _, v := range Variants() {
		if v.Description == "" || v.Clause == "" || len(v.Touches) == 0 {
			t.Errorf("variant %s: a description, a clause and the requirements it touches are required", v.Name)
		}
		if faults[v.Name] {
			t.Errorf("variant %s has the name of a fault", v.Name)
		}
		touched := Expand(cat, v.Touches)
		for _, ids := range [][]string{v.Touches, v.OptsOut} {
			for _, id := range ids {
				_, known := cat.Requirement(id)
				if prefix := strings.HasSuffix(id, "*"); prefix && len(Expand(cat, []string{id})) == 0 || !prefix && !known {
					t.Errorf("variant %s names %s, which is no requirement of the catalog", v.Name, id)
				}
			}
		}
		for _, id := range Expand(cat, v.OptsOut) {
			if !slices.Contains(touched, id) {
				t.Errorf("variant %s opts out of %s, which it does not touch", v.Name, id)
			}
		}
		for _, l := range v.Claims {
			if _, ok := cat.Level(l); !ok {
				t.Errorf("variant %s claims unknown level %s", v.Name, l)
			}
		}
	}
}

// TestVariantsSpanEveryJudgedLevel keeps the promise that the variants
// reach every level the harness judges: each judged level introduces a
// requirement some variant touches.
func TestVariantsSpanEveryJudgedLevel(t *testing.T) {
	cat := levels.Default()
	reached := map[string]bool{}
	for _, v := range Variants() {
		for _, id := range Expand(cat, v.Touches) {
			if r, ok := cat.Requirement(id); ok {
				for _, l := range r.Levels {
					reached[l] = true
				}
			}
		}
	}
	for _, l := range cat.JudgedLevels() {
		if !reached[l] {
			t.Errorf("no variant touches a requirement of level %s", l)
		}
	}
}

// TestOptedOutMatchesIdsAndPrefixes checks Variant.OptedOut and Expand on
// an exact id and a prefix.
func TestOptedOutMatchesIdsAndPrefixes(t *testing.T) {
	v := Variant{OptsOut: []string{"AGENT-*", "REGISTRY-OUTAGE"}}
	for id, want := range map[string]bool{"AGENT-APPROVAL": true, "REGISTRY-OUTAGE": true, "REGISTRY-WITHDRAWN": false, "BRIDGE-SNAPSHOT": false} {
		if got := v.OptedOut(id); got != want {
			t.Errorf("OptedOut(%s) = %v, want %v", id, got, want)
		}
	}
	got := Expand(levels.Default(), []string{"AGENT-*"})
	if len(got) < 5 || !slices.Contains(got, "AGENT-APPROVAL") || slices.ContainsFunc(got, func(id string) bool { return !strings.HasPrefix(id, "AGENT-") }) {
		t.Errorf("Expand(AGENT-*) = %v", got)
	}
}

// A host that claims a level is judgeable at it with what the level needs
// (issue: a level is judgeable with only what that level needs): a variant
// that claims levels opts out of no requirement counting at them, and
// selftest runs every one of them under it.
func TestVariantsJudgeableAtTheLevelsTheyClaim(t *testing.T) {
	cat := levels.Default()
	for _, v := range Variants() {
		if v.Claims == nil {
			continue
		}
		touched := Expand(cat, v.Touches)
		for _, r := range cat.ForLevels(v.Claims) {
			if v.OptedOut(r.ID) {
				t.Errorf("variant %s claims %v but opts out of %s, which counts there", v.Name, v.Claims, r.ID)
			}
			if !slices.Contains(touched, r.ID) {
				t.Errorf("variant %s claims %v but selftest does not run %s under it", v.Name, v.Claims, r.ID)
			}
		}
	}
}
