package install

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// blockedStatuses are blocked and failed, its pre-0.5 spelling: where a
// clause names blocked (end of life, an incompatible host version), a host
// writing the older vocabulary says failed.
func blockedStatuses() []string { return []string{protocol.StatusBlocked, protocol.StatusFailed} }

// describeReadiness checks the readiness model (spec 000 Readiness and
// Readiness self-check model; spec 002 Readiness state rules).
func describeReadiness(tc *harness.TestContext) {
	Describe("Desktop P0: readiness", func() {
		It("reports a package with every check satisfied as ready, by path and, installed, by appId", tc.Req("READY-STATUS", levels.EveryEntryPoint), func() {
			dir := tc.Fixture(harness.ControlFixture)
			r, _ := tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusReady), harness.At(protocol.MethodReadiness, []any{"status"}))
			Expect(r.OK).To(BeTrue(), harness.At(protocol.MethodReadiness, []any{"ok"}))
			app, r, raw := installedReadiness(tc, dir)
			if r.Status != protocol.StatusReady || !r.OK {
				tc.Failf("app/readiness of the installed %s (by appId) is %q (ok %v); its package folder is ready; the answer: %s", app, r.Status, r.OK, harness.Excerpt(raw))
			}
		})

		It("blocks launch when a required-tier check fails, naming the check", tc.Req("READY-REQUIRED-TIER", levels.EveryEntryPoint, levels.ConfusableIdentity), func() {
			dir := tc.Fixture("readiness-required-fail")
			twin := tc.CopyPackage(dir)
			harness.DropReadinessCheck(twin, "brand_guidelines")
			tc.ExpectReady("the same package without the failing required check is ready", twin, "")
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(harness.NotReady()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("with a failing required check; the answer: %s", harness.Excerpt(raw))))
			Expect(r.OK).To(BeFalse(), harness.At(protocol.MethodReadiness, []any{"ok"}, "with a failing required check"))
			if !harness.NamesFailingCheck(r, "brand_guidelines") {
				tc.Failf("app/readiness is %s but names no failing check for the unbound knowledge template brand_guidelines, which the spec planted; the answer: %s", r.Status, harness.Excerpt(raw))
			}
			tc.Reading("failing required readiness check", r.Status)
			app, r, raw := installedReadiness(tc, dir)
			if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "brand_guidelines") {
				tc.Failf("app/readiness of the installed %s (by appId) is %q and names no failing check for brand_guidelines, which its package folder fails; the answer: %s", app, r.Status, harness.Excerpt(raw))
			}
			expectBindingOfItsOwn(tc, app)
		})

		It("warns but allows launch when a recommended-tier check fails", tc.Req("READY-RECOMMENDED-TIER", levels.EveryEntryPoint), func() {
			dir := tc.Fixture("readiness-recommended-fail")
			twin := tc.CopyPackage(dir)
			harness.DropReadinessCheck(twin, "product_catalog")
			tc.ExpectReady("the same package without the failing recommended check is ready", twin, "")
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(Equal(protocol.StatusReadyDegraded), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("with a failing recommended check; the answer: %s", harness.Excerpt(raw))))
			Expect(r.OK).To(BeTrue(), harness.At(protocol.MethodReadiness, []any{"ok"}, "with a failing recommended check"))
			Expect(hasWarning(r)).To(BeTrue(), harness.At(protocol.MethodReadiness, []any{"checks"}, "has no warning for the failing recommended check; the answer: "+harness.Excerpt(raw)))
			app, r, raw := installedReadiness(tc, dir)
			if r.Status != protocol.StatusReadyDegraded || !r.OK || !hasWarning(r) {
				tc.Failf("app/readiness of the installed %s (by appId) is %q (ok %v, warning %v); its package folder, failing a recommended check, is ready-degraded with a warning: %s",
					app, r.Status, r.OK, hasWarning(r), raw)
			}
		})

		It("only informs when a performance-tier check fails", tc.Req("READY-PERFORMANCE-TIER", levels.EveryEntryPoint), func() {
			dir := tc.Fixture("readiness-performance-fail")
			twin := tc.CopyPackage(dir)
			harness.DropReadinessCheck(twin, "usage_history")
			tc.ExpectReady("the same package without the failing performance check is launchable", twin, "", harness.Launchable()...)
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(harness.Launchable()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("with a failing performance check; the answer: %s", harness.Excerpt(raw))))
			app, r, raw := installedReadiness(tc, dir)
			if !harness.IsLaunchable(r.Status) {
				tc.Failf("app/readiness of the installed %s (by appId) is %q; a failing performance check only informs; the answer: %s", app, r.Status, harness.Excerpt(raw))
			}
		})

		DescribeTable("surfaces failures with setupActions pointing to a fix flow",
			func(fixture, target string, disabled string) {
				dir := tc.Fixture(fixture)
				if disabled != "" {
					tc.ExpectReady(fixture+" is ready with every capability enabled", dir, "")
					tc.Configure(tc.WithCapabilityDisabled(disabled))
				}
				r, raw := tc.Readiness(dir, "")
				// Whether the host sees the failure at all is another
				// requirement's (READY-REQUIRED-TIER, READY-SECRETS): here
				// only a failure it reports is judged for its fix flow.
				tc.Precondition("readiness reports the planted failure ("+target+")", func() {
					b, _ := json.Marshal(r.SetupActions)
					if harness.IsLaunchable(r.Status) || !harness.NamesFailingCheck(r, target) && !strings.Contains(string(b), target) {
						tc.Failf("app/readiness of %s is %q and names no failing check for %s; the answer: %s", fixture, r.Status, target, harness.Excerpt(raw))
					}
				})
				Expect(r.SetupActions).NotTo(BeEmpty(), harness.At(protocol.MethodReadiness, []any{"setupActions"}, "; the answer: "+harness.Excerpt(raw)))
				b, _ := json.Marshal(r.SetupActions)
				Expect(string(b)).To(ContainSubstring(target), harness.At(protocol.MethodReadiness, []any{"setupActions"}, "name no action for "+target))
			},
			// Each kind of failure the host has a fix flow for, not one
			// representative.
			Entry("an unbound required knowledge template", tc.Req("READY-SETUP-ACTIONS", levels.EveryMember), "readiness-required-fail", "brand_guidelines", ""),
			Entry("a missing required secret", tc.Req("READY-SETUP-ACTIONS", levels.EveryMember), "secret-required-app", "provider_api_key", ""),
			Entry("a required capability switched off", tc.Req("READY-SETUP-ACTIONS", levels.EveryMember), "capability-app", "lime.ui", "lime.ui"),
		)

		It("keeps an app whose required secret is not configured from ready, naming the secret", tc.Req("READY-SECRETS", levels.EveryEntryPoint, levels.ChangeBetweenReads), func() {
			dir := tc.Fixture("secret-required-app")
			// host/configure replaces the configuration before it (no
			// merge): one naming other secrets, and one naming none, each
			// takes the secret away.
			noSecrets := tc.DefaultConfigure()
			noSecrets.Secrets = nil
			for _, without := range []struct {
				what string
				cfg  protocol.ConfigureParams
			}{{"a configuration naming other secrets", tc.DefaultConfigure()}, {"a configuration naming no secrets at all", noSecrets}} {
				tc.Configure(tc.WithSecret())
				tc.ExpectReady("the app is ready once its secret is configured", dir, "")
				tc.Configure(without.cfg)
				r, raw := tc.Readiness(dir, "")
				if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "provider_api_key") {
					tc.Failf("after %s, app/readiness is %q and names no failing check for the required secret provider_api_key, which is no longer configured; the answer: %s", without.what, r.Status, harness.Excerpt(raw))
				}
			}
			app, r, raw := installedReadiness(tc, dir)
			if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "provider_api_key") {
				tc.Failf("app/readiness of the installed %s (by appId) is %q and names no failing check for the missing secret provider_api_key; the answer: %s", app, r.Status, harness.Excerpt(raw))
			}
		})

		// app/readiness of a path judges the package there: an installed
		// app whose folder has the same name, or whose folder's path the
		// asked path begins with, is another package
		// (docs/host-control-protocol.md, app/readiness).
		It("judges the package folder it is asked about, not an installed app whose folder has the same name or begins its path", tc.Req("READY-SECRETS", levels.ConfusableIdentity), func() {
			tc.Configure(tc.DefaultConfigure())
			installed := tc.Fixture(harness.SecretSlotFixture)
			harness.EditFrontmatter(installed, dropSecretSlots)
			a := tc.Install(installed, tc.ReleaseOf(installed)).AppID
			tc.Precondition("the installed "+a+", which needs no secret, is ready", func() {
				if r := tc.AppReadiness(a); !harness.ReadyStatus(r.Status) {
					tc.Failf("app/readiness of the installed %s is %q", a, r.Status)
				}
			})
			for _, other := range []struct{ what, dir string }{
				{"has the same name", tc.Fixture(harness.SecretSlotFixture)},
				{"is where its path begins (" + filepath.Base(installed) + "-next beside it)", tc.FixtureAt(harness.SecretSlotFixture, installed+"-next")},
			} {
				r, raw := tc.Readiness(other.dir, "")
				if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "provider_api_key") {
					tc.Failf("app/readiness of the package folder %s, which requires the secret provider_api_key (not configured), is %q and names no failing check for it: judged as the installed %s, whose folder %s; the answer: %s",
						other.dir, r.Status, a, other.what, harness.Excerpt(raw))
				}
			}
		})

		It("keeps an app from ready when the host profile lacks a required capability, naming it", tc.Req("READY-CAPABILITIES", levels.ChangeBetweenReads), func() {
			dir := tc.Fixture("capability-app")
			tc.ExpectReady("the app is ready with every capability enabled", dir, "")
			tc.Configure(tc.WithCapabilityDisabled("lime.ui"))
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(harness.NotReady()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("with lime.ui disabled; the answer: %s", harness.Excerpt(raw))))
			if !harness.NamesFailingCheck(r, "lime.ui") {
				tc.Failf("app/readiness is %s but names no failing check for the disabled capability lime.ui; the answer: %s", r.Status, harness.Excerpt(raw))
			}
			// host/configure replaces the earlier configuration (no
			// merge): a later one that does not disable lime.ui offers it
			// again, and the app is judged afresh under it.
			tc.Configure(tc.DefaultConfigure())
			again, raw := tc.Readiness(dir, "")
			if !harness.ReadyStatus(again.Status) {
				tc.Failf("after a later host/configure that no longer disables lime.ui the app is %s: the earlier configuration still counts; the answer: %s", again.Status, harness.Excerpt(raw))
			}
		})

		It("judges each entry by its own requirements", tc.Req("READY-PER-ENTRY", levels.EveryMember, levels.ChangeBetweenReads, levels.EveryEntryPoint), func() {
			dir, entryCap := perEntryFixture(tc)
			tc.ExpectReady("entry chat is ready with every capability enabled", dir, "chat")
			tc.Configure(tc.WithCapabilityDisabled(entryCap))
			chat, raw := tc.Readiness(dir, "chat")
			Expect(chat.Status).To(BeElementOf(harness.NotReady()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("entry chat needs %s, which is disabled; the answer: %s", entryCap, harness.Excerpt(raw))))
			if !harness.NamesFailingCheck(chat, entryCap) {
				tc.Failf("entry chat is %s but its app/readiness names no failing check for %s; the answer: %s", chat.Status, entryCap, harness.Excerpt(raw))
			}
			page, raw := tc.Readiness(dir, "home_page")
			Expect(page.Status).To(BeElementOf(harness.Launchable()),
				harness.At(protocol.MethodReadiness, []any{"status"}, "of entry home_page, which needs only lime.ui and must stay launchable; the answer: "+harness.Excerpt(raw)))
			expectEntriesByAppID(tc, dir, tc.WithCapabilityDisabled(entryCap), "chat", entryCap)
		})

		It("never puts secret or session-token values in its answers", tc.Req("READY-NO-SECRET-LEAK", levels.EveryMember, levels.EveryEntryPoint), func() {
			tc.Configure(tc.WithSecret())
			tc.ExpectHoldsSecret()
			for _, f := range []string{"secret-required-app", "full-app", "readiness-required-fail"} {
				tc.ExpectNoCanaryInResult("readiness of "+f, protocol.MethodReadiness, protocol.ReadinessParams{Path: tc.Fixture(f)})
			}
			// The other entry point: the installed app, by appId.
			dir := tc.Fixture("secret-required-app")
			app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			tc.ExpectNoCanaryInResult("readiness of the installed "+app+" (by appId)", protocol.MethodReadiness, protocol.ReadinessParams{AppID: app})
		})
	})
}

