package platform

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/levels"
)

// platformFixture is the probe app of the Desktop P3 specs: it declares
// every shared platform capability and names a brand of its own.
const platformFixture = "platform-probe"

// platformOwnBrand is the brand platform-probe's own package names
// (install.branding.name): never the brand the host projects.
const platformOwnBrand = "Probe Own Brand"

// describePlatform checks the shared platform capabilities of Desktop P3
// (spec 002, Shared platform capabilities; spec 001, Shared projection):
// the host provides model settings, the cloud session, the OEM brand,
// billing and app updates, and the app sees only what the shared
// projection allows. Every call is made as the app through app/invoke, so
// no browser is needed; the harness plays Lime Cloud through host/configure
// and the registry.
func describePlatform(tc *harness.TestContext) {
	Describe("Desktop P3: shared platform capabilities", func() {
		It("projects the effective model profile and never the provider key or routing table", tc.Req("MODEL-SETTINGS-NO-KEY", levels.EveryMember), func() {
			cfg := platformConfigure(tc)
			ms := &protocol.ModelSettings{Profile: harness.Nonce("profile"), Limits: map[string]int64{"maxOutputTokens": 4096},
				ProviderKey: harness.Nonce("provider-key"), Routing: harness.Nonce("routing-table")}
			cfg.ModelSettings = ms
			app := installPlatformProbe(tc, cfg)
			m := platformCall(tc, app, "main", "lime.modelSettings", "get", nil)
			tc.Precondition("lime.modelSettings get answers the profile the host holds", func() {
				if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, ms.Profile) {
					tc.Failf("lime.modelSettings get answered %s, not the effective profile %q", harness.AnswerText(m, true), ms.Profile)
				}
			})
			expectNonePlanted(tc, "lime.modelSettings get", m.Payload, map[string]string{
				"the provider key of the model settings": ms.ProviderKey, "the host's routing table": ms.Routing})
			tc.ExpectNoCanary("lime.modelSettings get", m.Payload)
			expectHoldsPlanted(tc, app, map[string]string{"modelSettings.providerKey": ms.ProviderKey, "modelSettings.routing": ms.Routing})
		})

		It("refuses an app's write of the global model settings and keeps the host's profile", tc.Req("MODEL-SETTINGS-HOST-OWNED", levels.ChangeBetweenReads), func() {
			cfg := platformConfigure(tc)
			cfg.ModelSettings = &protocol.ModelSettings{Profile: harness.Nonce("profile")}
			app := installPlatformProbe(tc, cfg)
			tc.Precondition("lime.modelSettings get answers the profile the host holds", func() {
				if m := platformCall(tc, app, "main", "lime.modelSettings", "get", nil); m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, cfg.ModelSettings.Profile) {
					tc.Failf("lime.modelSettings get answered %s, not the effective profile %q", harness.AnswerText(m, true), cfg.ModelSettings.Profile)
				}
			})
			mine := harness.Nonce("app-profile")
			set := platformCall(tc, app, "main", "lime.modelSettings", "set", map[string]any{"profile": mine})
			if set.Type != hostbridge.TypeError {
				tc.Failf("lime.modelSettings set of the app's own profile %q was answered %s, not host:error: apps do not persist global model settings",
					mine, harness.AnswerText(set, true))
			}
			m := platformCall(tc, app, "main", "lime.modelSettings", "get", nil)
			if harness.ContainsText(m.Payload, mine) || !harness.ContainsText(m.Payload, cfg.ModelSettings.Profile) {
				tc.Failf("after the app's lime.modelSettings set of %q, get answers %s, not the host's profile %q",
					mine, harness.AnswerText(m, true), cfg.ModelSettings.Profile)
			}
		})

		It("answers the cloud session's presence, and a forced login, without a token of any session the host holds", tc.Req("CLOUD-SESSION-NO-TOKEN", levels.EveryMember, levels.EveryEntryPoint), func() {
			cfg := platformConfigure(tc)
			// A second session beside the cloud one: a host that strips the
			// bearer token it knows by name shows with the other.
			refresh := harness.Nonce("refresh-token")
			cfg.SessionTokens = maps.Clone(cfg.SessionTokens)
			cfg.SessionTokens["refresh"] = refresh
			app := installPlatformProbe(tc, cfg)
			m := platformCall(tc, app, "main", "lime.cloudSession", "getSnapshot", nil)
			tc.Precondition("lime.cloudSession getSnapshot is answered", func() {
				if m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.cloudSession getSnapshot answered %s", harness.AnswerText(m, true))
				}
			})
			tc.ExpectNoCanary("lime.cloudSession getSnapshot", m.Payload)
			expectNonePlanted(tc, "lime.cloudSession getSnapshot", m.Payload, map[string]string{"the token of the session refresh": refresh})
			expectHoldsPlanted(tc, app, map[string]string{"sessionTokens.cloud": tc.Config.Canaries.SessionToken})
			// Every other entry point of the capability that is no explicit
			// token request, once the host was seen holding the token: a
			// forced login refreshes the session and answers no token
			// (tokens are "fetched just in time only").
			login := platformCall(tc, app, "main", "lime.cloudSession", "requestLogin", map[string]any{"force": true})
			tc.ExpectNoCanary("lime.cloudSession requestLogin {force: true}", login.Payload)
			expectNonePlanted(tc, "lime.cloudSession requestLogin {force: true}", login.Payload, map[string]string{"the token of the session refresh": refresh})
		})

		It("hands the app, on its explicit request, the cloud session's current token, and again after a forced login", tc.Req("CLOUD-SESSION-JIT-TOKEN", levels.ConfusableIdentity, levels.ChangeBetweenReads), func() {
			cfg := platformConfigure(tc)
			first, admin := harness.Nonce("jit-token"), harness.Nonce("jit-admin-token")
			// A session whose name the cloud one prefixes: a host picking
			// by prefix, or the first session, shows with it.
			cfg.SessionTokens = map[string]string{"cloud": first, "cloud-admin": admin}
			app := installPlatformProbe(tc, cfg)
			name, m, tried := requestJITToken(tc, app)
			if name == "" {
				tc.Failf("lime.cloudSession answered no just-in-time token request: %s", tried)
			}
			expectJITToken(tc, name, m, first, map[string]string{"the token of the session cloud-admin": admin})
			second := harness.Nonce("jit-token")
			cfg.SessionTokens = map[string]string{"cloud": second, "cloud-admin": admin}
			tc.Configure(cfg)
			stale := map[string]string{"the token of the session cloud-admin": admin, "the cloud session's token before host/configure changed it": first}
			expectJITToken(tc, name+" after the session's token changed", platformCall(tc, app, "main", "lime.cloudSession", name, nil), second, stale)
			login := platformCall(tc, app, "main", "lime.cloudSession", "requestLogin", map[string]any{"force": true})
			if login.Type != hostbridge.TypeResponse {
				tc.Failf("lime.cloudSession requestLogin {force: true}, which an app whose token was rejected may call, answered %s", harness.AnswerText(login, true))
			}
			expectJITToken(tc, name+" after requestLogin {force: true}", platformCall(tc, app, "main", "lime.cloudSession", name, nil), second, stale)
		})

		It("keeps a just-in-time token it handed out from every place the app reads later", tc.Req("CLOUD-SESSION-TOKEN-NOT-KEPT", levels.EveryMember, levels.ChangeBetweenReads), func() {
			cfg := platformConfigure(tc)
			token := harness.Nonce("jit-token")
			cfg.SessionTokens = map[string]string{"cloud": token}
			app := installPlatformProbe(tc, cfg)
			tc.Precondition("the host hands the app the cloud session's token on its explicit request", func() {
				name, m, tried := requestJITToken(tc, app)
				if name == "" {
					tc.Failf("lime.cloudSession answered no just-in-time token request: %s", tried)
				}
				if !harness.ContainsText(m.Payload, token) {
					tc.Failf("lime.cloudSession %s answered %s, without the cloud session's token", name, harness.AnswerText(m, true))
				}
			})
			planted := map[string]string{"the just-in-time token handed out before": token}
			snap := platformCall(tc, app, "main", "lime.cloudSession", "getSnapshot", nil)
			expectNonePlanted(tc, "lime.cloudSession getSnapshot after the app fetched a token", snap.Payload, planted)
			tc.RequireMethod(protocol.MethodObserve)
			var state map[string]json.RawMessage
			if err := tc.CallReading(protocol.MethodObserve, protocol.ObserveParams{AppID: app}, &state, protocol.Reads{}); err != nil {
				tc.FailCall(protocol.MethodObserve, err)
			}
			// calls records the requests, holds names digests: the
			// rest is what the host keeps of the app.
			delete(state, "calls")
			delete(state, "holds")
			kept, _ := json.Marshal(state)
			expectNonePlanted(tc, "host/observe of "+app+" (its config, evidence, artifacts and state)", kept, planted)
		})

		It("projects the OEM brand the host holds, not the one the app's package names", tc.Req("BRANDING-HOST-PROJECTED", levels.EveryMember), func() {
			cfg := platformConfigure(tc)
			brand := &protocol.Branding{Name: harness.Nonce("OEM"), ShellCopy: harness.Nonce("copy"), Tokens: map[string]string{"--lime-color-accent": "#7a1fa2"}}
			cfg.Branding = brand
			app := installPlatformProbe(tc, cfg)
			m := platformCall(tc, app, "main", "lime.branding", "get", nil)
			tc.Precondition("lime.branding get is answered", func() {
				if m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.branding get answered %s", harness.AnswerText(m, true))
				}
			})
			if !harness.ContainsText(m.Payload, brand.Name) {
				tc.Failf("lime.branding get answered %s, without the OEM brand %q the host holds", m.Payload, brand.Name)
			}
			if harness.ContainsText(m.Payload, platformOwnBrand) {
				tc.Failf("lime.branding get answered %s: it names %q, the brand the app's own package declares, not only the host's", m.Payload, platformOwnBrand)
			}
			if !harness.ContainsText(m.Payload, "#7a1fa2") {
				tc.Failf("lime.branding get answered %s, without the OEM accent token the host holds (#7a1fa2)", m.Payload)
			}
			if !harness.ContainsText(m.Payload, brand.ShellCopy) {
				tc.Failf("lime.branding get answered %s, without the OEM shell copy %q the host holds", m.Payload, brand.ShellCopy)
			}
		})

		It("projects the plan, quota and blocked reason, never the ledger or a payment credential", tc.Req("BILLING-NO-LEDGER", levels.EveryMember), func() {
			cfg := platformConfigure(tc)
			b := &protocol.Billing{Plan: harness.Nonce("plan"), Quota: protocol.QuotaExhausted, BlockedReason: harness.Nonce("reason"),
				Ledger: harness.Nonce("ledger"), PaymentCredential: harness.Nonce("card")}
			cfg.Billing = b
			app := installPlatformProbe(tc, cfg)
			m, refused := tryPlatformCall(tc, app, "main", "lime.billing", "getStatus", nil)
			if refused != nil {
				// A host may block the whole app while its billing is
				// exhausted (docs/decisions.md, Billing in readiness): the
				// app cannot ask then, and the refusal is what the host
				// shows of billing. The plan is asked for once the quota is
				// back.
				billingRefusal(tc, app, refused, b)
				cfg.Billing = &protocol.Billing{Plan: b.Plan, Quota: protocol.QuotaOK, Ledger: b.Ledger, PaymentCredential: b.PaymentCredential}
				tc.Configure(cfg)
				m = platformCall(tc, app, "main", "lime.billing", "getStatus", nil)
			}
			tc.Precondition("lime.billing getStatus answers the plan the host holds", func() {
				if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, b.Plan) {
					tc.Failf("lime.billing getStatus answered %s, not the plan %q", harness.AnswerText(m, true), b.Plan)
				}
			})
			expectNonePlanted(tc, "lime.billing getStatus", m.Payload, map[string]string{
				"the raw billing ledger": b.Ledger, "the payment credential": b.PaymentCredential})
			if refused == nil && !harness.ContainsText(m.Payload, b.BlockedReason) {
				tc.Failf("lime.billing getStatus answered %s, without the blocked reason %q of the exhausted quota", m.Payload, b.BlockedReason)
			}
			expectHoldsPlanted(tc, app, map[string]string{"billing.ledger": b.Ledger, "billing.paymentCredential": b.PaymentCredential})
			// Every answer that says why billing blocks, also with no blocked
			// reason of the tenant's to quote: the readiness of the app and
			// of its entry that needs lime.billing.
			cfg.Billing = &protocol.Billing{Plan: b.Plan, Quota: protocol.QuotaExhausted, Ledger: b.Ledger, PaymentCredential: b.PaymentCredential}
			tc.Configure(cfg)
			for _, entry := range []string{"", "paid"} {
				_, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: entry})
				expectNonePlanted(tc, fmt.Sprintf("app/readiness of %s (entry %q) with the quota exhausted and no blocked reason", app, entry), raw, map[string]string{
					"the raw billing ledger": b.Ledger, "the payment credential": b.PaymentCredential})
			}
		})

		It("keeps an entry that needs billing from ready while the quota is exhausted, naming billing", tc.Req("BILLING-BLOCKS", levels.ChangeBetweenReads, levels.EveryEntryPoint), func() {
			cfg := platformConfigure(tc)
			cfg.Billing = &protocol.Billing{Plan: "team", Quota: protocol.QuotaOK}
			app := installPlatformProbe(tc, cfg)
			tc.Precondition("with the quota ok, the entry paid (it needs lime.billing) is ready", func() {
				if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: "paid"}); !harness.IsLaunchable(r.Status) {
					tc.Failf("app/readiness of %s/paid is %q with billing in order; the answer: %s", app, r.Status, harness.Excerpt(raw))
				}
			})
			cfg.Billing = &protocol.Billing{Plan: "team", Quota: protocol.QuotaExhausted, BlockedReason: "the monthly quota is used up"}
			tc.Configure(cfg)
			r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: "paid"})
			if harness.IsLaunchable(r.Status) || r.OK {
				tc.Failf("app/readiness of %s/paid is %q (ok %v) while the tenant's quota is exhausted; the answer: %s", app, r.Status, r.OK, harness.Excerpt(raw))
			}
			if !namesBilling(r) {
				tc.Failf("app/readiness of %s/paid is %q but no check or blocker names billing, which the spec made fail; the answer: %s", app, r.Status, harness.Excerpt(raw))
			}
			tc.Reading("Billing in readiness", r.Status)
			expectBillingBlocksEverywhere(tc, app)
			cfg.Billing.Quota, cfg.Billing.BlockedReason = protocol.QuotaOK, ""
			tc.Configure(cfg)
			if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app, Entry: "paid"}); !harness.IsLaunchable(r.Status) {
				tc.Failf("app/readiness of %s/paid stays %q after the quota was restored; the answer: %s", app, r.Status, harness.Excerpt(raw))
			}
		})

		It("keeps the evidence an app records, bound to the app, the request and the release, whatever the app claims of them", tc.Req("EVIDENCE-LOCAL-RECORD", levels.EveryMember, levels.WhoAnswers), func() {
			app := installPlatformProbe(tc, platformConfigure(tc))
			rid := harness.Nonce("evidence")
			m := platformCallAs(tc, app, "main", rid, "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": rid}})
			tc.Precondition("lime.evidence record is executed (host:response)", func() {
				if m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.evidence record %s answered %s", rid, harness.AnswerText(m, true))
				}
			})
			e, kept := tc.EvidenceOf(app)[rid]
			if !kept {
				tc.Failf("lime.evidence record %s answered host:response, but host/observe of %s shows no evidence record of it", rid, app)
			}
			if e.AppID != "" && e.AppID != app || e.Version != "" && e.Version != "1.0.0" {
				tc.Failf("the evidence record %s names app %q release %q; %s 1.0.0 made it", rid, e.AppID, e.Version, app)
			}
			// Who answers for the provenance: the host, from the launch that
			// made the record, never the app. A record whose arguments claim
			// another app and release is either refused or kept under the
			// app and release that made it.
			claimed := harness.Nonce("evidence-claimed")
			m = platformCallAs(tc, app, "main", claimed, "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": claimed},
				"appId": "someone-else", "version": "9.9.9", "release": "9.9.9", "requestId": "forged"})
			if m.Type != hostbridge.TypeResponse {
				tc.Reading("an evidence record whose arguments claim another app and release", "refused")
				return
			}
			e, kept = tc.EvidenceOf(app)[claimed]
			switch {
			case !kept:
				tc.Failf("lime.evidence record %s, its arguments claiming app someone-else release 9.9.9, answered host:response, but host/observe of %s shows no record of it", claimed, app)
			case e.AppID != "" && e.AppID != app || e.Version != "" && e.Version != "1.0.0":
				tc.Failf("the evidence record %s names app %q release %q, as its arguments claimed; %s 1.0.0 made it", claimed, e.AppID, e.Version, app)
			}
		})

		// Evidence is namespaced by app (spec 002, Storage / Artifacts /
		// Evidence): an app whose id extends another's, and the other, each
		// find only their own records, both ways round.
		It("keeps each app's evidence its own: an app whose id extends another's sees none of the other's records, both ways", tc.Req("EVIDENCE-LOCAL-RECORD", levels.ConfusableIdentity), func() {
			app := installPlatformProbe(tc, platformConfigure(tc))
			dir := tc.FixtureAs(platformFixture, platformFixture+"-b")
			harness.SetField(dir, "name", platformFixture+"-b")
			other := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			for _, pair := range [][2]string{{other, app}, {app, other}} {
				by, seen := pair[0], pair[1]
				rid := harness.Nonce("evidence-of-" + by)
				m := platformCallAs(tc, by, "main", rid, "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": rid}})
				tc.Precondition("lime.evidence record of "+by+" is executed and host/observe of "+by+" shows it", func() {
					if m.Type != hostbridge.TypeResponse {
						tc.Failf("lime.evidence record %s of %s answered %s", rid, by, harness.AnswerText(m, true))
					}
					if _, kept := tc.EvidenceOf(by)[rid]; !kept {
						tc.Failf("host/observe of %s shows no evidence record %s, which it recorded", by, rid)
					}
				})
				if e, shown := tc.EvidenceOf(seen)[rid]; shown {
					tc.Failf("host/observe of %s shows the evidence record %s, which %s recorded (the record names app %q): evidence is namespaced by app", seen, rid, by, e.AppID)
				}
			}
		})

		It("names the newer release the registry offers, not one it withdrew, and never says up to date when the registry is down", tc.Req("APP-UPDATES-CHECK", levels.ChangeBetweenReads, levels.WhoAnswers), func() {
			if tc.Registry() == nil {
				tc.Blockedf("no registry is running (dry run)")
			}
			// A host with no registry client (a Desktop P0 host) offers no
			// app updates: nothing to judge.
			if c, ok := tc.Host().Hello().Capabilities["lime.appUpdates"]; !ok || !c.Enabled {
				tc.Blockedf("the host's hello does not offer lime.appUpdates enabled, so it has no update check to judge")
			}
			app := installPlatformProbe(tc, platformConfigure(tc))
			newer := tc.Fixture(platformFixture)
			harness.SetField(newer, "version", "1.1.0")
			rel := tc.Publish(newer)
			tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
			expectUpdateOffered(tc, app, "lime.appUpdates check", platformCall(tc, app, "main", "lime.appUpdates", "check", nil))
			// Who answers for the installed version: the host's record, not
			// the app. A check whose arguments claim the app runs 1.1.0
			// already, as another app, is refused or answered from the
			// record.
			claimed := platformCall(tc, app, "main", "lime.appUpdates", "check", map[string]any{"currentVersion": "1.1.0", "appId": "someone-else"})
			if claimed.Type == hostbridge.TypeResponse {
				expectUpdateOffered(tc, app, "lime.appUpdates check whose arguments claim 1.1.0 of app someone-else is installed", claimed)
			} else {
				tc.Reading("lime.appUpdates check whose arguments claim another version", "refused")
			}
			// A newer release enabled and then withdrawn is no update: the
			// same check again names 1.1.0, not 1.2.0.
			withdrawn := tc.Fixture(platformFixture)
			harness.SetField(withdrawn, "version", "1.2.0")
			wrel := tc.Publish(withdrawn)
			tc.Registry().EnableVersion(harness.TenantID, wrel.AppID, wrel.Version)
			tc.Registry().Withdraw(wrel.AppID, wrel.Version)
			// Nor is a newer release the public catalogue lists and the
			// registry never enabled for the tenant: the tenant's bootstrap
			// alone says what the host may offer.
			unenabled := tc.Fixture(platformFixture)
			harness.SetField(unenabled, "version", "1.3.0")
			tc.Publish(unenabled)
			again := platformCall(tc, app, "main", "lime.appUpdates", "check", nil)
			if again.Type == hostbridge.TypeResponse && harness.ContainsText(again.Payload, `"1.2.0"`) {
				tc.Failf("lime.appUpdates check of %s offers 1.2.0, a release the registry withdrew: %s", app, again.Payload)
			}
			if again.Type == hostbridge.TypeResponse && harness.ContainsText(again.Payload, `"1.3.0"`) {
				tc.Failf("lime.appUpdates check of %s offers 1.3.0, a release of the public catalogue the registry never enabled for tenant %s: %s", app, harness.TenantID, again.Payload)
			}
			tc.Registry().SetMode(registry.Down)
			DeferCleanup(func() { tc.Registry().SetMode(registry.Answer) })
			down := platformCall(tc, app, "main", "lime.appUpdates", "check", nil)
			if down.Type == hostbridge.TypeResponse && !harness.ContainsText(down.Payload, `"1.1.0"`) {
				tc.Failf("with the registry down, lime.appUpdates check answered %s: an answer it cannot have had from the registry (1.1.0 is offered)", down.Payload)
			}
			tc.Reading("lime.appUpdates check", "with the registry down: "+down.Type)
		})

		// Versions are SemVer (spec 003, Version policy): the newest release
		// is the greatest by SemVer precedence, which differs from the order
		// of the version texts once a part reaches two digits. Each row puts
		// the text order against the SemVer order in one part.
		DescribeTable("names the newest release by SemVer order, not by the order of the version texts",
			func(installed string, enabled []string, newest string) {
				if tc.Registry() == nil {
					tc.Blockedf("no registry is running (dry run)")
				}
				if c, ok := tc.Host().Hello().Capabilities["lime.appUpdates"]; !ok || !c.Enabled {
					tc.Blockedf("the host's hello does not offer lime.appUpdates enabled, so it has no update check to judge")
				}
				tc.Configure(platformConfigure(tc))
				dir := tc.Fixture(platformFixture)
				harness.SetField(dir, "version", installed)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				for _, v := range enabled {
					next := tc.Fixture(platformFixture)
					harness.SetField(next, "version", v)
					rel := tc.Publish(next)
					tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
				}
				m := platformCall(tc, app, "main", "lime.appUpdates", "check", nil)
				if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, `"`+newest+`"`) {
					tc.Failf("lime.appUpdates check of %s %s answered %s, not the release %s, the newest by SemVer of those the registry enables for the tenant (%s)",
						app, installed, harness.AnswerText(m, true), newest, strings.Join(enabled, ", "))
				}
			},
			Entry("1.9.0 installed, 1.10.0 enabled (a minor version of two digits)", tc.Req("APP-UPDATES-CHECK", levels.RepresentationLimit), "1.9.0", []string{"1.10.0"}, "1.10.0"),
			Entry("1.0.2 installed, 1.0.9 and 1.0.10 enabled (a patch version of two digits)", tc.Req("APP-UPDATES-CHECK", levels.RepresentationLimit), "1.0.2", []string{"1.0.9", "1.0.10"}, "1.0.10"),
			Entry("9.1.0 installed, 10.0.0 enabled (a major version of two digits)", tc.Req("APP-UPDATES-CHECK", levels.RepresentationLimit), "9.1.0", []string{"10.0.0"}, "10.0.0"),
		)
	})
}

