package install

import (
	"fmt"
	"slices"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/levels"
)

// describeRegistry checks what a host takes from its registry (spec 003,
// Release object, Channels and pins, Distribution flow; spec 001: "registry
// failure does not break already installed local apps"), against the
// registry the harness plays: its request log is the evidence of what the
// host fetched.
func describeRegistry(tc *harness.TestContext) {
	Describe("Installable: the registry", func() {
		It("offers the releases enabled for its tenant, and no other tenant's", tc.Req("REGISTRY-TENANT-ENABLED", levels.ChangeBetweenReads, levels.EveryEntryPoint), func() {
			ours := tc.Publish(tc.Fixture("minimal-app"))
			theirs := tc.Publish(tc.Fixture("full-app"))
			tc.Registry().EnableVersion(harness.TenantID, ours.AppID, ours.Version)
			tc.Registry().EnableVersion(harness.OtherTenant, theirs.AppID, theirs.Version)
			elsewhere := tc.DefaultConfigure()
			elsewhere.TenantID = harness.OtherTenant
			tc.Configure(elsewhere)
			tc.Precondition("registry/list, configured as "+harness.OtherTenant+", offers that tenant's release", func() {
				if l := RegistryList(tc); !listedRelease(l, theirs) {
					tc.Blockedf("registry/list does not offer %s@%s, enabled for %s: %s", theirs.AppID, theirs.Version, harness.OtherTenant, listedText(l))
				}
			})
			tc.Configure(tc.DefaultConfigure())
			listed := RegistryList(tc)
			if slices.ContainsFunc(listed.Releases, func(r protocol.ListedRelease) bool { return r.AppID == theirs.AppID }) {
				tc.Failf("registry/list, configured as %s, offers %s, which the registry enables only for %s", harness.TenantID, theirs.AppID, harness.OtherTenant)
			}
			if !listedRelease(listed, ours) {
				tc.Failf("registry/list, configured as %s, does not offer %s@%s, which the registry enables for it: %s", harness.TenantID, ours.AppID, ours.Version, listedText(listed))
			}
		})

		It("refuses to install a release its tenant did not enable, naming it, and installs nothing", tc.Req("REGISTRY-TENANT-ENABLED", levels.EveryEntryPoint), func() {
			ours := tc.Publish(tc.Fixture("minimal-app"))
			theirs := tc.Publish(tc.Fixture("full-app"))
			tc.Registry().EnableVersion(harness.TenantID, ours.AppID, ours.Version)
			tc.Registry().EnableVersion(harness.OtherTenant, theirs.AppID, theirs.Version)
			InstallSource(tc, protocol.Source{AppID: ours.AppID, Version: ours.Version})
			expectSourceRefused(tc, protocol.Source{AppID: theirs.AppID, Version: theirs.Version},
				harness.Planted{What: "a release enabled for another tenant", Codes: []string{"release-not-enabled"}, Field: "source", Name: theirs.AppID})
		})

		// Both kinds of release: an unsigned one, and one whose Sigstore
		// signature verifies (a host that lets a good signature stand for
		// the registry's word shows there).
		DescribeTable("neither offers nor installs a release the registry withdrew",
			func(signed bool) {
				dir := tc.Fixture("minimal-app")
				rel := tc.ReleaseObject(dir)
				if signed {
					var pr *protocol.Release
					dir, pr = signedPackage(tc)
					rel = tc.ReleaseObject(dir)
					rel.SignatureBundle = pr.SignatureBundle
				}
				rel = tc.Republish(dir, rel)
				tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
				tc.Precondition("registry/list offers the release before it is withdrawn", func() {
					if l := RegistryList(tc); !listedRelease(l, rel) {
						tc.Blockedf("registry/list does not offer %s@%s, enabled for %s: %s", rel.AppID, rel.Version, harness.TenantID, listedText(l))
					}
				})
				if signed {
					// The positive control: this host verifies the signed
					// release and installs it while the registry offers it.
					app := InstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version})
					tc.Uninstall(app.AppID, false)
				}
				tc.Registry().Withdraw(rel.AppID, rel.Version)
				// The install comes first, with nothing read from the registry
				// since the withdrawal: what the listing offered before it is
				// no answer after it.
				expectSourceRefused(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version},
					harness.Planted{What: "a withdrawn release", Codes: []string{"release-withdrawn"}, Field: "source", Name: rel.AppID})
				// The other entry point: a channel the tenant has that
				// resolves to the withdrawn release.
				if !signed {
					tc.Registry().Pin(rel.AppID, "stable", rel.Version)
					tc.Registry().EnableChannel(harness.TenantID, rel.AppID, "stable")
					expectSourceRefused(tc, protocol.Source{AppID: rel.AppID, Channel: "stable"},
						harness.Planted{What: "a channel resolving to a withdrawn release", Codes: []string{"release-withdrawn"}, Field: "source", Name: rel.AppID})
				}
				if l := RegistryList(tc); listedRelease(l, rel) {
					tc.Failf("registry/list still offers %s@%s after the registry withdrew it", rel.AppID, rel.Version)
				}
			},
			Entry("an unsigned release", tc.Req("REGISTRY-WITHDRAWN", levels.ChangeBetweenReads, levels.EveryEntryPoint), false),
			Entry("a release whose Sigstore signature verifies", tc.Req("REGISTRY-WITHDRAWN", levels.EveryMember), true),
		)

		It("installs the release a pinned channel resolves to and records exactly its packageHash", tc.Req("REGISTRY-PINNED-CHANNEL", levels.EveryEntryPoint), func() {
			stable := tc.Publish(tc.Fixture("minimal-app"))
			newer := tc.Fixture("minimal-app")
			harness.SetField(newer, "version", "1.1.0")
			beta := tc.Publish(newer)
			tc.Registry().Pin(stable.AppID, "stable", stable.Version)
			tc.Registry().Pin(stable.AppID, "beta", beta.Version)
			tc.Registry().EnableChannel(harness.TenantID, stable.AppID, "stable")
			if l := RegistryList(tc); !listedRelease(l, stable) || listedRelease(l, beta) {
				tc.Failf("registry/list for a tenant on channel stable should offer %s@%s (%s) and not %s: %s",
					stable.AppID, stable.Version, stable.PackageHash, beta.Version, listedText(l))
			}
			app := InstallSource(tc, protocol.Source{AppID: stable.AppID, Channel: "stable"})
			if app.PackageHash != stable.PackageHash || app.Version != stable.Version {
				tc.Failf("installing channel stable recorded %s@%s (%s); the channel pins %s (%s)",
					app.AppID, app.Version, app.PackageHash, stable.Version, stable.PackageHash)
			}
			row, ok := tc.ListedApp(app.AppID)
			if !ok || row.PackageHash != stable.PackageHash {
				tc.Failf("app/list records %s with packageHash %q; the pinned release is %s", app.AppID, row.PackageHash, stable.PackageHash)
			}
		})

		// Both ways a release is named: by its version, and by a channel
		// the tenant enabled, which resolves to one (a host that learns a
		// channel's release from its package shows there).
		// Each range the release's compatibility holds (spec 003, Release
		// object: "Host, SDK, and capability version ranges"): a
		// capability's, and the host's own (requires.lime).
		DescribeTable("refuses an incompatible release from its metadata, before downloading the package",
			func(channel string, incompatible incompatibleRelease) {
				enable := func(rel registry.Release) protocol.Source {
					if channel == "" {
						tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
						return protocol.Source{AppID: rel.AppID, Version: rel.Version}
					}
					tc.Registry().Pin(rel.AppID, channel, rel.Version)
					tc.Registry().EnableChannel(harness.TenantID, rel.AppID, channel)
					return protocol.Source{AppID: rel.AppID, Channel: channel}
				}
				ok := tc.Publish(tc.Fixture("minimal-app"))
				InstallSource(tc, enable(ok))
				tc.Precondition("the host downloads a release's package from its packageUrl", func() {
					if len(tc.Registry().Requests(registry.PackagePath(ok.AppID, ok.Version))) == 0 {
						tc.Blockedf("the host installed %s from the registry without fetching %s, so when it fetches cannot be seen", ok.AppID, ok.PackageURL)
					}
				})
				bad := tc.Publish(tc.Fixture(incompatible.fixture))
				src := enable(bad)
				_, err := TryInstallSource(tc, src, true)
				he, refused := tc.RefusalError(protocol.MethodInstall, err)
				if !refused && incompatible.blockedInReadiness {
					// The reading "incompatible host version": verified and
					// blocked in readiness. Such a host may install the
					// release, so fetching it decided nothing too early.
					r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: bad.AppID})
					if !slices.Contains(blockedStatuses(), r.Status) || !harness.NamesFailingCheck(r, "appRuntime") {
						tc.Failf("app/install of %s (%s) succeeded although it is %s, and its readiness is not blocked naming appRuntime: %s", bad.AppID, sourceText(src), incompatible.planted.What, harness.Excerpt(raw))
					}
					tc.Reading("incompatible host version", "verified, blocked in readiness")
					return
				}
				if !refused {
					tc.Failf("app/install of %s (%s) succeeded although it is %s", bad.AppID, sourceText(src), incompatible.planted.What)
				}
				tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodeVerificationFailed, Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)}, incompatible.planted)
				if n := len(tc.Registry().Requests(registry.PackagePath(bad.AppID, bad.Version))); n > 0 {
					tc.Failf("the host downloaded %s (%d request(s)) before deciding from the release's compatibility that it cannot install it (%s)", bad.PackageURL, n, sourceText(src))
				}
			},
			Entry("named by its version, a capability out of range", tc.Req("REGISTRY-METADATA-FIRST", levels.EveryEntryPoint, levels.EveryMember), "", incompatibleCapability),
			Entry("named by a channel the tenant enabled, a capability out of range", tc.Req("REGISTRY-METADATA-FIRST", levels.EveryEntryPoint, levels.EveryMember), "stable", incompatibleCapability),
			Entry("named by its version, the host's version out of range", tc.Req("REGISTRY-METADATA-FIRST", levels.EveryEntryPoint, levels.EveryMember), "", incompatibleHost),
		)

		DescribeTable("keeps apps installed from the registry listed and ready while the registry",
			func(mode registry.Mode) {
				rel := tc.Publish(tc.Fixture("minimal-app"))
				tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
				app := InstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version})
				tc.ExpectAppReady(app.AppID)
				tc.Registry().SetMode(mode)
				row, ok := tc.ListedApp(app.AppID)
				if !ok || row.PackageHash != rel.PackageHash {
					tc.Failf("with the registry %s, app/list no longer shows %s as installed (%s)", registryModeName(mode), app.AppID, rel.PackageHash)
				}
				if r := tc.AppReadiness(app.AppID); r.Status != protocol.StatusReady {
					tc.Failf("with the registry %s, %s went from ready to %q", registryModeName(mode), app.AppID, r.Status)
				}
			},
			Entry("is down", tc.Req("REGISTRY-OUTAGE", levels.EveryMember), registry.Down),
			Entry("never answers", tc.Req("REGISTRY-OUTAGE", levels.EveryMember), registry.Hang),
			Entry("answers garbage", tc.Req("REGISTRY-OUTAGE", levels.EveryMember), registry.Garbage),
			Entry("drops the connection half-way through an answer", tc.Req("REGISTRY-OUTAGE", levels.EveryMember), registry.Drop),
		)

		It("refuses a downloaded package that does not hash to the release's packageHash", tc.Req("REGISTRY-VERIFIED", levels.EveryMember, levels.EveryEntryPoint), func() {
			dir := tc.Fixture("minimal-app")
			rel := tc.Publish(dir)
			tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
			app := InstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version})
			tc.Uninstall(app.AppID, false)
			// A file added after the release was published: the package
			// hash no longer matches, the manifest hash still does.
			harness.WriteFile(dir, "notes/added-after-release.txt", []byte("changed after the release was published\n"))
			tc.Republish(dir, rel)
			_, err := TryInstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version}, true)
			he, refused := tc.RefusalError(protocol.MethodInstall, err)
			if !refused {
				tc.Failf("app/install took a downloaded package that does not hash to the release's %s", rel.PackageHash)
			}
			tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodeVerificationFailed, Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)},
				harness.Planted{What: "a package changed after its release was published", Codes: []string{agentpkg.CodePackageHashMismatch}, Field: "packageHash"})
		})

		// Package archives: "refuses an archive with an absolute name, a
		// name that climbs out (../), a backslash, a link". Every one of
		// them, and a name that climbs out wherever its ../ stands: a check
		// of the raw name's start misses dist/../../x, which cleans to ../x.
		DescribeTable("refuses a downloaded archive with an entry that would land outside the folder it unpacks into, and installs nothing",
			func(entry registry.Entry) {
				dir := tc.Fixture("minimal-app")
				rel := tc.Publish(dir)
				tc.Registry().EnableVersion(harness.TenantID, rel.AppID, rel.Version)
				tc.Precondition("the release's archive without the planted entry installs", func() {
					app := InstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version})
					tc.Uninstall(app.AppID, false)
				})
				archive, err := registry.ArchiveWith(dir, entry)
				if err != nil {
					harness.Errorf("%v", err)
				}
				tc.Registry().Publish(rel, archive)
				what := fmt.Sprintf("an archive entry %q", entry.Name)
				if entry.Link {
					what = fmt.Sprintf("an archive entry %q that is a link to %s", entry.Name, entry.Body)
				}
				_, err = TryInstallSource(tc, protocol.Source{AppID: rel.AppID, Version: rel.Version}, true)
				he, refused := tc.RefusalError(protocol.MethodInstall, err)
				if !refused {
					tc.Failf("app/install from the registry took %s@%s whose archive holds %s", rel.AppID, rel.Version, what)
				}
				tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodePackageInvalid, Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)},
					harness.Planted{What: what, Codes: []string{"invalid-archive"}})
			},
			Entry("an absolute name", tc.Req("REGISTRY-ARCHIVE-CONTAINED", levels.EveryMember), registry.Entry{Name: "/escaped-absolute.txt", Body: "outside\n"}),
			Entry("a name that climbs out at its start", tc.Req("REGISTRY-ARCHIVE-CONTAINED", levels.EveryMember), registry.Entry{Name: "../escaped-start.txt", Body: "outside\n"}),
			Entry("a name that climbs out after a folder", tc.Req("REGISTRY-ARCHIVE-CONTAINED", levels.EveryMember, levels.RepresentationLimit), registry.Entry{Name: "dist/../../escaped-mid.txt", Body: "outside\n"}),
			Entry("a name that climbs out after two folders", tc.Req("REGISTRY-ARCHIVE-CONTAINED", levels.EveryMember, levels.RepresentationLimit), registry.Entry{Name: "a/b/../../../escaped-deep.txt", Body: "outside\n"}),
			Entry("a name with a backslash", tc.Req("REGISTRY-ARCHIVE-CONTAINED", levels.EveryMember, levels.RepresentationLimit), registry.Entry{Name: "..\\escaped-backslash.txt", Body: "outside\n"}),
			Entry("a link", tc.Req("REGISTRY-ARCHIVE-CONTAINED", levels.EveryMember), registry.Entry{Name: "escaped-link", Body: "../outside", Link: true}),
		)
	})
}

