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
// inside the package are hashed as what they point to; links leaving it,
// dangling links, link cycles and special files are a *PackageError.
func HashPackage(dir string, opts LoadOptions) (packageHash string, files []File, err error) {
	root, err := packageRoot(dir)
	if err != nil {
		return "", nil, err
	}
	w := &walker{
		root: root,
		opts: opts,
		lim:  opts.Limits.withDefaults(),
		h:    sha256.New(),
		buf:  make([]byte, 256<<10),
	}
	if err := w.walkDir(root, "", 0); err != nil {
		return "", nil, err
	}
	return "sha256:" + hex.EncodeToString(w.h.Sum(nil)), w.files, nil
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

type walker struct {
	root   string // package root, links resolved
	opts   LoadOptions
	lim    Limits
	h      hash.Hash
	buf    []byte
	files  []File
	total  int64
	active []string // resolved directories being walked, for cycle detection
	visits int      // folders visited, links included
}

func (w *walker) fail(code, rel, format string, args ...any) error {
	return &PackageError{Findings: []Finding{finding(code, SeverityError, rel, "", format, args...)}}
}

func (w *walker) walkDir(abs, rel string, depth int) error {
	if depth > maxWalkDepth {
		return w.fail(CodeSymlinkCycle, rel, "directories nest deeper than %d levels", maxWalkDepth)
	}
	// Links that stay inside the package are walked as their targets, so
	// folders linking to each other can multiply the walk without a cycle:
	// every folder visit counts against the file limit too.
	w.visits++
	if w.visits > w.lim.MaxFiles {
		return w.fail(CodeTooManyFiles, rel, "the walk visits more than %d folders (links inside the package multiply it)", w.lim.MaxFiles)
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
		if abs, fi, err = w.resolveLink(abs, rel); err != nil {
			if w.opts.SkipUnreadable && isUnreadable(err) {
				return nil
			}
			return err
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
			return w.fail(CodeSymlinkCycle, rel, "symbolic link loops back to a folder that contains it")
		}
		return w.walkDir(abs, rel, depth+1)
	default:
		return w.fail(CodeSpecialFile, rel, "special file (%s) is not allowed in a package", fi.Mode().Type())
	}
}

// resolveLink classifies a symbolic link without opening what it points to.
func (w *walker) resolveLink(abs, rel string) (string, os.FileInfo, error) {
	written, _ := os.Readlink(abs)
	st, err := os.Stat(abs)
	var target string
	if err == nil {
		target, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		switch {
		case errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links"):
			return "", nil, w.fail(CodeSymlinkCycle, rel, "symbolic link -> %q loops", written)
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return "", nil, w.fail(CodeDanglingSymlink, rel, "symbolic link -> %q points to nothing", written)
		default:
			return "", nil, w.fail(CodeDanglingSymlink, rel, "symbolic link -> %q cannot be resolved: %v", written, err)
		}
	}
	if !w.opts.FollowEscapingLinks && !within(w.root, target) {
		return "", nil, w.fail(CodeSymlinkEscapesPackage, rel, "symbolic link -> %q leaves the package", written)
	}
	return target, st, nil
}

func (w *walker) hashFile(abs, rel string, fi os.FileInfo) error {
	if len(w.files) >= w.lim.MaxFiles {
		return w.fail(CodeTooManyFiles, rel, "package has more than %d files", w.lim.MaxFiles)
	}
	if fi.Size() > w.lim.MaxFileBytes {
		return w.fail(CodeFileTooLarge, rel, "file has %d bytes; the limit is %d", fi.Size(), w.lim.MaxFileBytes)
	}
	if w.total+fi.Size() > w.lim.MaxTotalBytes || w.total+fi.Size() < w.total {
		return w.fail(CodeFileTooLarge, rel, "package grows past %d bytes with this file", w.lim.MaxTotalBytes)
	}
	// O_NONBLOCK: should the file have become a FIFO since Lstat, opening it must not hang.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", rel, err)
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return w.fail(CodeSpecialFile, rel, "file changed into a special file while being read")
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
		return w.fail(CodeFileTooLarge, rel, "file grew past %d bytes while being read", w.lim.MaxFileBytes)
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

// isUnreadable reports walk errors that SkipUnreadable passes over: links
// that dangle or loop (never links that leave the package).
func isUnreadable(err error) bool {
	var pe *PackageError
	if !errors.As(err, &pe) {
		return false
	}
	for _, f := range pe.Findings {
		if f.Code != CodeDanglingSymlink && f.Code != CodeSymlinkCycle {
			return false
		}
	}
	return len(pe.Findings) > 0
}
