package runwide

import (
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
	. "github.com/onsi/ginkgo/v2"
)

// describeSecretsEverywhere checks every surface of the control protocol
// for planted secrets (spec 000, Shared host model). It runs last, so that
// its search of the run's frames covers every spec before it.
func describeSecretsEverywhere(tc *harness.TestContext) {
	Describe("Secrets in every answer", func() {
		It("never puts a secret or session-token value in any answer, errors and app/list included", tc.Req("HOST-NO-SECRET-LEAK", levels.EveryEntryPoint), func() {
			tc.Configure(tc.WithSecret())
			tc.ExpectHoldsSecret()
			dir := tc.Fixture("secret-required-app")
			rel := tc.ReleaseOf(dir)
			tampered := tc.Fixture("secret-required-app")
			harness.AppendFile(tampered, "APP.md", []byte("\n"))
			consent := protocol.Consent{Granted: true, By: "user"}
			type call struct {
				what, method string
				params       any
			}
			ask := func(calls ...call) {
				for _, c := range calls {
					tc.ExpectNoCanaryIn(c.what, c.method, c.params)
				}
			}
			ask(
				call{"package/verify of the package", protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}},
				call{"package/verify of the package changed after hashing", protocol.MethodVerify, protocol.PackageParams{Path: tampered, Release: rel}},
				call{"package/project of the package", protocol.MethodProject, protocol.PackageParams{Path: dir}},
				call{"app/install without consent", protocol.MethodInstall,
					protocol.InstallParams{Path: dir, Release: rel, Consent: protocol.Consent{Granted: false, By: "user"}}},
				call{"app/install of the package changed after hashing", protocol.MethodInstall, protocol.InstallParams{Path: tampered, Release: rel, Consent: consent}},
				call{"app/install of the package", protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: rel, Consent: consent}},
			)
			// What follows asks about an installed app: without one, the
			// answers show nothing of it.
			tc.Precondition("the package installed", func() {
				if _, listed := harness.FindApp(tc.List(), "secret-required-app"); !listed {
					tc.Blockedf("app/list does not show secret-required-app after its app/install")
				}
			})
			ask(
				call{"app/list with the app installed", protocol.MethodList, struct{}{}},
				call{"app/readiness of the installed app", protocol.MethodReadiness, protocol.ReadinessParams{AppID: "secret-required-app"}},
				call{"app/readiness of an app that is not installed", protocol.MethodReadiness, protocol.ReadinessParams{AppID: "no-such-app"}},
				call{"app/uninstall keeping data", protocol.MethodUninstall, protocol.UninstallParams{AppID: "secret-required-app", KeepData: true}},
				call{"app/list with the app's data retained", protocol.MethodList, struct{}{}},
				call{"app/uninstall of an app that is not installed", protocol.MethodUninstall, protocol.UninstallParams{AppID: "no-such-app"}},
			)
			if leaks := tc.Leaks().Text(); leaks != "" {
				tc.Failf("the host revealed secrets it holds in its answers: %s", leaks)
			}
		})
	})
}