// billingRefusal judges a host's refusal to let app call anything while
// billing b is exhausted: a not-ready refusal (-32009) whose readiness
// names billing is a host that blocks the whole app, and must name b's
// blocked reason and carry neither the ledger nor the payment credential;
// any other refusal blocks the spec.
func billingRefusal(tc *harness.TestContext, app string, refused *control.HostError, b *protocol.Billing) {
	GinkgoHelper()
	var data protocol.ErrorData
	_ = json.Unmarshal(refused.Data, &data)
	if refused.Code != protocol.CodeNotReady || data.Readiness == nil || !namesBilling(*data.Readiness) {
		// Not a host blocking the app for its billing: the entry is
		// kept from running for another reason, and nothing is judged.
		tc.Blockedf("app/invoke of lime.billing getStatus as %s/main was refused, not for billing: %s", app, harness.HostErrorText(refused))
	}
	tc.Reading("Billing in readiness", "the whole app is blocked while the quota is exhausted")
	text := []byte(refused.Message + " " + string(refused.Data))
	expectNonePlanted(tc, "the refusal of lime.billing getStatus while the quota is exhausted", text, map[string]string{
		"the raw billing ledger": b.Ledger, "the payment credential": b.PaymentCredential})
	if !strings.Contains(string(text), b.BlockedReason) {
		tc.Failf("the host blocks %s while the quota is exhausted without naming the blocked reason %q: %s", app, b.BlockedReason, harness.HostErrorText(refused))
	}
}

