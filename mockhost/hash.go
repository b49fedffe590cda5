package mockhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/agentapp/conformance/drivers/agentpkg"
)

// fullPathSortHash is the packageHash of the hash-full-path-sort fault: the
// same files and framing as the standard's algorithm (SPEC-NOTES,
// packageHash), but ordered by their whole relative path compared bytewise
// instead of directory by directory. It differs as soon as a name sorts
// between a folder and that folder's children ("a.txt" vs "a/b").
func fullPathSortHash(dir string, files []agentpkg.File) (string, error) {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	slices.Sort(paths)
	return hashFiles(dir, paths)
}

func hashFiles(dir string, paths []string) (string, error) {
	h := sha256.New()
	for _, rel := range paths {
		if err := hashOne(h, dir, rel); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hashOne feeds path, NUL, bytes, NUL of one file agentpkg already vetted.
func hashOne(h io.Writer, dir, rel string) error {
	f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("hashing %s: %w", rel, err)
	}
	defer func() { _ = f.Close() }()
	_, _ = io.WriteString(h, rel)
	_, _ = h.Write([]byte{0})
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("hashing %s: %w", rel, err)
	}
	_, _ = h.Write([]byte{0})
	return nil
}
