package harness

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	. "github.com/onsi/ginkgo/v2"
)

// InstallNeighbour installs the probe app a second time as neighbourProbe.
func (tc *TestContext) InstallNeighbour() string {
	GinkgoHelper()
	dir := tc.NeighbourPackage()
	return tc.Install(dir, tc.ReleaseOf(dir)).AppID
}

// NeighbourPackage is the package InstallNeighbour installs, in a folder
// of its own.
func (tc *TestContext) NeighbourPackage() string {
	GinkgoHelper()
	dir := tc.FixtureAs(ProbeFixture, NeighbourProbe)
	SetField(dir, "name", NeighbourProbe)
	return dir
}

// NewerProbeVersion is the version of newerProbe's package.
const NewerProbeVersion = "1.1.0"

// TryUpdate asks the host to update appID to the package in dir.
func (tc *TestContext) TryUpdate(appID, dir string, rel *protocol.Release) (protocol.UpdateResult, error) {
	GinkgoHelper()
	tc.RequireMethod(protocol.MethodUpdate)
	var res protocol.UpdateResult
	err := tc.Call(protocol.MethodUpdate, protocol.UpdateParams{AppID: appID, Path: dir, Release: rel,
		Consent: protocol.Consent{Granted: true, By: "user", Migrations: true}}, &res)
	return res, err
}

// UpdatedFixture updates appID to the fixture's package at
// newerProbeVersion: a precondition, judged by app/list showing it.
func (tc *TestContext) UpdatedFixture(appID, fixture string) {
	GinkgoHelper()
	tc.UpdatedDir(appID, func() string { return tc.Fixture(fixture) })
}

// ExpectRegistered checks that app/list's registered catalogs of appID are
// what the projection of the package in dir holds, both ways (spec 000,
// Runtime contract: "register entries, UI, storage, services, skills,
// knowledge, tools, artifacts, evals, and permissions into host
// catalogs"); what names the step that registered them.
func (tc *TestContext) ExpectRegistered(appID, dir, what string) {
	GinkgoHelper()
	tc.ExpectRegisteredBeside(appID, dir, what, nil)
}

// ExpectRegisteredBeside is ExpectRegistered tolerating, beside what the
// projection of dir holds, the keys kept (by catalog): what a reading lets
// a host keep registered, such as an entry it retired as disabled.
func (tc *TestContext) ExpectRegisteredBeside(appID, dir, what string, kept map[string][]string) {
	GinkgoHelper()
	want := agentpkg.CatalogKeys(tc.OracleProjection(dir))
	row, listed := FindApp(tc.List(), appID)
	if !listed {
		tc.Blockedf("app/list does not show %s after its %s", appID, what)
	}
	if row.Registered == nil {
		tc.Errorf("app/list gives no registered catalogs for %s, so what %s registered cannot be seen (docs/host-control-protocol.md, app/list)", appID, what)
	}
	for _, catalog := range agentpkg.RegisteredCatalogs() {
		got, wanted := row.Registered[catalog], want[catalog]
		if missing := without(wanted, got); len(missing) > 0 {
			tc.Failf("%s did not register %s %v of %s into the host's catalog (registered: %v)", what, catalog, missing, appID, got)
		}
		if extra := without(without(got, wanted), kept[catalog]); len(extra) > 0 {
			tc.Failf("after %s, %s registered %v for %s, which the projection of its release does not hold", what, catalog, extra, appID)
		}
	}
}

// MigrationApp is a fresh copy of the migration fixture named name, with
// extra migration files (by file name) added.
func (tc *TestContext) MigrationApp(name string, extra map[string]string) string {
	GinkgoHelper()
	dir := tc.FixtureAs(migrationFixture, name)
	SetField(dir, "name", name)
	// Its own storage namespace too: two apps declaring one namespace is
	// a case of its own (STORAGE-NAMESPACED), which a host may refuse at
	// install (docs/decisions.md, "A storage namespace two apps declare").
	RewriteAppMD(dir, func(md []byte) []byte {
		return bytes.Replace(md, []byte("  namespace: "+migrationFixture+"\n"), []byte("  namespace: "+name+"\n"), 1)
	})
	for file, sql := range extra {
		WriteFile(dir, "storage/migrations/"+file, []byte(sql))
	}
	return dir
}