// platformConfigure is the default configuration with what Lime Cloud
// tells the host set (model settings, branding, billing in order): a host
// whose readiness waits for them before the probe may launch (a correct
// gate) must not block the specs that judge something else. A spec
// changes what it judges on top of it.
func platformConfigure(tc *harness.TestContext) protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.ModelSettings = &protocol.ModelSettings{Profile: "conformance-default", Limits: map[string]int64{"maxOutputTokens": 1024}}
	p.Branding = &protocol.Branding{Name: "Conformance OEM"}
	p.Billing = &protocol.Billing{Plan: "conformance", Quota: protocol.QuotaOK}
	return p
}

// installPlatformProbe configures the host with p and installs
// platform-probe.
func installPlatformProbe(tc *harness.TestContext, p protocol.ConfigureParams) string {
	GinkgoHelper()
	tc.Configure(p)
	dir := tc.Fixture(platformFixture)
	return tc.Install(dir, tc.ReleaseOf(dir)).AppID
}

// platformCall makes one capability call as platform-probe's entry
// through app/invoke.
func platformCall(tc *harness.TestContext, app, entry, capability, method string, args map[string]any) hostbridge.Message {
	GinkgoHelper()
	return platformCallAs(tc, app, entry, harness.Nonce("platform"), capability, method, args)
}

