package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describePolicy checks tenant policy and permission grants, as
// host/configure states them (spec 003, Distribution flow; spec 000,
// Readiness).
func describePolicy(tc *harness.TestContext) {
	Describe("Installable: tenant policy", func() {
		It("installs only apps tenant policy allows, and says when policy is why", tc.Req("POLICY-INSTALL", levels.ConfusableIdentity, levels.ChangeBetweenReads), func() {
			dir := tc.Fixture("minimal-app")
			rel := tc.ReleaseOf(dir)
			tc.Precondition("the app installs with no policy set", func() {
				tc.Uninstall(tc.Install(dir, rel).AppID, false)
			})
			// The other side first: a policy that names other apps does not
			// stop this one, among them names that are a prefix of its name
			// and one its name is a prefix of (a host matching names by
			// prefix or containment shows there).
			others := []string{"another-app", "minimal", "minimal-app-extra"}
			tc.Configure(tc.WithPolicy(protocol.Policy{DeniedApps: others}))
			app, err := tc.TryInstall(dir, rel, true)
			if err != nil {
				tc.Failf("app/install of minimal-app was refused under a policy that denies only %s: %v", strings.Join(others, ", "), err)
			}
			tc.Uninstall(app.AppID, false)
			tc.Configure(tc.WithPolicy(protocol.Policy{DeniedApps: []string{"minimal-app"}}))
			_, err = tc.TryInstall(dir, rel, true)
			he, refused := tc.RefusalError(protocol.MethodInstall, err)
			if !refused {
				tc.Failf("app/install of minimal-app succeeded though tenant policy denies it")
			}
			if _, listed := harness.FindApp(tc.List(), "minimal-app"); listed {
				tc.Failf("an app tenant policy denies is listed as installed")
			}
			if he.Code != protocol.CodePolicyDenied {
				tc.Failf("app/install of an app policy denies was answered with error %d %s; the protocol names %d (denied by policy)",
					he.Code, he.Message, protocol.CodePolicyDenied)
			}
			if !strings.Contains(harness.HostErrorText(he), "minimal-app") {
				tc.Failf("the policy refusal does not name the app it denies: %s", harness.HostErrorText(he))
			}
			// host/configure replaces the configuration whole, no merge
			// (docs/host-control-protocol.md, host/configure): one naming
			// no policy lifts the denial.
			tc.Configure(tc.DefaultConfigure())
			if _, err := tc.TryInstall(dir, rel, true); err != nil {
				tc.Failf("app/install of minimal-app was refused after a host/configure naming no policy replaced the one denying it (host/configure replaces, it does not merge): %s", harness.AnswerOf(err))
			}
		})
	})

	Describe("Desktop P0: policy and permissions in readiness", func() {
		It("keeps an entry tenant policy denies from ready, naming it, and leaves the other entries as they were", tc.Req("READY-POLICY", levels.ChangeBetweenReads, levels.EveryEntryPoint, levels.EveryMember), func() {
			dir, _ := perEntryFixture(tc)
			tc.ExpectReady("entry chat is ready with no policy set", dir, "chat")
			tc.Configure(tc.WithPolicy(protocol.Policy{DeniedEntries: map[string][]string{"capability-app": {"chat"}}}))
			chat, raw := tc.Readiness(dir, "chat")
			Expect(chat.Status).To(BeElementOf(harness.NotReady()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("entry chat, which tenant policy denies; the answer: %s", harness.Excerpt(raw))))
			if !harness.NamesFailingCheck(chat, "chat") {
				tc.Failf("entry chat is %s but its app/readiness names no failing check for the policy on it; the answer: %s", chat.Status, harness.Excerpt(raw))
			}
			page, raw := tc.Readiness(dir, "home_page")
			Expect(page.Status).To(BeElementOf(harness.Launchable()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("entry home_page, which the policy does not name; the answer: %s", harness.Excerpt(raw))))
			expectEntriesByAppID(tc, dir, tc.WithPolicy(protocol.Policy{DeniedEntries: map[string][]string{"capability-app": {"chat"}}}), "chat", "chat")
			// Every member of the app's list, not the first: chat second,
			// after a key the app has no entry of.
			tc.Configure(tc.WithPolicy(protocol.Policy{DeniedEntries: map[string][]string{"capability-app": {"no-such-entry", "chat"}}}))
			chat, raw = tc.Readiness(dir, "chat")
			if !slices.Contains(harness.NotReady(), chat.Status) || !harness.NamesFailingCheck(chat, "chat") {
				tc.Failf("tenant policy denies capability-app the entries [no-such-entry chat]; entry chat is %q, not a not-ready status naming it; the answer: %s", chat.Status, harness.Excerpt(raw))
			}
		})

		It("keeps an app whose required permission is not granted from ready, naming it, and not for an optional one", tc.Req("READY-PERMISSIONS", levels.EveryMember, levels.ChangeBetweenReads, levels.RepresentationLimit, levels.ConfusableIdentity), func() {
			dir := tc.Fixture("minimal-app")
			harness.WriteFile(dir, "app.permissions.yaml", []byte("permissions:\n"+
				"  - {key: files_rw, scope: filesystem, access: read-write, required: true, reason: Reads the workspace}\n"+
				"  - {key: net_fetch, scope: network, access: read, required: false, reason: Fetches previews}\n"))
			tc.Configure(withGrants(tc, "minimal-app", "files_rw", "net_fetch"))
			tc.ExpectReady("the app is ready with both permissions granted", dir, "")
			tc.Configure(withGrants(tc, "minimal-app", "files_rw"))
			r, raw := tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(harness.Launchable()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("the optional permission net_fetch is not granted; the app must stay launchable; the answer: %s", harness.Excerpt(raw))))
			tc.Configure(withGrants(tc, "minimal-app", "net_fetch"))
			r, raw = tc.Readiness(dir, "")
			Expect(r.Status).To(BeElementOf(harness.NotReady()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("without the required permission files_rw; the answer: %s", harness.Excerpt(raw))))
			if !harness.NamesFailingCheck(r, "files_rw") {
				tc.Failf("app/readiness is %s but names no failing check for the required permission files_rw; the answer: %s", r.Status, harness.Excerpt(raw))
			}
			// Grants stated for another app only: this app is not named, so
			// it has none (not "grants unstated"), whoever's name its own
			// begins.
			tc.Configure(withGrants(tc, "minimal-app-b", "files_rw", "net_fetch"))
			r, raw = tc.Readiness(dir, "")
			if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "files_rw") {
				tc.Failf("with grants stated only for minimal-app-b, readiness of minimal-app is %q, not a not-ready status naming its required permission files_rw (an app the grants do not name has none); the answer: %s", r.Status, harness.Excerpt(raw))
			}
		})
	})
}

