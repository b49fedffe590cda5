package mockhost

import (
	"fmt"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/sigstore"
)

// Finding codes of signature steps 2 and 4 (docs/host-control-protocol.md,
// "Finding codes").
const (
	codeSignatureMissing  = "signature-missing"
	codeSignatureInvalid  = "signature-invalid"
	codePublisherMismatch = "publisher-mismatch"
)

// signatureFindings runs step 2 of spec 000's verification order (Package
// signing and revocation: "Verify the sigstore signature") for a package
// whose app.signature.yaml says signature.package.signedBy: sigstore, after
// step 1 passed: the release's bundle must sign the package hash, under
// the configured trusted root and issuer, by a signer in the package's
// trust.verifiedDomain (docs/decisions.md, "Sigstore signatures").
func (h *Host) signatureFindings(p *agentpkg.Package, rel *protocol.Release, findings []protocol.Finding) []protocol.Finding {
	pk, _ := p.Signature["package"].(map[string]any)
	// fault: skip-sigstore — sigstore signatures are never verified.
	if stringField(pk, "signedBy") != "sigstore" || agentpkg.HasErrors(findings) || h.faults.Has("skip-sigstore") {
		return nil
	}
	file := signatureFile(p)
	cfg, _ := h.config()
	switch {
	case rel == nil || len(rel.SignatureBundle) == 0:
		return []protocol.Finding{signatureFinding(file, codeSignatureMissing, "signature.package",
			"the package says it is signed with sigstore, but its release carries no signatureBundle")}
	case cfg.Sigstore == nil:
		return []protocol.Finding{signatureFinding(file, codeSignatureInvalid, "signature.package",
			"the package is signed with sigstore, but no sigstore trust is configured to verify it against")}
	}
	trust, _ := p.Signature["trust"].(map[string]any)
	policy := sigstore.Policy{Issuer: cfg.Sigstore.Issuer, Domain: stringField(trust, "verifiedDomain")}
	err := sigstore.Verify(cfg.Sigstore.TrustedRoot, rel.SignatureBundle, []byte(p.PackageHash), policy)
	// fault: sigstore-any-signer — the signature is checked, who made it is not.
	if err != nil && h.faults.Has("sigstore-any-signer") && strings.Contains(err.Error(), "identity or issuer not allowed") {
		err = nil
	}
	if err != nil {
		return []protocol.Finding{signatureFinding(file, codeSignatureInvalid, "signature.package",
			"the sigstore signature does not verify: "+err.Error())}
	}
	return nil
}

// publisherFindings runs step 4 ("Verify publisher and verifiedDomain"):
// the publisher the package names, in app.signature.yaml's trust and in
// APP.md's publisher, must be the one the registry's release vouches for.
// Without a registry publisher there is nothing to compare with.
func (h *Host) publisherFindings(p *agentpkg.Package, rel *protocol.Release, findings []protocol.Finding) []protocol.Finding {
	// fault: ignore-publisher — publisher and verifiedDomain are never compared with the registry's.
	if rel == nil || rel.Publisher == nil || agentpkg.HasErrors(findings) || h.faults.Has("ignore-publisher") {
		return nil
	}
	want := rel.Publisher
	trust, _ := p.Signature["trust"].(map[string]any)
	pub, _ := p.Manifest["publisher"].(map[string]any)
	var out []protocol.Finding
	check := func(file, field, got, want string) {
		// fault: publisher-id-matches-name — a publisherId equal to the release publisher's name is taken for its id.
		byName := h.faults.Has("publisher-id-matches-name") && strings.HasSuffix(field, "publisherId") && rel.Publisher.Name != "" && strings.EqualFold(got, rel.Publisher.Name)
		if got != "" && !strings.EqualFold(got, want) && !byName && !h.confusedPublisher(field, got, want) {
			out = append(out, signatureFinding(file, codePublisherMismatch, field,
				fmt.Sprintf("the package says %q, the registry's release says %q", got, want)))
		}
	}
	file := signatureFile(p)
	check(file, "signature.trust.publisherId", stringField(trust, "publisherId"), want.PublisherID)
	check(file, "signature.trust.verifiedDomain", stringField(trust, "verifiedDomain"), want.VerifiedDomain)
	// fault: publisher-appmd-unchecked-when-signed — APP.md's publisher is compared only when app.signature.yaml has no trust block.
	if len(trust) == 0 || !h.faults.Has("publisher-appmd-unchecked-when-signed") {
		check(agentpkg.ManifestFile, "publisher.publisherId", stringField(pub, "publisherId"), want.PublisherID)
		check(agentpkg.ManifestFile, "publisher.verifiedDomain", stringField(pub, "verifiedDomain"), want.VerifiedDomain)
	}
	return out
}

// confusedPublisher reports whether a buggy host takes got, a publisherId
// or verifiedDomain the package names, for want, the release's.
func (h *Host) confusedPublisher(field, got, want string) bool {
	got, want = strings.ToLower(got), strings.ToLower(want)
	switch {
	case strings.HasSuffix(field, "publisherId"):
		// fault: publisher-id-prefix-match — a publisherId that starts with the release's is taken for it (agentapp-conformance-labs for agentapp-conformance).
		return h.faults.Has("publisher-id-prefix-match") && strings.HasPrefix(got, want)
	case strings.HasSuffix(field, "verifiedDomain"):
		// fault: verified-domain-suffix-match — a verifiedDomain that ends with the release's is taken for it, with no dot boundary (evilconformance.example.org for conformance.example.org).
		return h.faults.Has("verified-domain-suffix-match") && strings.HasSuffix(got, want)
	}
	return false
}

// signatureFile is the file signature comes from (app.signature.yaml
// unless the frontmatter carries it).
func signatureFile(p *agentpkg.Package) string {
	if f, ok := p.Sources["signature"]; ok && f != "" {
		return f
	}
	return "app.signature.yaml"
}

func signatureFinding(file, code, field, msg string) protocol.Finding {
	return protocol.Finding{Code: code, Severity: agentpkg.SeverityError, File: file, Field: field,
		Message: fmt.Sprintf("%s: field %s: %s", file, field, msg)}
}
