package harness

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The export reader finds values as written and inside zip and
// gzip-compressed tar members, and refuses files outside the export folder.
func TestExportTextReadsFilesAndArchives(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("storage.json")
	w.Write([]byte(`{"k":"in-zip"}`))
	zw.Close()
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	body := []byte(`{"k":"in-tar"}`)
	tw.WriteHeader(&tar.Header{Name: "storage.json", Mode: 0o644, Size: int64(len(body))})
	tw.Write(body)
	tw.Close()
	gz.Close()
	files := []string{write("plain.json", []byte(`{"k":"as-written"}`)), write("e.zip", zb.Bytes()), write("e.tar.gz", tb.Bytes())}
	text, err := ExportText(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"as-written", "in-zip", "in-tar"} {
		if !bytes.Contains(text, []byte(v)) {
			t.Errorf("the export text does not hold %q", v)
		}
	}

	outside := filepath.Join(t.TempDir(), "elsewhere.json")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{outside, link, filepath.Join(dir, "missing.json")} {
		if _, err := ExportText(dir, []string{f}); err == nil {
			t.Errorf("exportText accepted %s", f)
		} else if !strings.Contains(err.Error(), f) {
			t.Errorf("the error does not name %s: %v", f, err)
		}
	}
}

// A flood is refused, never read whole.
func TestReadAtMostRefusesMoreThanTheLimit(t *testing.T) {
	if _, err := readAtMost(strings.NewReader("12345"), 4); err != errExportTooLarge {
		t.Errorf("5 bytes with a limit of 4: %v", err)
	}
	if b, err := readAtMost(strings.NewReader("1234"), 4); err != nil || string(b) != "1234" {
		t.Errorf("4 bytes with a limit of 4: %q %v", b, err)
	}
}
