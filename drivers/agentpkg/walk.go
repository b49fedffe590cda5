package agentpkg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf16"
)

// maxWalkDepth bounds directory nesting whatever the limits, so a walk that
// follows links (FollowEscapingLinks) still ends.
const maxWalkDepth = 256

// skipNames are never hashed, at any depth (SPEC-NOTES, packageHash).
func skipName(name string) bool { return name == "node_modules" || name == ".git" }

// HashPackage computes packageHash the way the standard's reference CLI does
// (SPEC-NOTES, packageHash): depth-first, each directory's entries sorted by
// name as UTF-16 code units, node_modules and .git skipped, and for every
// file its slash-separated relative path, NUL, its bytes, NUL. Links that stay
// inside the package are hashed as what they point to. Links leaving it,
// dangling links, link cycles and special files are a *PackageError listing
// every one of them (see walkPackage).
func HashPackage(dir string, opts LoadOptions) (packageHash string, files []File, err error) {
	root, err := packageRoot(dir)
	if err != nil {
		return "", nil, err
	}
	res, err := walkPackage(root, opts)
	if err != nil {
		return "", nil, err
	}
	if len(res.findings) > 0 {
		return "", nil, &PackageError{Findings: res.findings}
	}
	return res.hash, res.files, nil
}

// walkResult is what one walk of a package saw.
type walkResult struct {
	hash     string // "sha256:<hex>" of the files hashed; meaningless when findings is not empty
	files    []File
	findings []Finding // every entry the walk refused, in walk order
	// stopped says a limit (file count, sizes, nesting) ended the walk
	// early: its last finding says which, and entries after it were never
	// looked at.
	stopped bool
}

// refused reports whether the walk refused rel or a folder above it, so a
// later read of rel could go where the walk would not (outside the package,
// into a FIFO).
func (r *walkResult) refused(rel string) bool {
	for _, f := range r.findings {
		if f.File != "" && (rel == f.File || strings.HasPrefix(rel, f.File+"/")) {
			return true
		}
	}
	return false
}

// walkPackage walks and hashes the package at root (already resolved). It
// does not stop at a refused entry: every escaping or dangling link, link
// cycle and special file becomes a finding and the walk goes on, without
// opening what the entry points to. Work stays bounded: refused entries
// count against MaxFiles like hashed files, and a limit (MaxFiles,
// MaxFileBytes, MaxTotalBytes, nesting) ends the walk with its finding. The
// error is for what is not a finding (a folder that cannot be listed).
func walkPackage(root string, opts LoadOptions) (*walkResult, error) {
	w := &walker{
		root: root,
		opts: opts,
		lim:  opts.Limits.withDefaults(),
		h:    sha256.New(),
		buf:  make([]byte, 256<<10),
	}
	err := w.walkDir(root, "", 0)
	if err != nil && !errors.Is(err, errWalkStopped) {
		return nil, err
	}
	return &walkResult{
		hash:     "sha256:" + hex.EncodeToString(w.h.Sum(nil)),
		files:    w.files,
		findings: w.findings,
		stopped:  err != nil,
	}, nil
}

// packageRoot resolves dir to an absolute, link-free folder path.
func packageRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving package folder %s: %w", dir, err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(root); err == nil && !fi.IsDir() {
			err = errors.New("not a directory")
		}
	}
	if err != nil {
		return "", &PackageError{Findings: []Finding{finding(CodeMissingFile, SeverityError, "", "",
			"package folder %s cannot be read: %v", dir, err)}}
	}
	return root, nil
}

// errWalkStopped ends a walk at a limit; the finding saying which is recorded.
var errWalkStopped = errors.New("package walk stopped at a limit")

type walker struct {
	root     string // package root, links resolved
	opts     LoadOptions
	lim      Limits
	h        hash.Hash
	buf      []byte
	files    []File
	findings []Finding
	total    int64
	active   []string // resolved directories being walked, for cycle detection
	visits   int      // folders visited, links included
}

// entries counts what the walk has taken on: hashed files and refused entries.
func (w *walker) entries() int { return len(w.files) + len(w.findings) }

// refuse records a finding about the entry rel and lets the walk go on,
// unless the entry is one more than MaxFiles allows.
func (w *walker) refuse(code, rel, format string, args ...any) error {
	if w.entries() >= w.lim.MaxFiles {
		return w.stop(CodeTooManyFiles, rel, "package has more than %d entries", w.lim.MaxFiles)
	}
	w.findings = append(w.findings, finding(code, SeverityError, rel, "", format, args...))
	return nil
}

// stop records the finding of a limit and ends the walk.
func (w *walker) stop(code, rel, format string, args ...any) error {
	w.findings = append(w.findings, finding(code, SeverityError, rel, "", format, args...))
	return errWalkStopped
}

