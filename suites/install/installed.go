package install

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// integrityEntry is the entry of full-app whose readiness the spec reads
// besides the app's: it needs only lime.ui, which every host offers.
const integrityEntry = "dashboard"

// installedChange is one way the spec changes an installed package: plant
// changes the file rel in the host's folder and returns how to put back
// its original bytes.
type installedChange struct {
	what  string // for messages: "dist/worker/worker.js edited at the same size"
	rel   string // the file changed, relative to the package root
	plant func(tc *harness.TestContext, dir, rel string) (restore func())
}

// describeInstalledIntegrity checks that readiness of an installed app
// checks that its package is still complete and hash-matched (spec 000,
// Readiness), reaching the installed files through the installedPath hook
// (docs/host-control-protocol.md, app/list; docs/decisions.md, "The
// installed copy").
func describeInstalledIntegrity(tc *harness.TestContext) {
	Describe("Installable: readiness of an installed package", func() {
		DescribeTable("keeps an installed app whose files changed since install from ready, and readies it again once they are restored",
			func(change installedChange) {
				dir := tc.Fixture("full-app")
				app := tc.Install(dir, tc.ReleaseOf(dir))
				tc.ExpectAppReady(app.AppID)
				installed := installedFolder(tc, app, dir)
				var restore func()
				tc.Precondition("the harness changes "+change.rel+" in the installed package", func() {
					restore = change.plant(tc, installed, change.rel)
				})
				r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app.AppID})
				if !slices.Contains(harness.NotReady(), r.Status) {
					tc.Failf("readiness of %s is %q with %s in its installed package (%s); it is no longer hash-matched: %s",
						app.AppID, r.Status, change.what, installed, raw)
				}
				if !namesTamper(r, change.rel, app.PackageHash) {
					tc.Failf("readiness of %s is %s but names neither %s, which the spec changed, nor the packageHash mismatch: %s",
						app.AppID, r.Status, change.rel, raw)
				}
				// The other entry point: an entry's readiness, which gates
				// app/launch and the bridge's capability calls, hashes the
				// same folder.
				if e, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app.AppID, Entry: integrityEntry}); !slices.Contains(harness.NotReady(), e.Status) {
					tc.Failf("readiness of entry %s of %s is %q with %s in its installed package (%s); the app's own readiness is %s: %s",
						integrityEntry, app.AppID, e.Status, change.what, installed, r.Status, raw)
				}
				tc.Precondition("the harness restores "+change.rel+" to its bytes at install", restore)
				// A host that latches the failure never hashed the files again.
				if again, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: app.AppID}); again.Status != protocol.StatusReady {
					tc.Failf("readiness of %s is %q after %s was restored byte for byte; the installed package matches its packageHash again: %s",
						app.AppID, again.Status, change.rel, raw)
				}
			},
			// The files changed are full-app's worker, UI and storage
			// packages, the parts the clause names.
			Entry("a file edited at the same size", tc.Req("READY-INSTALLED-HASH", levels.EveryMember, levels.ChangeBetweenReads, levels.EveryEntryPoint),
				installedChange{what: "dist/worker/worker.js edited at the same size", rel: "dist/worker/worker.js", plant: editInstalled}),
			Entry("a file added", tc.Req("READY-INSTALLED-HASH", levels.EveryMember, levels.ChangeBetweenReads, levels.EveryEntryPoint),
				installedChange{what: "dist/ui/planted.js added", rel: "dist/ui/planted.js", plant: addInstalled}),
			Entry("a file removed", tc.Req("READY-INSTALLED-HASH", levels.EveryMember, levels.ChangeBetweenReads, levels.EveryEntryPoint),
				installedChange{what: "storage/schema.json removed", rel: "storage/schema.json", plant: removeInstalled}),
		)
	})
}

// installedFolder is the folder the host says it keeps the installed app
// in. A host that names none cannot be judged here: the spec is blocked.
func installedFolder(tc *harness.TestContext, app protocol.InstalledApp, from string) string {
	GinkgoHelper()
	var dir string
	tc.Precondition("the install answer names the installed package's folder", func() {
		dir = app.InstalledPath
		if dir == "" {
			tc.Blockedf("app/install of %s gave no app.installedPath, so the harness cannot reach the installed package (docs/host-control-protocol.md, app/list)", app.AppID)
		}
		if !filepath.IsAbs(dir) {
			tc.Blockedf("app.installedPath of %s is %q, not an absolute folder", app.AppID, dir)
		}
		if _, err := os.Stat(filepath.Join(dir, "APP.md")); err != nil {
			tc.Blockedf("app.installedPath of %s (%s) holds no APP.md: %v", app.AppID, dir, err)
		}
	})
	if same, _ := sameFolder(dir, from); same {
		tc.Reading("The installed copy", "installed in place: installedPath is the folder app/install was given")
	} else {
		tc.Reading("The installed copy", "a copy of the host's own")
	}
	return dir
}

// sameFolder reports whether a and b name the same folder.
func sameFolder(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// namesTamper reports whether a not-ready answer names, where a failure is
// stated (namesFailingCheck), the file the spec changed or the packageHash
// mismatch: the hash the app was installed with, or packageHash itself.
func namesTamper(r protocol.ReadinessResult, rel, packageHash string) bool {
	for _, name := range []string{rel, "packageHash", "package-hash", packageHash} {
		if name != "" && harness.NamesFailingCheck(r, name) {
			return true
		}
	}
	return false
}

// editInstalled changes one byte of the file, keeping its size.
func editInstalled(tc *harness.TestContext, dir, rel string) func() {
	GinkgoHelper()
	orig := readInstalled(tc, dir, rel)
	harness.EditSameSize(dir, rel)
	return func() { writeInstalled(tc, dir, rel, orig) }
}

// addInstalled adds a file the package did not have.
func addInstalled(tc *harness.TestContext, dir, rel string) func() {
	GinkgoHelper()
	writeInstalled(tc, dir, rel, []byte("// planted after install\n"))
	return func() {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
			tc.Blockedf("removing %s from the installed package: %v", rel, err)
		}
	}
}

// removeInstalled removes a file of the package.
func removeInstalled(tc *harness.TestContext, dir, rel string) func() {
	GinkgoHelper()
	orig := readInstalled(tc, dir, rel)
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
		tc.Blockedf("removing %s from the installed package: %v", rel, err)
	}
	return func() { writeInstalled(tc, dir, rel, orig) }
}

func readInstalled(tc *harness.TestContext, dir, rel string) []byte {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		tc.Blockedf("reading %s of the installed package: %v", rel, err)
	}
	return b
}

// writeInstalled writes a file into the host's folder; a host that does
// not let the harness write there blocks the spec.
func writeInstalled(tc *harness.TestContext, dir, rel string, data []byte) {
	GinkgoHelper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tc.Blockedf("writing %s into the installed package: %v", rel, err)
	}
}
