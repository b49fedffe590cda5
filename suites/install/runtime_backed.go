package install

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads as the clause.

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// systemRuntime is the lime-runtime version the harness tells the host the
// system has. Its minor has two digits so that string order and SemVer
// order disagree about 1.9.0.
const systemRuntime = "1.10.0"

// runtimeBound is where a case declares the lower bound of the lime-runtime
// a runtime-backed release runs on, and how far above the system's it is.
type runtimeBound struct {
	file   string // app.install.yaml, or APP.md for the install shorthand
	member string // install.runtimeBacked.minVersion, ...
	above  string // a version above systemRuntime
}

// runtimeBackedRelease writes the install contract of a release offered
// only runtime-backed whose bound at b.member is version.
func runtimeBackedRelease(dir string, b runtimeBound, version string) {
	var install string
	switch b.member {
	case "install.runtimeBacked.minVersion":
		install = "install:\n  modes: [runtime_backed]\n  runtimeBacked:\n    requires: lime-runtime\n    minVersion: \"" + version + "\"\n"
	case "install.runtime.minVersion":
		install = "install:\n  modes: [runtime_backed]\n  runtime:\n    minVersion: \"" + version + "\"\n  runtimeBacked:\n    requires: lime-runtime\n"
	case "install.runtime.distribution.runtimeBacked.minVersion":
		install = "install:\n  modes: [runtime_backed]\n  runtime:\n    distribution:\n      runtimeBacked:\n        requires: lime-runtime\n        minVersion: \"" + version + "\"\n"
	default:
		harness.Errorf("no install contract is written for the member %s", b.member)
	}
	if b.file == "app.install.yaml" {
		harness.WriteFile(dir, "app.install.yaml", []byte(install))
		return
	}
	// The shorthand: the same object as APP.md frontmatter's install.
	harness.ReplaceIn(dir, "APP.md", "manifestVersion: 0.10.0\n", "manifestVersion: 0.10.0\n"+install)
}