func registryModeName(m registry.Mode) string {
	switch m {
	case registry.Hang:
		return "silent"
	case registry.Garbage:
		return "answering garbage"
	case registry.Drop:
		return "dropping its connections"
	}
	return "down"
}

// RegistryList runs registry/list.
func RegistryList(tc *harness.TestContext) protocol.RegistryListResult {
	GinkgoHelper()
	var res protocol.RegistryListResult
	tc.MustCall(protocol.MethodRegistryList, struct{}{}, &res)
	return res
}

func listedRelease(l protocol.RegistryListResult, rel registry.Release) bool {
	return slices.ContainsFunc(l.Releases, func(r protocol.ListedRelease) bool {
		return r.AppID == rel.AppID && r.Version == rel.Version && agentpkg.NormalizeHash(r.PackageHash) == rel.PackageHash
	})
}

func listedText(l protocol.RegistryListResult) string {
	if len(l.Releases) == 0 {
		return "it offers nothing"
	}
	s := "it offers"
	for _, r := range l.Releases {
		s += fmt.Sprintf(" %s@%s (%s)", r.AppID, r.Version, r.PackageHash)
	}
	return s
}

// TryInstallSource asks for an install of a registry release, tracking
// whatever the host installed for cleanup.
func TryInstallSource(tc *harness.TestContext, src protocol.Source, consent bool) (protocol.InstalledApp, error) {
	GinkgoHelper()
	c := protocol.Consent{Granted: consent, Migrations: consent}
	if consent {
		c.By = "user"
	}
	var res protocol.InstallResult
	err := tc.Call(protocol.MethodInstall, protocol.InstallParams{Source: &src, Consent: c}, &res)
	tc.Resources().TrackApp(res.App.AppID)
	return res.App, err
}