// tryPlatformCall is platformCall that gives back the host's refusal of
// app/invoke (an entry that may not launch now) instead of ending the
// spec.
func tryPlatformCall(tc *harness.TestContext, app, entry, capability, method string, args map[string]any) (hostbridge.Message, *control.HostError) {
	GinkgoHelper()
	var raw json.RawMessage
	if args != nil {
		raw, _ = json.Marshal(args)
	}
	p := protocol.InvokeParams{AppID: app, EntryKey: entry, RequestID: harness.Nonce("platform"), Capability: capability, Method: method, Args: raw}
	var r protocol.InvokeResult
	err := tc.Call(protocol.MethodInvoke, p, &r)
	if code, isErr := tc.HostErrorCode(protocol.MethodInvoke, err); isErr {
		if code == protocol.CodeMethodNotFound {
			tc.Blockedf("the host does not implement app/invoke (-32601), so no call can be made as the app without a browser")
		}
		he, _ := harness.HostError(err)
		return hostbridge.Message{}, he
	}
	return tc.InvokeAnswer(p, r), nil
}

// platformCallAs is platformCall under the request id rid.
func platformCallAs(tc *harness.TestContext, app, entry, rid, capability, method string, args map[string]any) hostbridge.Message {
	GinkgoHelper()
	var raw json.RawMessage
	if args != nil {
		raw, _ = json.Marshal(args)
	}
	return tc.InvokeAsApp(protocol.InvokeParams{AppID: app, EntryKey: entry, RequestID: rid,
		Capability: capability, Method: method, Args: raw})
}

