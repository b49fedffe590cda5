package install

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentapp/conformance/suites/harness"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeInstall checks install and uninstall (spec 000, Runtime contract 3,
// Package signing; spec 002, Cleanup and checklist; spec 003, Channels and pins).
func describeInstall(tc *harness.TestContext) {
	Describe("Installable: install and uninstall", func() {
		// What package/verify must refuse, app/install must refuse too, with
		// the error code the protocol names for it (-32002).
		DescribeTable("never installs a package that fails verification",
			func(fixture string, relax, spoil func(dir string), rehash bool, codes []int64, planted harness.Planted) {
				dir := tc.Fixture(fixture)
				if relax != nil {
					relax(dir)
				}
				expectNeverInstalled(tc, fixture, dir, spoil, rehash, codes, planted)
			},
			Entry("a package changed after hashing", tc.Req("INSTALL-VERIFY-FIRST", levels.EveryMember), "full-app", nil,
				func(dir string) {
					harness.AppendFile(dir, harness.TamperTarget(tc, dir), []byte("\n// changed after hashing\n"))
				}, false,
				[]int64{protocol.CodeVerificationFailed},
				harness.Planted{What: "a file changed after hashing", Codes: []string{"package-hash-mismatch"}, Field: "packageHash"}),
			Entry("a package whose app.signature.yaml names another manifest hash", tc.Req("INSTALL-VERIFY-FIRST", levels.EveryMember), "full-app", nil,
				func(dir string) { harness.RewriteSignatureHash(dir, agentpkg.HashManifest([]byte("another APP.md"))) }, true,
				[]int64{protocol.CodeVerificationFailed},
				harness.Planted{What: "a signature file naming another manifest hash", Codes: []string{"signature-manifest-hash-mismatch"}, File: "app.signature.yaml"}),
			Entry("a package with a symlink out of it", tc.Req("INSTALL-VERIFY-FIRST", levels.EveryMember), "minimal-app", nil,
				func(dir string) { harness.PlantEscapingLink(tc, dir) }, false,
				[]int64{protocol.CodePackageInvalid},
				harness.Planted{What: "the symlink assets/leak.txt", File: "assets/leak.txt"}),
			Entry("a package with a manifestVersion the standard does not know", tc.Req("INSTALL-VERIFY-FIRST", levels.EveryMember), "minimal-app", nil,
				// The protocol's codes overlap here: an unknown manifest
				// version is an invalid manifest (-32001) and a failed
				// compatibility check (-32002); either names it.
				func(dir string) { harness.SetField(dir, "manifestVersion", "9.0.0") }, true,
				[]int64{protocol.CodePackageInvalid, protocol.CodeVerificationFailed},
				harness.Planted{What: "manifestVersion 9.0.0", Codes: []string{"unsupported-manifest-version"}, Field: "manifestVersion"}),
		)

		// Capability negotiation happens at install too (spec 000, Capability
		// SDK), on a capability the host offers enabled (VERIFY-COMPATIBILITY's).
		It("never installs a package whose capability ranges the host does not satisfy", tc.Req("INSTALL-VERIFY-FIRST", levels.EveryMember), func() {
			capability, v := rangedCapability(tc.Host().Hello().Capabilities)
			if v == "" {
				tc.Blockedf("the host's hello names no enabled capability with a SemVer version, so no range can be set against one")
			}
			dir := tc.Fixture("incompatible-capability")
			harness.ReplaceIn(dir, "APP.md", `lime.agent: ">=9.0.0"`, capability+`: "*"`)
			expectNeverInstalled(tc, "incompatible-capability", dir,
				func(dir string) { harness.ReplaceIn(dir, "APP.md", capability+`: "*"`, capability+`: ">=9.0.0"`) }, true,
				[]int64{protocol.CodeVerificationFailed},
				harness.Planted{What: capability + " >=9.0.0", Codes: []string{"incompatible-capability"}, Field: "capabilities", Name: capability})
		})

		// Each party the protocol names for consent.by, and none: a consent
		// that names its party but is not granted is no consent (a host
		// that reads a tenant's or workspace's name as the admin's approval
		// shows there). The same party's granted consent installs first.
		DescribeTable("installs only after user, tenant or workspace consent",
			func(by string) {
				dir := tc.Fixture("minimal-app")
				granted := by
				if granted == "" {
					granted = "user"
				}
				tc.Precondition("the same package installs with the consent of "+granted, func() {
					app, err := TryInstallConsent(tc, dir, tc.ReleaseOf(dir), protocol.Consent{Granted: true, By: granted, Migrations: true})
					if err != nil {
						tc.FailCall(protocol.MethodInstall, err)
					}
					tc.Uninstall(app.AppID, false)
				})
				what := "app/install without consent"
				if by != "" {
					what = fmt.Sprintf("app/install with consent.by %q and consent.granted false", by)
				}
				_, err := TryInstallConsent(tc, dir, tc.ReleaseOf(dir), protocol.Consent{Granted: false, By: by})
				code, isHostErr := tc.HostErrorCode(protocol.MethodInstall, err)
				if !isHostErr {
					tc.Failf("%s succeeded", what)
				}
				if code != protocol.CodeConsentRequired {
					tc.Failf("%s was refused with error %d; the protocol names %d (consent required) for it",
						what, code, protocol.CodeConsentRequired)
				}
				if _, listed := harness.FindApp(tc.List(), "minimal-app"); listed {
					tc.Failf("an app installed by %s is listed", what)
				}
			},
			Entry("no party named", tc.Req("INSTALL-CONSENT", levels.EveryMember), ""),
			Entry("the user named", tc.Req("INSTALL-CONSENT", levels.EveryMember), "user"),
			Entry("the tenant named", tc.Req("INSTALL-CONSENT", levels.EveryMember), "tenant"),
			Entry("the workspace named", tc.Req("INSTALL-CONSENT", levels.EveryMember), "workspace"),
		)

		It("records exactly which package it installed", tc.Req("INSTALL-PINNED", levels.EveryMember), func() {
			dir := tc.Fixture("full-app")
			rel := tc.ReleaseOf(dir)
			app := tc.Install(dir, rel)
			l := tc.List()
			row, listed := harness.FindApp(l, app.AppID)
			at := func(member string) string {
				return harness.At(protocol.MethodList, []any{"apps", harness.AppRow(l, app.AppID), member}, "the row of "+app.AppID)
			}
			Expect(listed).To(BeTrue(), harness.At(protocol.MethodList, []any{"apps"}, "has no row of the installed app "+app.AppID))
			Expect(row.PackageHash).To(harness.EqualFold(rel.PackageHash), at("packageHash"))
			Expect(row.ManifestHash).To(harness.EqualFold(rel.ManifestHash), at("manifestHash"))
			Expect(row.Version).To(Equal(tc.Oracle(dir).Manifest["version"]), at("version"))
		})

		It("registers every projected object into the host's catalogs at install", tc.Req("INSTALL-REGISTERS", levels.EveryMember), func() {
			dir := tc.Fixture("full-app")
			app := tc.Install(dir, tc.ReleaseOf(dir))
			tc.ExpectRegistered(app.AppID, dir, "install")
		})

		It("keeps the app's data when uninstalling with keepData, and takes no call for the app until it is installed again", tc.Req("UNINSTALL-KEEP-DATA", levels.EveryTransition, levels.EveryEntryPoint), func() {
			dir := residueFixture(tc)
			app := tc.Install(dir, tc.ReleaseOf(dir))
			took := tc.AcceptedAppCalls(app.AppID, dir)
			res := tc.Uninstall(app.AppID, true)
			Expect(res.DataRemoved).To(BeFalse(), harness.At(protocol.MethodUninstall, []any{"dataRemoved"}, "with keepData"))
			l := tc.List()
			_, listed := harness.FindApp(l, app.AppID)
			Expect(listed).To(BeFalse(), harness.At(protocol.MethodList, []any{"apps"}, "still has a row of "+app.AppID+" after app/uninstall"))
			_, kept := harness.FindRetained(l, app.AppID)
			Expect(kept).To(BeTrue(), harness.At(protocol.MethodList, []any{"retained"}, "has no data of "+app.AppID+" after app/uninstall with keepData"))
			// The data stays; the app's registrations go.
			tc.ExpectGone(app.AppID)
			tc.ExpectCallsRefused(app.AppID, took)
			again := tc.Install(dir, tc.ReleaseOf(dir))
			Expect(again.HasData).To(BeTrue(), harness.At(protocol.MethodInstall, []any{"hasData"}, "of a reinstall after app/uninstall with keepData"))
		})

		It("deletes the app's data when uninstalling without keepData, and takes no call for the app until it is installed again", tc.Req("UNINSTALL-DELETE-DATA", levels.EveryEntryPoint, levels.EveryTransition), func() {
			dir := residueFixture(tc)
			app := tc.Install(dir, tc.ReleaseOf(dir))
			took := tc.AcceptedAppCalls(app.AppID, dir)
			// Any result will do here, even one that fails its schema
			// (READY-STATUS judges those): the app must be found by its id.
			tc.Precondition("the installed app answers app/readiness by its id", func() {
				if err := tc.Call(protocol.MethodReadiness, protocol.ReadinessParams{AppID: app.AppID}, &json.RawMessage{}); err != nil && !harness.IsSchemaError(err) {
					tc.FailCall(protocol.MethodReadiness, err)
				}
			})
			res := tc.Uninstall(app.AppID, false)
			Expect(res.DataRemoved).To(BeTrue(), harness.At(protocol.MethodUninstall, []any{"dataRemoved"}, "without keepData"))
			_, kept := harness.FindRetained(tc.List(), app.AppID)
			Expect(kept).To(BeFalse(), harness.At(protocol.MethodList, []any{"retained"}, "still has data of "+app.AppID+" after app/uninstall without keepData"))
			tc.ExpectGone(app.AppID)
			tc.ExpectCallsRefused(app.AppID, took)
			again := tc.Install(dir, tc.ReleaseOf(dir))
			Expect(again.HasData).To(BeFalse(), harness.At(protocol.MethodInstall, []any{"hasData"}, "of a reinstall after app/uninstall without keepData"))
		})

		// The neighbours: another app, and one whose id begins with the
		// uninstalled app's (a host that deletes by prefix shows there), in
		// both uninstall modes.
		DescribeTable("leaves other installed apps as they were when uninstalling one",
			func(keepData bool) {
				a := tc.Fixture("minimal-app")
				prefixed := tc.FixtureAs("minimal-app", "minimal-app-extra")
				harness.SetField(prefixed, "name", "minimal-app-extra")
				b := tc.Fixture("full-app")
				appA := tc.Install(a, tc.ReleaseOf(a))
				// Each neighbour holds data: installed again after an
				// uninstall that kept it (app/list then says hasData).
				var neighbours []string
				for _, dir := range []string{prefixed, b} {
					n := tc.Install(dir, tc.ReleaseOf(dir)).AppID
					tc.Uninstall(n, true)
					tc.Install(dir, tc.ReleaseOf(dir))
					neighbours = append(neighbours, n)
				}
				before := map[string]protocol.InstalledApp{}
				ready := map[string]string{}
				for _, n := range neighbours {
					before[n], _ = harness.FindApp(tc.List(), n)
					ready[n] = tc.AppReadiness(n).Status
				}
				tc.Uninstall(appA.AppID, keepData)
				for _, n := range neighbours {
					after, listed := harness.FindApp(tc.List(), n)
					if !listed {
						tc.Failf("uninstalling %s (keepData %v) removed %s", appA.AppID, keepData, n)
					}
					if diff := cmp.Diff(before[n], after); diff != "" {
						tc.Failf("uninstalling %s (keepData %v) changed app/list's row of %s (-before +after):\n%s", appA.AppID, keepData, n, diff)
					}
					if got := tc.AppReadiness(n).Status; got != ready[n] {
						tc.Failf("uninstalling %s (keepData %v) changed the readiness of %s from %q to %q", appA.AppID, keepData, n, ready[n], got)
					}
				}
			},
			Entry("deleting its data", tc.Req("UNINSTALL-ISOLATED", levels.ConfusableIdentity, levels.EveryTransition), false),
			Entry("keeping its data", tc.Req("UNINSTALL-ISOLATED", levels.ConfusableIdentity, levels.EveryTransition), true),
		)
	})
}