// InstallSource installs a registry release with consent, as a precondition.
func InstallSource(tc *harness.TestContext, src protocol.Source) protocol.InstalledApp {
	GinkgoHelper()
	var app protocol.InstalledApp
	tc.Precondition(fmt.Sprintf("the release %s (%s) installs from the registry", src.AppID, sourceText(src)), func() {
		var err error
		if app, err = TryInstallSource(tc, src, true); err != nil {
			tc.FailCall(protocol.MethodInstall, err)
		}
	})
	return app
}

func sourceText(src protocol.Source) string {
	if src.Channel != "" {
		return "channel " + src.Channel
	}
	return "version " + src.Version
}

// expectSourceRefused fails the spec unless installing src is refused
// naming what was planted, and nothing of it is installed.
func expectSourceRefused(tc *harness.TestContext, src protocol.Source, planted harness.Planted) {
	GinkgoHelper()
	app, err := TryInstallSource(tc, src, true)
	he, refused := tc.RefusalError(protocol.MethodInstall, err)
	if !refused {
		tc.Failf("app/install of %s took %s: it installed %s@%s", sourceText(src), planted.What, app.AppID, app.Version)
	}
	tc.ExpectRefused(harness.Refusal{Refused: true, Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)}, planted)
	if _, ok := tc.ListedApp(src.AppID); ok {
		tc.Failf("app/install refused %s, yet app/list shows it installed", planted.What)
	}
}

// incompatibleRelease is a fixture whose release compatibility no host
// meets, and what the refusal of it must name.
type incompatibleRelease struct {
	fixture string
	planted harness.Planted
	// blockedInReadiness: a host may instead install it and block it in
	// readiness (docs/decisions.md, An incompatible host version).
	blockedInReadiness bool
}

var (
	incompatibleCapability = incompatibleRelease{fixture: "incompatible-capability", planted: harness.Planted{What: "a release whose compatibility requires lime.agent >=9.0.0",
		Codes: []string{agentpkg.CodeIncompatibleCapability}, Field: "lime.agent"}}
	incompatibleHost = incompatibleRelease{fixture: "incompatible-host-version", planted: harness.Planted{What: "a release whose compatibility requires an appRuntime >=2.0.0 <3.0.0",
		Codes: []string{agentpkg.CodeIncompatibleHostVersion}, Field: "appRuntime"}, blockedInReadiness: true}
)