// InstallMigrating installs the package in dir with the user's consent,
// with or without approving its storage migrations, as a precondition.
func (tc *TestContext) InstallMigrating(dir string, approve bool) string {
	GinkgoHelper()
	var app protocol.InstalledApp
	tc.Precondition("the package "+filepath.Base(dir)+" installs", func() {
		var res protocol.InstallResult
		err := tc.Call(protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: tc.ReleaseOf(dir),
			Consent: protocol.Consent{Granted: true, By: "user", Migrations: approve}}, &res)
		tc.resources.TrackApp(res.App.AppID)
		if err != nil {
			tc.FailCall(protocol.MethodInstall, err)
		}
		app = res.App
	})
	return app.AppID
}

// WithPolicy is the default configuration under a tenant policy.
func (tc *TestContext) WithPolicy(p protocol.Policy) protocol.ConfigureParams {
	c := tc.DefaultConfigure()
	c.Policy = &p
	return c
}

func (tc *TestContext) WithCapabilityDisabled(name string) protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.Capabilities = map[string]protocol.Capability{name: {Version: "0.10.0", Enabled: false}}
	return p
}

// fitToProfile keeps a positive control within what the host offers: a
// package requiring a capability the host's hello does not offer enabled
// (full-app's lime.agent on a Desktop P0 host with no agent runtime) is
// copied with that capability taken out of every place it is required
// (requires.capabilities, the capabilities list, each entry's
// requiredCapabilities, a boundary's host plane), so its checks can all be
// satisfied. A host offering every one gets dir as it is. The spec judges
// the status of a package the host can hold, never a capability the level
// does not require (docs/decisions.md, Positive controls within the
// host's profile).
func (tc *TestContext) fitToProfile(dir string) string {
	GinkgoHelper()
	offered := tc.OfferedEnabled()
	var missing []string
	for _, req := range agentpkg.RequiredCapabilities(tc.Oracle(dir).Manifest) {
		if !offered[req.Name] {
			missing = append(missing, req.Name)
		}
	}
	if len(missing) == 0 {
		return dir
	}
	sort.Strings(missing)
	GinkgoWriter.Printf("%s: taking out %s, which the host's hello does not offer enabled\n", filepath.Base(dir), strings.Join(missing, ", "))
	fitted := tc.CopyPackage(dir)
	DropCapabilities(fitted, missing...)
	return fitted
}

// OtherTenant is a tenant the harness's registry enables releases for that
// the host, configured as TenantID, must never see.
const OtherTenant = "tenant-elsewhere"

// Publish archives the package in dir and publishes it in the harness's
// registry as a release of the app its APP.md names, with the hashes the
// harness computes and the manifest's requires as its compatibility.
func (tc *TestContext) Publish(dir string) registry.Release {
	GinkgoHelper()
	return tc.Republish(dir, tc.ReleaseObject(dir))
}

// secretSlotFixture is an app with one required secret slot,
// provider_api_key, which the default configuration leaves unset.
const (
	SecretSlotFixture = "secret-required-app"
	SecretSlot        = "provider_api_key"
	// SecretSlotNeighbour is secret-required-app under a name that
	// begins with its own.
	SecretSlotNeighbour = SecretSlotFixture + "-b"
)

// InstallBoundSecretApp installs secret-required-app under the default
// configuration (no host-wide provider_api_key), shows it needs setup,
// binds a canary to its slot with app/secret and shows it ready: the
// positive control of the binding specs.
func (tc *TestContext) InstallBoundSecretApp() string {
	GinkgoHelper()
	tc.Configure(tc.DefaultConfigure())
	return tc.InstallBoundSecret(tc.Fixture(SecretSlotFixture))
}

// UserStateFixture is the app whose user state the specs bind and write
// (app/knowledge, app/file), and KnowledgeTemplate its required knowledge
// template.
const (
	UserStateFixture  = "user-state-app"
	KnowledgeTemplate = "project_knowledge"
)

// NeighbourProbe is the folder and name of the second probe app: the same
// package as bridge-probe under another name, so the two share every key
// name the specs use.
const NeighbourProbe = "bridge-probe-b"

// UpdatedDir updates appID to the package folder made by dir, at
// newerProbeVersion: a precondition, judged by app/list showing it.
func (tc *TestContext) UpdatedDir(appID string, pkg func() string) {
	GinkgoHelper()
	tc.Precondition("app/update takes "+appID+" to "+NewerProbeVersion, func() {
		dir := pkg()
		SetField(dir, "version", NewerProbeVersion)
		if _, err := tc.TryUpdate(appID, dir, tc.ReleaseOf(dir)); err != nil {
			tc.FailCall(protocol.MethodUpdate, err)
		}
		if row, _ := tc.ListedApp(appID); row.Version != NewerProbeVersion {
			tc.Failf("app/list shows %s at version %q after app/update", appID, row.Version)
		}
	})
}

