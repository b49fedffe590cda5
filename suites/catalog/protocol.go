package catalog

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeProtocol checks the control protocol every other spec stands on
// (docs/host-control-protocol.md).
func describeProtocol(tc *harness.TestContext) {
	Describe("Control protocol", func() {
		It("conformance/hello names the host, its kind, protocol version 1 and its capability profile", tc.Req("PROTO-HELLO", levels.EveryMember), func() {
			if err := tc.Host().HelloErr(); err != nil {
				tc.Failf("the hello answer must match its schema: %v", err)
			}
			h := tc.Host().Hello()
			Expect(h.ProtocolVersion).To(Equal(protocol.Version), harness.At(protocol.MethodHello, []any{"protocolVersion"}))
			Expect(h.Host.Kind).To(BeElementOf(protocol.HostKinds()), harness.At(protocol.MethodHello, []any{"host", "kind"}))
			Expect(h.Host.Name).NotTo(BeEmpty(), harness.At(protocol.MethodHello, []any{"host", "name"}))
			Expect(h.Host.Version).NotTo(BeEmpty(), harness.At(protocol.MethodHello, []any{"host", "version"}))
			Expect(h.Capabilities).NotTo(BeEmpty(), harness.At(protocol.MethodHello, []any{"capabilities"}))
		})

		It("host/reset leaves a fresh host with no installed app and no retained data", tc.Req("PROTO-RESET", levels.EveryTransition), func() {
			var before protocol.ListResult
			tc.Precondition("a host with one app installed and one uninstalled keeping its data", func() {
				kept := tc.Fixture("full-app")
				keptID := tc.Install(kept, tc.ReleaseOf(kept)).AppID
				err := tc.Call(protocol.MethodUninstall, protocol.UninstallParams{AppID: keptID, KeepData: true}, &protocol.UninstallResult{})
				if err != nil {
					// A host with no per-app data has nothing to keep
					// (-32006); reset is judged without retained data.
					if he, ok := harness.HostError(err); !ok || he.Code != protocol.CodeUnsupported {
						tc.FailCall(protocol.MethodUninstall, err)
					}
					tc.Uninstall(keptID, false)
				}
				dir := tc.Fixture("minimal-app")
				tc.Install(dir, tc.ReleaseOf(dir))
				before = tc.List()
				Expect(before.Apps).NotTo(BeEmpty(), harness.At(protocol.MethodList, []any{"apps"}, "after an install"))
			})
			tc.MustCall(protocol.MethodReset, struct{}{}, &protocol.OK{})
			l := tc.List()
			Expect(harness.AppIDs(l.Apps)).To(BeEmpty(), harness.At(protocol.MethodList, []any{"apps"}, "(their ids) after host/reset"))
			// Retained data is checked when the host kept some (keeping it
			// is UNINSTALL-KEEP-DATA's business, not this spec's).
			if len(before.Retained) > 0 {
				Expect(l.Retained).To(BeEmpty(), harness.At(protocol.MethodList, []any{"retained"}, "after host/reset"))
			}
			expectResetForgetsSecretBindings(tc)
			expectResetForgetsKnowledgeBindings(tc)
			expectResetForgetsUserSettings(tc)
		})

		It("answers an unknown method with -32601", tc.Req("PROTO-ERRORS"), func() {
			err := tc.Call("conformance/no-such-method", struct{}{}, &json.RawMessage{})
			code, isHostErr := tc.HostErrorCode("conformance/no-such-method", err)
			Expect(isHostErr).To(BeTrue(), "conformance/no-such-method, an unknown method, must be answered with an error, not a result")
			Expect(code).To(BeEquivalentTo(protocol.CodeMethodNotFound), "conformance/no-such-method: the error code")
		})

		It("answers a reserved, not yet implemented method with -32601", tc.Req("PROTO-ERRORS", levels.EveryMember), func() {
			for _, m := range protocol.ReservedMethods() {
				if slices.Contains(tc.Host().Hello().Methods, m) {
					continue // the host implements it: other specs judge it
				}
				err := tc.Call(m, struct{}{}, &json.RawMessage{})
				code, isHostErr := tc.HostErrorCode(m, err)
				Expect(isHostErr).To(BeTrue(), "%s must be answered with an error until the host implements it", m)
				Expect(code).To(BeEquivalentTo(protocol.CodeMethodNotFound), "%s: the error code", m)
			}
		})

		DescribeTable("answers missing or mistyped params with -32602",
			func(method string, params map[string]any) {
				err := tc.Call(method, params, &json.RawMessage{})
				code, isHostErr := tc.HostErrorCode(method, err)
				Expect(isHostErr).To(BeTrue(), "%s with params %v must be answered with an error", method, params)
				Expect(code).To(BeEquivalentTo(protocol.CodeInvalidParams), "%s with params %v: the error code", method, params)
			},
			Entry("package/verify without a path", tc.Req("PROTO-ERRORS", levels.EveryEntryPoint), protocol.MethodVerify, map[string]any{}),
			Entry("app/install with consent as a string", tc.Req("PROTO-ERRORS", levels.EveryEntryPoint), protocol.MethodInstall,
				map[string]any{"path": "/nonexistent/package", "consent": "yes"}),
		)
	})
}

