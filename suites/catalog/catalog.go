package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	"go.yaml.in/yaml/v3"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// describeCatalog checks discovery through APP.md and the catalog card
// (spec 000, APP.md, Runtime contract 1, Conformance levels: Catalog).
func describeCatalog(tc *harness.TestContext) {
	Describe("Catalog: discovery through APP.md", func() {
		It("takes the app's identity from APP.md, not from the folder it sits in", tc.Req("CAT-DISCOVER-APPMD", levels.EveryEntryPoint), func() {
			dir := tc.FixtureAs("minimal-app", "renamed-folder")
			v := tc.Verify(dir, nil)
			Expect(v.AppName).To(Equal("minimal-app"), harness.At(protocol.MethodVerify, []any{"appName"}))
			app := harness.DecodeObject("projection", tc.Project(dir, "app"))["app"]
			Expect(harness.MapOf(app)["name"]).To(Equal("minimal-app"), harness.At(protocol.MethodProject, []any{"app", "name"}))
		})

		It("does not take a folder without APP.md for an app, and says APP.md is missing", tc.Req("CAT-DISCOVER-APPMD"), func() {
			dir := tc.Fixture("minimal-app")
			tc.ExpectVerifies(dir, nil)
			if err := os.Remove(filepath.Join(dir, "APP.md")); err != nil {
				harness.Errorf("the harness could not remove APP.md: %v", err)
			}
			tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: "a folder without APP.md", File: "APP.md"})
		})

		It("rejects APP.md without frontmatter, saying so", tc.Req("CAT-FRONTMATTER-REQUIRED"), func() {
			dir := tc.Fixture("minimal-app")
			tc.ExpectVerifies(dir, nil)
			harness.RewriteAppMD(dir, func(md []byte) []byte {
				_, body, _ := strings.Cut(strings.TrimPrefix(string(md), "---\n"), "\n---\n")
				return []byte(body)
			})
			tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: "an APP.md without frontmatter",
				Codes: []string{"no-frontmatter"}, File: "APP.md", Field: "frontmatter"})
		})

		// Each required field, missing in turn, on the package just accepted.
		DescribeTable("rejects APP.md missing a required field, naming the field",
			func(field string) {
				dir := tc.Fixture("minimal-app")
				tc.ExpectVerifies(dir, nil)
				harness.DropField(dir, field)
				tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: "APP.md without " + field, File: "APP.md", Field: field})
			},
			Entry("name", tc.Req("CAT-FRONTMATTER-REQUIRED", levels.EveryMember), "name"),
			Entry("description", tc.Req("CAT-FRONTMATTER-REQUIRED", levels.EveryMember), "description"),
			Entry("version", tc.Req("CAT-FRONTMATTER-REQUIRED", levels.EveryMember), "version"),
			Entry("status", tc.Req("CAT-FRONTMATTER-REQUIRED", levels.EveryMember), "status"),
			Entry("appType", tc.Req("CAT-FRONTMATTER-REQUIRED", levels.EveryMember), "appType"),
		)

		// Both sides of the boundary: 0.3.0 to 0.10.0 are known; just
		// outside them, and far outside, are not.
		DescribeTable("rejects a manifestVersion the standard does not know",
			func(version string) {
				dir := tc.Fixture("minimal-app")
				tc.ExpectVerifies(dir, nil)
				harness.SetField(dir, "manifestVersion", version)
				tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: "manifestVersion " + version,
					Codes: []string{"unsupported-manifest-version"}, Field: "manifestVersion"})
			},
			Entry("9.0.0", tc.Req("CAT-MANIFEST-VERSION", levels.RepresentationLimit), "9.0.0"),
			Entry("0.11.0, just above the newest", tc.Req("CAT-MANIFEST-VERSION", levels.RepresentationLimit), "0.11.0"),
			Entry("0.2.0, just below the oldest", tc.Req("CAT-MANIFEST-VERSION", levels.RepresentationLimit), "0.2.0"),
		)

		// The other side of that boundary: every version the standard
		// knows verifies, not only the current one.
		DescribeTable("accepts every manifestVersion the standard knows",
			func(version string) {
				dir := tc.Fixture("minimal-app")
				tc.ExpectVerifies(dir, nil)
				harness.SetField(dir, "manifestVersion", version)
				tc.ExpectAccepted(dir, "manifestVersion "+version)
			},
			knownManifestVersionEntries(tc),
		)

		// Each constraint on both sides of its bound, lengths in characters
		// (é is two bytes), and the vocabularies value by value.
		DescribeTable("checks each APP.md field against its constraint",
			func(field, value string, valid bool) {
				dir := tc.Fixture("minimal-app")
				what := valueText(field, value)
				if valid {
					harness.SetField(dir, field, value)
					tc.ExpectAccepted(dir, what)
					return
				}
				tc.ExpectVerifies(dir, nil)
				harness.SetField(dir, field, value)
				tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: what, File: "APP.md", Field: field})
			},
			fieldConstraintEntries(tc),
		)

		DescribeTable("does not accept a manifest that declares bypassPermissions",
			func(file, text, field string) {
				dir := tc.Fixture("minimal-app")
				tc.ExpectVerifies(dir, nil)
				if file == "APP.md" {
					harness.EditFrontmatter(dir, func(lines []string) []string { return append(lines, strings.Split(text, "\n")...) })
				} else {
					harness.WriteFile(dir, file, []byte(text+"\n"))
				}
				tc.ExpectRefused(tc.VerifyRefusal(dir, nil), harness.Planted{What: "bypassPermissions declared in " + file,
					Codes: []string{"bypass-permissions"}, File: file, Field: field, Name: "bypassPermissions"})
			},
			Entry("as a permission mode in APP.md", tc.Req("CAT-NO-BYPASS-PERMISSIONS", levels.EveryMember), "APP.md", "permissionMode: bypassPermissions", "permissionMode"),
			Entry("as a key in APP.md", tc.Req("CAT-NO-BYPASS-PERMISSIONS", levels.EveryMember), "APP.md", "policy:\n  bypassPermissions: true", "bypassPermissions"),
			Entry("on a permission in app.permissions.yaml", tc.Req("CAT-NO-BYPASS-PERMISSIONS", levels.EveryMember), "app.permissions.yaml",
				"permissions:\n  - key: files\n    scope: files\n    mode: bypassPermissions", "permissions"),
		)

		It("shows the app's metadata on its catalog card", tc.Req("CAT-METADATA", levels.EveryMember), func() {
			dir := tc.Fixture("full-app")
			want := tc.Oracle(dir).Manifest
			proj := harness.DecodeObject("projection", tc.Project(dir, "app", "publisher"))
			app, ok := proj["app"].(map[string]any)
			Expect(ok).To(BeTrue(), harness.At(protocol.MethodProject, []any{"app"}, "is no object"))
			for _, k := range []string{"name", "version", "description", "displayName", "status", "appType"} {
				Expect(app[k]).To(Equal(want[k]), harness.At(protocol.MethodProject, []any{"app", k}))
			}
			// The projection schema puts publisher beside the app summary; a
			// host may also nest it in the summary.
			pub, _ := app["publisher"].(map[string]any)
			if pub == nil {
				pub, _ = proj["publisher"].(map[string]any)
			}
			wantPub, _ := want["publisher"].(map[string]any)
			Expect(pub["publisherId"]).To(Equal(wantPub["publisherId"]), harness.At(protocol.MethodProject, []any{"publisher", "publisherId"}, "(or /app/publisher/publisherId)"))
		})

		It("never shows a publisher as verified on its own say-so", tc.Req("CAT-PUBLISHER-VERIFIED", levels.EveryMember), func() {
			proj := harness.DecodeObject("projection", tc.Project(tc.Fixture("self-verified-publisher"), "app", "publisher"))
			for where, pub := range map[string]any{"publisher": proj["publisher"], "app/publisher": harness.MapOf(proj["app"])["publisher"]} {
				Expect(harness.MapOf(pub)["verified"]).NotTo(Equal(true),
					harness.At(protocol.MethodProject, []any{where, "verified"}, "though only the app declared it (no registry verified it)"))
			}
		})

		It("never projects legacy entry kinds home and scene of a 0.10.0 manifest as current kinds", tc.Req("CAT-LEGACY-KINDS", levels.EveryMember), func() {
			dir := tc.Fixture("legacy-entry-kinds")
			// Control: the same package with its legacy kinds made current
			// is accepted, so a refusal below can only be about them.
			twin := tc.CopyPackage(dir)
			harness.ReplaceIn(twin, "APP.md", "kind: home", "kind: page")
			harness.ReplaceIn(twin, "APP.md", "kind: scene", "kind: page")
			tc.ExpectVerifies(twin, nil)
			if r := tc.VerifyRefusal(dir, nil); r.Refused {
				tc.ExpectRefused(r, harness.Planted{What: "the legacy entry kinds home and scene",
					Codes: []string{"legacy-entry-kind"}, Field: "entries"})
				tc.Reading("legacy entry kinds in a 0.10.0 manifest", "rejected")
				return
			}
			// Accepted: every home or scene entry must be left out or marked
			// legacy, whatever kind the host gives it.
			legacy := map[string]bool{}
			for _, e := range harness.Objects(tc.Oracle(dir).Manifest, "entries") {
				if k := harness.Str(e, "kind"); k == "home" || k == "scene" {
					legacy[harness.Str(e, "key")] = true
				}
			}
			if len(legacy) == 0 {
				harness.Errorf("fixture sanity: %s declares no home or scene entry", filepath.Base(dir))
			}
			dropped := 0
			projected := map[string]int{} // entry key -> its index in /entries
			entries := harness.Objects(harness.DecodeObject("projection", tc.Project(dir, "entries")), "entries")
			for i, e := range entries {
				projected[harness.Str(e, "key")] = i
			}
			for key := range legacy {
				i, ok := projected[key]
				if !ok {
					dropped++
					continue
				}
				Expect(entries[i]["legacy"]).To(Equal(true),
					harness.At(protocol.MethodProject, []any{"entries", i, "legacy"}, fmt.Sprintf("of legacy entry %q, projected as a current %q entry", key, harness.Str(entries[i], "kind"))))
			}
			if dropped == len(legacy) {
				tc.Reading("legacy entry kinds in a 0.10.0 manifest", "left out of the projection")
			} else {
				tc.Reading("legacy entry kinds in a 0.10.0 manifest", "projected as compatibility entries")
			}
		})
	})
}

