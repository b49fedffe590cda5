package agentpkg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// HashManifest is manifestHash: "sha256:" + hex SHA-256 of APP.md's raw bytes.
func HashManifest(appMD []byte) string {
	sum := sha256.Sum256(appMD)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Load reads the package in dir: hashes it, parses APP.md and the layered
// files, and validates the merged manifest. It returns an error (a
// *PackageError naming file and field) only when the package cannot be read
// at all; every other problem is a finding in Package.Findings.
//
// A package the walk refuses (escaping, dangling or looping links, special
// files) cannot be read, but the error lists every refused entry at once and,
// after them, what the manifest says wrong, so one run shows everything:
// files the walk refused are never read, and a walk that a limit stopped
// reports only that.
func Load(dir string, opts LoadOptions) (*Package, error) {
	root, err := packageRoot(dir)
	if err != nil {
		return nil, err
	}
	walk, err := walkPackage(root, opts)
	if err != nil {
		return nil, err
	}
	if walk.stopped || walk.refused(ManifestFile) {
		return nil, &PackageError{Findings: walk.findings}
	}
	raw, err := readPackageFile(root, ManifestFile, opts.Limits.withDefaults().MaxFileBytes)
	if err != nil {
		return nil, &PackageError{Findings: append(walk.findings, manifestUnreadable(err))}
	}
	p := &Package{
		Dir:          root,
		Files:        walk.files,
		PackageHash:  walk.hash,
		ManifestHash: HashManifest(raw),
		Manifest:     map[string]any{},
		Sources:      map[string]string{},
	}
	p.parseVetted(raw, opts, walk.refused)
	if len(walk.findings) > 0 {
		return nil, &PackageError{Findings: append(walk.findings, p.Findings...)}
	}
	return p, nil
}

// manifestUnreadable is the finding for an APP.md that cannot be read.
func manifestUnreadable(err error) Finding {
	if errors.Is(err, fs.ErrNotExist) {
		return finding(CodeMissingFile, SeverityError, ManifestFile, "",
			"the package has no APP.md, the required discovery manifest")
	}
	return finding(CodeMissingFile, SeverityError, ManifestFile, "", "cannot be read: %v", err)
}

// parse reads the manifest (APP.md's raw bytes and the layered files below
// p.Dir) into p.Manifest, p.Sources, p.Body, p.Readiness and p.Signature, and
// validates it, appending to p.Findings.
func (p *Package) parse(raw []byte, opts LoadOptions) {
	p.parseVetted(raw, opts, func(string) bool { return false })
}

// parseVetted is parse leaving out the layered files refused reports: the
// walk refused them (or a folder above them), so they are not read.
func (p *Package) parseVetted(raw []byte, opts LoadOptions, refused func(rel string) bool) {
	m := &merger{p: p, opts: opts, lines: map[string]map[string]int{}}
	m.frontmatter(raw)
	for _, lf := range layeredFiles() {
		// The ignore-layered-files fault skips app.*.yaml only; evals/ files
		// stay, so the fault breaks layered loading and nothing else.
		if refused(lf.Path) || (opts.IgnoreLayeredFiles && strings.HasPrefix(lf.Path, "app.")) {
			continue
		}
		m.layered(lf)
	}
	p.Readiness, _ = p.Manifest["readiness"].(map[string]any)
	p.Signature, _ = p.Manifest["signature"].(map[string]any)
	v := validator{p: p, lines: m.lines}
	v.run()
}

// readPackageFile reads rel below root, refusing files larger than limit and
// anything that is not a regular file (the walk has vetted links already).
func readPackageFile(root, rel string, limit int64) ([]byte, error) {
	path := filepath.Join(root, filepath.FromSlash(rel))
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: %w", rel, fs.ErrNotExist)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s has %d bytes; the limit is %d", rel, st.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, min(limit, math.MaxInt64-1)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s grew past %d bytes while being read", rel, limit)
	}
	return b, nil
}
