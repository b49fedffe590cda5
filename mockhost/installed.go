package mockhost

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// The installed copy (docs/decisions.md, "The installed copy"): app/install
// copies the verified package into a folder of the host's own under its
// data root, and everything after install (readiness, launch, the app
// center, update and rollback) reads that copy, never the folder the
// package came from. Readiness hashes the copy again and blocks an app
// whose files changed since install (spec 000, Readiness: "UI / worker /
// storage package is complete and hash-matched").

// fileDigest is what the host records of one file of its installed copy.
type fileDigest struct {
	size int64
	sum  string // hex SHA-256 of the file's bytes
}

// installedCopy is the host's own copy of one installed package.
type installedCopy struct {
	dir   string                // the package folder (installedApp.path)
	owner string                // the folder the host created for it, removed with it
	files map[string]fileDigest // per-file digests taken at install, by slash path
}

// copyPackage copies the files the walk of p vetted into a folder of the
// host's own, as the walk saw them (a link that stays inside the package
// becomes a copy of what it points to, as the hash counts it), records each
// file's digest, and checks that the copy hashes, the way this host hashes,
// to the packageHash it verified: a package that changed between its
// verification and its copy is not installed.
func (h *Host) copyPackage(p *agentpkg.Package, appID string) (c installedCopy, err error) {
	owner, err := h.newOwnDir("installed", appID)
	if err != nil {
		return installedCopy{}, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(owner)
		}
	}()
	// The copy keeps the folder's name: it is the same package.
	c = installedCopy{dir: filepath.Join(owner, filepath.Base(p.Dir)), owner: owner, files: map[string]fileDigest{}}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return installedCopy{}, fmt.Errorf("copying %s: %w", appID, err)
	}
	framed := sha256.New()
	for _, f := range p.Files {
		d, err := copyFile(filepath.Join(p.Dir, filepath.FromSlash(f.Path)), filepath.Join(c.dir, filepath.FromSlash(f.Path)), f.Path, framed)
		if err != nil {
			return installedCopy{}, fmt.Errorf("copying %s of %s: %w", f.Path, appID, err)
		}
		c.files[f.Path] = d
	}
	sum := "sha256:" + hex.EncodeToString(framed.Sum(nil))
	if v := h.hashVariant(); v.wrong() {
		if sum, err = v.hash(c.dir, p.Files); err != nil {
			return installedCopy{}, err
		}
	}
	if sum != p.PackageHash {
		return installedCopy{}, errChangedWhileInstalling
	}
	return c, nil
}

// errChangedWhileInstalling says the package's files changed between its
// verification and the host's copy of it.
var errChangedWhileInstalling = errors.New("the package changed while it was being installed: its copy does not hash to the packageHash verified")

// copyFile copies one regular file, feeding packageHash's framing (path,
// NUL, bytes, NUL) to framed, and returns its digest.
func copyFile(src, dst, rel string, framed hash.Hash) (fileDigest, error) {
	in, err := openRegular(src)
	if err != nil {
		return fileDigest{}, err
	}
	defer func() { _ = in.Close() }()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fileDigest{}, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fileDigest{}, err
	}
	sum := sha256.New()
	_, _ = io.WriteString(framed, rel)
	_, _ = framed.Write([]byte{0})
	n, err := io.Copy(io.MultiWriter(out, sum, framed), in)
	_, _ = framed.Write([]byte{0})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileDigest{}, err
	}
	return fileDigest{size: n, sum: hex.EncodeToString(sum.Sum(nil))}, nil
}

// openRegular opens a file for reading, refusing anything but a regular
// file (O_NONBLOCK: a file that became a FIFO must not hang the host).
func openRegular(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(name))
	}
	return f, nil
}