func (w *walker) walkDir(abs, rel string, depth int) error {
	if depth > maxWalkDepth {
		return w.stop(CodeSymlinkCycle, rel, "directories nest deeper than %d levels", maxWalkDepth)
	}
	// Links that stay inside the package are walked as their targets, so
	// folders linking to each other can multiply the walk without a cycle:
	// every folder visit counts against the file limit too.
	w.visits++
	if w.visits > w.lim.MaxFiles {
		return w.stop(CodeTooManyFiles, rel, "the walk visits more than %d folders (links inside the package multiply it)", w.lim.MaxFiles)
	}
	w.active = append(w.active, abs)
	defer func() { w.active = w.active[:len(w.active)-1] }()
	d, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("opening directory %q: %w", displayRel(rel), err)
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	if err != nil {
		return fmt.Errorf("reading directory %q: %w", displayRel(rel), err)
	}
	slices.SortFunc(names, compareUTF16)
	for _, name := range names {
		if skipName(name) {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if err := w.entry(filepath.Join(abs, name), childRel, depth); err != nil {
			return err
		}
	}
	return nil
}

func (w *walker) entry(abs, rel string, depth int) error {
	fi, err := os.Lstat(abs)
	if err != nil {
		return fmt.Errorf("reading %s: %w", rel, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		var bad *linkProblem
		if abs, fi, bad = w.resolveLink(abs); bad != nil {
			if w.opts.SkipUnreadable && bad.code != CodeSymlinkEscapesPackage {
				return nil // dangling links and link loops are left out silently
			}
			return w.refuse(bad.code, rel, "%s", bad.msg)
		}
	}
	if w.opts.SkipUnreadable && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil
	}
	switch {
	case fi.Mode().IsRegular():
		return w.hashFile(abs, rel, fi)
	case fi.IsDir():
		if slices.Contains(w.active, abs) {
			return w.refuse(CodeSymlinkCycle, rel, "symbolic link loops back to a folder that contains it")
		}
		return w.walkDir(abs, rel, depth+1)
	default:
		return w.refuse(CodeSpecialFile, rel, "special file (%s) is not allowed in a package", fi.Mode().Type())
	}
}

// linkProblem says why a symbolic link is refused.
type linkProblem struct{ code, msg string }

// resolveLink classifies a symbolic link without opening what it points to.
func (w *walker) resolveLink(abs string) (string, os.FileInfo, *linkProblem) {
	written, _ := os.Readlink(abs)
	st, err := os.Stat(abs)
	var target string
	if err == nil {
		target, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		switch {
		case errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links"):
			return "", nil, &linkProblem{CodeSymlinkCycle, fmt.Sprintf("symbolic link -> %q loops", written)}
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return "", nil, &linkProblem{CodeDanglingSymlink, fmt.Sprintf("symbolic link -> %q points to nothing", written)}
		default:
			return "", nil, &linkProblem{CodeDanglingSymlink, fmt.Sprintf("symbolic link -> %q cannot be resolved: %v", written, err)}
		}
	}
	if !w.opts.FollowEscapingLinks && !within(w.root, target) {
		return "", nil, &linkProblem{CodeSymlinkEscapesPackage, fmt.Sprintf("symbolic link -> %q leaves the package", written)}
	}
	return target, st, nil
}

func (w *walker) hashFile(abs, rel string, fi os.FileInfo) error {
	if w.entries() >= w.lim.MaxFiles {
		return w.stop(CodeTooManyFiles, rel, "package has more than %d files", w.lim.MaxFiles)
	}
	if fi.Size() > w.lim.MaxFileBytes {
		return w.stop(CodeFileTooLarge, rel, "file has %d bytes; the limit is %d", fi.Size(), w.lim.MaxFileBytes)
	}
	if w.total+fi.Size() > w.lim.MaxTotalBytes || w.total+fi.Size() < w.total {
		return w.stop(CodeFileTooLarge, rel, "package grows past %d bytes with this file", w.lim.MaxTotalBytes)
	}
	// O_NONBLOCK: should the file have become a FIFO since Lstat, opening it must not hang.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", rel, err)
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return w.refuse(CodeSpecialFile, rel, "file changed into a special file while being read")
	}
	var r io.Reader = f
	if w.lim.MaxFileBytes < math.MaxInt64 {
		r = io.LimitReader(f, w.lim.MaxFileBytes+1)
	}
	_, _ = io.WriteString(w.h, rel)
	_, _ = w.h.Write([]byte{0})
	n, err := io.CopyBuffer(w.h, r, w.buf)
	if err != nil {
		return fmt.Errorf("reading %s: %w", rel, err)
	}
	if n > w.lim.MaxFileBytes {
		return w.stop(CodeFileTooLarge, rel, "file grew past %d bytes while being read", w.lim.MaxFileBytes)
	}
	_, _ = w.h.Write([]byte{0})
	w.total += n
	w.files = append(w.files, File{Path: rel, Size: n})
	return nil
}

// within reports whether path is root or lies below it (both resolved).
func within(root, path string) bool {
	if path == root {
		return true
	}
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// compareUTF16 orders names by UTF-16 code units, as JavaScript's default
// sort does (SPEC-NOTES, packageHash); equal encodings fall back to bytes.
func compareUTF16(a, b string) int {
	if c := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func displayRel(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