// jitTokenMethods are the names a just-in-time token request may go by
// (docs/decisions.md, "The just-in-time token"): the texts name none.
var jitTokenMethods = []string{"getAccessToken", "getToken", "requestToken", "fetchToken", "getJitToken"}

// requestJITToken asks lime.cloudSession for a just-in-time token under
// each name of jitTokenMethods in turn, and gives the first answered
// host:response with its name; "" and what each name got when none was.
func requestJITToken(tc *harness.TestContext, app string) (string, hostbridge.Message, string) {
	GinkgoHelper()
	var got []string
	for _, name := range jitTokenMethods {
		m := platformCall(tc, app, "main", "lime.cloudSession", name, nil)
		if m.Type == hostbridge.TypeResponse {
			return name, m, ""
		}
		got = append(got, name+": "+m.Type+" "+harness.Excerpt(m.Payload))
	}
	return "", hostbridge.Message{}, strings.Join(got, "; ")
}

// expectJITToken fails the spec unless the token answer m (of what) is
// host:response and carries want and none of others.
func expectJITToken(tc *harness.TestContext, what string, m hostbridge.Message, want string, others map[string]string) {
	GinkgoHelper()
	if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, want) {
		tc.Failf("lime.cloudSession %s answered %s, without the current token of the cloud session", what, harness.AnswerText(m, true))
	}
	for name, v := range others {
		if harness.ContainsText(m.Payload, v) {
			tc.Failf("lime.cloudSession %s answered %s: the token it hands out is %s, not the cloud session's current one", what, harness.AnswerText(m, true), name)
		}
	}
}

