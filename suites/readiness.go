package suites

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// notReady lists the statuses that keep launch blocked (spec 000 Readiness
// self-check model: required -> needs-setup or blocked; `failed` is the
// pre-0.5 spelling of blocked, see docs/decisions.md).
func notReady() []string {
	return []string{protocol.StatusNeedsSetup, protocol.StatusBlocked, protocol.StatusFailed}
}

// launchable lists the statuses that let launch go ahead.
func launchable() []string { return []string{protocol.StatusReady, protocol.StatusReadyDegraded} }

// describeReadiness checks the readiness model (spec 000 Readiness and
// Readiness self-check model; spec 002 Readiness state rules).
func describeReadiness(tc *TestContext) {
	Describe("Desktop P0: readiness", func() {
		It("reports a package with every check satisfied as ready", tc.Req("READY-STATUS"), func() {
			dir := tc.Fixture("full-app")
			tc.expectProfileOffers(dir)
			r, _ := tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusReady), "status")
			Expect(r.OK).To(BeTrue(), "ok")
		})

		It("blocks launch when a required-tier check fails, naming the check", tc.Req("READY-REQUIRED-TIER"), func() {
			dir := tc.Fixture("readiness-required-fail")
			twin := tc.CopyPackage(dir)
			DropReadinessCheck(twin, "brand_guidelines")
			tc.ExpectReady("the same package without the failing required check is ready", twin, "")
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(notReady()), "status with a failing required check: %s", raw)
			Expect(r.OK).To(BeFalse(), "ok with a failing required check")
			if !namesFailingCheck(r, "brand_guidelines") {
				tc.Failf("readiness is %s but names no failing check for the unbound knowledge template brand_guidelines, which the spec planted: %s", r.Status, raw)
			}
			tc.Reading("failing required readiness check", r.Status)
		})

		It("warns but allows launch when a recommended-tier check fails", tc.Req("READY-RECOMMENDED-TIER"), func() {
			dir := tc.Fixture("readiness-recommended-fail")
			twin := tc.CopyPackage(dir)
			DropReadinessCheck(twin, "product_catalog")
			tc.ExpectReady("the same package without the failing recommended check is ready", twin, "")
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusReadyDegraded), "status with a failing recommended check: %s", raw)
			Expect(r.OK).To(BeTrue(), "ok with a failing recommended check")
			Expect(hasWarning(r)).To(BeTrue(), "no warning for the failing recommended check: %s", raw)
		})

		It("only informs when a performance-tier check fails", tc.Req("READY-PERFORMANCE-TIER"), func() {
			dir := tc.Fixture("readiness-performance-fail")
			twin := tc.CopyPackage(dir)
			DropReadinessCheck(twin, "usage_history")
			tc.ExpectReady("the same package without the failing performance check is launchable", twin, "", launchable()...)
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(launchable()), "status with a failing performance check: %s", raw)
		})

		DescribeTable("surfaces failures with setupActions pointing to a fix flow",
			func(fixture, target string) {
				r, raw := tc.Readiness(tc.Fixture(fixture), "")
				Expect(r.SetupActions).NotTo(BeEmpty(), "no setupActions: %s", raw)
				b, _ := json.Marshal(r.SetupActions)
				Expect(string(b)).To(ContainSubstring(target), "no setup action names %s", target)
			},
			Entry("an unbound required knowledge template", tc.Req("READY-SETUP-ACTIONS"), "readiness-required-fail", "brand_guidelines"),
			Entry("a missing required secret", tc.Req("READY-SETUP-ACTIONS"), "secret-required-app", "provider_api_key"),
		)

		It("keeps an app whose required secret is not configured from ready, naming the secret", tc.Req("READY-SECRETS"), func() {
			dir := tc.Fixture("secret-required-app")
			tc.Configure(tc.WithSecret())
			tc.ExpectReady("the app is ready once its secret is configured", dir, "")
			tc.Configure(tc.DefaultConfigure())
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(notReady()), "status without the required secret: %s", raw)
			if !namesFailingCheck(r, "provider_api_key") {
				tc.Failf("readiness is %s but names no failing check for the missing secret provider_api_key: %s", r.Status, raw)
			}
		})

		It("keeps an app from ready when the host profile lacks a required capability, naming it", tc.Req("READY-CAPABILITIES"), func() {
			dir := tc.Fixture("capability-app")
			tc.ExpectReady("the app is ready with every capability enabled", dir, "")
			tc.Configure(tc.withCapabilityDisabled("lime.ui"))
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(notReady()), "status with lime.ui disabled: %s", raw)
			if !namesFailingCheck(r, "lime.ui") {
				tc.Failf("readiness is %s but names no failing check for the disabled capability lime.ui: %s", r.Status, raw)
			}
		})

		It("judges each entry by its own requirements", tc.Req("READY-PER-ENTRY"), func() {
			dir := tc.Fixture("capability-app")
			tc.ExpectReady("entry chat is ready with every capability enabled", dir, "chat")
			tc.Configure(tc.withCapabilityDisabled("lime.agent"))
			chat, raw := tc.Readiness(dir, "chat")
			Expect(chat.Status).To(BeElementOf(notReady()), "entry chat needs lime.agent, which is disabled: %s", raw)
			if !namesFailingCheck(chat, "lime.agent") {
				tc.Failf("entry chat is %s but its readiness names no failing check for lime.agent: %s", chat.Status, raw)
			}
			page, raw := tc.Readiness(dir, "home_page")
			Expect(page.Status).To(BeElementOf(launchable()),
				"entry home_page needs only lime.ui and must stay launchable: %s", raw)
		})

		It("never puts secret or session-token values in its answers", tc.Req("READY-NO-SECRET-LEAK"), func() {
			tc.Configure(tc.WithSecret())
			for _, f := range []string{"secret-required-app", "full-app", "readiness-required-fail"} {
				tc.ExpectNoCanaryIn("readiness of "+f, protocol.MethodReadiness, protocol.ReadinessParams{Path: tc.Fixture(f)})
			}
		})
	})
}

