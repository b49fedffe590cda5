package mockhost

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
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
