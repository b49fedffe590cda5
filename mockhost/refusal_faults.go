package mockhost

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/sourcegraph/jsonrpc2"
)

// The refusal faults are the ways a real host refuses or accepts packages
// for the wrong reason. Under them no requirement whose check rests on a
// refusal may pass (selftest proves it): the positive control on the
// untouched package, or the rule that a refusal names what was planted,
// must catch them.

// unrelatedFinding is what a host that refuses for the wrong reason says.
var unrelatedFinding = protocol.Finding{Code: "unsupported-license", Severity: agentpkg.SeverityError,
	File: "", Field: "license", Message: "this host accepts no package under this license"}

// noEntriesFinding is what a host that needs entries says of a package without any.
var noEntriesFinding = protocol.Finding{Code: "no-entries", Severity: agentpkg.SeverityError,
	File: "", Field: "", Message: "this host shows apps by their entries and cannot take an app without one"}

// judged returns the findings a verdict (package/verify, app/install,
// package/project) rests on, as a host with the refusal faults reports them.
// p is nil when the package could not be read.
func (h *Host) judged(p *agentpkg.Package, fs []protocol.Finding) []protocol.Finding {
	switch {
	// fault: accept-everything — packages are taken as they come: verification reports nothing and accepts every package.
	case h.faults.Has("accept-everything"):
		return []protocol.Finding{}
	// fault: refuse-unrelated-finding — every package is refused, always for the same unrelated reason.
	case h.faults.Has("refuse-unrelated-finding"):
		return []protocol.Finding{unrelatedFinding}
	// fault: refuse-without-entries — a package that declares no entries is refused, whatever else is wrong with it.
	case h.faults.Has("refuse-without-entries") && (p == nil || len(listOf(p.Manifest["entries"])) == 0):
		return []protocol.Finding{noEntriesFinding}
	// fault: vague-refusals — a refusal says only that the package failed verification, never what or where.
	case h.faults.Has("vague-refusals") && agentpkg.HasErrors(fs):
		return []protocol.Finding{vagueFinding}
	}
	// fault: escape-refusal-quotes-target — a reference that climbs out of the package is refused, but the refusal quotes what it points to (the host opened it to say what it is).
	if h.faults.Has("escape-refusal-quotes-target") && p != nil {
		return quoteEscapeTargets(p.Dir, fs)
	}
	return fs
}

// climbingRef is the reference a path-escapes-package message quotes.
var climbingRef = regexp.MustCompile(`path "(\.\./[^"]+)" climbs out`)

// quoteEscapeTargets is the bug behind escape-refusal-quotes-target: each
// path-escapes-package finding also quotes the first line of the file the
// reference points to (a folder's index.html).
func quoteEscapeTargets(dir string, fs []protocol.Finding) []protocol.Finding {
	out := slices.Clone(fs)
	for i, f := range out {
		m := climbingRef.FindStringSubmatch(f.Message)
		if f.Code != agentpkg.CodePathEscapesPackage || m == nil {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(m[1]))
		b, err := os.ReadFile(target)
		if err != nil {
			b, err = os.ReadFile(filepath.Join(target, "index.html"))
		}
		if err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			out[i].Message += " (it holds: " + first + ")"
		}
	}
	return out
}

// vagueFinding is all a host with vague refusals says of any failure.
var vagueFinding = protocol.Finding{Code: "verification-failed", Severity: agentpkg.SeverityError,
	Message: "the package failed verification"}

// judgedReadiness is where the refusal faults act on readiness: a host
// that only judges installed apps, one that refuses everything, and one
// that checks nothing.
func (h *Host) judgedReadiness(params protocol.ReadinessParams, res *protocol.ReadinessResult) {
	switch {
	case h.faults.Has("accept-everything"):
		*res = protocol.ReadinessResult{OK: true, Status: protocol.StatusReady, App: res.App, Entry: res.Entry, Checks: []protocol.ReadinessCheck{}}
	case h.faults.Has("refuse-unrelated-finding"):
		res.OK, res.Status = false, protocol.StatusBlocked
		res.Blockers = []string{unrelatedFinding.Message}
		res.Checks = []protocol.ReadinessCheck{{Severity: agentpkg.SeverityError, Kind: "policy", Key: "license",
			Blocking: true, Message: unrelatedFinding.Message}}
		res.SetupActions = []protocol.SetupAction{{Key: "license", Title: "Contact your administrator", Kind: "external"}}
	// fault: vague-readiness — a not-ready answer names no failing check: one blocker says setup is incomplete.
	case h.faults.Has("vague-readiness") && !res.OK:
		res.Checks, res.Tiers, res.Entries = []protocol.ReadinessCheck{}, nil, nil
		res.Blockers = []string{"setup is incomplete"}
	// fault: not-installed-not-ready — readiness of a package that is not installed is needs-setup "not installed", whatever its checks say.
	case h.faults.Has("not-installed-not-ready") && params.AppID == "":
		res.OK, res.Status = false, protocol.StatusNeedsSetup
		res.Blockers = []string{"the app is not installed"}
		res.SetupActions = []protocol.SetupAction{{Key: "install", Title: "Install the app", Kind: "open-settings"}}
	}
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}