func (tc *TestContext) withCapabilityDisabled(name string) protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.Capabilities = map[string]protocol.Capability{name: {Version: "0.10.0", Enabled: false}}
	return p
}

// expectProfileOffers is the precondition of a spec that needs every check
// of the package in dir satisfied: the host's profile (its hello) offers,
// enabled, every capability the package requires. A host that offers less
// (a Desktop P0 host with no agent runtime) is not judged by that package.
func (tc *TestContext) expectProfileOffers(dir string) {
	GinkgoHelper()
	profile := tc.Host().Hello().Capabilities
	var missing []string
	for _, req := range agentpkg.RequiredCapabilities(tc.Oracle(dir).Manifest) {
		if c, ok := profile[req.Name]; !ok || !c.Enabled {
			missing = append(missing, req.Name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		tc.Blockedf("%s requires %s, which the host's hello does not offer enabled: no check of it can be satisfied", filepath.Base(dir), strings.Join(missing, ", "))
	}
}

// namesFailingCheck reports whether a not-ready answer names what the spec
// planted where a failure is stated: a failing (error-severity, blocking or
// required) check, a blocker, or a setup action. A name that appears only in
// passing checks does not count.
func namesFailingCheck(r protocol.ReadinessResult, name string) bool {
	has := func(s string) bool { return strings.Contains(s, name) }
	for _, c := range r.Checks {
		if (c.Severity == "error" || c.Blocking) && (has(c.Key) || has(c.Message) || has(c.Code)) {
			return true
		}
	}
	for _, checks := range r.Tiers {
		for _, c := range checks {
			if (c.Severity == "error" || c.Blocking) && (has(c.Key) || has(c.Message)) {
				return true
			}
		}
	}
	for _, b := range r.Blockers {
		if has(b) {
			return true
		}
	}
	for _, e := range r.Entries {
		for _, b := range e.Blockers {
			if has(b) {
				return true
			}
		}
	}
	return false
}

// hasWarning reports whether a readiness answer carries a warning.
func hasWarning(r protocol.ReadinessResult) bool {
	if len(r.Warnings) > 0 {
		return true
	}
	for _, c := range r.Checks {
		if c.Severity == "warning" {
			return true
		}
	}
	return false
}
