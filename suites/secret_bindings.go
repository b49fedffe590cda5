package suites

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
)

// secretSlotFixture is an app with one required secret slot,
// provider_api_key, which the default configuration leaves unset.
const (
	secretSlotFixture = "secret-required-app"
	secretSlot        = "provider_api_key"
)

// describeSecretBindings checks that a secret the user bound to an app's
// slot (app/secret) is app data: an update keeps it (spec 003, What must
// not be overwritten: "secrets"), an uninstall keeping data keeps it for a
// reinstall and one deleting data deletes it (spec 002, Cleanup). The app's
// readiness shows whether the binding counts: without it the app needs
// setup.
func describeSecretBindings(tc *TestContext) {
	Describe("App lifecycle: secrets bound to an app", func() {
		It("keeps a secret bound to an app across an update: the updated app stays ready", tc.Req("UPDATE-KEEPS-SECRET-BINDINGS"), func() {
			app := tc.installBoundSecretApp()
			tc.updatedFixture(app, secretSlotFixture)
			if r := tc.AppReadiness(app); !readyStatus(r.Status) {
				tc.Failf("after app/update %s is %q: the secret bound to its slot %s no longer counts", app, r.Status, secretSlot)
			}
		})

		DescribeTable("finds a secret bound to an app again after uninstall keeping data, and not after uninstall deleting data",
			func(keep bool) {
				app := tc.installBoundSecretApp()
				tc.Uninstall(app, keep)
				dir := tc.Fixture(secretSlotFixture)
				tc.Install(dir, tc.ReleaseOf(dir))
				r := tc.AppReadiness(app)
				switch {
				case keep && !readyStatus(r.Status):
					tc.Failf("after uninstall keeping data and a reinstall %s is %q: the secret bound to its slot %s before no longer counts", app, r.Status, secretSlot)
				case !keep && readyStatus(r.Status):
					tc.Failf("after uninstall deleting data and a reinstall %s is %q: the secret bound to its slot %s before still counts", app, r.Status, secretSlot)
				}
			},
			Entry("keeping data", tc.Req("UNINSTALL-SECRET-BINDINGS"), true),
			Entry("deleting data", tc.Req("UNINSTALL-SECRET-BINDINGS"), false),
		)

		// A secret must not come back in any answer to the call that carries
		// it: not in its result, and not in any of its refusals, whatever
		// spelling of the slot or of the app was refused.
		DescribeTable("never echoes the value given to app/secret in its answer, its refusals included",
			func(appID, key string, refused bool) {
				tc.Configure(tc.DefaultConfigure())
				dir := tc.Fixture(secretSlotFixture)
				app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
				if appID == "" {
					appID = app
				}
				value := tc.Config.Canaries.ProviderKey
				var raw json.RawMessage
				err := tc.Call(protocol.MethodSecret, protocol.SecretParams{AppID: appID, Key: key, Value: value}, &raw)
				what := fmt.Sprintf("app/secret binding %q of %s", key, appID)
				tc.ExpectNoCanary("the result of "+what, raw)
				he, isHostErr := hostError(err)
				if isHostErr && he.Code == protocol.CodeMethodNotFound {
					tc.Blockedf("the host does not implement app/secret (-32601), so none of its answers can be judged")
				}
				if isHostErr {
					tc.ExpectNoCanary("the error answer to "+what, []byte(he.Message+" "+string(he.Data)))
				} else if err != nil && !isSchemaError(err) {
					tc.Errorf("no usable answer to %s: %v", protocol.MethodSecret, err)
				}
				if refused && !isHostErr {
					tc.Blockedf("%s was not refused, so no refusal of it could be judged", what)
				}
			},
			Entry("bound to the app's own slot", tc.Req("SECRET-BIND-NO-ECHO"), "", secretSlot, false),
			Entry("refused: a slot the app does not have", tc.Req("SECRET-BIND-NO-ECHO"), "", "provider_apikey", true),
			Entry("a slot spelled in another case", tc.Req("SECRET-BIND-NO-ECHO"), "", strings.ToUpper(secretSlot), false),
			Entry("a slot padded with spaces", tc.Req("SECRET-BIND-NO-ECHO"), "", " "+secretSlot+" ", false),
			Entry("refused: an app that is not installed", tc.Req("SECRET-BIND-NO-ECHO"), "no-such-app", secretSlot, true),
		)
	})
}

// readyStatus reports whether status lets the app run.
func readyStatus(status string) bool {
	return status == protocol.StatusReady || status == protocol.StatusReadyDegraded
}

// installBoundSecretApp installs secret-required-app under the default
// configuration (no host-wide provider_api_key), shows it needs setup,
// binds a canary to its slot with app/secret and shows it ready: the
// positive control of the binding specs.
func (tc *TestContext) installBoundSecretApp() string {
	GinkgoHelper()
	tc.Configure(tc.DefaultConfigure())
	dir := tc.Fixture(secretSlotFixture)
	app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
	tc.Precondition(app+" needs setup while nothing is bound to its required slot "+secretSlot, func() {
		if r := tc.AppReadiness(app); readyStatus(r.Status) {
			tc.Failf("%s is %q with no %s configured or bound", app, r.Status, secretSlot)
		}
	})
	tc.Precondition("app/secret binds "+secretSlot+" to "+app+" and the app is ready", func() {
		err := tc.Call(protocol.MethodSecret, protocol.SecretParams{AppID: app, Key: secretSlot, Value: tc.Config.Canaries.ProviderKey}, &protocol.OK{})
		if code, isErr := tc.HostErrorCode(protocol.MethodSecret, err); isErr {
			if code == protocol.CodeMethodNotFound {
				tc.Blockedf("the host does not implement app/secret (-32601), so no secret can be bound to an app")
			}
			tc.Failf("app/secret of %s's %s was refused: %v", app, secretSlot, err)
		}
		if r := tc.AppReadiness(app); !readyStatus(r.Status) {
			tc.Failf("with %s bound, %s is %q", secretSlot, app, r.Status)
		}
	})
	return app
}
