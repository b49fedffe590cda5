package install

import (
	"slices"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
)

// healthYAML is the evals/health.yaml the spec adds to minimal-app: two
// critical startup checks, one that does not state critical (the rule,
// "Failed startup checks regress readiness to blocked", binds it as it
// stands), and a critical runtime one (spec 000, Health checks).
const healthYAML = `health:
  startup:
    - check: storage_accessible
      timeout: 3s
      critical: true
    - check: ui_bundle_loaded
      timeout: 10s
      critical: true
    - check: sdk_connection
      timeout: 5s
  runtime:
    - check: agent_runtime_available
      interval: 60s
      critical: true
`

// describeHealth checks that startup health checks gate readiness (spec
// 000, Health checks). The harness plays the host-observable signals the
// checks read through host/configure's health.
func describeHealth(tc *harness.TestContext) {
	Describe("Desktop P0: health checks in readiness", func() {
		It("regresses an app whose startup health check fails to blocked, naming the check, and to ready once it passes; a failing runtime check or another check's signal does not block it",
			tc.Req("READY-HEALTH-STARTUP", levels.EveryMember, levels.ChangeBetweenReads, levels.ConfusableIdentity, levels.EveryEntryPoint), func() {
				dir := tc.Fixture("minimal-app")
				harness.WriteFile(dir, "evals/health.yaml", []byte(healthYAML))
				// One entry, asked for by name below: the app's health is
				// every entry's.
				harness.EditFrontmatter(dir, func(lines []string) []string {
					return append(lines, "entries:", "  - key: "+healthEntry, "    kind: page", "    title: Home Page", "    route: /home")
				})
				tc.Configure(withFailingHealth(tc))
				tc.ExpectReady("the app is ready while no health signal fails", dir, "")
				// Every startup check, each alone.
				for _, check := range []string{"storage_accessible", "ui_bundle_loaded", "sdk_connection"} {
					tc.Configure(withFailingHealth(tc, check))
					r, raw := tc.Readiness(dir, "")
					if !slices.Contains(blockedStatuses(), r.Status) || !harness.NamesFailingCheck(r, check) {
						tc.Failf("with the startup health check %s failing, readiness is %q, not blocked naming %s (\"Failed startup checks regress readiness to blocked\"); the answer: %s", check, r.Status, check, harness.Excerpt(raw))
					}
				}
				// A failing runtime check degrades or recovers; a signal no
				// check of the app reads, though it names the start of one,
				// is no failing check of the app.
				for _, signal := range []struct{ name, what string }{
					{"agent_runtime_available", "the runtime health check agent_runtime_available, which degrades or recovers,"},
					{"storage", "the signal storage, which no check of the app reads (storage_accessible only begins with it),"},
					{"ui_bundle_loaded_v2", "the signal ui_bundle_loaded_v2, which no check of the app reads,"},
				} {
					tc.Configure(withFailingHealth(tc, signal.name))
					r, raw := tc.Readiness(dir, "")
					if !harness.IsLaunchable(r.Status) {
						tc.Failf("with %s failing, readiness is %q; the app must stay launchable (ready or ready-degraded); the answer: %s", signal.what, r.Status, harness.Excerpt(raw))
					}
				}
				// The installed app, by appId: blocked while the signal
				// fails, ready again once it passes.
				tc.Configure(withFailingHealth(tc))
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				tc.Configure(withFailingHealth(tc, "ui_bundle_loaded"))
				r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app})
				if !slices.Contains(blockedStatuses(), r.Status) || !harness.NamesFailingCheck(r, "ui_bundle_loaded") {
					tc.Failf("app/readiness of the installed %s (by appId) is %q with its startup health check ui_bundle_loaded failing, not blocked naming it; the answer: %s", app, r.Status, harness.Excerpt(raw))
				}
				// Every entry point of the same rule: readiness asked for the
				// app's entry by name is the app's, whose startup check
				// fails (a host that applies health to the app's answer
				// alone lets the entry launch).
				tc.Precondition("app/readiness of "+app+"'s entry "+healthEntry+" is launchable while no health signal fails", func() {
					tc.Configure(withFailingHealth(tc))
					if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: healthEntry}); !harness.IsLaunchable(r.Status) {
						tc.Failf("app/readiness of %s's entry %s is %q with no health signal failing; the answer: %s", app, healthEntry, r.Status, harness.Excerpt(raw))
					}
				})
				tc.Configure(withFailingHealth(tc, "storage_accessible"))
				if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: healthEntry}); !slices.Contains(blockedStatuses(), r.Status) || !harness.NamesFailingCheck(r, "storage_accessible") {
					tc.Failf("app/readiness of the installed %s's entry %s is %q with the app's startup health check storage_accessible failing, not blocked naming it; the answer: %s", app, healthEntry, r.Status, harness.Excerpt(raw))
				}
				tc.Configure(withFailingHealth(tc))
				r, raw = tc.ReadinessOf(protocol.ReadinessParams{AppID: app})
				if r.Status != protocol.StatusReady {
					tc.Failf("app/readiness of the installed %s (by appId) is %q once no health signal fails; it was ready before and must be again; the answer: %s", app, r.Status, harness.Excerpt(raw))
				}
			})
	})
}

// healthEntry is the entry the health spec gives minimal-app.
const healthEntry = "home_page"

// withFailingHealth is the default configuration with exactly the health
// signals of checks failing.
func withFailingHealth(tc *harness.TestContext, checks ...string) protocol.ConfigureParams {
	c := tc.DefaultConfigure()
	c.Health = &protocol.HealthSignals{Failing: append([]string{}, checks...)} // none: [], never null
	return c
}