// expectBindingOfItsOwn judges the knowledge check of the installed app
// (readiness-required-fail, its brand_guidelines unbound) beside a
// confusable neighbour: the same package under an id that extends app's.
// A pack app/knowledge binds to the neighbour's template makes the
// neighbour ready (the control) and leaves app failing its own check:
// readiness runs each app's own knowledge bindings (spec 000, Runtime
// contract: "Run readiness before execution: ... Knowledge bindings").
// Judged where the host announces app/knowledge; a Desktop P0 host may
// offer no binding at all.
func expectBindingOfItsOwn(tc *harness.TestContext, app string) {
	GinkgoHelper()
	if !slices.Contains(tc.Host().Hello().Methods, protocol.MethodKnowledge) {
		tc.Reading("Knowledge bindings of a confusable pair", "not judged: the host does not announce app/knowledge")
		return
	}
	neighbour := app + "-b"
	dir := tc.FixtureAs("readiness-required-fail", neighbour)
	harness.SetField(dir, "name", neighbour)
	tc.Precondition(neighbour+" installs and is ready once app/knowledge binds a pack to its brand_guidelines", func() {
		neighbour = tc.Install(dir, tc.ReleaseOf(dir)).AppID
		var res protocol.KnowledgeResult
		tc.MustCall(protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: neighbour, Template: "brand_guidelines", Pack: harness.Nonce("pack")}, &res)
		if r := tc.AppReadiness(neighbour); !harness.ReadyStatus(r.Status) {
			tc.Failf("with its brand_guidelines bound, %s is %q", neighbour, r.Status)
		}
	})
	r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app})
	if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "brand_guidelines") {
		tc.Failf("app/readiness of %s is %q and names no failing check for brand_guidelines, which nobody bound for it: the pack bound to %s's template of that name counted for it; the answer: %s", app, r.Status, neighbour, harness.Excerpt(raw))
	}
}

