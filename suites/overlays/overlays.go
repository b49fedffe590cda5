package overlays

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// overlayFixture declares one overlayTemplate per scope.
const overlayFixture = "overlay-app"

// overlayTemplate is overlay-app's template of scope.
func overlayTemplate(scope string) string {
	switch scope {
	case protocol.ScopeTenant:
		return "tenant_defaults"
	case protocol.ScopeUser:
		return "user_preferences"
	}
	return "workspace_rules"
}

// overlayScopes are the scopes from lowest to highest precedence (spec 000,
// Overlay precedence: "Workspace Override > User Overlay > Tenant
// Overlay").
func overlayScopes() []string {
	return []string{protocol.ScopeTenant, protocol.ScopeUser, protocol.ScopeWorkspace}
}

// overlayNames are what the overlays set: things spec 000 lets an overlay
// override (tone, default model, budget, banned words).
func overlayNames() []string { return []string{"tone", "defaultModel", "budget", "bannedWords"} }

// inEffect is the value in effect for one name and the scope it comes from.
type inEffect struct{ value, scope string }

func (e inEffect) String() string {
	if e.scope == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q from the %s overlay", e.value, e.scope)
}

// describeOverlays checks how a host resolves and keeps an app's overlays
// (spec 000 Overlay precedence and Overlay package; spec 003 What must not
// be overwritten), set through app/overlay and read through host/observe
// (docs/decisions.md, "Overlays").
func describeOverlays(tc *harness.TestContext) {
	Describe("Executable: overlays", func() {
		It("takes each overlaid name from the highest scope that sets it, workspace over user over tenant, whatever order they were set in", tc.Req("OVERLAY-PRECEDENCE", levels.RepresentationLimit, levels.ChangeBetweenReads), func() {
			app := installOverlayApp(tc)
			// The first round sets the scopes highest first, so a host
			// that lets the last value win, or ranks them otherwise, shows
			// it at once; the rounds after it are drawn at random, each
			// setting every scope (an empty overlay clears one).
			// The next two clear with an empty overlay ({} replaces what a
			// scope set): the workspace's, then every scope's.
			rounds := [][]map[string]string{
				{{"tone": "tenant-tone"}, {"tone": "user-tone"}, {"tone": "workspace-tone"}},
				{{"tone": "tenant-tone-2"}, {"tone": "user-tone-2"}, {}},
				{{}, {}, {}},
			}
			order := [][]int{{2, 1, 0}, {0, 1, 2}, {1, 2, 0}}
			rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), 0x6f7665726c6179))
			for r := len(rounds); r <= 12; r++ {
				sets := make([]map[string]string, len(overlayScopes()))
				for i, scope := range overlayScopes() {
					sets[i] = map[string]string{}
					for _, name := range overlayNames() {
						if rng.IntN(2) == 0 {
							sets[i][name] = fmt.Sprintf("%s-%d-%s", scope, r, name)
						}
					}
				}
				rounds = append(rounds, sets)
				order = append(order, rng.Perm(len(overlayScopes())))
			}
			for r, sets := range rounds {
				var setOrder []string
				for _, i := range order[r] {
					setOverlay(tc, app, overlayScopes()[i], sets[i])
					setOrder = append(setOrder, overlayScopes()[i])
				}
				got := overlayOf(tc, app)
				if r == 0 && got["tone"].scope == "" {
					tc.Blockedf("host/observe of %s shows no overlay in effect after app/overlay set tone in every scope", app)
				}
				var wrong []string
				for _, name := range overlayNames() {
					want := inEffect{}
					for i, scope := range overlayScopes() {
						if v, set := sets[i][name]; set {
							want = inEffect{v, scope}
						}
					}
					if got[name] != want {
						wrong = append(wrong, fmt.Sprintf("%s is %s, not %s", name, got[name], want))
					}
				}
				if len(wrong) > 0 {
					tc.Failf("round %d of %d, overlays set in the order %s (%s): %s", r+1, len(rounds),
						strings.Join(setOrder, ", "), overlaySetsText(sets), strings.Join(wrong, "; "))
				}
			}
		})

		It("leaves the installed package as released when overlays are set: it still hashes to its packageHash and the app stays ready", tc.Req("OVERLAY-KEEPS-PACKAGE-HASH", levels.EveryMember), func() {
			dir := tc.Fixture(overlayFixture)
			rel := tc.ReleaseOf(dir)
			installed := tc.Install(dir, rel)
			app := installed.AppID
			tc.ExpectAppReady(app)
			setEveryOverlay(tc, app)
			row, listed := tc.ListedApp(app)
			if !listed {
				tc.Failf("app/list no longer shows %s after its overlays were set", app)
			}
			if row.PackageHash == "" {
				tc.Blockedf("app/list names no packageHash for %s, so it cannot show whether the overlays changed it", app)
			}
			if !strings.EqualFold(row.PackageHash, rel.PackageHash) {
				tc.Failf("app/list shows %s with packageHash %s after its overlays were set, not its release's %s", app, row.PackageHash, rel.PackageHash)
			}
			if installed.InstalledPath != "" {
				got, _, err := agentpkg.HashPackage(installed.InstalledPath, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
				if err != nil {
					tc.Errorf("hashing the installed package of %s at %s: %v", app, installed.InstalledPath, err)
				}
				if !strings.EqualFold(got, rel.PackageHash) {
					tc.Failf("the installed package of %s (%s) hashes to %s after its overlays were set, not its release's packageHash %s: an overlay changed the package",
						app, installed.InstalledPath, got, rel.PackageHash)
				}
			} else {
				tc.Reading("Overlays", "the host names no installedPath: judged by app/list and readiness only")
			}
			if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app}); r.Status != protocol.StatusReady {
				tc.Failf("app/readiness of %s is %q after its overlays were set; it was ready before; the answer: %s", app, r.Status, harness.Excerpt(raw))
			}
		})

		// "-32602 naming key or scope for a template the app does not
		// declare or a scope that is not the template's": a spelling that
		// only looks like the template's key is no template, and another
		// scope is not the template's.
		It("sets only a template the app declares, under its exact key and scope: every other spelling of the key, and every other scope, is refused with -32602 naming it",
			tc.Req("PROTO-OVERLAY-KEY-EXACT", levels.ConfusableIdentity, levels.RepresentationLimit), func() {
				app := installOverlayApp(tc)
				scope := protocol.ScopeWorkspace
				set := func(key, scope string) error {
					return tc.Call(protocol.MethodOverlay, protocol.OverlayParams{AppID: app, Key: key, Scope: scope,
						Values: map[string]json.RawMessage{"tone": json.RawMessage(`"formal"`)}}, &protocol.OK{})
				}
				setOverlay(tc, app, scope, map[string]string{"tone": "formal"})
				var taken []string
				for _, key := range harness.ConfusableSpellings(overlayTemplate(scope)) {
					if err := set(key, scope); !harness.InvalidParamsNaming(err, "key") {
						taken = append(taken, fmt.Sprintf("key %q answered %s", key, harness.AnswerOf(err)))
					}
				}
				for _, other := range []string{protocol.ScopeTenant, protocol.ScopeUser, strings.ToUpper(scope), scope + " "} {
					if err := set(overlayTemplate(scope), other); !harness.InvalidParamsNaming(err, "scope") {
						taken = append(taken, fmt.Sprintf("scope %q answered %s", other, harness.AnswerOf(err)))
					}
				}
				if len(taken) > 0 {
					tc.Failf("app/overlay of %s's template %s (scope %s) took other spellings or scopes instead of refusing them with -32602 naming the field: %s",
						app, overlayTemplate(scope), scope, strings.Join(taken, "; "))
				}
			})

		It("keeps the tenant, user and workspace overlays in effect across an update and a rollback", tc.Req("UPDATE-KEEPS-OVERLAYS", levels.EveryTransition, levels.EveryMember), func() {
			app := installOverlayApp(tc)
			before := setEveryOverlay(tc, app)
			tc.Precondition("app/update takes "+app+" to 1.1.0", func() {
				dir := tc.Fixture(overlayFixture)
				harness.SetField(dir, "version", "1.1.0")
				if _, err := tc.TryUpdate(app, dir, tc.ReleaseOf(dir)); err != nil {
					tc.FailCall(protocol.MethodUpdate, err)
				}
				if row, _ := tc.ListedApp(app); row.Version != "1.1.0" {
					tc.Failf("app/list shows %s at version %q after app/update", app, row.Version)
				}
			})
			expectOverlays(tc, app, before, "app/update to 1.1.0")
			tc.Precondition("app/rollback of "+app+" is done", func() {
				tc.RequireMethod(protocol.MethodRollback)
				tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: app}, &protocol.RollbackResult{})
			})
			expectOverlays(tc, app, before, "app/rollback")
		})
	})
}

