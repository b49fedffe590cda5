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
// *PackageError naming file and field) only when the package cannot be read at
// all; every other problem is a finding in Package.Findings.
func Load(dir string, opts LoadOptions) (*Package, error) {
	root, err := packageRoot(dir)
	if err != nil {
		return nil, err
	}
	hash, files, err := HashPackage(root, opts)
	if err != nil {
		return nil, err
	}
	raw, err := readPackageFile(root, ManifestFile, opts.Limits.withDefaults().MaxFileBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &PackageError{Findings: []Finding{finding(CodeMissingFile, SeverityError, ManifestFile, "",
				"the package has no APP.md, the required discovery manifest")}}
		}
		return nil, &PackageError{Findings: []Finding{finding(CodeMissingFile, SeverityError, ManifestFile, "",
			"cannot be read: %v", err)}}
	}
	p := &Package{
		Dir:          root,
		Files:        files,
		PackageHash:  hash,
		ManifestHash: HashManifest(raw),
		Manifest:     map[string]any{},
		Sources:      map[string]string{},
	}
	p.parse(raw, opts)
	return p, nil
}

// parse reads the manifest (APP.md's raw bytes and the layered files below
// p.Dir) into p.Manifest, p.Sources, p.Body, p.Readiness and p.Signature, and
// validates it, appending to p.Findings.
func (p *Package) parse(raw []byte, opts LoadOptions) {
	m := &merger{p: p, opts: opts, lines: map[string]map[string]int{}}
	m.frontmatter(raw)
	for _, lf := range layeredFiles() {
		// The ignore-layered-files fault skips app.*.yaml only; evals/ files
		// stay, so the fault breaks layered loading and nothing else.
		if !opts.IgnoreLayeredFiles || !strings.HasPrefix(lf.Path, "app.") {
			m.layered(lf)
		}
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
