package suites

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

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
			r, _ := tc.Readiness(tc.Fixture("full-app"), "")
			Expect(r.Status).To(Equal(protocol.StatusReady), "status")
			Expect(r.OK).To(BeTrue(), "ok")
		})

		It("blocks launch when a required-tier check fails", tc.Req("READY-REQUIRED-TIER"), func() {
			r, _ := tc.Readiness(tc.Fixture("readiness-required-fail"), "")
			Expect(notReady()).To(ContainElement(r.Status), "status with a failing required check")
			Expect(r.OK).To(BeFalse(), "ok with a failing required check")
			tc.Reading("failing required readiness check", r.Status)
		})

		It("warns but allows launch when a recommended-tier check fails", tc.Req("READY-RECOMMENDED-TIER"), func() {
			r, raw := tc.Readiness(tc.Fixture("readiness-recommended-fail"), "")
			Expect(r.Status).To(Equal(protocol.StatusReadyDegraded), "status with a failing recommended check")
			Expect(r.OK).To(BeTrue(), "ok with a failing recommended check")
			Expect(hasWarning(r)).To(BeTrue(), "no warning for the failing recommended check: %s", raw)
		})

		It("only informs when a performance-tier check fails", tc.Req("READY-PERFORMANCE-TIER"), func() {
			r, _ := tc.Readiness(tc.Fixture("readiness-performance-fail"), "")
			Expect(launchable()).To(ContainElement(r.Status),
				"status with a failing performance check")
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
			r, raw := tc.Readiness(dir, "")
			Expect(notReady()).To(ContainElement(r.Status), "status without the required secret")
			Expect(string(raw)).To(ContainSubstring("provider_api_key"), "readiness must name the missing secret")
			tc.Configure(tc.WithSecret())
			r, _ = tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusReady), "status once the secret is configured")
		})

		It("keeps an app from ready when the host profile lacks a required capability, naming it", tc.Req("READY-CAPABILITIES"), func() {
			dir := tc.Fixture("capability-app")
			r, _ := tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusReady), "status with every capability enabled")
			tc.Configure(tc.withCapabilityDisabled("lime.ui"))
			r, raw := tc.Readiness(dir, "")
			Expect(notReady()).To(ContainElement(r.Status), "status with lime.ui disabled")
			Expect(string(raw)).To(ContainSubstring("lime.ui"), "readiness must name the missing capability")
		})

		It("judges each entry by its own requirements", tc.Req("READY-PER-ENTRY"), func() {
			dir := tc.Fixture("capability-app")
			tc.Configure(tc.withCapabilityDisabled("lime.agent"))
			chat, raw := tc.Readiness(dir, "chat")
			Expect(notReady()).To(ContainElement(chat.Status), "entry chat needs lime.agent, which is disabled")
			Expect(string(raw)).To(ContainSubstring("lime.agent"), "entry readiness must name the missing capability")
			page, _ := tc.Readiness(dir, "home_page")
			Expect(launchable()).To(ContainElement(page.Status),
				"entry home_page needs only lime.ui and must stay launchable")
		})

		It("never puts secret or session-token values in its answers", tc.Req("READY-NO-SECRET-LEAK"), func() {
			tc.Configure(tc.WithSecret())
			for _, f := range []string{"secret-required-app", "full-app", "readiness-required-fail"} {
				_, raw := tc.Readiness(tc.Fixture(f), "")
				tc.ExpectNoCanary("readiness of "+f, raw)
			}
		})
	})
}

func (tc *TestContext) withCapabilityDisabled(name string) protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.Capabilities = map[string]protocol.Capability{name: {Version: "0.10.0", Enabled: false}}
	return p
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
