package mockhost

import (
	"slices"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// verify answers package/verify (spec 000, Package signing and revocation:
// packageHash and manifest hash; Runtime contract: capability versions). A
// package that cannot be read is a verdict (ok false), not a protocol error.
func (h *Host) verify(params protocol.PackageParams) (protocol.VerifyResult, *jsonrpc2.Error) {
	p, loadFindings, err := h.load(params.Path)
	if err != nil {
		return protocol.VerifyResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if p == nil {
		loadFindings = h.judged(nil, loadFindings)
		res := protocol.VerifyResult{OK: !agentpkg.HasErrors(loadFindings), Findings: loadFindings}
		// fault: hash-through-links — the package is hashed, links followed wherever they point, before the containment check refuses it.
		if h.faults.Has("hash-through-links") {
			res.PackageHash, _, _ = agentpkg.HashPackage(params.Path, agentpkg.LoadOptions{FollowEscapingLinks: true})
		}
		return res, nil
	}
	// fault: exec-worker-on-verify — verification runs the package's worker as an install self-test.
	if h.faults.Has("exec-worker-on-verify") {
		runWorker(p)
	}
	// fault: skill-scripts-run-on-verify — verification runs each bundled Skill's scripts as a self-test.
	if h.faults.Has("skill-scripts-run-on-verify") {
		runSkillScripts(p)
	}
	findings := h.judged(p, h.filter(h.verified(p, params.Release), stageVerify))
	name, version := identity(p)
	res := protocol.VerifyResult{
		OK:           !agentpkg.HasErrors(findings),
		AppName:      name,
		AppVersion:   version,
		PackageHash:  p.PackageHash,
		ManifestHash: p.ManifestHash,
		Findings:     findings,
	}
	// fault: verify-echoes-release-hash — package/verify answers the packageHash the release pins, not the one it computed.
	if params.Release != nil && params.Release.PackageHash != "" && h.faults.Has("verify-echoes-release-hash") {
		res.PackageHash = params.Release.PackageHash
	}
	return res, nil
}

// installFindings are the findings that decide app/install: Verify's (the
// package's own and the verification checks).
func (h *Host) installFindings(p *agentpkg.Package, rel *protocol.Release) []protocol.Finding {
	// fault: install-skips-verification — app/install never checks hashes, signature or compatibility.
	if h.faults.Has("install-skips-verification") {
		return h.judged(p, h.filter(p.Findings, stageInstall))
	}
	return h.judged(p, h.filter(h.verified(p, rel), stageInstall))
}

// verified runs verification in the standard's order (spec 000, Package
// signing and revocation): 1 the hashes (and compatibility), 2 the
// sigstore signature, 3 revocation, 4 publisher and verifiedDomain; a step
// runs only when the steps before it passed.
func (h *Host) verified(p *agentpkg.Package, rel *protocol.Release) []protocol.Finding {
	fs := agentpkg.Verify(p, rel, h.profile())
	// fault: manifest-hash-unchecked-with-package-hash — a release pinning packageHash drops the manifest hash mismatch, taken as redundant.
	if rel != nil && rel.PackageHash != "" && h.faults.Has("manifest-hash-unchecked-with-package-hash") {
		fs = slices.DeleteFunc(fs, func(f protocol.Finding) bool { return f.Code == "manifest-hash-mismatch" })
	}
	fs = append(fs, h.switchedOffFindings(p)...)
	fs = append(fs, h.runtimeFindings(p)...)
	fs = append(fs, h.signatureFindings(p, rel, fs)...)
	// fault: revocation-before-signature — revocation is asked whatever the signature step found.
	if h.faults.Has("revocation-before-signature") {
		fs = append(fs[:len(fs):len(fs)], h.revocationFindings(p, agentpkg.Verify(p, rel, h.profile()))...)
	} else {
		fs = append(fs, h.revocationFindings(p, fs)...)
	}
	return append(fs, h.publisherFindings(p, rel, fs)...)
}

// switchedOffFindings is the Desktop P0 host's reading of compatibility: a
// capability its hello offers switched off (enabled: false) meets no
// requirement, so a package requiring one, even as "current", is refused
// at verification, not only left needs-setup by readiness
// (docs/host-control-protocol.md, Capability profile).
func (h *Host) switchedOffFindings(p *agentpkg.Package) []protocol.Finding {
	if !h.desktopP0Only() {
		return nil
	}
	profile := h.profile()
	var out []protocol.Finding
	for _, req := range agentpkg.RequiredCapabilities(p.Manifest) {
		if c, ok := profile[req.Name]; ok && !c.Enabled {
			out = append(out, protocol.Finding{Code: agentpkg.CodeIncompatibleCapability, Severity: agentpkg.SeverityError,
				File: "APP.md", Field: "requires.capabilities." + req.Name,
				Message: "APP.md: field requires.capabilities." + req.Name + ": this host offers " + req.Name + " switched off"})
		}
	}
	return out
}