// TryInstallConsent asks for an install of a package folder with the
// consent given, tracking what it installs.
func TryInstallConsent(tc *harness.TestContext, dir string, rel *protocol.Release, consent protocol.Consent) (protocol.InstalledApp, error) {
	GinkgoHelper()
	var res protocol.InstallResult
	err := tc.Call(protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: rel, Consent: consent}, &res)
	tc.Resources().TrackApp(res.App.AppID)
	return res.App, err
}

// expectNeverInstalled is INSTALL-VERIFY-FIRST's judgement of one planted
// failure: the package in dir (fixture's copy) installs untouched, then,
// spoiled (and published spoiled when rehash), is refused with one of
// codes naming planted, and is not listed.
func expectNeverInstalled(tc *harness.TestContext, fixture, dir string, spoil func(dir string), rehash bool, codes []int64, planted harness.Planted) {
	GinkgoHelper()
	rel := tc.ReleaseOf(dir)
	tc.Precondition("the untouched package installs", func() {
		app := tc.Install(dir, rel)
		tc.Uninstall(app.AppID, false)
	})
	spoil(dir)
	if rehash { // the registry published the spoiled package: only its contents can tell
		rel = tc.ReleaseOf(dir)
	}
	_, err := tc.TryInstall(dir, rel, true)
	he, isHostErr := tc.RefusalError(protocol.MethodInstall, err)
	if !isHostErr {
		tc.Failf("app/install of %s with %s succeeded", fixture, planted.What)
	}
	if _, listed := harness.FindApp(tc.List(), fixture); listed {
		tc.Failf("a package that failed verification (%s) is listed as installed", planted.What)
	}
	r := harness.Refusal{Refused: slices.Contains(codes, he.Code), Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)}
	if !r.Refused {
		tc.Failf("app/install refused %s with error %d %s; the protocol names %v for it",
			planted.What, he.Code, he.Message, codes)
	}
	tc.ExpectRefused(r, planted)
}

// residueFixture is minimal-app with an optional secret slot and an
// overlay template: what an installed app registers beside its row, for
// the calls that must stop with its uninstall (AcceptedAppCalls).
func residueFixture(tc *harness.TestContext) string {
	GinkgoHelper()
	dir := tc.Fixture("minimal-app")
	harness.EditFrontmatter(dir, func(lines []string) []string {
		return append(lines,
			"secrets:",
			"  - {key: residue_token, provider: generic-llm, required: false, scope: workspace}",
			"overlayTemplates:",
			"  - {key: residue_rules, scope: workspace, required: false}")
	})
	return dir
}
