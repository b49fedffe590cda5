package registry

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Archive packs the package folder dir the way the harness serves
// packages (docs/host-control-protocol.md, "Package archives"): a zip
// whose root is the package root, one entry per regular file and folder,
// forward-slash relative names, no links. The package hash is that of the
// unpacked tree, never of the archive's bytes.
func Archive(dir string) ([]byte, error) {
	return ArchiveWith(dir)
}

// Entry is one more entry a spec plants in an archive, as it is: its name
// is not cleaned, so it may be absolute, climb out or hold a backslash.
type Entry struct {
	Name string
	Body string
	// Link makes the entry a symbolic link to Body.
	Link bool
}

// ArchiveWith is Archive of dir with the entries extra added after the
// package's own.
func ArchiveWith(dir string, extra ...Entry) ([]byte, error) {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == dir {
			return nil
		}
		if !d.Type().IsRegular() && !d.IsDir() {
			return fmt.Errorf("%s: only files and folders are archived", path)
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("registry: archiving %s: %w", dir, err)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, path := range names {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return nil, fmt.Errorf("registry: archiving %s: %w", path, err)
		}
		name := filepath.ToSlash(rel)
		info, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("registry: archiving %s: %w", path, err)
		}
		if info.IsDir() {
			if _, err := zw.Create(name + "/"); err != nil {
				return nil, fmt.Errorf("registry: archiving %s: %w", path, err)
			}
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("registry: archiving %s: %w", path, err)
		}
		w, err := zw.Create(name)
		if err != nil {
			return nil, fmt.Errorf("registry: archiving %s: %w", path, err)
		}
		if _, err := w.Write(b); err != nil {
			return nil, fmt.Errorf("registry: archiving %s: %w", path, err)
		}
	}
	for _, e := range extra {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate}
		h.SetMode(0o644)
		if e.Link {
			h.SetMode(fs.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, fmt.Errorf("registry: archiving the entry %q: %w", e.Name, err)
		}
		if _, err := w.Write([]byte(e.Body)); err != nil {
			return nil, fmt.Errorf("registry: archiving the entry %q: %w", e.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("registry: archiving %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}
