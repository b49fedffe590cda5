package install

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// provenanceSections are the projection members whose every element is a
// projected object (spec 000, Projection contract).
func provenanceSections() []string {
	return []string{
		"entries", "services", "workflows", "knowledgeTemplates", "toolRequirements", "artifactTypes",
		"evals", "events", "secrets", "overlayTemplates", "permissions",
	}
}

// describeProjection checks the projection contract (spec 000, Projection
// contract; Goals 6; spec 002 checklist "Projection is stable").
func describeProjection(tc *harness.TestContext) {
	Describe("Installable: projection", func() {
		It("is byte-stable for the same package, across calls and across copies in other folders", tc.Req("PROJ-DETERMINISTIC", levels.EveryMember), func() {
			a := tc.Fixture("full-app")
			b := tc.Fixture("full-app")
			first := tc.Project(a)
			expectSameBytes(tc, "a second projection of the same folder", first, tc.Project(a))
			// Cross a wall-clock second, so that a time stamped to the
			// second cannot hide (the only wait in the suites, under 1 s).
			time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
			expectSameBytes(tc, "the projection of a copy in another folder, a second later", first, tc.Project(b))
			// A change between two reads that is not the package's: the
			// host now holds the secret a slot names. Projection loads no
			// secret, so it cannot tell.
			tc.Configure(tc.DefaultConfigure())
			dir := tc.Fixture("secret-required-app")
			before := tc.Project(dir)
			tc.Configure(tc.WithSecret())
			expectSameBytes(tc, "the projection of secret-required-app once host/configure gave the host the secret its slot names", before, tc.Project(dir))
			// And the host's locale: the name in the user's language is
			// app/list's row (CAT-DISPLAYNAME-I18N), not the projection's.
			p := tc.DefaultConfigure()
			p.Locale = "zh-CN"
			tc.Configure(p)
			expectSameBytes(tc, "the projection of full-app once host/configure set the locale zh-CN, which its displayNameI18n names", first, tc.Project(a))
		})

		DescribeTable("puts provenance on every projected object",
			func(fixture string, changed bool, manifestVersion string) {
				dir := tc.Fixture(fixture)
				if manifestVersion != "" {
					harness.SetField(dir, "manifestVersion", manifestVersion)
				}
				if changed {
					// A host that keeps projections by path must notice the
					// package changed: same size, same name, other bytes.
					tc.Project(dir)
					harness.EditSameSize(dir, harness.TamperTarget(tc, dir))
				}
				want := provenanceOf(tc.Oracle(dir))
				if manifestVersion != "" {
					// standardVersion is the standard projected under or the
					// one the package declares (docs/decisions.md,
					// "Projection standardVersion"); nothing else.
					want["standardVersion"] = BeElementOf(agentpkg.StandardVersion, manifestVersion)
				}
				// It needs the sections well formed to find their objects;
				// provenance itself is what it judges, so a projection
				// without it fails here (its schema violation is
				// PROTO-RESULT-SCHEMA's).
				proj := harness.DecodeObject("projection", tc.Project(dir, append([]string{"app", "ui", "storage"}, provenanceSections()...)...))
				expectProvenance([]any{"provenance"}, proj["provenance"], want)
				expectProvenance([]any{"app", "provenance"}, harness.MapOf(proj["app"])["provenance"], want)
				for _, s := range provenanceSections() {
					for i, o := range harness.Objects(proj, s) {
						expectProvenance([]any{s, i, "provenance"}, o["provenance"], want)
					}
				}
				for _, s := range []string{"ui", "storage"} {
					if o, ok := proj[s].(map[string]any); ok {
						expectProvenance([]any{s, "provenance"}, o["provenance"], want)
					}
				}
			},
			Entry("a full app", tc.Req("PROJ-PROVENANCE", levels.EveryMember), "full-app", false, ""),
			Entry("an app with entries only in app.entries.yaml", tc.Req("PROJ-PROVENANCE", levels.EveryMember), "layered-only-app", false, ""),
			Entry("a full app projected again after a file changed at the same size", tc.Req("PROJ-PROVENANCE", levels.EveryMember, levels.ChangeBetweenReads), "full-app", true, ""),
			Entry("an app declaring the older manifestVersion 0.9.0", tc.Req("PROJ-PROVENANCE", levels.EveryMember, levels.RepresentationLimit), "minimal-app", false, "0.9.0"),
		)

		// Who answers for the package's identity: the host, from the
		// folder it projects. A release handed with the package that
		// claims another packageHash is refused as a mismatch (as
		// package/verify refuses it) or ignored; its word never becomes
		// the provenance.
		It("names in provenance the hashes of the package it projects, never the packageHash a release given with it claims", tc.Req("PROJ-PROVENANCE", levels.WhoAnswers), func() {
			dir := tc.Fixture("full-app")
			want := provenanceOf(tc.Oracle(dir))
			tc.Project(dir)
			rel := tc.ReleaseOf(dir)
			rel.PackageHash = "sha256:" + strings.Repeat("0", 64)
			planted := harness.Planted{What: "a release whose packageHash is not the package's", Codes: []string{"package-hash-mismatch"}, Field: "packageHash"}
			var res protocol.ProjectResult
			err := tc.CallReading(protocol.MethodProject, protocol.PackageParams{Path: dir, Release: rel}, &res,
				protocol.Reads{"/ok", "/findings", "/projection/provenance", "/projection/app"})
			if he, ok := tc.RefusalError(protocol.MethodProject, err); ok {
				refused := he.Code == protocol.CodePackageInvalid || he.Code == protocol.CodeVerificationFailed
				tc.ExpectRefused(harness.Refusal{Refused: refused, Code: he.Code, Message: he.Message, Findings: harness.FindingsOfError(he)}, planted)
				return
			}
			if !res.OK {
				tc.ExpectRefused(harness.Refusal{Refused: true, Findings: res.Findings}, planted)
				return
			}
			proj := harness.DecodeObject("projection", res.Projection)
			expectProvenance([]any{"provenance"}, proj["provenance"], want)
			expectProvenance([]any{"app", "provenance"}, harness.MapOf(proj["app"])["provenance"], want)
		})

		It("never carries the values of secrets or session tokens the host holds", tc.Req("PROJ-NO-SECRETS", levels.EveryMember), func() {
			tc.Configure(tc.WithSecret())
			tc.ExpectHoldsSecret()
			for _, f := range []string{"full-app", "secret-required-app"} {
				tc.ExpectNoCanaryInResult("the projection of "+f, protocol.MethodProject, protocol.PackageParams{Path: tc.Fixture(f)})
			}
		})

		It("includes app summary, capability requirements, entries, storage, services, knowledge templates, tools, artifact types, evals and permissions", tc.Req("PROJ-CONTENTS", levels.EveryMember), func() {
			sections := []string{"app", "capabilityRequirements", "entries", "ui", "storage", "services",
				"knowledgeTemplates", "toolRequirements", "artifactTypes", "evals", "permissions"}
			proj := harness.DecodeObject("projection", tc.Project(tc.Fixture("full-app"), sections...))
			for _, k := range sections {
				if _, ok := proj[k]; !ok {
					tc.Failf("%s: missing; the host answered the sections %v", harness.At(protocol.MethodProject, []any{k}), slices.Sorted(maps.Keys(proj)))
				}
				Expect(proj[k]).NotTo(BeEmpty(), harness.At(protocol.MethodProject, []any{k}, "though the manifest declares it"))
			}
		})
	})
}