// expectNonePlanted fails the spec when raw carries, in any form, one of
// the values the spec planted in a member no app may see; the message
// names the member, never the value.
func expectNonePlanted(tc *harness.TestContext, what string, raw []byte, planted map[string]string) {
	GinkgoHelper()
	var leaked []string
	for name, v := range planted {
		if form := harness.FindCanary(raw, v); form != "" {
			leaked = append(leaked, name+" ("+form+")")
		}
	}
	if len(leaked) > 0 {
		sort.Strings(leaked)
		tc.Failf("%s carries %s, which the host holds and no app may see", what, strings.Join(leaked, " and "))
	}
}

// expectHoldsPlanted is the evidence a platform must-not needs
// (docs/decisions.md, "Evidence before a must-not"): after the answers were
// searched, host/observe's holds must show the host keeps each credential
// host/configure planted, by its member path, as the SHA-256 of the value
// planted. A host that keeps none of them (no place for a provider key, a
// ledger or a session token) was never seen holding back anything: the
// spec is blocked, naming what the host did not show.
func expectHoldsPlanted(tc *harness.TestContext, app string, planted map[string]string) {
	GinkgoHelper()
	paths := slices.Sorted(maps.Keys(planted))
	tc.Precondition("host/observe holds shows the host keeps "+strings.Join(paths, " and "), func() {
		tc.RequireMethod(protocol.MethodObserve)
		var o protocol.ObserveResult
		if err := tc.CallReading(protocol.MethodObserve, protocol.ObserveParams{AppID: app}, &o, protocol.Reads{"/holds"}); err != nil {
			tc.FailCall(protocol.MethodObserve, err)
		}
		var unseen []string
		for _, path := range paths {
			sum := sha256.Sum256([]byte(planted[path]))
			switch got, ok := o.Holds[path]; {
			case !ok:
				unseen = append(unseen, path+" is not in holds")
			case got != "sha256:"+hex.EncodeToString(sum[:]):
				unseen = append(unseen, path+" is held as "+got+", not the digest of the value host/configure planted")
			}
		}
		if len(unseen) > 0 {
			tc.Failf("host/observe of %s: %s; without it the harness cannot see the host keep back what it holds (docs/host-control-protocol.md, host/observe)",
				app, strings.Join(unseen, "; "))
		}
	})
}

