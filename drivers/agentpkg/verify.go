package agentpkg

import (
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

// NormalizeHash returns h as lower-case "sha256:<hex>", accepting bare hex.
func NormalizeHash(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if !strings.HasPrefix(h, "sha256:") {
		h = "sha256:" + h
	}
	return h
}

// Verify checks p against the release it is expected to be and the host's
// capability profile (spec 000, Runtime contract 2; Package signing and
// revocation, step 1). It returns p's own findings followed by:
//   - package-hash-mismatch / manifest-hash-mismatch when rel pins other hashes;
//   - signature-manifest-hash-mismatch when app.signature.yaml's
//     signature.manifest.hash is not APP.md's hash. signature.package.hash is
//     compared with rel.PackageHash only: the signature file lies inside the
//     package, so it cannot pin the package's own hash;
//   - incompatible-capability for every requires.capabilities range the
//     profile does not satisfy ("current" and "*" always pass; a range whose
//     capability is missing or disabled does not). A nil caps skips this.
func Verify(p *Package, rel *protocol.Release, caps map[string]protocol.Capability) []Finding {
	out := append([]Finding{}, p.Findings...)
	if rel != nil && rel.PackageHash != "" && NormalizeHash(rel.PackageHash) != p.PackageHash {
		out = append(out, finding(CodePackageHashMismatch, SeverityError, "", "packageHash",
			"the package hashes to %s but the release pins %s", p.PackageHash, rel.PackageHash))
	}
	if rel != nil && rel.ManifestHash != "" && NormalizeHash(rel.ManifestHash) != p.ManifestHash {
		out = append(out, finding(CodeManifestHashMismatch, SeverityError, ManifestFile, "manifestHash",
			"APP.md hashes to %s but the release pins %s", p.ManifestHash, rel.ManifestHash))
	}
	out = append(out, verifySignature(p, rel)...)
	if caps != nil {
		out = append(out, compatibility(p, caps)...)
	}
	return out
}

// compatibility lists the requires ranges caps does not satisfy.
func compatibility(p *Package, caps map[string]protocol.Capability) []Finding {
	var out []Finding
	for _, req := range RequiredCapabilities(p.Manifest) {
		if anyVersion(req.Range) {
			continue
		}
		if problem, _ := capabilityProblem(req, caps); problem != "" {
			out = append(out, finding(CodeIncompatibleCapability, SeverityError, sourceOf(p, "requires"),
				"requires.capabilities."+req.Name, "%s", problem))
		}
	}
	for _, req := range RequiredHostVersions(p.Manifest) {
		if problem := hostVersionProblem(req, caps); problem != "" {
			out = append(out, finding(CodeIncompatibleHostVersion, SeverityError, sourceOf(p, "requires"),
				"requires.lime."+req.Name, "%s", problem))
		}
	}
	return out
}

// ReleaseCompatibility checks a release object's compatibility (the
// harness's reading: the manifest's requires object, copied by the
// registry) against the host's profile before anything is downloaded
// (spec 003, Release object: "enough metadata for a host to decide whether
// it can install the package before downloading every support file").
// Findings name the release's compatibility field.
func ReleaseCompatibility(compat map[string]any, caps map[string]protocol.Capability) []Finding {
	p := &Package{Manifest: map[string]any{"requires": compat}, Sources: map[string]string{"requires": "release"}}
	out := compatibility(p, caps)
	for i := range out {
		out[i].Field = "compatibility" + strings.TrimPrefix(out[i].Field, "requires")
	}
	return out
}

func verifySignature(p *Package, rel *protocol.Release) []Finding {
	var out []Finding
	file := sourceOf(p, "signature")
	if m, ok := p.Signature["manifest"].(map[string]any); ok {
		if h, ok := m["hash"].(string); ok && h != "" && NormalizeHash(h) != p.ManifestHash {
			out = append(out, finding(CodeSignatureManifestHashMismatch, SeverityError, file, "signature.manifest.hash",
				"the signature names manifest hash %s but APP.md hashes to %s", h, p.ManifestHash))
		}
	}
	if pk, ok := p.Signature["package"].(map[string]any); ok && rel != nil && rel.PackageHash != "" {
		if h, ok := pk["hash"].(string); ok && h != "" && NormalizeHash(h) != NormalizeHash(rel.PackageHash) {
			out = append(out, finding(CodePackageHashMismatch, SeverityError, file, "signature.package.hash",
				"the signature names package hash %s but the release pins %s", h, rel.PackageHash))
		}
	}
	return out
}

func sourceOf(p *Package, key string) string {
	if f, ok := p.Sources[key]; ok {
		return f
	}
	return ManifestFile
}
