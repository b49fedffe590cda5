package mockhost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/agentapp/conformance/drivers/agentpkg"
)

// hashVariant is how a host with a hash fault computes packageHash: the
// standard's framing (SPEC-NOTES, packageHash: path, NUL, bytes, NUL per
// file) over the files agentpkg vetted, with one thing done wrong.
type hashVariant struct {
	// fullPathSort orders files by their whole relative path compared
	// bytewise instead of folder by folder: it differs as soon as a name
	// sorts between a folder and that folder's children ("a.txt" vs "a/b").
	fullPathSort bool
	skipDotfiles bool // leaves out files with a path segment starting with "."
	skipEmpty    bool // leaves out files with no bytes
	lfOnly       bool // hashes CRLF line ends as LF, as a checkout would
	contentOnly  bool // hashes the bytes without the file names
}

func (v hashVariant) wrong() bool { return v != hashVariant{} }

// hash computes the variant's packageHash of dir.
func (v hashVariant) hash(dir string, files []agentpkg.File) (string, error) {
	paths := make([]string, 0, len(files))
	for _, f := range files {
		if (v.skipDotfiles && hidden(f.Path)) || (v.skipEmpty && f.Size == 0) {
			continue
		}
		paths = append(paths, f.Path)
	}
	if v.fullPathSort {
		slices.Sort(paths)
	}
	h := sha256.New()
	for _, rel := range paths {
		if err := v.hashOne(h, dir, rel); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hidden reports whether a path segment starts with ".".
func hidden(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

// hashOne feeds path, NUL, bytes, NUL of one file agentpkg already vetted.
func (v hashVariant) hashOne(h io.Writer, dir, rel string) error {
	f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("hashing %s: %w", rel, err)
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("hashing %s: %w", rel, err)
	}
	if v.lfOnly {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	}
	if !v.contentOnly {
		_, _ = io.WriteString(h, rel)
		_, _ = h.Write([]byte{0})
	}
	_, _ = h.Write(b)
	_, _ = h.Write([]byte{0})
	return nil
}