// describeRuntimeBacked checks spec 003, Distribution flow: "for
// runtime-backed releases, the host must verify that the system
// lime-runtime satisfies the declared version range". The clause binds a
// host that takes runtime-backed releases; one that refuses them, naming
// the mode, is not-applicable (docs/decisions.md, "The system lime-runtime").
func describeRuntimeBacked(tc *harness.TestContext) {
	Describe("Installable: runtime-backed releases", func() {
		DescribeTable("refuses or blocks a runtime-backed release whose lime-runtime bound the system runtime does not meet, naming it",
			func(b runtimeBound) {
				cfg := tc.DefaultConfigure()
				cfg.SystemRuntime = &protocol.SystemRuntime{Version: systemRuntime}
				tc.Configure(cfg)
				dir := tc.Fixture("minimal-app")
				// The control, both sides of the boundary that holds: the
				// system's own version, and 1.9.0, above it in string order.
				runtimeBackedRelease(dir, b, systemRuntime)
				control := expectRuntimeBackedInstalls(tc, dir, b, systemRuntime)
				tc.Uninstall(control, false)
				harness.ReplaceIn(dir, b.file, `"`+systemRuntime+`"`, `"1.9.0"`)
				if app, err := tc.TryInstall(dir, nil, true); err != nil {
					tc.Failf("app/install refused a runtime-backed release whose %s 1.9.0 the system lime-runtime %s meets (by SemVer; string order puts 1.9.0 above): %v", b.member, systemRuntime, err)
				} else {
					tc.Uninstall(app.AppID, false)
				}
				harness.ReplaceIn(dir, b.file, `"1.9.0"`, `"`+b.above+`"`)
				planted := harness.Planted{What: fmt.Sprintf("%s %s with a system lime-runtime %s", b.member, b.above, systemRuntime),
					Codes: []string{"incompatible-runtime"}, File: b.file, Field: b.member}
				app, err := tc.TryInstall(dir, nil, true)
				if he, refused := tc.RefusalError(protocol.MethodInstall, err); refused {
					tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodeVerificationFailed || he.Code == protocol.CodePackageInvalid,
						Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)}, planted)
					tc.Reading("The system lime-runtime", "refused at install")
					return
				}
				r := tc.AppReadiness(app.AppID)
				if !slices.Contains(blockedStatuses(), r.Status) {
					tc.Failf("app/install took a runtime-backed release needing %s and app/readiness %s is %q, not blocked", planted.What,
						harness.At(protocol.MethodReadiness, []any{"status"}, "of "+app.AppID), r.Status)
				}
				if !harness.NamesFailingCheck(r, "lime-runtime") && !harness.NamesFailingCheck(r, b.member) {
					tc.Failf("app/readiness of %s is blocked but names neither lime-runtime nor %s in a failing check", app.AppID, b.member)
				}
				tc.Reading("The system lime-runtime", "installed, blocked in readiness")
			},
			Entry("install.runtimeBacked.minVersion in app.install.yaml, a patch above the system's",
				tc.Req("INSTALL-RUNTIME-RANGE", levels.RepresentationLimit, levels.EveryMember),
				runtimeBound{file: "app.install.yaml", member: "install.runtimeBacked.minVersion", above: "1.10.1"}),
			Entry("install.runtime.minVersion in app.install.yaml, a major above",
				tc.Req("INSTALL-RUNTIME-RANGE", levels.EveryMember),
				runtimeBound{file: "app.install.yaml", member: "install.runtime.minVersion", above: "2.0.0"}),
			Entry("install.runtime.distribution.runtimeBacked.minVersion in app.install.yaml",
				tc.Req("INSTALL-RUNTIME-RANGE", levels.EveryMember),
				runtimeBound{file: "app.install.yaml", member: "install.runtime.distribution.runtimeBacked.minVersion", above: "1.11.0"}),
			Entry("install.runtimeBacked.minVersion in APP.md's install shorthand",
				tc.Req("INSTALL-RUNTIME-RANGE", levels.EveryEntryPoint),
				runtimeBound{file: "APP.md", member: "install.runtimeBacked.minVersion", above: "1.10.1"}),
		)
	})
}

// expectRuntimeBackedInstalls installs the control release (its bound met
// by the system runtime) and returns its app id. A host that refuses it
// naming the runtime-backed mode takes no runtime-backed release: the
// clause binds nothing on it (not-applicable), unless it says it is a
// runtime-backed shell. Any other refusal blocks the spec.
func expectRuntimeBackedInstalls(tc *harness.TestContext, dir string, b runtimeBound, version string) string {
	GinkgoHelper()
	app, err := tc.TryInstall(dir, nil, true)
	if err == nil {
		return app.AppID
	}
	var he *control.HostError
	if errors.As(err, &he) && namesRuntimeBackedMode(he) && tc.Host().Hello().Host.Kind != "runtime-backed" {
		tc.NotApplicablef("the host takes no runtime-backed release: app/install of one whose %s %s the system lime-runtime %s meets was answered %s",
			b.member, version, systemRuntime, harness.HostErrorText(he))
	}
	tc.Precondition(fmt.Sprintf("a runtime-backed release whose %s %s the system lime-runtime %s meets installs", b.member, version, systemRuntime), func() {
		tc.FailCall(protocol.MethodInstall, err)
	})
	return ""
}

// namesRuntimeBackedMode reports whether a refusal names the runtime-backed
// install mode, in its message or a finding.
func namesRuntimeBackedMode(he *control.HostError) bool {
	text := he.Message
	for _, f := range harness.FindingsOfError(he) {
		text += " " + f.Field + " " + f.Message
	}
	for _, name := range []string{"runtime_backed", "runtimeBacked", "install.modes"} {
		if strings.Contains(text, name) {
			return true
		}
	}
	return false
}
