package suites

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/protocol"
)

// afterEveryFixtureDate lies after every lifecycle date of the fixtures.
const afterEveryFixtureDate = "2031-01-01T00:00:00Z"

// describeLifecycleReadiness checks lifecycle dates against the configured
// clock (spec 000, Metadata lifecycle).
func describeLifecycleReadiness(tc *TestContext) {
	Describe("Desktop P0: lifecycle dates in readiness", func() {
		It("blocks an app past endOfLifeAt by the configured clock and surfaces supersededBy", tc.Req("READY-END-OF-LIFE"), func() {
			dir := tc.Fixture("end-of-life-app")
			tc.ExpectReady("the app is launchable before its endOfLifeAt", dir, "", launchable()...)
			tc.Configure(tc.withClock(afterEveryFixtureDate))
			after, raw := tc.Readiness(dir, "")
			Expect(after.Status).To(Equal(protocol.StatusBlocked), "status past endOfLifeAt (clock %s)", afterEveryFixtureDate)
			Expect(after.OK).To(BeFalse(), "ok past endOfLifeAt")
			Expect(string(raw)).To(ContainSubstring("2.0.0"), "readiness must surface supersededBy 2.0.0")
		})

		It("warns about an app past deprecatedAt without blocking it", tc.Req("READY-DEPRECATED"), func() {
			dir := tc.Fixture("deprecated-app")
			tc.ExpectReady("the app is launchable before its deprecatedAt", dir, "", launchable()...)
			before, raw := tc.Readiness(dir, "")
			Expect(mentionsDeprecation(before)).To(BeFalse(), "deprecation warning before deprecatedAt (clock %s): %s", DefaultClock, raw)
			tc.Configure(tc.withClock(afterEveryFixtureDate))
			after, raw := tc.Readiness(dir, "")
			Expect(after.Status).To(BeElementOf(launchable()),
				"a deprecated app must not be blocked")
			Expect(mentionsDeprecation(after)).To(BeTrue(), "no deprecation warning past deprecatedAt: %s", raw)
		})
	})
}

func (tc *TestContext) withClock(clock string) protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.Clock = clock
	return p
}

// mentionsDeprecation reports whether a warning speaks of deprecation.
func mentionsDeprecation(r protocol.ReadinessResult) bool {
	for _, w := range r.Warnings {
		if strings.Contains(strings.ToLower(w), "deprecat") {
			return true
		}
	}
	for _, c := range r.Checks {
		if c.Severity == "warning" && (strings.Contains(strings.ToLower(c.Message+c.Key+c.Kind), "deprecat")) {
			return true
		}
	}
	return false
}
