package agentpkg

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// bigPackage writes a ~50 MB package (48 files of 1 MiB and 200 small ones)
// and returns its folder, total bytes and the hash stream in a file.
func bigPackage(b *testing.B) (dir string, total int64, streamFile string) {
	b.Helper()
	dir = filepath.Join(b.TempDir(), "pkg")
	files := map[string]string{"APP.md": minimalAppMD}
	for i := range 48 {
		blob := make([]byte, 1<<20)
		_, _ = rand.Read(blob)
		files[fmt.Sprintf("dist/blob-%02d.bin", i)] = string(blob)
	}
	for i := range 200 {
		files[fmt.Sprintf("src/m%03d/file.js", i)] = fmt.Sprintf("export const n = %d;\n", i)
	}
	writeTree(b, dir, files)
	_, list, err := HashPackage(dir, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	order := make([]string, 0, len(list))
	for _, f := range list {
		order = append(order, f.Path)
		total += f.Size
	}
	streamFile = filepath.Join(b.TempDir(), "stream")
	if err := os.WriteFile(streamFile, stream(order, files), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, total, streamFile
}

func BenchmarkHashPackage(b *testing.B) {
	dir, total, _ := bigPackage(b)
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := HashPackage(dir, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSha256sum hashes the same byte stream with the system's sha256sum, for comparison.
func BenchmarkSha256sum(b *testing.B) {
	bin, err := exec.LookPath("sha256sum")
	if err != nil {
		b.Skip("sha256sum not installed")
	}
	_, total, streamFile := bigPackage(b)
	b.SetBytes(total)
	b.ResetTimer()
	for b.Loop() {
		if out, err := exec.Command(bin, streamFile).Output(); err != nil || !bytes.Contains(out, []byte(" ")) {
			b.Fatal(err)
		}
	}
}

func fullApp(b *testing.B) (string, []byte) {
	dir, err := platformconformance.Materialize("full-app", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		b.Fatal(err)
	}
	return dir, raw
}

// BenchmarkValidate parses APP.md and every layered file of full-app and validates them.
func BenchmarkValidate(b *testing.B) {
	dir, raw := fullApp(b)
	for b.Loop() {
		p := &Package{Dir: dir, Manifest: map[string]any{}, Sources: map[string]string{}}
		p.parse(raw, LoadOptions{})
		if !p.Valid() {
			b.Fatal(p.Findings)
		}
	}
}

func BenchmarkProject(b *testing.B) {
	dir, _ := fullApp(b)
	p, err := Load(dir, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	prof := Profile{Capabilities: defaultCaps()}
	for b.Loop() {
		if _, err := Project(p, prof); err != nil {
			b.Fatal(err)
		}
	}
}