// describeLayering checks the layered app.*.yaml files (spec 000, Layered configuration).
func describeLayering(tc *harness.TestContext) {
	Describe("Catalog: layered configuration", func() {
		It("loads entries and permissions declared only in app.entries.yaml and app.permissions.yaml", tc.Req("CAT-LAYERED-LOAD", levels.EveryMember), func() {
			dir := tc.Fixture("layered-only-app")
			want := tc.Oracle(dir)
			if want.Sources["entries"] != "app.entries.yaml" {
				harness.Errorf("fixture sanity: the oracle takes the entries of %s from %q, not app.entries.yaml", filepath.Base(dir), want.Sources["entries"])
			}
			proj := harness.DecodeObject("projection", tc.Project(dir, "entries", "permissions"))
			Expect(harness.Keys(harness.Objects(proj, "entries"))).To(ConsistOf(harness.ManifestKeys(want, "entries")), harness.At(protocol.MethodProject, []any{"entries"}, "(their keys)"))
			Expect(harness.Keys(harness.Objects(proj, "permissions"))).To(ConsistOf(harness.ManifestKeys(want, "permissions")), harness.At(protocol.MethodProject, []any{"permissions"}, "(their keys)"))
		})

		// Every other independent file whose section a projection shows,
		// each on its own: full-app leaves the section to the file alone.
		// The control is the same package with the section moved into the
		// frontmatter and the file gone: projected, it shows this host
		// projects the section at all, so a projection without the file's
		// text is the file left unread.
		DescribeTable("loads each independent file the frontmatter leaves a section to",
			func(file, key string, whole bool) {
				var text string
				tc.Precondition("the host projects "+key+" declared in the frontmatter", func() {
					moved := tc.Fixture("full-app")
					text = firstText(moved, file)
					frontmatterSection(moved, file, key, whole, func(v any) any { return v })
					if err := os.Remove(filepath.Join(moved, file)); err != nil {
						harness.Errorf("the harness could not remove %s: %v", file, err)
					}
					harness.RewriteSignatureHash(moved, tc.Oracle(moved).ManifestHash)
					if !strings.Contains(string(tc.Project(moved, key)), text) {
						tc.Blockedf("the projection of full-app with %s in the frontmatter does not show it (%q), so whether %s is loaded cannot be seen", key, text, file)
					}
				})
				dir := tc.Fixture("full-app")
				if src := tc.Oracle(dir).Sources[key]; src != file {
					harness.Errorf("fixture sanity: the oracle takes %s of full-app from %q, not %s", key, src, file)
				}
				if !strings.Contains(string(tc.Project(dir, key)), text) {
					tc.Failf("the projection of full-app does not show its %s (%q), which only %s declares: the file was not loaded", key, text, file)
				}
			},
			Entry("app.errors.yaml", tc.Req("CAT-LAYERED-LOAD", levels.EveryMember), "app.errors.yaml", "errors", false),
			Entry("app.requirements.yaml", tc.Req("CAT-LAYERED-LOAD", levels.EveryMember), "app.requirements.yaml", "requirements", true),
			Entry("app.boundary.yaml", tc.Req("CAT-LAYERED-LOAD", levels.EveryMember), "app.boundary.yaml", "boundary", true),
		)

		It("lets app.entries.yaml win when frontmatter declares other entries", tc.Req("CAT-LAYERED-PRECEDENCE"), func() {
			dir := tc.Fixture("layered-conflict-app")
			keys := harness.Keys(harness.Objects(harness.DecodeObject("projection", tc.Project(dir, "entries")), "entries"))
			Expect(keys).To(ContainElement("from_entries_file"), harness.At(protocol.MethodProject, []any{"entries"}, "(their keys: the entry of app.entries.yaml)"))
			Expect(keys).NotTo(ContainElement(ContainSubstring("from_frontmatter")), harness.At(protocol.MethodProject, []any{"entries"}, "(their keys: frontmatter entries must lose to app.entries.yaml)"))
		})

		// Precedence for every layered file whose contents a projection
		// shows: the frontmatter declares the same section with every text
		// marked, and no mark may reach the projection.
		DescribeTable("lets every independent file win over the frontmatter",
			func(file, key string, whole bool) {
				dir := tc.Fixture("full-app")
				frontmatterRival(dir, file, key, whole)
				// The edited APP.md is another manifest: its signature file
				// names it, so the package still verifies (a host may verify
				// before it projects: docs/decisions.md, Verification before
				// projection).
				harness.RewriteSignatureHash(dir, tc.Oracle(dir).ManifestHash)
				oracle, err := agentpkg.Project(tc.Oracle(dir), agentpkg.Profile{Capabilities: agentpkg.FullProfile()})
				if err != nil || strings.Contains(string(oracle), rivalMark) || !strings.Contains(string(oracle), firstText(dir, file)) {
					harness.Errorf("fixture sanity: the harness's own projection of the conflict over %s does not show the file winning (%v)", file, err)
				}
				proj := string(tc.Project(dir, key))
				if strings.Contains(proj, rivalMark) {
					tc.Failf("the projection shows the frontmatter's %s (texts marked %q), though %s declares it too and must win", key, rivalMark, file)
				}
				if !strings.Contains(proj, firstText(dir, file)) {
					tc.Blockedf("the projection shows neither the frontmatter's nor %s's %s, so precedence cannot be seen", file, key)
				}
			},
			Entry("app.permissions.yaml", tc.Req("CAT-LAYERED-PRECEDENCE", levels.EveryMember), "app.permissions.yaml", "permissions", false),
			Entry("app.errors.yaml", tc.Req("CAT-LAYERED-PRECEDENCE", levels.EveryMember), "app.errors.yaml", "errors", false),
			Entry("app.requirements.yaml", tc.Req("CAT-LAYERED-PRECEDENCE", levels.EveryMember), "app.requirements.yaml", "requirements", true),
			Entry("app.boundary.yaml", tc.Req("CAT-LAYERED-PRECEDENCE", levels.EveryMember), "app.boundary.yaml", "boundary", true),
		)
	})
}

