// Package agentpkg is the harness's model of an Agent App package (spec 000,
// "Package shape", "APP.md", "Layered configuration"): it walks and hashes a
// package folder the way the standard's reference tooling does, parses APP.md
// and the layered app.*.yaml files with hard limits, validates the manifest,
// and computes the deterministic projection and the readiness verdict that a
// conforming host must agree with. It never executes package code.
package agentpkg

import (
	"fmt"
	"math"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Standard and StandardVersion name the standard this model implements; they
// are stamped into every provenance object (spec 000, Projection contract).
const (
	Standard        = "agentapp"
	StandardVersion = "0.10.0"
)

// ManifestFile is the one mandatory file of a package (spec 000, Package shape).
const ManifestFile = "APP.md"

// KnownManifestVersions lists the manifest versions the standard knows, oldest first.
func KnownManifestVersions() []string {
	return []string{"0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "0.9.0", "0.10.0"}
}

// Finding is one observation about a package, naming the file and field at fault.
type Finding = protocol.Finding

// Severities of findings.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Limits bound the work spent on a package so hostile input fails fast.
// A field <= 0 takes its DefaultLimits value.
type Limits struct {
	MaxFiles          int   // files hashed
	MaxFileBytes      int64 // bytes of one file
	MaxTotalBytes     int64 // bytes of all files together
	MaxYAMLBytes      int64 // bytes of one YAML document (frontmatter or layered file)
	MaxDepth          int   // nesting of YAML mappings and sequences
	MaxAliasExpansion int   // YAML nodes reachable only through aliases
	MaxAliasBytes     int64 // bytes of scalar text reachable only through aliases
}

// DefaultLimits are generous for real apps and small enough to refuse bombs.
func DefaultLimits() Limits {
	return Limits{
		MaxFiles:          10000,
		MaxFileBytes:      64 << 20,
		MaxTotalBytes:     512 << 20,
		MaxYAMLBytes:      1 << 20,
		MaxDepth:          64,
		MaxAliasExpansion: 10000,
		MaxAliasBytes:     4 << 20,
	}
}

// NoLimits lifts the size, depth and count limits (mockhost's no-yaml-limits
// fault). Alias expansion stays finite and the walk keeps its own depth
// bound, so even then nothing loops forever or expands a billion nodes.
func NoLimits() Limits {
	return Limits{
		MaxFiles:          math.MaxInt32,
		MaxFileBytes:      math.MaxInt64,
		MaxTotalBytes:     math.MaxInt64,
		MaxYAMLBytes:      math.MaxInt64,
		MaxDepth:          math.MaxInt32,
		MaxAliasExpansion: 1 << 20,
		MaxAliasBytes:     64 << 20,
	}
}

// withDefaults fills unset limits from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = d.MaxFileBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = d.MaxTotalBytes
	}
	if l.MaxYAMLBytes <= 0 {
		l.MaxYAMLBytes = d.MaxYAMLBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxAliasExpansion <= 0 {
		l.MaxAliasExpansion = d.MaxAliasExpansion
	}
	if l.MaxAliasBytes <= 0 {
		l.MaxAliasBytes = d.MaxAliasBytes
	}
	return l
}

// LoadOptions tune Load and HashPackage. The zero value is the conforming
// behaviour with DefaultLimits; the booleans reproduce known host mistakes.
type LoadOptions struct {
	Limits              Limits
	FollowEscapingLinks bool // reference-CLI behaviour: follow symlinks wherever they point (a fault)
	IgnoreLayeredFiles  bool // do not load app.*.yaml; evals/*.yaml still load (a fault)
	FrontmatterWins     bool // frontmatter beats independent files (a fault)
	SkipUTF8Check       bool // accept non-UTF-8 manifests (part of the no-yaml-limits fault)
	SkipUnreadable      bool // leave dangling links, link cycles and special files out of the package silently (a fault)
}

// File is one hashed file of a package.
type File struct {
	Path string // slash-separated, relative to the package root
	Size int64
}

// Package is a loaded Agent App package.
type Package struct {
	Dir          string            // absolute folder
	Files        []File            // in hash order
	PackageHash  string            // "sha256:<hex>"
	ManifestHash string            // "sha256:<hex>" of APP.md raw bytes
	Manifest     map[string]any    // merged manifest (frontmatter + layered files), JSON-compatible values only
	Sources      map[string]string // top-level key -> file it came from ("APP.md", "app.entries.yaml", ...)
	Readiness    map[string]any    // evals/readiness.yaml "readiness" object (nil if none)
	Signature    map[string]any    // app.signature.yaml "signature" object (nil if none)
	Body         string            // Markdown body of APP.md
	Findings     []Finding         // validation findings (errors make the package invalid)
}

// Valid reports whether the package has no error-severity finding.
func (p *Package) Valid() bool {
	return !HasErrors(p.Findings)
}

// Errors returns the error-severity findings.
func (p *Package) Errors() []Finding {
	var out []Finding
	for _, f := range p.Findings {
		if f.Severity == SeverityError {
			out = append(out, f)
		}
	}
	return out
}

// PackageError is returned when a package cannot be read at all, or cannot
// be projected; its findings name the file and field at fault.
type PackageError struct {
	Findings []Finding
}

func (e *PackageError) Error() string {
	if len(e.Findings) == 0 {
		return "invalid package"
	}
	msgs := make([]string, 0, len(e.Findings))
	for _, f := range e.Findings {
		msgs = append(msgs, f.Message)
	}
	return strings.Join(msgs, "; ")
}

// HasErrors reports whether any finding has error severity.
func HasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// finding builds a finding whose message names the file and field.
func finding(code, severity, file, field, format string, args ...any) Finding {
	msg := fmt.Sprintf(format, args...)
	prefix := file
	if field != "" {
		if prefix != "" {
			prefix += ": "
		}
		prefix += "field " + field
	}
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	return Finding{Code: code, Severity: severity, File: file, Field: field, Message: msg}
}
