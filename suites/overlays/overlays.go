package overlays

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
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

		// "an update or a rollback keeps them in effect" (UPDATE-KEEPS-OVERLAYS):
		// the overlays as last set, whenever they were set. Before each
		// transition the tenant, user and workspace change their overlays
		// (a name set, a value changed, an overlay cleared), and after it
		// host/observe must show what was in effect just before: a host
		// that keeps a copy of the overlays with a release, and brings it
		// back with the release, undoes every change made since.
		It("keeps the tenant, user and workspace overlays in effect as last set across an update, a rollback and another update, whatever was set, changed or cleared between them",
			tc.Req("UPDATE-KEEPS-OVERLAYS", levels.EveryTransition, levels.EveryMember), func() {
				app := installOverlayApp(tc)
				update := func(version string) func() {
					return func() {
						dir := tc.Fixture(overlayFixture)
						harness.SetField(dir, "version", version)
						if _, err := tc.TryUpdate(app, dir, tc.ReleaseOf(dir)); err != nil {
							tc.FailCall(protocol.MethodUpdate, err)
						}
						if row, _ := tc.ListedApp(app); row.Version != version {
							tc.Failf("app/list shows %s at version %q after app/update to %s", app, row.Version, version)
						}
					}
				}
				rollback := func() {
					tc.RequireMethod(protocol.MethodRollback)
					tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: app}, &protocol.RollbackResult{})
				}
				tenant, user, workspace := protocol.ScopeTenant, protocol.ScopeUser, protocol.ScopeWorkspace
				steps := []struct {
					edits      []overlayEdit // made before the transition
					transition string
					run        func()
				}{
					{everyOverlay(), "app/update to 1.1.0", update("1.1.0")},
					{[]overlayEdit{{tenant, "budget", harness.Nonce("tenant-changed")}, {user, "bannedWords", harness.Nonce("user-set")}, {workspace, "", ""}},
						"app/rollback", rollback},
					{[]overlayEdit{{user, "", ""}, {tenant, "defaultModel", harness.Nonce("tenant-changed")}, {workspace, "tone", harness.Nonce("workspace-set-again")}},
						"app/update to 1.2.0", update("1.2.0")},
				}
				sets := newOverlayState()
				for i, step := range steps {
					want := editOverlays(tc, app, sets, step.edits)
					tc.Precondition(step.transition+" of "+app+" is done", step.run)
					after := step.transition
					if i > 0 {
						after = fmt.Sprintf("%s (the overlays changed after %s: %s)", step.transition, steps[i-1].transition, editsText(step.edits))
					}
					expectOverlays(tc, app, want, after)
				}
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

// overlayState is what each scope's overlay sets now, by scope, and every
// value an overlay was ever set to.
type overlayState struct {
	now  map[string]map[string]string
	ever map[overlayEdit]bool
}

func newOverlayState() *overlayState {
	return &overlayState{now: map[string]map[string]string{}, ever: map[overlayEdit]bool{}}
}

// overlayEdit is one change to a scope's overlay: name set to value (a
// name the overlay did not set, or a new value), or, with no name, the
// overlay cleared ({}).
type overlayEdit struct{ scope, name, value string }

func (e overlayEdit) String() string {
	if e.name == "" {
		return "the " + e.scope + " overlay cleared"
	}
	return fmt.Sprintf("the %s overlay sets %s", e.scope, e.name)
}

// editsText renders edits for a failure message.
func editsText(edits []overlayEdit) string {
	parts := make([]string, len(edits))
	for i, e := range edits {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}

// everyOverlay is a tenant, a user and a workspace overlay that overlap.
func everyOverlay() []overlayEdit {
	var edits []overlayEdit
	for _, e := range []struct{ scope, names string }{
		{protocol.ScopeTenant, "tone defaultModel budget"},
		{protocol.ScopeUser, "tone defaultModel"},
		{protocol.ScopeWorkspace, "tone"},
	} {
		for _, name := range strings.Fields(e.names) {
			edits = append(edits, overlayEdit{e.scope, name, harness.Nonce(e.scope)})
		}
	}
	return edits
}

// setEveryOverlay sets everyOverlay and returns what host/observe then
// shows in effect.
func setEveryOverlay(tc *harness.TestContext, app string) map[string]inEffect {
	GinkgoHelper()
	return editOverlays(tc, app, newOverlayState(), everyOverlay())
}

// editOverlays makes edits to sets, sets through app/overlay each scope
// they touch (all its values: they replace what was set before), and
// returns what host/observe then shows in effect. Its positive control asks
// only that each name some overlay now sets shows a value an overlay of
// that scope was set to: which one wins, and whether a cleared overlay is
// gone, is OVERLAY-PRECEDENCE's to judge, so a host that ranks the scopes
// otherwise, or keeps a cleared overlay, is still judged on what else
// keeps its overlays.
func editOverlays(tc *harness.TestContext, app string, sets *overlayState, edits []overlayEdit) map[string]inEffect {
	GinkgoHelper()
	touched := map[string]bool{}
	for _, e := range edits {
		touched[e.scope] = true
		switch {
		case e.name == "":
			sets.now[e.scope] = map[string]string{}
		case sets.now[e.scope] == nil:
			sets.now[e.scope] = map[string]string{e.name: e.value}
		default:
			sets.now[e.scope][e.name] = e.value
		}
		if e.name != "" {
			sets.ever[e] = true
		}
	}
	for _, scope := range overlayScopes() {
		if touched[scope] {
			setOverlay(tc, app, scope, sets.now[scope])
		}
	}
	var got map[string]inEffect
	tc.Precondition("each name the overlays set shows a value set for it (host/observe overlay)", func() {
		got = overlayOf(tc, app)
		for _, name := range overlayNames() {
			setNow := slices.ContainsFunc(overlayScopes(), func(scope string) bool { _, ok := sets.now[scope][name]; return ok })
			if setNow && !sets.ever[overlayEdit{got[name].scope, name, got[name].value}] {
				tc.Failf("host/observe of %s shows %s for %s, which no overlay set", app, got[name], name)
			}
		}
	})
	return got
}

// expectOverlays fails the spec unless what is in effect for app is still
// want (what was in effect before), after what happened: each name in
// effect before, and no name that was not (a cleared overlay stays gone).
func expectOverlays(tc *harness.TestContext, app string, want map[string]inEffect, after string) {
	GinkgoHelper()
	got := overlayOf(tc, app)
	var wrong []string
	for _, name := range overlayNames() {
		if got[name] != want[name] {
			wrong = append(wrong, fmt.Sprintf("%s is %s, not %s", name, got[name], want[name]))
		}
	}
	for name, w := range want {
		if !slices.Contains(overlayNames(), name) && got[name] != w {
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