// rivalMark marks every text of a frontmatter section that an independent
// file must override.
const rivalMark = "-from-frontmatter"

// frontmatterRival writes into APP.md's frontmatter the section key that
// file provides, with every text marked: the same shape, other values.
func frontmatterRival(dir, file, key string, whole bool) {
	GinkgoHelper()
	frontmatterSection(dir, file, key, whole, markTexts)
}

// frontmatterSection writes into APP.md's frontmatter, in place of any
// section key it has, the section key that file provides, passed through
// edit.
func frontmatterSection(dir, file, key string, whole bool, edit func(any) any) {
	GinkgoHelper()
	var doc map[string]any
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil || yaml.Unmarshal(b, &doc) != nil {
		harness.Errorf("fixture sanity: %s of %s is not a YAML mapping (%v)", file, filepath.Base(dir), err)
	}
	var section any = doc[key]
	if whole {
		section = doc
	}
	if section == nil {
		harness.Errorf("fixture sanity: %s has no %s", file, key)
	}
	out, err := yaml.Marshal(map[string]any{key: edit(section)})
	if err != nil {
		harness.Errorf("encoding the frontmatter's %s: %v", key, err)
	}
	harness.EditFrontmatter(dir, func(lines []string) []string {
		var kept []string
		dropping := false
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, key+":"):
				dropping = true
				continue
			case dropping && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "-")):
				continue
			}
			dropping = false
			kept = append(kept, l)
		}
		return append(kept, strings.Split(strings.TrimRight(string(out), "\n"), "\n")...)
	})
}

// markTexts returns v with rivalMark after every string.
func markTexts(v any) any {
	switch x := v.(type) {
	case string:
		return x + rivalMark
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = markTexts(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = markTexts(e)
		}
		return out
	}
	return v
}

// firstText is a text of the file's section that the file alone declares.
func firstText(dir, file string) string {
	GinkgoHelper()
	var doc any
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil || yaml.Unmarshal(b, &doc) != nil {
		harness.Errorf("fixture sanity: reading %s: %v", file, err)
	}
	var walk func(v any) string
	walk = func(v any) string {
		switch x := v.(type) {
		case string:
			if len(x) > 6 {
				return x
			}
		case []any:
			for _, e := range x {
				if s := walk(e); s != "" {
					return s
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if s := walk(x[k]); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return walk(doc)
}
