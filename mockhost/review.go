package mockhost

import (
	"fmt"
	"slices"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// stepOf says which review step a finding code belongs to; codes not
// listed are the manifest's own.
var stepOf = map[string]string{
	agentpkg.CodePackageHashMismatch:           protocol.StepHashes,
	agentpkg.CodeManifestHashMismatch:          protocol.StepHashes,
	agentpkg.CodeSignatureManifestHashMismatch: protocol.StepHashes,
	agentpkg.CodeIncompatibleCapability:        protocol.StepCompatibility,
	agentpkg.CodeIncompatibleHostVersion:       protocol.StepCompatibility,
	codeSignatureMissing:                       protocol.StepSignature,
	codeSignatureInvalid:                       protocol.StepSignature,
	"revoked":                                  protocol.StepRevocation,
	"revocation-unavailable":                   protocol.StepRevocation,
	codePublisherMismatch:                      protocol.StepPublisher,
}

// review answers app/review: the install review the user consents to
// (spec 002, Required desktop host behavior, Verification: "Install review
// result"). It runs exactly the verification app/install runs, installs
// nothing, and reports each step in the order it ran.
func (h *Host) review(params protocol.ReviewParams) (protocol.ReviewResult, *jsonrpc2.Error) {
	path, rel := params.Path, params.Release
	if params.Source != nil {
		var e *jsonrpc2.Error
		if path, rel, e = h.fetchSource(*params.Source); e != nil {
			return protocol.ReviewResult{}, e
		}
	}
	p, loadFindings, err := h.load(path)
	if err != nil {
		return protocol.ReviewResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if p == nil {
		fs := h.judged(nil, loadFindings)
		return protocol.ReviewResult{OK: !agentpkg.HasErrors(fs), Checks: reviewChecks(fs, nil), Findings: fs}, nil
	}
	// fault: review-ignores-hash-pins — the review checks the package against itself: the release's packageHash and manifestHash are not compared (app/install still compares them).
	if rel != nil && h.faults.Has("review-ignores-hash-pins") {
		unpinned := *rel
		unpinned.PackageHash, unpinned.ManifestHash = "", ""
		rel = &unpinned
	}
	findings := h.installFindings(p, rel)
	// fault: review-compatibility-from-hello — the review judges version compatibility against the hello's capability profile, not the one host/configure set: a capability configured below the package's range still reviews as compatible (app/install refuses it).
	if h.faults.Has("review-compatibility-from-hello") {
		hello := agentpkg.Verify(p, rel, DefaultProfile())
		findings = slices.DeleteFunc(findings, func(f protocol.Finding) bool {
			return stepOf[f.Code] == protocol.StepCompatibility && !slices.ContainsFunc(hello, func(g protocol.Finding) bool { return g.Code == f.Code && g.Field == f.Field })
		})
	}
	name, version := identity(p)
	res := protocol.ReviewResult{OK: !agentpkg.HasErrors(findings), AppID: name, Version: version,
		Checks: reviewChecks(findings, applicable(p, rel)), Findings: findings}
	// fault: review-all-passed — the install review shows every step passed, whatever verification found.
	if h.faults.Has("review-all-passed") {
		for i := range res.Checks {
			res.Checks[i].Status, res.Checks[i].Message = protocol.StepPassed, ""
		}
	}
	return res, nil
}

// applicable says which of the optional steps have something to check.
func applicable(p *agentpkg.Package, rel *protocol.Release) map[string]bool {
	pk, _ := p.Signature["package"].(map[string]any)
	checkURL, _ := revocationOf(p.Manifest)
	return map[string]bool{
		protocol.StepManifest: true, protocol.StepHashes: true, protocol.StepCompatibility: true,
		protocol.StepSignature:  stringField(pk, "signedBy") == "sigstore",
		protocol.StepRevocation: checkURL != "",
		protocol.StepPublisher:  rel != nil && rel.Publisher != nil,
	}
}

// reviewChecks turns findings into one check per step: failed when the
// step has an error finding, not-run after a failed step, not-applicable
// when it had nothing to check, passed otherwise. A nil applies means the
// package could not be read: only the manifest step ran.
func reviewChecks(findings []protocol.Finding, applies map[string]bool) []protocol.ReviewCheck {
	failed := map[string]string{}
	for _, f := range findings {
		if f.Severity != agentpkg.SeverityError {
			continue
		}
		step, ok := stepOf[f.Code]
		if !ok {
			step = protocol.StepManifest
		}
		if _, seen := failed[step]; !seen {
			failed[step] = fmt.Sprintf("%s: %s", f.Code, f.Message)
		}
	}
	var out []protocol.ReviewCheck
	earlier := false
	for _, step := range protocol.ReviewSteps() {
		c := protocol.ReviewCheck{Step: step}
		msg, bad := failed[step]
		switch {
		case bad:
			c.Status, c.Message = protocol.StepFailed, msg
		case earlier || applies == nil:
			c.Status = protocol.StepNotRun
		case !applies[step]:
			c.Status = protocol.StepNotApplicable
		default:
			c.Status = protocol.StepPassed
		}
		earlier = earlier || bad
		out = append(out, c)
	}
	return out
}
