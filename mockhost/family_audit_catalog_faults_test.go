//go:build !mutation

package mockhost

import (
	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// catalogAuditProbes answer, per fault of catalogAuditFaults, the call whose
// answer the fault changes.
func catalogAuditProbes() map[string]probe {
	tiny := manifest(withDefaults(""))
	// A release vouching for the publisher whose names the package's
	// extend.
	vouched := &protocol.Release{Publisher: &protocol.Publisher{PublisherID: "pub-tiny", Name: "Tiny", Verified: true, VerifiedDomain: "tiny.example.org"}}
	return map[string]probe{
		"layered-new-files-unread": projProbe(map[string]string{"app.boundary.yaml": "boundaries:\n  - requirementId: R001\n    planes:\n      app:\n        owns: [tiny_state]\n"},
			func(p map[string]any) string { return raw(p["boundary"]) }),
		"manifest-hash-trims-blank-lines": verifyProbe(map[string]string{"APP.md": tiny + "\n\n"},
			&protocol.Release{ManifestHash: agentpkg.HashManifest([]byte(tiny))}),
		"publisher-id-prefix-match": verifyProbe(map[string]string{
			"app.signature.yaml": "signature:\n  trust:\n    publisherId: pub-tiny-labs\n    verifiedDomain: tiny.example.org\n",
		}, vouched),
		"verified-domain-suffix-match": verifyProbe(map[string]string{
			"app.signature.yaml": "signature:\n  trust:\n    publisherId: pub-tiny\n    verifiedDomain: eviltiny.example.org\n",
		}, vouched),
	}
}