// installOverlayApp installs overlay-app under the default profile.
func installOverlayApp(tc *harness.TestContext) string {
	GinkgoHelper()
	tc.Configure(tc.DefaultConfigure())
	dir := tc.Fixture(overlayFixture)
	return tc.Install(dir, tc.ReleaseOf(dir)).AppID
}

// setOverlay sets the overlay of scope's template of app to values. A host
// without app/overlay, or one that refuses it, cannot be judged on
// overlays: the spec is blocked.
func setOverlay(tc *harness.TestContext, app, scope string, values map[string]string) {
	GinkgoHelper()
	raw := map[string]json.RawMessage{}
	for k, v := range values {
		b, _ := json.Marshal(v)
		raw[k] = b
	}
	err := tc.Call(protocol.MethodOverlay, protocol.OverlayParams{AppID: app, Key: overlayTemplate(scope), Scope: scope, Values: raw}, &protocol.OK{})
	if code, isErr := tc.HostErrorCode(protocol.MethodOverlay, err); isErr {
		if code == protocol.CodeMethodNotFound {
			tc.Blockedf("the host does not implement app/overlay (-32601), so no overlay can be set")
		}
		tc.Blockedf("app/overlay of %s's %s overlay was refused: %v", app, scope, err)
	}
}

// setEveryOverlay sets a tenant, a user and a workspace overlay that
// overlap, and returns what host/observe then shows in effect. Its
// positive control asks only that each name set shows a value set for it:
// which one wins is OVERLAY-PRECEDENCE's to judge, so a host that ranks
// the scopes otherwise is still judged on what else keeps its overlays.
func setEveryOverlay(tc *harness.TestContext, app string) map[string]inEffect {
	GinkgoHelper()
	sets := map[string]map[string]string{
		protocol.ScopeTenant:    {"tone": harness.Nonce("tenant"), "defaultModel": harness.Nonce("tenant"), "budget": harness.Nonce("tenant")},
		protocol.ScopeUser:      {"tone": harness.Nonce("user"), "defaultModel": harness.Nonce("user")},
		protocol.ScopeWorkspace: {"tone": harness.Nonce("workspace")},
	}
	for _, scope := range overlayScopes() {
		setOverlay(tc, app, scope, sets[scope])
	}
	var got map[string]inEffect
	tc.Precondition("each name the overlays set shows a value set for it (host/observe overlay)", func() {
		got = overlayOf(tc, app)
		for _, name := range []string{"tone", "defaultModel", "budget"} {
			if v, ok := sets[got[name].scope][name]; !ok || v != got[name].value {
				tc.Failf("host/observe of %s shows %s for %s, which no overlay set", app, got[name], name)
			}
		}
	})
	return got
}

