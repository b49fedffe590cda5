package harness

import (
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// Scratch makes a fresh folder below the run's work folder, removed when the
// spec ends.
func (tc *TestContext) Scratch() string {
	ginkgo.GinkgoHelper()
	dir, err := os.MkdirTemp(tc.Config.WorkDir, "spec-")
	if err != nil {
		Errorf("making a scratch folder: %v", err)
	}
	tc.resources.TrackDir(dir)
	return dir
}

// ControlFixture is the positive control of the catalog, Installable and
// Desktop P0 and P1 specs, none of whose levels requires a capability.
const ControlFixture = "full-app"

// Fixture copies fixture package name into a fresh folder and returns the
// package folder (named like the fixture). The control fixture comes fitted
// to the host's profile (fitToProfile): a host that refuses, at
// verification, a package requiring what it offers switched off is judged
// on what the spec plants, not on a capability no level of the spec needs.
func (tc *TestContext) Fixture(name string) string {
	ginkgo.GinkgoHelper()
	dir, err := platformconformance.Materialize(name, tc.Scratch())
	if err != nil {
		Errorf("materializing fixture %s: %v", name, err)
	}
	if name == ControlFixture {
		return tc.fitToProfile(dir)
	}
	return dir
}

// FixtureAs copies fixture name into a fresh folder named folder.
func (tc *TestContext) FixtureAs(name, folder string) string {
	ginkgo.GinkgoHelper()
	dir := tc.Fixture(name)
	return moveFixture(name, dir, filepath.Join(filepath.Dir(dir), folder))
}

// FixtureAt copies fixture name to the folder at path, which must not
// exist yet (a sibling of another package's folder, say).
func (tc *TestContext) FixtureAt(name, path string) string {
	ginkgo.GinkgoHelper()
	return moveFixture(name, tc.Fixture(name), path)
}

func moveFixture(name, dir, path string) string {
	ginkgo.GinkgoHelper()
	if err := os.Rename(dir, path); err != nil {
		Errorf("moving fixture %s to %s: %v", name, path, err)
	}
	return path
}

// ReleaseOf returns the release object a registry would publish for the
// package in dir, with hashes computed by the harness's own implementation
// of the standard's algorithm.
func (tc *TestContext) ReleaseOf(dir string) *protocol.Release {
	ginkgo.GinkgoHelper()
	ph, _, err := agentpkg.HashPackage(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		Errorf("harness could not hash %s: %v", dir, err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "APP.md"))
	if err != nil {
		Errorf("harness could not read APP.md of %s: %v", dir, err)
	}
	return &protocol.Release{
		AppID:        filepath.Base(dir),
		PackageHash:  ph,
		ManifestHash: agentpkg.HashManifest(md),
	}
}

// WriteFile writes a file into a package (making folders), failing the spec
// on error. A new APP.md keeps the package's signature file current
// (keepSignatureCurrent).
func WriteFile(dir, rel string, data []byte) {
	ginkgo.GinkgoHelper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if rel == "APP.md" {
		if before, err := os.ReadFile(p); err == nil {
			defer keepSignatureCurrent(dir, before, data)
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		Errorf("making folder for %s: %v", rel, err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		Errorf("writing %s: %v", rel, err)
	}
}

// AppendFile appends bytes to a file of a package (keeping the signature
// file current when it is APP.md, as WriteFile does).
func AppendFile(dir, rel string, data []byte) {
	ginkgo.GinkgoHelper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if rel == "APP.md" {
		if before, err := os.ReadFile(p); err == nil {
			defer keepSignatureCurrent(dir, before, append(before[:len(before):len(before)], data...))
		}
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		Errorf("opening %s: %v", rel, err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		Errorf("appending to %s: %v", rel, err)
	}
}
