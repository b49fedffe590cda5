package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeLifecycleReadiness checks lifecycle dates against the configured
// clock (spec 000, Metadata lifecycle).
func describeLifecycleReadiness(tc *harness.TestContext) {
	Describe("Desktop P0: lifecycle dates in readiness", func() {
		// Both sides of each date: a second before it, and a second after.
		It("blocks an app past endOfLifeAt by the configured clock and surfaces supersededBy", tc.Req("READY-END-OF-LIFE", levels.RepresentationLimit, levels.ChangeBetweenReads), func() {
			dir := tc.Fixture("end-of-life-app")
			tc.ExpectReady("the app is launchable long before its endOfLifeAt", dir, "", harness.Launchable()...)
			eol := lifecycleDate(tc, dir, "endOfLifeAt")
			tc.Configure(withClock(tc, eol.Add(-time.Second).Format(time.RFC3339)))
			before, raw := tc.Readiness(dir, "")
			if slices.Contains(blockedStatuses(), before.Status) {
				tc.Failf("blocked a second before its endOfLifeAt %s (clock %s); only endOfLifeAt < now blocks: %s",
					eol.Format(time.RFC3339), eol.Add(-time.Second).Format(time.RFC3339), raw)
			}
			tc.Configure(withClock(tc, eol.Add(time.Second).Format(time.RFC3339)))
			after, raw := tc.Readiness(dir, "")
			Expect(after.Status).To(BeElementOf(blockedStatuses()), harness.At(protocol.MethodReadiness, []any{"status"}, "a second past endOfLifeAt (clock "+eol.Add(time.Second).Format(time.RFC3339)+")"))
			Expect(after.OK).To(BeFalse(), harness.At(protocol.MethodReadiness, []any{"ok"}, "past endOfLifeAt"))
			if !strings.Contains(string(raw), "2.0.0") {
				tc.Failf("%s names no supersededBy 2.0.0 past endOfLifeAt; the answer: %s", harness.At(protocol.MethodReadiness, nil), harness.Excerpt(raw))
			}
			// The same instants written with a UTC offset: an RFC 3339
			// clock names an instant, its offset included
			// (docs/host-control-protocol.md, Clock override).
			for _, zone := range []*time.Location{time.FixedZone("+05:00", 5*3600), time.FixedZone("-05:00", -5*3600)} {
				early, late := eol.Add(-time.Second).In(zone).Format(time.RFC3339), eol.Add(time.Second).In(zone).Format(time.RFC3339)
				tc.Configure(withClock(tc, early))
				if r, raw := tc.Readiness(dir, ""); slices.Contains(blockedStatuses(), r.Status) {
					tc.Failf("blocked at clock %s, a second before its endOfLifeAt %s: the clock's UTC offset is part of the instant; the answer: %s", early, eol.Format(time.RFC3339), harness.Excerpt(raw))
				}
				tc.Configure(withClock(tc, late))
				if r, raw := tc.Readiness(dir, ""); !slices.Contains(blockedStatuses(), r.Status) {
					tc.Failf("not blocked at clock %s, a second past its endOfLifeAt %s: the clock's UTC offset is part of the instant; the answer: %s", late, eol.Format(time.RFC3339), harness.Excerpt(raw))
				}
			}
			expectWallClockAgain(tc, dir, "endOfLifeAt", func(r protocol.ReadinessResult) bool { return !slices.Contains(blockedStatuses(), r.Status) })
		})

		It("warns about an app past deprecatedAt without blocking it", tc.Req("READY-DEPRECATED", levels.RepresentationLimit, levels.ChangeBetweenReads), func() {
			dir := tc.Fixture("deprecated-app")
			tc.ExpectReady("the app is launchable before its deprecatedAt", dir, "", harness.Launchable()...)
			dep := lifecycleDate(tc, dir, "deprecatedAt")
			tc.Configure(withClock(tc, dep.Add(-time.Second).Format(time.RFC3339)))
			before, raw := tc.Readiness(dir, "")
			Expect(mentionsDeprecation(before)).To(BeFalse(), harness.At(protocol.MethodReadiness, []any{"checks"}, "warn of deprecation a second before deprecatedAt "+dep.Format(time.RFC3339)+"; the answer: "+harness.Excerpt(raw)))
			tc.Configure(withClock(tc, dep.Add(time.Second).Format(time.RFC3339)))
			after, raw := tc.Readiness(dir, "")
			Expect(after.Status).To(BeElementOf(harness.Launchable()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("a deprecated app must not be blocked; the answer: %s", harness.Excerpt(raw))))
			Expect(mentionsDeprecation(after)).To(BeTrue(), harness.At(protocol.MethodReadiness, []any{"checks"}, "warn of no deprecation a second past deprecatedAt; the answer: "+harness.Excerpt(raw)))
			expectWallClockAgain(tc, dir, "deprecatedAt", func(r protocol.ReadinessResult) bool { return !mentionsDeprecation(r) })
		})
	})
}

// expectWallClockAgain configures the host again without a clock and
// fails the spec unless readiness of dir is as the wall clock, before
// field's date, makes it (asBefore): host/configure "replaces any earlier
// configuration (no merge)", and an absent clock means the wall clock.
func expectWallClockAgain(tc *harness.TestContext, dir, field string, asBefore func(protocol.ReadinessResult) bool) {
	GinkgoHelper()
	if date := lifecycleDate(tc, dir, field); !time.Now().Before(date) {
		harness.Errorf("fixture sanity: %s of %s (%s) is past by the wall clock", field, filepath.Base(dir), date.Format(time.RFC3339))
	}
	p := tc.DefaultConfigure()
	p.Clock = "" // the harness's default names one; absent is the wall clock
	tc.Configure(p)
	r, raw := tc.Readiness(dir, "")
	if !asBefore(r) {
		tc.Failf("after a later host/configure with no clock, readiness is judged as if now were still past %s (the wall clock is before it): the earlier clock still counts; the answer: %s", field, harness.Excerpt(raw))
	}
}

// lifecycleDate reads a lifecycle date of the package with the oracle.
func lifecycleDate(tc *harness.TestContext, dir, field string) time.Time {
	GinkgoHelper()
	v, _ := tc.Oracle(dir).Manifest[field].(string)
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		harness.Errorf("fixture sanity: %s of %s is %q, not an RFC 3339 time", field, filepath.Base(dir), v)
	}
	return t
}

func withClock(tc *harness.TestContext, clock string) protocol.ConfigureParams {
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