// without lists the members of a that b lacks.
func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// migrationFixture is the app with its own storage namespace and two
// migrations, 001_notes.sql and 002_note_tags.sql.
const migrationFixture = "migration-app"

// Migrated applies appID's migrations with the user's approval, as a
// precondition.
func (tc *TestContext) Migrated(appID string) {
	GinkgoHelper()
	tc.Precondition("app/migrate with the user's approval applies the migrations of "+appID, func() {
		if _, err := tc.Migrate(appID, true); err != nil {
			tc.FailCall(protocol.MethodMigrate, err)
		}
	})
}

// OfferedEnabled is the set of capabilities the host's hello offers
// enabled.
func (tc *TestContext) OfferedEnabled() map[string]bool {
	out := map[string]bool{}
	for name, c := range tc.Host().Hello().Capabilities {
		if c.Enabled {
			out[name] = true
		}
	}
	return out
}

// Republish serves the package now in dir under the release rel, whatever
// it hashes to.
func (tc *TestContext) Republish(dir string, rel registry.Release) registry.Release {
	GinkgoHelper()
	archive, err := registry.Archive(dir)
	if err != nil {
		Errorf("%v", err)
	}
	return tc.registry.Publish(rel, archive)
}

// ReleaseObject is the release object a registry makes of the package in dir.
func (tc *TestContext) ReleaseObject(dir string) registry.Release {
	GinkgoHelper()
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		Errorf("harness could not load %s: %v", dir, err)
	}
	name, _ := p.Manifest["name"].(string)
	version, _ := p.Manifest["version"].(string)
	mv, _ := p.Manifest["manifestVersion"].(string)
	rel := registry.Release{AppID: name, Version: version, ManifestVersion: mv, PackageHash: p.PackageHash, ManifestHash: p.ManifestHash}
	if req, ok := p.Manifest["requires"]; ok {
		if rel.Compatibility, err = json.Marshal(req); err != nil {
			Errorf("harness could not encode the requires of %s: %v", dir, err)
		}
	}
	return rel
}

// InstallBoundSecret is installBoundSecretApp for the package in dir (a
// copy of secret-required-app), under the configuration in force.
func (tc *TestContext) InstallBoundSecret(dir string) string {
	GinkgoHelper()
	app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
	tc.Precondition(app+" needs setup while nothing is bound to its required slot "+SecretSlot, func() {
		if r := tc.AppReadiness(app); ReadyStatus(r.Status) {
			tc.Failf("%s is %q with no %s configured or bound", app, r.Status, SecretSlot)
		}
	})
	tc.BindSecret(app)
	return app
}

// BindSecret binds the canary provider key to app's required slot
// SecretSlot with app/secret: a precondition, judged by the app's
// readiness turning ready.
func (tc *TestContext) BindSecret(app string) {
	GinkgoHelper()
	tc.Precondition("app/secret binds "+SecretSlot+" to "+app+" and the app is ready", func() {
		err := tc.Call(protocol.MethodSecret, protocol.SecretParams{AppID: app, Key: SecretSlot, Value: tc.Config.Canaries.ProviderKey}, &protocol.OK{})
		if code, isErr := tc.HostErrorCode(protocol.MethodSecret, err); isErr {
			if code == protocol.CodeMethodNotFound {
				tc.Blockedf("the host does not implement app/secret (-32601), so no secret can be bound to an app")
			}
			tc.Failf("app/secret of %s's %s was refused: %v", app, SecretSlot, err)
		}
		if r := tc.AppReadiness(app); !ReadyStatus(r.Status) {
			tc.Failf("with %s bound, %s is %q", SecretSlot, app, r.Status)
		}
	})
}

// Migrate asks the host to apply appID's pending migrations, with the
// user's approval or without it.
func (tc *TestContext) Migrate(appID string, granted bool) (protocol.MigrateResult, error) {
	GinkgoHelper()
	tc.RequireMethod(protocol.MethodMigrate)
	c := protocol.Consent{Granted: granted}
	if granted {
		c.By = "user"
	}
	var res protocol.MigrateResult
	err := tc.Call(protocol.MethodMigrate, protocol.MigrateParams{AppID: appID, Consent: c}, &res)
	return res, err
}