// installedReadiness installs the package in dir (it is not installed yet
// in this session) and returns its appId and app/readiness by that appId:
// the other entry point of the rule the spec judged by path.
func installedReadiness(tc *harness.TestContext, dir string) (string, protocol.ReadinessResult, json.RawMessage) {
	GinkgoHelper()
	app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
	r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app})
	return app, r, raw
}

// expectEntriesByAppID judges the entries of capability-app (dir) again by
// the other entry point, the installed app's appId: installed under the
// default configuration, then judged under p, entry blocked is not ready
// naming named, and home_page stays launchable.
func expectEntriesByAppID(tc *harness.TestContext, dir string, p protocol.ConfigureParams, blocked, named string) {
	GinkgoHelper()
	tc.Configure(tc.DefaultConfigure())
	app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
	tc.Configure(p)
	r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: blocked})
	if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, named) {
		tc.Failf("app/readiness of the installed %s (by appId), entry %s, is %q and names no failing check for %s, as its package folder's does; the answer: %s", app, blocked, r.Status, named, harness.Excerpt(raw))
	}
	page, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: "home_page"})
	if !harness.IsLaunchable(page.Status) {
		tc.Failf("app/readiness of the installed %s (by appId), entry home_page, is %q; it needs only lime.ui and must stay launchable; the answer: %s", app, page.Status, harness.Excerpt(raw))
	}
}

