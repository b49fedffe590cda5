package mockhost

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// loadOptions are the options every package read uses; the faults that
// change how a host parses a package switch them.
func (h *Host) loadOptions() agentpkg.LoadOptions {
	var o agentpkg.LoadOptions
	// fault: ignore-layered-files — independent app.*.yaml files are never read.
	o.IgnoreLayeredFiles = h.faults.Has("ignore-layered-files")
	// fault: frontmatter-wins — frontmatter beats an independent file that disagrees.
	o.FrontmatterWins = h.faults.Has("frontmatter-wins")
	// fault: skip-unreadable-files — dangling links, link cycles and special files are left out silently.
	o.SkipUnreadable = h.faults.Has("skip-unreadable-files")
	// fault: follow-escaping-links — symlinks are followed wherever they point.
	o.FollowEscapingLinks = h.faults.Has("follow-escaping-links")
	// fault: no-yaml-limits — YAML is parsed without size, depth, alias or UTF-8 checks.
	if h.faults.Has("no-yaml-limits") {
		o.Limits = agentpkg.NoLimits()
		o.SkipUTF8Check = true
	}
	return o
}

// stage says which method a finding filter runs for.
type stage int

const (
	stageLoad    stage = iota // every method that reads a package
	stageVerify               // package/verify
	stageInstall              // app/install
)

// dropFinding reports whether a buggy host would not see finding f at stage st.
func (h *Host) dropFinding(f protocol.Finding, st stage) bool {
	switch f.Code {
	case agentpkg.CodeMissingField, agentpkg.CodeNoFrontmatter:
		// fault: accept-missing-required — APP.md without frontmatter or required fields is accepted.
		return h.faults.Has("accept-missing-required")
	case agentpkg.CodeMissingFile:
		// fault: appmd-optional — a folder without APP.md is still taken for an app.
		return f.File == agentpkg.ManifestFile && h.faults.Has("appmd-optional")
	case agentpkg.CodeUnsupportedManifestVersion:
		// fault: accept-any-manifest-version — any manifestVersion is accepted.
		return h.faults.Has("accept-any-manifest-version")
	case agentpkg.CodeLegacyEntryKind:
		// fault: legacy-kinds-as-current — home/scene entries of a 0.10.0 manifest pass validation and are projected as ordinary entries.
		return h.faults.Has("legacy-kinds-as-current") || h.variants.Has("legacy-kinds-marked")
	case agentpkg.CodePathEscapesPackage:
		// fault: allow-parent-refs — references climbing out of the package (../) are accepted.
		return h.faults.Has("allow-parent-refs")
	case agentpkg.CodePackageHashMismatch:
		// fault: skip-package-hash — the expected packageHash is never compared (verify and install).
		return st != stageLoad && h.faults.Has("skip-package-hash")
	case agentpkg.CodeManifestHashMismatch:
		// fault: skip-manifest-hash — the expected manifestHash is never compared by package/verify.
		return st == stageVerify && h.faults.Has("skip-manifest-hash")
	case agentpkg.CodeSignatureManifestHashMismatch:
		// fault: ignore-signature-file — app.signature.yaml's manifest hash is never compared by package/verify.
		return st == stageVerify && h.faults.Has("ignore-signature-file")
	case agentpkg.CodeInvalidField:
		return h.dropsFieldRule(f)
	case agentpkg.CodeBypassPermissions:
		// fault: allow-bypass-permissions — a manifest declaring bypassPermissions is accepted.
		return h.faults.Has("allow-bypass-permissions")
	case agentpkg.CodeIncompatibleHostVersion:
		// variant: host-version-at-readiness — an incompatible app runtime range does not refuse the package; readiness blocks it.
		return st != stageLoad && h.variants.Has("host-version-at-readiness")
	case agentpkg.CodeIncompatibleCapability:
		// fault: ignore-version-ranges — package/verify ignores requires.capabilities ranges.
		return st == stageVerify && h.faults.Has("ignore-version-ranges")
	}
	return false
}

// filter returns the findings a host with these faults reports, never nil.
func (h *Host) filter(fs []protocol.Finding, st stage) []protocol.Finding {
	out := []protocol.Finding{}
	seen := map[protocol.Finding]bool{}
	for _, f := range fs {
		if seen[f] || h.dropFinding(f, st) {
			continue
		}
		seen[f] = true
		out = append(out, f)
	}
	return out
}

// firstError is the message of the first error finding, for error texts.
func firstError(fs []protocol.Finding) string {
	for _, f := range fs {
		if f.Severity == agentpkg.SeverityError {
			return f.Message
		}
	}
	return "no details"
}