// expectSameBytes fails the spec when got is not byte for byte want.
func expectSameBytes(tc *harness.TestContext, what string, want, got []byte) {
	GinkgoHelper()
	if bytes.Equal(want, got) {
		return
	}
	var a, b any
	diff := ""
	if json.Unmarshal(want, &a) == nil && json.Unmarshal(got, &b) == nil {
		diff = cmp.Diff(a, b)
	}
	if diff == "" {
		diff = "(same values, different bytes)"
	}
	tc.Failf("%s differs from the first projection (-first +now):\n%s", what, harness.Truncate(diff, 4000))
}

// expectProvenance judges the provenance object at path of
// package/project's result against the members want.
// provenanceOf is the provenance every object projected from pkg carries
// (docs/host-control-protocol.md, package/project).
func provenanceOf(pkg *agentpkg.Package) map[string]any {
	return map[string]any{
		"appName":         pkg.Manifest["name"],
		"appVersion":      pkg.Manifest["version"],
		"packageHash":     pkg.PackageHash,
		"manifestHash":    pkg.ManifestHash,
		"standard":        agentpkg.Standard,
		"standardVersion": Equal(agentpkg.StandardVersion),
	}
}

func expectProvenance(path []any, got any, want map[string]any) {
	GinkgoHelper()
	p, ok := got.(map[string]any)
	Expect(ok).To(BeTrue(), harness.At(protocol.MethodProject, path, "is no provenance object"))
	for k, v := range want {
		m, isMatcher := v.(types.GomegaMatcher)
		if !isMatcher {
			m = Equal(v)
		}
		Expect(p[k]).To(m, harness.At(protocol.MethodProject, append(slices.Clone(path), k)))
	}
}
