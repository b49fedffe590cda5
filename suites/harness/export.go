package harness

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxExportBytes bounds what the harness reads of an export: a host that
// answers with a flood fails the check at hand, never the harness.
const maxExportBytes = 64 << 20

// ExportText reads the files an export then delete answer lists, each of
// which must lie inside dir, and returns their bytes with the members of
// any zip or gzip-compressed tar among them (docs/decisions.md, "Export
// then delete": any format, as written or in those archives).
func ExportText(dir string, files []string) ([]byte, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("the export folder %s: %w", dir, err)
	}
	var out bytes.Buffer
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			return nil, fmt.Errorf("exported file %s: %w", f, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("exported file %s lies outside the export folder %s", f, dir)
		}
		b, err := readBounded(real, maxExportBytes-int64(out.Len()))
		if err != nil {
			return nil, fmt.Errorf("exported file %s: %w", f, err)
		}
		out.Write(b)
		out.WriteByte('\n')
		members, err := archiveMembers(b, maxExportBytes-int64(out.Len()))
		if err != nil {
			return nil, fmt.Errorf("exported file %s: %w", f, err)
		}
		out.Write(members)
	}
	return out.Bytes(), nil
}

// errExportTooLarge is an export beyond maxExportBytes.
var errExportTooLarge = fmt.Errorf("the export is larger than the %d bytes the harness reads", maxExportBytes)

// readBounded reads at most limit bytes of path.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, limit)
}

// readAtMost reads r to its end, failing when it holds more than limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		return nil, errExportTooLarge
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errExportTooLarge
	}
	return b, nil
}

// archiveMembers is the content of every member of b when b is a zip or a
// gzip-compressed tar, and nothing otherwise.
func archiveMembers(b []byte, limit int64) ([]byte, error) {
	var out bytes.Buffer
	add := func(r io.Reader) error {
		m, err := readAtMost(r, limit-int64(out.Len()))
		out.Write(m)
		out.WriteByte('\n')
		return err
	}
	if zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b))); err == nil {
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("zip member %s: %w", f.Name, err)
			}
			err = add(rc)
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("zip member %s: %w", f.Name, err)
			}
		}
		return out.Bytes(), nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, nil
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("gzip-compressed tar: %w", err)
		}
		if err := add(tr); err != nil {
			return nil, fmt.Errorf("tar member %s: %w", h.Name, err)
		}
	}
}
