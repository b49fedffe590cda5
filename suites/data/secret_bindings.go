package data

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// expectSlotConfigured fails the spec unless the app's own lime.secrets
// status (app/invoke as its entry home_page) says the slot bound to it is
// configured: "A bound slot counts as configured for that app's readiness
// and lime.secrets status".
func expectSlotConfigured(tc *harness.TestContext, app, when string) {
	GinkgoHelper()
	args, _ := json.Marshal(map[string]any{"key": harness.SecretSlot})
	m := tc.InvokeAsApp(protocol.InvokeParams{AppID: app, EntryKey: "home_page", RequestID: harness.Nonce("status"),
		Capability: "lime.secrets", Method: "status", Args: args})
	var st struct {
		Configured bool `json:"configured"`
	}
	if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &st) != nil || !st.Configured {
		tc.Failf("%s's lime.secrets status of its slot %s %s, with a secret bound to it, answered %s, not configured", app, harness.SecretSlot, when, harness.AnswerText(m, true))
	}
	tc.ExpectNoCanary("the app's lime.secrets status of "+harness.SecretSlot, m.Payload)
}

// describeSecretBindings checks that a secret the user bound to an app's
// slot (app/secret) is app data: an update keeps it (spec 003, What must
// not be overwritten: "secrets"), an uninstall keeping data keeps it for a
// reinstall and one deleting data deletes it (spec 002, Cleanup). The app's
// readiness shows whether the binding counts: without it the app needs
// setup.
func describeSecretBindings(tc *harness.TestContext) {
	Describe("App lifecycle: secrets bound to an app", func() {
		It("keeps a secret bound to an app across an update: the updated app stays ready, and its lime.secrets status says the slot is configured", tc.Req("UPDATE-KEEPS-SECRET-BINDINGS", levels.EveryTransition, levels.EveryEntryPoint), func() {
			tc.Configure(tc.DefaultConfigure())
			// The app asks lime.secrets itself: the binding counts where
			// the app asks, as where readiness does.
			withSecrets := func() string {
				dir := tc.Fixture(harness.SecretSlotFixture)
				harness.EditFrontmatter(dir, func(lines []string) []string {
					return append(lines, "requires:", "  capabilities:", "    lime.secrets: current")
				})
				// A page for the host to mount the entry that asks.
				harness.WriteFile(dir, "dist/ui/index.html", []byte("<!doctype html><title>secret-required-app</title>\n"))
				return dir
			}
			app := tc.InstallBoundSecret(withSecrets())
			expectSlotConfigured(tc, app, "once bound")
			tc.UpdatedDir(app, withSecrets)
			if r := tc.AppReadiness(app); !harness.ReadyStatus(r.Status) {
				tc.Failf("after app/update %s is %q: the secret bound to its slot %s no longer counts", app, r.Status, harness.SecretSlot)
			}
			expectSlotConfigured(tc, app, "after app/update")
		})

		DescribeTable("finds a secret bound to an app again after uninstall keeping data, and not after uninstall deleting data",
			func(keep bool) {
				app := tc.InstallBoundSecretApp()
				tc.Uninstall(app, keep)
				dir := tc.Fixture(harness.SecretSlotFixture)
				tc.Install(dir, tc.ReleaseOf(dir))
				r := tc.AppReadiness(app)
				switch {
				case keep && !harness.ReadyStatus(r.Status):
					tc.Failf("after uninstall keeping data and a reinstall %s is %q: the secret bound to its slot %s before no longer counts", app, r.Status, harness.SecretSlot)
				case !keep && harness.ReadyStatus(r.Status):
					tc.Failf("after uninstall deleting data and a reinstall %s is %q: the secret bound to its slot %s before still counts", app, r.Status, harness.SecretSlot)
				}
			},
			Entry("keeping data", tc.Req("UNINSTALL-SECRET-BINDINGS", levels.EveryMember), true),
			Entry("deleting data", tc.Req("UNINSTALL-SECRET-BINDINGS", levels.EveryMember), false),
		)

		// The third uninstall mode: the export is the app's data, written
		// where the user can read it and hand it back later; a credential
		// belongs in lime.secrets (spec 000, Storage and data boundary 3),
		// so the value bound to the slot is in no exported file.
		It("writes no secret bound to an app into the export of export then delete", tc.Req("UNINSTALL-SECRET-BINDINGS", levels.EveryMember), func() {
			app := tc.InstallBoundSecretApp()
			res, text := exportThenDelete(tc, app)
			tc.ExpectNoCanary(fmt.Sprintf("the export of %s (%v)", app, res.Exported), text)
		})

		// A pair whose ids prefix each other, each with a secret bound:
		// uninstall deleting the data of either leaves the other's binding
		// (a host that deletes by prefix shows on one side only). Before
		// the second is bound, the first one's binding is not its own: a
		// binding counts "for that app's readiness" (app/secret), so the
		// second, with a slot of the same name, still needs setup, as the
		// first did before its binding.
		DescribeTable("keeps the secret bound to the other app when uninstalling one of a pair whose ids prefix each other, deleting its data:",
			func(onNeighbour bool) {
				tc.Configure(tc.DefaultConfigure())
				a := tc.InstallBoundSecret(tc.Fixture(harness.SecretSlotFixture))
				dir := tc.FixtureAs(harness.SecretSlotFixture, harness.SecretSlotNeighbour)
				harness.SetField(dir, "name", harness.SecretSlotNeighbour)
				b := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				if r := tc.AppReadiness(b); harness.ReadyStatus(r.Status) {
					tc.Failf("%s is %q with nothing bound to its own required slot %s: the secret bound to %s's slot of that name counts for it", b, r.Status, harness.SecretSlot, a)
				}
				tc.BindSecret(b)
				if onNeighbour {
					a, b = b, a
				}
				tc.Uninstall(a, false)
				if _, listed := tc.ListedApp(b); !listed {
					tc.Failf("app/list no longer shows %s after uninstall of %s deleting data", b, a)
				}
				if r := tc.AppReadiness(b); !harness.ReadyStatus(r.Status) {
					tc.Failf("after uninstall of %s deleting data %s is %q: the secret bound to its own slot %s no longer counts", a, b, r.Status, harness.SecretSlot)
				}
			},
			Entry(harness.SecretSlotFixture+" uninstalled, "+harness.SecretSlotNeighbour+" judged", tc.Req("UNINSTALL-SECRET-BINDINGS", levels.ConfusableIdentity), false),
			Entry(harness.SecretSlotNeighbour+" uninstalled, "+harness.SecretSlotFixture+" judged", tc.Req("UNINSTALL-SECRET-BINDINGS", levels.ConfusableIdentity), true),
		)

		// The protocol binds a value to "one of the app's own secret slots"
		// and refuses "a slot the app does not have" with -32602 naming
		// key: a spelling that only looks like the slot is no slot, so a
		// host answering ok leaves the user believing a slot is set that
		// the app never reads.
		It("binds only a slot the app declares, under its exact key: every other spelling of the slot is refused with -32602 naming key",
			tc.Req("PROTO-SECRET-KEY-EXACT", levels.ConfusableIdentity, levels.RepresentationLimit), func() {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(harness.SecretSlotFixture)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				bind := func(key string) error {
					return tc.Call(protocol.MethodSecret, protocol.SecretParams{AppID: app, Key: key, Value: harness.Nonce("bound")}, nil)
				}
				tc.RequireMethod(protocol.MethodSecret)
				tc.Precondition("app/secret binds the app's own slot "+harness.SecretSlot, func() {
					if err := bind(harness.SecretSlot); err != nil {
						tc.Failf("app/secret of %s's slot %s answered %s", app, harness.SecretSlot, harness.AnswerOf(err))
					}
				})
				var taken []string
				for _, key := range harness.ConfusableSpellings(harness.SecretSlot) {
					if err := bind(key); !harness.InvalidParamsNaming(err, "key") {
						taken = append(taken, fmt.Sprintf("%q answered %s", key, harness.AnswerOf(err)))
					}
				}
				if len(taken) > 0 {
					tc.Failf("app/secret of %s, whose one slot is %s, took other spellings of it instead of refusing them with -32602 naming key: %s",
						app, harness.SecretSlot, strings.Join(taken, "; "))
				}
			})

		// Every kind of slot the protocol names: "a key of its secrets, or
		// a secret its readiness checks name". A secret only a
		// secret_configured check asks for is bound as well, and then
		// counts: the setup readiness asks for can be done. The slot as the
		// app spells it, capitals too: a host that keeps a binding under
		// another spelling (case-folded, as a keychain might) never counts
		// it for a slot named in capitals.
		DescribeTable("binds a secret the app's readiness checks name, though its secrets list does not, and then counts it:",
			func(slot string) {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture("minimal-app")
				harness.WriteFile(dir, "evals/readiness.yaml", []byte("readiness:\n  required:\n    - check: secret_configured\n      secret: "+slot+"\n"))
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				tc.RequireMethod(protocol.MethodSecret)
				tc.Precondition(app+" is not ready while "+slot+", which its readiness check names, is not set", func() {
					if r := tc.AppReadiness(app); harness.ReadyStatus(r.Status) || !harness.NamesFailingCheck(r, slot) {
						tc.Failf("app/readiness of %s is %q, not a not-ready status naming %s", app, r.Status, slot)
					}
				})
				if err := tc.Call(protocol.MethodSecret, protocol.SecretParams{AppID: app, Key: slot, Value: harness.Nonce("bound")}, nil); err != nil {
					tc.Failf("app/secret of %s's %s, the secret its readiness check names, answered %s, not ok", app, slot, harness.AnswerOf(err))
				}
				if r := tc.AppReadiness(app); !harness.ReadyStatus(r.Status) {
					tc.Failf("with %s bound, %s is %q: the binding of the secret its readiness check names does not count", slot, app, r.Status)
				}
			},
			Entry("gateway_token", tc.Req("PROTO-SECRET-KEY-EXACT", levels.EveryMember), "gateway_token"),
			Entry("Gateway_TOKEN, spelt with capitals", tc.Req("PROTO-SECRET-KEY-EXACT", levels.EveryMember, levels.RepresentationLimit), "Gateway_TOKEN"),
		)

		// A change between two reads on one open surface: the app's own
		// lime.secrets status follows a binding made after its first ask
		// ("A bound slot counts as configured for that app's readiness and
		// lime.secrets status").
		It("answers the app's lime.secrets status as the binding is at each ask, on the same open surface",
			tc.Req("PROTO-SECRET-KEY-EXACT", levels.ChangeBetweenReads), func() {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(harness.ProbeFixture)
				harness.EditFrontmatter(dir, func(lines []string) []string {
					return append(lines, "secrets:", "  - key: "+harness.SecretSlot, "    required: false", "    scope: workspace")
				})
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				s := tc.Launch(app, "main")
				status := func(id string) (bool, hostbridge.Message) {
					GinkgoHelper()
					r := s.Run(harness.Invoke(id, "lime.secrets", "status", map[string]any{"key": harness.SecretSlot}), harness.AwaitAnswer(id))
					m, ok := r.Answer(id)
					var st struct {
						Configured bool `json:"configured"`
					}
					if !ok || m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &st) != nil {
						tc.Failf("lime.secrets status of %s's slot %s got %s", app, harness.SecretSlot, harness.AnswerText(m, ok))
					}
					return st.Configured, m
				}
				tc.Precondition("lime.secrets status of the unbound slot "+harness.SecretSlot+" says it is not configured", func() {
					if configured, m := status("before-bind"); configured {
						tc.Failf("lime.secrets status of %s's unbound slot %s answered %s", app, harness.SecretSlot, m.Payload)
					}
				})
				tc.RequireMethod(protocol.MethodSecret)
				tc.MustCall(protocol.MethodSecret, protocol.SecretParams{AppID: app, Key: harness.SecretSlot, Value: harness.Nonce("bound")}, &protocol.OK{})
				if configured, m := status("after-bind"); !configured {
					tc.Failf("after app/secret bound %s's slot %s, lime.secrets status on the surface open since before answered %s, not configured", app, harness.SecretSlot, m.Payload)
				}
			})

		// A secret must not come back in any answer to the call that carries
		// it: not in its result, and not in any of its refusals, whatever
		// spelling of the slot or of the app was refused.
		DescribeTable("never echoes the value given to app/secret in its answer, its refusals included",
			func(appID, key string, refused bool) {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(harness.SecretSlotFixture)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				if appID == "" {
					appID = app
				}
				value := tc.Config.Canaries.ProviderKey
				var raw json.RawMessage
				err := tc.Call(protocol.MethodSecret, protocol.SecretParams{AppID: appID, Key: key, Value: value}, &raw)
				what := fmt.Sprintf("app/secret binding %q of %s", key, appID)
				tc.ExpectNoCanary("the result of "+what, raw)
				he, isHostErr := harness.HostError(err)
				if isHostErr && he.Code == protocol.CodeMethodNotFound {
					tc.Blockedf("the host does not implement app/secret (-32601), so none of its answers can be judged")
				}
				if isHostErr {
					tc.ExpectNoCanary("the error answer to "+what, []byte(he.Message+" "+string(he.Data)))
				} else if err != nil && !harness.IsSchemaError(err) {
					tc.Errorf("no usable answer to %s: %v", protocol.MethodSecret, err)
				}
				if refused && !isHostErr {
					tc.Blockedf("%s was not refused, so no refusal of it could be judged", what)
				}
			},
			Entry("bound to the app's own slot", tc.Req("SECRET-BIND-NO-ECHO", levels.EveryEntryPoint), "", harness.SecretSlot, false),
			Entry("refused: a slot the app does not have", tc.Req("SECRET-BIND-NO-ECHO", levels.EveryEntryPoint), "", "provider_apikey", true),
			Entry("a slot spelled in another case", tc.Req("SECRET-BIND-NO-ECHO", levels.ConfusableIdentity), "", strings.ToUpper(harness.SecretSlot), false),
			Entry("a slot padded with spaces", tc.Req("SECRET-BIND-NO-ECHO", levels.ConfusableIdentity), "", " "+harness.SecretSlot+" ", false),
			Entry("refused: an app that is not installed", tc.Req("SECRET-BIND-NO-ECHO", levels.EveryEntryPoint), "no-such-app", harness.SecretSlot, true),
		)
	})
}