// expectOverlays fails the spec unless what is in effect for app is still
// want (what was in effect before), after what happened.
func expectOverlays(tc *harness.TestContext, app string, want map[string]inEffect, after string) {
	GinkgoHelper()
	got := overlayOf(tc, app)
	var wrong []string
	for name, w := range want {
		if got[name] != w {
			wrong = append(wrong, fmt.Sprintf("%s is %s, not %s", name, got[name], w))
		}
	}
	sort.Strings(wrong)
	if len(wrong) > 0 {
		tc.Failf("after %s the overlays of %s are no longer in effect as before it: %s", after, app, strings.Join(wrong, "; "))
	}
}

// overlayOf is what host/observe says is in effect for app, by name.
func overlayOf(tc *harness.TestContext, app string) map[string]inEffect {
	GinkgoHelper()
	out := map[string]inEffect{}
	for name, v := range tc.Observe(app).Overlay {
		var s string
		if json.Unmarshal(v.Value, &s) != nil {
			s = string(v.Value)
		}
		out[name] = inEffect{s, v.Scope}
	}
	return out
}

// overlaySetsText renders what each scope set in a round.
func overlaySetsText(sets []map[string]string) string {
	var parts []string
	for i, scope := range overlayScopes() {
		names := make([]string, 0, len(sets[i]))
		for n := range sets[i] {
			names = append(names, n)
		}
		sort.Strings(names)
		parts = append(parts, fmt.Sprintf("%s sets [%s]", scope, strings.Join(names, " ")))
	}
	return strings.Join(parts, ", ")
}