// expectBillingBlocksEverywhere judges, while the quota is exhausted, the
// other ways a host answers for the entry paid of app: the row of paid in
// the whole app's readiness (docs/host-control-protocol.md, app/readiness:
// "without it, entries lists each entry's {key, status, blockers}") and
// app/launch of paid, which the readiness gate refuses (-32009).
func expectBillingBlocksEverywhere(tc *harness.TestContext, app string) {
	GinkgoHelper()
	whole, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app})
	if len(whole.Entries) == 0 {
		tc.Reading("Billing in readiness", "the whole app's readiness lists no entries: judged by entry only")
	} else if i := slices.IndexFunc(whole.Entries, func(e protocol.EntryReadiness) bool { return e.Key == "paid" }); i < 0 {
		tc.Failf("app/readiness of %s (no entry) lists its entries but not paid; the answer: %s", app, harness.Excerpt(raw))
	} else if e := whole.Entries[i]; harness.IsLaunchable(e.Status) || !slices.ContainsFunc(e.Blockers, func(b string) bool { return strings.Contains(strings.ToLower(b), "billing") }) {
		tc.Failf("app/readiness of %s (no entry) lists paid as %q with blockers %q while the tenant's quota is exhausted: asked for the entry it is not ready, naming billing; the answer: %s", app, e.Status, e.Blockers, harness.Excerpt(raw))
	}
	if _, err := tc.TryLaunch(app, "paid"); err == nil {
		tc.Failf("app/launch mounted %s/paid while the tenant's quota is exhausted: its readiness says it is not ready", app)
	} else if code, _ := tc.HostErrorCode(protocol.MethodLaunch, err); code != protocol.CodeNotReady && code != protocol.CodeConsentRequired {
		tc.Failf("app/launch of %s/paid while the quota is exhausted was refused with %d, not -32009 (not ready): %v", app, code, err)
	}
}

