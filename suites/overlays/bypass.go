package overlays

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// bypassFixture is capability-app with a required permission and one
// overlay template per scope: a readiness gate (the permission ungranted)
// and a policy gate (tenant policy denying its home_page entry) that an
// overlay must not lift.
func bypassFixture(tc *harness.TestContext) string {
	GinkgoHelper()
	dir := tc.Fixture("capability-app")
	harness.WriteFile(dir, "app.permissions.yaml", []byte("permissions:\n"+
		"  - {key: files_rw, scope: filesystem, access: read-write, required: true, reason: Reads the workspace}\n"))
	harness.EditFrontmatter(dir, func(lines []string) []string {
		lines = append(lines, "overlayTemplates:")
		for _, scope := range overlayScopes() {
			lines = append(lines, "  - {key: "+overlayTemplate(scope)+", scope: "+scope+", required: false}")
		}
		return lines
	})
	return dir
}

// bypassValues are what an overlay might carry to lift a gate: the names a
// host could read as enabling an entry, granting a permission, or
// skipping readiness or policy. Spec 000 lets overlays override "disabled
// entries", never lift a denial: none of them may change a verdict.
func bypassValues() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"enabledEntries":  json.RawMessage(`["home_page"]`),
		"disabledEntries": json.RawMessage(`[]`),
		"grants":          json.RawMessage(`["files_rw"]`),
		"permissions":     json.RawMessage(`{"files_rw": "granted"}`),
		"skipReadiness":   json.RawMessage(`true`),
		"readiness":       json.RawMessage(`"ready"`),
		"policy":          json.RawMessage(`{"deniedEntries": {}}`),
	}
}

// describeOverlayBypass checks that no overlay lifts readiness or policy
// (spec 000, Overlay package: overlays must not "bypass readiness and
// policy").
func describeOverlayBypass(tc *harness.TestContext) {
	Describe("Executable: overlays and the gates", func() {
		It("keeps an app whose required permission is not granted, and an entry tenant policy denies, from ready whatever an overlay of any scope says", tc.Req("OVERLAY-NO-BYPASS", levels.EveryMember), func() {
			dir := bypassFixture(tc)
			granted := tc.DefaultConfigure()
			granted.Grants = map[string][]string{"capability-app": {"files_rw"}}
			tc.Configure(granted)
			app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			tc.Precondition("entry home_page of the installed "+app+" is launchable with files_rw granted and no policy", func() {
				if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: "home_page"}); !harness.IsLaunchable(r.Status) {
					tc.Failf("app/readiness of entry home_page is %q; the answer: %s", r.Status, harness.Excerpt(raw))
				}
			})
			gated := tc.WithPolicy(protocol.Policy{DeniedEntries: map[string][]string{"capability-app": {"home_page"}}})
			gated.Grants = map[string][]string{"capability-app": {}}
			tc.Configure(gated)
			// expectGated judges both gates; before any overlay it is the
			// control (the host has the gates the overlays must not lift).
			expectGated := func(after string, fail func(format string, args ...any)) {
				GinkgoHelper()
				r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app})
				if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "files_rw") {
					fail("%s, app/readiness of %s is %q, not a not-ready status naming its required permission files_rw, which is not granted; the answer: %s", after, app, r.Status, harness.Excerpt(raw))
				}
				e, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: "home_page"})
				if !slices.Contains(harness.NotReady(), e.Status) || !harness.NamesFailingCheck(e, "home_page") {
					fail("%s, app/readiness of %s's entry home_page is %q, not a not-ready status naming the entry tenant policy denies; the answer: %s", after, app, e.Status, harness.Excerpt(raw))
				}
			}
			tc.Precondition("the gates hold before any overlay (READY-PERMISSIONS and READY-POLICY judge them)", func() {
				expectGated("with files_rw not granted and home_page denied by policy", tc.Failf)
			})
			// Every scope, each alone. A refused overlay lifts nothing, but
			// judges nothing either: at least one must be seen in effect.
			took := 0
			for _, scope := range overlayScopes() {
				values := bypassValues()
				err := tc.Call(protocol.MethodOverlay, protocol.OverlayParams{AppID: app, Key: overlayTemplate(scope), Scope: scope, Values: values}, &protocol.OK{})
				if code, isErr := tc.HostErrorCode(protocol.MethodOverlay, err); isErr {
					if code == protocol.CodeMethodNotFound {
						tc.Blockedf("the host does not implement app/overlay (-32601), so no overlay can be set")
					}
					// Refusing such an overlay keeps the gates: nothing to
					// judge for this scope.
					continue
				}
				tc.Precondition("the "+scope+" overlay is in effect (host/observe overlay)", func() {
					got := overlayOf(tc, app)
					var missing []string
					for name := range values {
						if got[name].scope != scope {
							missing = append(missing, name)
						}
					}
					if len(missing) > 0 {
						slices.Sort(missing)
						tc.Failf("host/observe of %s shows no value from the %s overlay for %s", app, scope, strings.Join(missing, ", "))
					}
				})
				took++
				expectGated("with the "+scope+" overlay setting "+bypassText(), tc.Failf)
				setOverlay(tc, app, scope, map[string]string{})
			}
			if took == 0 {
				tc.Blockedf("the host refused the overlay carrying %s in every scope, so no overlay could be seen not to lift a gate", bypassText())
			}
		})
	})
}

// bypassText names what bypassValues set.
func bypassText() string {
	var parts []string
	for name, v := range bypassValues() {
		parts = append(parts, name+"="+string(v))
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
