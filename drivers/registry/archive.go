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
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("registry: archiving %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}