// expectResetForgetsUserSettings judges host/reset on what host/set
// changed, the user's locale and theme ("forget everything"): an app
// installed after the reset is not answered in the session before's.
// Judged only on a host that announces host/set and app/invoke, through
// which an app's lime.ui is asked without a browser.
func expectResetForgetsUserSettings(tc *harness.TestContext) {
	GinkgoHelper()
	methods := tc.Host().Hello().Methods
	if !slices.Contains(methods, protocol.MethodSet) || !slices.Contains(methods, protocol.MethodInvoke) {
		return
	}
	const locale = "is-IS"
	scheme := harness.Nonce("reset-scheme")
	ask := func(app, method string) string {
		GinkgoHelper()
		m := tc.InvokeAsApp(protocol.InvokeParams{AppID: app, EntryKey: "main", RequestID: harness.Nonce("ui"), Capability: "lime.ui", Method: method})
		return harness.AnswerText(m, true)
	}
	tc.Configure(tc.DefaultConfigure())
	app := tc.InstallProbe(tc.DefaultConfigure())
	tc.Precondition("after host/set, the app's lime.ui getLocale answers the locale "+locale, func() {
		tc.HostSet(protocol.SetParams{Locale: locale, Theme: &protocol.Theme{Mode: "dark", ColorSchemeID: scheme}})
		if got := ask(app, "getLocale"); !strings.Contains(got, locale) {
			tc.Failf("lime.ui getLocale after host/set of locale %s answered %s", locale, got)
		}
	})
	// The theme is judged where the host answers lime.ui getTheme with it
	// (the probe's calls name getLocale only: docs/host-control-protocol.md,
	// "Bridge payloads").
	asked := []string{"getLocale"}
	if strings.Contains(ask(app, "getTheme"), scheme) {
		asked = append(asked, "getTheme")
	}
	tc.MustCall(protocol.MethodReset, struct{}{}, &protocol.OK{})
	app = tc.InstallProbe(tc.DefaultConfigure())
	for _, method := range asked {
		if got := ask(app, method); strings.Contains(got, locale) || strings.Contains(got, scheme) {
			tc.Failf("after host/reset, %s installed again is answered lime.ui %s %s: the locale or theme host/set gave before the reset", app, method, got)
		}
	}
}

// expectResetForgetsKnowledgeBindings judges host/reset on a knowledge
// binding, which is app data as a secret binding is (app/knowledge and
// app/file): the app installed again after the reset finds its template
// unbound. Judged only on a host that announces app/knowledge.
func expectResetForgetsKnowledgeBindings(tc *harness.TestContext) {
	GinkgoHelper()
	if !slices.Contains(tc.Host().Hello().Methods, protocol.MethodKnowledge) {
		return
	}
	tc.Configure(tc.DefaultConfigure())
	dir := tc.Fixture(harness.UserStateFixture)
	app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
	pack := harness.Nonce("pack")
	tc.Precondition("app/knowledge binds a pack to "+app+"'s template "+harness.KnowledgeTemplate, func() {
		var res protocol.KnowledgeResult
		tc.MustCall(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: harness.KnowledgeTemplate, Pack: pack}, &res)
		if res.Pack == nil || *res.Pack != pack {
			tc.Failf("app/knowledge bound %q to %s's %s and answered %v", pack, app, harness.KnowledgeTemplate, res.Pack)
		}
	})
	tc.MustCall(protocol.MethodReset, struct{}{}, &protocol.OK{})
	tc.Configure(tc.DefaultConfigure())
	tc.Install(tc.Fixture(harness.UserStateFixture), tc.ReleaseOf(dir))
	var res protocol.KnowledgeResult
	if err := tc.Call(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: app, Template: harness.KnowledgeTemplate}, &res); err == nil && res.Pack != nil && *res.Pack == pack {
		tc.Failf("after host/reset and a reinstall, app/knowledge of %s's %s still reads the pack bound before the reset", app, harness.KnowledgeTemplate)
	}
}

// expectResetForgetsSecretBindings judges the secrets of host/reset ("secrets
// and session tokens are forgotten") on a binding: a secret bound to an app
// with app/secret is app data, and an app installed again after the reset
// needs setup for that slot. Judged only on a host that announces app/secret
// and app/readiness: catalog needs neither, so without them it is skipped.
func expectResetForgetsSecretBindings(tc *harness.TestContext) {
	GinkgoHelper()
	methods := tc.Host().Hello().Methods
	if !slices.Contains(methods, protocol.MethodSecret) || !slices.Contains(methods, protocol.MethodReadiness) {
		return
	}
	app := tc.InstallBoundSecretApp()
	tc.MustCall(protocol.MethodReset, struct{}{}, &protocol.OK{})
	tc.Configure(tc.DefaultConfigure())
	dir := tc.Fixture(harness.SecretSlotFixture)
	tc.Install(dir, tc.ReleaseOf(dir))
	if r := tc.AppReadiness(app); harness.ReadyStatus(r.Status) {
		tc.Failf("after host/reset and a reinstall %s is %q: the secret bound to its slot %s before the reset still counts", app, r.Status, harness.SecretSlot)
	}
}