// namesBilling reports whether a not-ready answer names billing as a cause:
// in a failing check (an error or a blocking one; an info check that says
// billing is available is no cause), a blocker or a setup action.
func namesBilling(r protocol.ReadinessResult) bool {
	var texts []string
	texts = append(texts, r.Blockers...)
	for _, c := range r.Checks {
		if c.Severity == "error" || c.Blocking {
			texts = append(texts, c.Kind, c.Key, c.Code, c.Message)
		}
	}
	for _, a := range r.SetupActions {
		texts = append(texts, a.Key, a.Kind, a.Target, a.Title)
	}
	for _, e := range r.Entries {
		texts = append(texts, e.Blockers...)
	}
	for _, t := range texts {
		if strings.Contains(strings.ToLower(t), "billing") {
			return true
		}
	}
	return false
}

// expectUpdateOffered judges the answer m to a check (what) of app 1.0.0
// while the registry enables 1.1.0: host:response naming 1.1.0, and, where
// it gives them, updateAvailable true, currentVersion 1.0.0 and appId the
// app's (docs/host-control-protocol.md, Desktop P3 platform calls).
func expectUpdateOffered(tc *harness.TestContext, app, what string, m hostbridge.Message) {
	GinkgoHelper()
	if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, `"1.1.0"`) {
		tc.Failf("%s of %s 1.0.0 answered %s, not the release 1.1.0 the registry enables for the tenant", what, app, harness.AnswerText(m, true))
	}
	var p struct {
		AppID           *string `json:"appId"`
		CurrentVersion  *string `json:"currentVersion"`
		UpdateAvailable *bool   `json:"updateAvailable"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	switch {
	case p.UpdateAvailable != nil && !*p.UpdateAvailable:
		tc.Failf("%s of %s 1.0.0 answered updateAvailable false while the registry enables 1.1.0: %s", what, app, m.Payload)
	case p.CurrentVersion != nil && *p.CurrentVersion != "1.0.0":
		tc.Failf("%s of %s answered currentVersion %q; the host installed 1.0.0: %s", what, app, *p.CurrentVersion, m.Payload)
	case p.AppID != nil && *p.AppID != app:
		tc.Failf("%s of %s answered appId %q: %s", what, app, *p.AppID, m.Payload)
	}
}