// load reads the package at path. A package that cannot be read at all
// yields nil and the findings saying why; any other error is the host's.
// The returned package is already adjusted the way this host sees it
// (identity and hash faults) and carries only the findings it reports.
func (h *Host) load(path string) (*agentpkg.Package, []protocol.Finding, error) {
	p, err := agentpkg.Load(path, h.loadOptions())
	if err != nil {
		var pe *agentpkg.PackageError
		if errors.As(err, &pe) {
			return nil, h.filter(pe.Findings, stageLoad), nil
		}
		return nil, nil, fmt.Errorf("reading package %s: %w", path, err)
	}
	q := *p
	q.Manifest = maps.Clone(p.Manifest)
	if q.Manifest == nil {
		q.Manifest = map[string]any{}
	}
	q.Findings = h.filter(p.Findings, stageLoad)
	// fault: line-subset-yaml — a frontmatter YAML cannot parse is re-read line by line and taken as it comes.
	if h.faults.Has("line-subset-yaml") && hasYAMLError(p.Findings) {
		q.Manifest = lineSubsetFrontmatter(q.Dir)
		q.Findings = []protocol.Finding{}
	}
	// fault: layered-new-files-unread — app.requirements.yaml and app.boundary.yaml, layered files the standard added later, are never loaded: the frontmatter's section, if any, stands.
	if h.faults.Has("layered-new-files-unread") {
		h.unreadNewLayeredFiles(&q)
	}
	// fault: manifest-hash-trims-blank-lines — manifestHash is taken over APP.md as text, its trailing blank lines trimmed, not over its raw bytes.
	if h.faults.Has("manifest-hash-trims-blank-lines") {
		if raw, err := os.ReadFile(filepath.Join(q.Dir, agentpkg.ManifestFile)); err == nil && bytes.HasSuffix(raw, []byte("\n")) {
			q.ManifestHash = agentpkg.HashManifest(append(bytes.TrimRight(raw, "\r\n"), '\n'))
		}
	}
	q.Findings = append(q.Findings, h.manifestRuleFindings(q.Manifest)...)
	// fault: name-from-directory — the app's identity is the folder name, not APP.md's name.
	if h.faults.Has("name-from-directory") {
		q.Manifest["name"] = filepath.Base(q.Dir)
	}
	// fault: drop-display-metadata — displayName and publisher are never read, so catalog cards lack them.
	if h.faults.Has("drop-display-metadata") {
		delete(q.Manifest, "displayName")
		delete(q.Manifest, "publisher")
	}
	// fault: ignore-host-version — requires.lime (the app runtime range) is never read.
	if req, ok := q.Manifest["requires"].(map[string]any); ok && h.faults.Has("ignore-host-version") {
		req = maps.Clone(req)
		delete(req, "lime")
		q.Manifest["requires"] = req
	}
	if v := h.hashVariant(); v.wrong() {
		sum, err := v.hash(q.Dir, q.Files)
		if err != nil {
			return nil, nil, err
		}
		q.PackageHash = sum
	}
	return &q, nil, nil
}

// unreadNewLayeredFiles gives q the sections app.requirements.yaml and
// app.boundary.yaml provide as a host that does not load those files sees
// them: the frontmatter's, or none.
func (h *Host) unreadNewLayeredFiles(q *agentpkg.Package) {
	opts := h.loadOptions()
	opts.IgnoreLayeredFiles = true
	var frontmatter map[string]any
	if front, err := agentpkg.Load(q.Dir, opts); err == nil {
		frontmatter = front.Manifest
	}
	for key, src := range q.Sources {
		if src != "app.requirements.yaml" && src != "app.boundary.yaml" {
			continue
		}
		if v, ok := frontmatter[key]; ok {
			q.Manifest[key] = v
		} else {
			delete(q.Manifest, key)
		}
	}
}

// hashVariant is how this host computes packageHash: the standard's way
// unless a hash fault is on.
func (h *Host) hashVariant() hashVariant {
	return hashVariant{
		// fault: hash-full-path-sort — packageHash is computed over files sorted by full path.
		fullPathSort: h.faults.Has("hash-full-path-sort"),
		// fault: hash-skips-dotfiles — hidden files and folders are left out of packageHash, as a glob leaves them out.
		skipDotfiles: h.faults.Has("hash-skips-dotfiles"),
		// fault: hash-skips-empty-files — files with no bytes are left out of packageHash.
		skipEmpty: h.faults.Has("hash-skips-empty-files"),
		// fault: hash-normalises-newlines — CRLF line ends are hashed as LF, as a checkout with autocrlf would.
		lfOnly: h.faults.Has("hash-normalises-newlines"),
		// fault: hash-content-only — packageHash covers the files' bytes but not their names.
		contentOnly: h.faults.Has("hash-content-only"),
	}
}

// identity returns the manifest's name and version as strings.
func identity(p *agentpkg.Package) (name, version string) {
	name = stringField(p.Manifest, "name")
	version = stringField(p.Manifest, "version")
	return name, version
}

// stringField reads a top-level manifest member as a string ("" if absent).
func stringField(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}