// perEntryFixture is capability-app with its entry chat needing one
// capability beyond the app's lime.ui, and that capability: lime.agent
// (the fixture as shipped) when the host offers it enabled, else the first
// the host offers enabled of those every entry may need, so that a host
// with no agent runtime (Desktop P0) is judged on an entry requirement it
// can satisfy and the harness can turn off.
func perEntryFixture(tc *harness.TestContext) (string, string) {
	GinkgoHelper()
	dir := tc.Fixture("capability-app")
	offered := tc.OfferedEnabled()
	prefer := []string{"lime.agent", "lime.storage", "lime.artifacts", "lime.workflow"}
	var rest []string
	for name := range offered {
		if name != "lime.ui" && !slices.Contains(prefer, name) {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	for _, name := range append(prefer, rest...) {
		if !offered[name] {
			continue
		}
		if name != "lime.agent" {
			harness.ReplaceIn(dir, "APP.md", "requiredCapabilities: [lime.agent]", "requiredCapabilities: ["+name+"]")
		}
		return dir, name
	}
	tc.Blockedf("the host's hello offers no capability enabled beyond lime.ui, so no entry can need more than the app does")
	return "", ""
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

// dropSecretSlots takes the secrets block out of frontmatter lines.
func dropSecretSlots(lines []string) []string {
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case l == "secrets:":
			in = true
			continue
		case in && strings.HasPrefix(l, " "):
			continue
		}
		in = false
		out = append(out, l)
	}
	return out
}