// untranslatable is how a host with the refusals-as-unsupported fault
// answers a package it would refuse: -32006, "cannot take it in my intake
// form", so no refusal is ever on record. "Cannot translate" is never a way
// to refuse a package (docs/host-control-protocol.md, Hosts that do not
// take folders); the specs that need the refusal are blocked, and a level
// that needs them cannot pass.
func (h *Host) untranslatable(path string, refused bool) *jsonrpc2.Error {
	// fault: refusals-as-unsupported — a package the host would refuse is answered -32006 not-translatable instead.
	if !refused || !h.faults.Has("refusals-as-unsupported") {
		return nil
	}
	return rpcError(protocol.CodeUnsupported, "this host cannot take "+path+" in its own intake form",
		protocol.ErrorData{Findings: []protocol.Finding{{Code: "not-translatable", Severity: agentpkg.SeverityError,
			File: "APP.md", Message: "the intake form has no place for this package"}}})
}

// refusedWith reports whether e refuses a package (-32001 or -32002).
func refusedWith(e *jsonrpc2.Error) bool {
	return e != nil && (e.Code == protocol.CodePackageInvalid || e.Code == protocol.CodeVerificationFailed)
}

// refusalFaults are the faults that refuse or accept for the wrong reason
// (judged above): the positive controls and the rule that a refusal names
// what was planted must catch these.
//
// Each is meant to break the requirements whose check rests on a refusal
// (levels.Requirement.Refusal) of the kind it spoils: an indiscriminate
// one every such requirement (restingOn, so a new one joins by itself),
// the others those their refusals reach; what cannot be judged once every
// package is refused, or none is, is collateral (collateral.json).
func refusalFaults() []Fault {
	cat := levels.Default()
	return []Fault{
		{Name: "refusals-as-unsupported", Breaks: []string{
			"CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-LEGACY-KINDS", "CAT-MANIFEST-VERSION", "INSTALL-VERIFY-FIRST",
			"PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "PKG-NO-PARENT-REFS", "VERIFY-COMPATIBILITY", "VERIFY-HOST-VERSION",
			"VERIFY-MANIFEST-HASH", "VERIFY-PACKAGE-HASH", "VERIFY-SIGNATURE-FILE", "CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS",
			"VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "VERIFY-PUBLISHER",
			"VERIFY-SIGSTORE"},
			Description: "a package the host would refuse is answered -32006 (cannot take it in its intake form) instead of being refused"},
		{Name: "refuse-without-entries", Breaks: []string{
			"REGISTRY-VERIFIED", "CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-MANIFEST-VERSION", "INSTALL-CONSENT",
			"PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "VERIFY-MANIFEST-HASH", "INSTALL-VERIFY-FIRST", "VERIFY-PACKAGE-HASH",
			"CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS"},
			Description: "a package that declares no entries is refused (finding no-entries), whatever else is wrong with it"},
		{Name: "refuse-unrelated-finding", Indiscriminate: everyRefusal(), Breaks: restingOn(cat, everyRefusal()),
			Description: "every package is refused, and every readiness blocked, always for the same unrelated reason (an unsupported license)"},
		{Name: "accept-everything", Indiscriminate: everyRefusal(), Breaks: restingOn(cat, everyRefusal()),
			Description: "nothing is checked: every package verifies, installs (with or without consent) and projects as it comes, and is always ready"},
		{Name: "vague-refusals", Breaks: []string{
			"REGISTRY-VERIFIED", "CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-LEGACY-KINDS", "CAT-MANIFEST-VERSION",
			"INSTALL-VERIFY-FIRST", "PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "PKG-NO-PARENT-REFS", "VERIFY-COMPATIBILITY",
			"VERIFY-HOST-VERSION", "VERIFY-MANIFEST-HASH", "VERIFY-PACKAGE-HASH", "VERIFY-SIGNATURE-FILE", "CAT-FIELD-CONSTRAINTS",
			"CAT-NO-BYPASS-PERMISSIONS", "VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED",
			"VERIFY-PUBLISHER", "VERIFY-SIGSTORE"},
			Description: "every refusal says only \"the package failed verification\": no finding code, file or field names the cause"},
		{Name: "vague-readiness", Breaks: []string{
			"READY-CAPABILITIES", "READY-PER-ENTRY", "READY-REQUIRED-TIER", "READY-SECRETS", "READY-PERMISSIONS",
			"READY-POLICY", "READY-AVAILABILITY", "READY-INSTALLED-HASH", "READY-MIGRATIONS"},
			Description: "a not-ready answer names no failing check: a single blocker says setup is incomplete"},
		{Name: "not-installed-not-ready", Indiscriminate: []levels.RefusalKind{levels.NotReady}, Breaks: restingOn(cat, []levels.RefusalKind{levels.NotReady}),
			Description: "readiness of a package that is not installed is needs-setup \"not installed\", whatever its own checks say"},
	}
}

func everyRefusal() []levels.RefusalKind {
	return []levels.RefusalKind{levels.RefusesPackage, levels.NotReady, levels.NotReadyInstalled}
}

// restingOn lists, in catalog order, the requirements whose check rests on
// a refusal of these kinds (levels.Requirement.Refusal).
func restingOn(cat *levels.Catalog, kinds []levels.RefusalKind) []string {
	var ids []string
	for _, r := range cat.Requirements() {
		if slices.ContainsFunc(r.Refusal, func(k levels.RefusalKind) bool { return slices.Contains(kinds, k) }) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}