// describeAvailability checks required tools, skills and evals against
// what the host has (spec 000, Readiness).
func describeAvailability(tc *harness.TestContext) {
	Describe("Desktop P0: tools, skills and evals in readiness", func() {
		// One kind at a time: the required item is named, the optional one
		// is left out of what the host has and must not hold the app back.
		DescribeTable("keeps an app whose required item is not available from ready, naming it, and not for an optional one",
			func(kind, list, field string) {
				dir := tc.Fixture("minimal-app")
				harness.EditFrontmatter(dir, func(lines []string) []string {
					return append(lines, list+":",
						"  - {"+field+": needed_one, required: true}",
						"  - {"+field+": optional_one, required: false}")
				})
				tc.Configure(withAvailable(tc, kind, "needed_one", "optional_one"))
				tc.ExpectReady("the app is ready with both available", dir, "")
				tc.Configure(withAvailable(tc, kind, "needed_one"))
				r, raw := tc.Readiness(dir, "")
				Expect(r.Status).To(BeElementOf(harness.Launchable()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("%s optional_one, which is optional, is not available; the app must stay launchable; the answer: %s", list, harness.Excerpt(raw))))
				tc.Configure(withAvailable(tc, kind, "optional_one"))
				r, raw = tc.Readiness(dir, "")
				Expect(r.Status).To(BeElementOf(harness.NotReady()), harness.At(protocol.MethodReadiness, []any{"status"}, fmt.Sprintf("without the required %s needed_one; the answer: %s", list, harness.Excerpt(raw))))
				if !harness.NamesFailingCheck(r, "needed_one") {
					tc.Failf("app/readiness is %s but names no failing check for the required %s needed_one; the answer: %s", r.Status, list, harness.Excerpt(raw))
				}
				// An empty list is a host that has none of the kind, not
				// one that leaves the kind unstated.
				tc.Configure(withAvailable(tc, kind))
				r, raw = tc.Readiness(dir, "")
				if !slices.Contains(harness.NotReady(), r.Status) || !harness.NamesFailingCheck(r, "needed_one") {
					tc.Failf("with available.%s empty (the host has none), readiness is %s, not a not-ready status naming the required %s needed_one; the answer: %s", kind, r.Status, list, harness.Excerpt(raw))
				}
				tc.Configure(withAvailable(tc, kind, "needed_one", "optional_one"))
				tc.ExpectReady("the app is ready again once both are available", dir, "")
			},
			Entry("a tool (toolRefs)", tc.Req("READY-AVAILABILITY", levels.EveryMember, levels.RepresentationLimit, levels.ChangeBetweenReads), "tools", "toolRefs", "key"),
			Entry("a skill (skillRefs)", tc.Req("READY-AVAILABILITY", levels.EveryMember, levels.RepresentationLimit, levels.ChangeBetweenReads), "skills", "skillRefs", "id"),
			Entry("an eval (evals)", tc.Req("READY-AVAILABILITY", levels.EveryMember, levels.RepresentationLimit, levels.ChangeBetweenReads), "evals", "evals", "key"),
		)
	})
}

// withAvailable is the default configuration with exactly keys of kind
// available on the host.
func withAvailable(tc *harness.TestContext, kind string, keys ...string) protocol.ConfigureParams {
	c := tc.DefaultConfigure()
	c.Available = map[string][]string{kind: append([]string{}, keys...)} // none: [], never null
	return c
}

// withGrants is the default configuration with app granted exactly keys.
func withGrants(tc *harness.TestContext, app string, keys ...string) protocol.ConfigureParams {
	c := tc.DefaultConfigure()
	c.Grants = map[string][]string{app: keys}
	return c
}
