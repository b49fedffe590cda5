//go:build !mutation

package mockhost

import (
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/registry"
	"github.com/agentapp/conformance/drivers/revocation"
)

// boundaryAndMemberProbes observe the faults of this family (TestEveryFaultChangesTheAnswer).
func boundaryAndMemberProbes() map[string]probe {
	return map[string]probe{
		// 1.9.0 and 1.10.0 are enabled for tiny-app 1.0.0: the newest by
		// SemVer is 1.10.0, by text 1.9.0.
		"app-updates-version-as-text": func(t *testing.T, x *harness) string {
			g := startRegistry(t)
			for _, v := range []string{"1.9.0", "1.10.0"} {
				rel := publishApp(t, g, app(t, ""), v, nil)
				g.EnableVersion("t1", rel.AppID, rel.Version)
			}
			installPlatformApp(t, x, protocol.ConfigureParams{RegistryURL: g.URL()})
			return platformCall(t, x, "lime.appUpdates", "check", nil)
		},
		// review_flow's check uses pdf_reader and web_search; the host has
		// only pdf_reader.
		"workflow-tool-call-first-tool-only": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{Available: map[string][]string{"tools": {"pdf_reader"}}})
			dir := fixtureCopy(t, "workflow-app", "uses: [pdf_reader]", "uses: [pdf_reader, web_search]")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatalf("installing workflow-app: %v", err)
			}
			d := &wfDriver{t: t, x: x, as: as}
			return d.summary(d.settle(d.start("review_flow")), "review-flow-result")
		},
		// app.signature.yaml's trust agrees with the release; APP.md names
		// another publisher.
		"publisher-appmd-unchecked-when-signed": verifyProbe(map[string]string{
			"APP.md": strings.Replace(manifest(withDefaults("")), "publisher:\n  name: tiny-publisher\n",
				"publisher:\n  name: tiny-publisher\n  publisherId: pub-impostor\n  verifiedDomain: impostor.example.net\n", 1),
			"app.signature.yaml": "signature:\n  trust:\n    publisherId: pub-tiny\n    verifiedDomain: tiny.example.org\n",
		}, &protocol.Release{Publisher: &protocol.Publisher{PublisherID: "pub-tiny", Name: "Tiny", Verified: true, VerifiedDomain: "tiny.example.org"}}),
		"archive-climb-mid-path":                archiveProbe(registry.Entry{Name: "dist/../../escaped.txt", Body: "outside\n"}),
		"archive-skips-bad-entries":             archiveProbe(registry.Entry{Name: "/etc/escaped.txt", Body: "outside\n"}),
		"revocation-missing-status-not-revoked": revocationProbe(0, func(svc *revocation.Service, _ string) { svc.SetMode(revocation.NoStatus) }, false),
	}
}

// archiveProbe installs tiny-app 1.0.0 from a registry whose archive of it
// also holds entry.
func archiveProbe(entry registry.Entry) probe {
	return func(t *testing.T, x *harness) string {
		g := startRegistry(t)
		dir := app(t, "")
		rel := publishApp(t, g, dir, "1.0.0", nil)
		archive, err := registry.ArchiveWith(dir, entry)
		if err != nil {
			t.Fatal(err)
		}
		g.Publish(rel, archive)
		g.EnableVersion("t1", rel.AppID, rel.Version)
		x.configureWith(protocol.ConfigureParams{RegistryURL: g.URL()})
		return installSource(x, protocol.Source{AppID: rel.AppID, Version: rel.Version})
	}
}
