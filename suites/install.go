package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/protocol"
)

// describeInstall checks install and uninstall (spec 000, Runtime contract 3,
// Package signing; spec 002, Cleanup and checklist; spec 003, Channels and pins).
func describeInstall(tc *TestContext) {
	Describe("Installable: install and uninstall", func() {
		DescribeTable("never installs a package that fails verification",
			func(fixture string, spoil func(dir string)) {
				dir := tc.Fixture(fixture)
				rel := tc.ReleaseOf(dir)
				if spoil != nil {
					spoil(dir)
				}
				_, err := tc.TryInstall(dir, rel, true)
				_, isHostErr := HostErrorCode(protocol.MethodInstall, err)
				Expect(isHostErr).To(BeTrue(), "app/install of %s succeeded", fixture)
				_, listed := FindApp(tc.List(), fixture)
				Expect(listed).To(BeFalse(), "a package that failed verification is listed as installed")
			},
			Entry("a package changed after hashing", tc.Req("INSTALL-VERIFY-FIRST"), "full-app", func(dir string) {
				AppendFile(dir, tamperTarget(tc, dir), []byte("\n// changed after hashing\n"))
			}),
			// Capability negotiation happens at install too (spec 000, Capability SDK).
			Entry("a package whose capability ranges the host does not satisfy", tc.Req("INSTALL-VERIFY-FIRST"), "incompatible-capability", nil),
		)

		It("installs only after user, tenant or workspace consent", tc.Req("INSTALL-CONSENT"), func() {
			dir := tc.Fixture("minimal-app")
			_, err := tc.TryInstall(dir, tc.ReleaseOf(dir), false)
			code, isHostErr := HostErrorCode(protocol.MethodInstall, err)
			Expect(isHostErr).To(BeTrue(), "app/install without consent succeeded")
			Expect(code).To(BeEquivalentTo(protocol.CodeConsentRequired), "error code of an install without consent")
			_, listed := FindApp(tc.List(), "minimal-app")
			Expect(listed).To(BeFalse(), "an app installed without consent is listed")
		})

		It("records exactly which package it installed", tc.Req("INSTALL-PINNED"), func() {
			dir := tc.Fixture("full-app")
			rel := tc.ReleaseOf(dir)
			app := tc.Install(dir, rel)
			row, listed := FindApp(tc.List(), app.AppID)
			Expect(listed).To(BeTrue(), "the installed app is not listed")
			Expect(row.PackageHash).To(EqualFold(rel.PackageHash), "installed packageHash")
			Expect(row.ManifestHash).To(EqualFold(rel.ManifestHash), "installed manifestHash")
			Expect(row.Version).To(Equal(tc.Oracle(dir).Manifest["version"]), "installed version")
		})

		It("keeps the app's data when uninstalling with keepData", tc.Req("UNINSTALL-KEEP-DATA"), func() {
			dir := tc.Fixture("minimal-app")
			app := tc.Install(dir, tc.ReleaseOf(dir))
			res := tc.Uninstall(app.AppID, true)
			Expect(res.DataRemoved).To(BeFalse(), "uninstall with keepData reports its data removed")
			l := tc.List()
			_, listed := FindApp(l, app.AppID)
			Expect(listed).To(BeFalse(), "the app is still installed after uninstall")
			_, kept := FindRetained(l, app.AppID)
			Expect(kept).To(BeTrue(), "no retained data after uninstall with keepData")
			again := tc.Install(dir, tc.ReleaseOf(dir))
			Expect(again.HasData).To(BeTrue(), "a reinstall does not find the data kept at uninstall")
		})

		It("deletes the app's data when uninstalling without keepData", tc.Req("UNINSTALL-DELETE-DATA"), func() {
			dir := tc.Fixture("minimal-app")
			app := tc.Install(dir, tc.ReleaseOf(dir))
			res := tc.Uninstall(app.AppID, false)
			Expect(res.DataRemoved).To(BeTrue(), "uninstall deleting data reports its data kept")
			l := tc.List()
			_, listed := FindApp(l, app.AppID)
			Expect(listed).To(BeFalse(), "the app is still installed after uninstall")
			_, kept := FindRetained(l, app.AppID)
			Expect(kept).To(BeFalse(), "data is retained after uninstall deleting data")
			again := tc.Install(dir, tc.ReleaseOf(dir))
			Expect(again.HasData).To(BeFalse(), "a reinstall finds data that uninstall was asked to delete")
		})

		It("leaves other installed apps as they were when uninstalling one", tc.Req("UNINSTALL-ISOLATED"), func() {
			a := tc.Fixture("minimal-app")
			b := tc.Fixture("full-app")
			appA := tc.Install(a, tc.ReleaseOf(a))
			appB := tc.Install(b, tc.ReleaseOf(b))
			before, _ := FindApp(tc.List(), appB.AppID)
			tc.Uninstall(appA.AppID, false)
			after, listed := FindApp(tc.List(), appB.AppID)
			Expect(listed).To(BeTrue(), "uninstalling %s removed %s", appA.AppID, appB.AppID)
			Expect(after).To(Equal(before), "uninstalling %s changed %s", appA.AppID, appB.AppID)
		})
	})
}