// digestCopy walks the installed copy in dir as a package (links and
// special files vetted as at install) and digests every file. Entries the
// walk refuses come back as changes of their own.
func (h *Host) digestCopy(dir string) (map[string]fileDigest, []string, error) {
	_, files, err := agentpkg.HashPackage(dir, h.loadOptions())
	var pe *agentpkg.PackageError
	if errors.As(err, &pe) {
		var refused []string
		for _, f := range pe.Findings {
			refused = append(refused, fmt.Sprintf("%s is no longer a file of the package (%s)", displayPath(f.File), f.Message))
		}
		return nil, refused, nil
	}
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]fileDigest, len(files))
	for _, f := range files {
		in, err := openRegular(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			return nil, []string{fmt.Sprintf("%s cannot be read (%v)", f.Path, err)}, nil
		}
		sum := sha256.New()
		n, err := io.Copy(sum, in)
		_ = in.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("hashing %s: %w", f.Path, err)
		}
		out[f.Path] = fileDigest{size: n, sum: hex.EncodeToString(sum.Sum(nil))}
	}
	return out, nil, nil
}

func displayPath(rel string) string {
	if rel == "" {
		return "the package folder"
	}
	return rel
}

// changedFiles lists, sorted, what differs between the digests taken at
// install and now: "X edited", "Y added", "Z removed".
func (h *Host) changedFiles(was, now map[string]fileDigest) []string {
	same := func(a, b fileDigest) bool { return a == b }
	// fault: installed-hash-by-size — the installed copy is checked by file sizes only, so an edit that keeps a file's size passes.
	if h.faults.Has("installed-hash-by-size") {
		same = func(a, b fileDigest) bool { return a.size == b.size }
	}
	var out []string
	for rel, d := range was {
		switch cur, ok := now[rel]; {
		case !ok:
			out = append(out, rel+" removed")
		case !same(d, cur):
			out = append(out, rel+" edited")
		}
	}
	// fault: installed-hash-known-files — only the files recorded at install are checked, so a file added since passes.
	if !h.faults.Has("installed-hash-known-files") {
		for rel := range now {
			if _, ok := was[rel]; !ok {
				out = append(out, rel+" added")
			}
		}
	}
	sort.Strings(out)
	return out
}

// installedChanges hashes the installed copy of an app again and lists
// what changed since install; none when it still matches.
func (h *Host) installedChanges(dir string, was map[string]fileDigest) ([]string, error) {
	// fault: readiness-trusts-install — readiness takes the installed copy for what was installed and never hashes it again.
	if h.faults.Has("readiness-trusts-install") {
		return nil, nil
	}
	now, refused, err := h.digestCopy(dir)
	if err != nil || len(refused) > 0 {
		return refused, err
	}
	return h.changedFiles(was, now), nil
}

// integrityBlocked is the readiness of an installed app whose copy no
// longer matches the packageHash it was installed with: blocked, naming
// each file changed and the hash, whatever the package's own checks say
// (they are not read from a copy that cannot be trusted).
func integrityBlocked(appID, entry, packageHash string, changes []string) protocol.ReadinessResult {
	what := strings.Join(changes, ", ")
	check := protocol.ReadinessCheck{Severity: agentpkg.SeverityError, Kind: "package-integrity", Key: "packageHash",
		Required: true, Blocking: true, Code: "package-hash-mismatch",
		Message: fmt.Sprintf("The installed package of %s no longer matches packageHash %s it was installed with: %s. Reinstall the app.",
			appID, packageHash, what)}
	return protocol.ReadinessResult{
		OK: false, Status: protocol.StatusBlocked, App: appID, Entry: entry,
		Checks:       []protocol.ReadinessCheck{check},
		Blockers:     []string{fmt.Sprintf("%s: %s (installed as %s)", ref(check), what, packageHash)},
		SetupActions: []protocol.SetupAction{{Key: "reinstall", Title: "Reinstall " + appID, Kind: "reinstall-app", Target: appID}},
	}
}

// removeCopies removes every installed copy of appID (h.mu held).
func (h *Host) removeCopies(appID string) error {
	var firstErr error
	for _, d := range h.copies[appID] {
		if err := os.RemoveAll(d); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("removing the installed package of %s: %w", appID, err)
		}
	}
	delete(h.copies, appID)
	return firstErr
}
