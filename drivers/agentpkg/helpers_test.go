package agentpkg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (slash paths -> content) below dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// stream builds the reference byte stream for files in the given order.
func stream(order []string, files map[string]string) []byte {
	var b bytes.Buffer
	for _, p := range order {
		b.WriteString(p)
		b.WriteByte(0)
		b.WriteString(files[p])
		b.WriteByte(0)
	}
	return b.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// sha256sum hashes b with the system's sha256sum, or returns "" when absent.
func sha256sum(t testing.TB, b []byte) string {
	t.Helper()
	bin, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Log("sha256sum not installed; skipping the cross-check with it")
		return ""
	}
	cmd := exec.Command(bin)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sha256sum: %v", err)
	}
	return "sha256:" + strings.Fields(string(out))[0]
}

// findingCodes returns the codes of a *PackageError, or fails.
func errCodes(t testing.TB, err error) []string {
	t.Helper()
	var pe *PackageError
	if !errors.As(err, &pe) {
		t.Fatalf("want *PackageError, got %v", err)
	}
	var codes []string
	for _, f := range pe.Findings {
		codes = append(codes, f.Code)
	}
	return codes
}

func codesOf(fs []Finding, severity string) []string {
	var codes []string
	for _, f := range fs {
		if severity == "" || f.Severity == severity {
			codes = append(codes, f.Code)
		}
	}
	return codes
}

func hasCode(fs []Finding, code string) (Finding, bool) {
	for _, f := range fs {
		if f.Code == code {
			return f, true
		}
	}
	return Finding{}, false
}

const minimalAppMD = "---\nname: demo-app\ndescription: Demo app.\nversion: 1.0.0\nstatus: ready\nappType: agent-app\nmanifestVersion: 0.10.0\n---\n# Demo\n"

// loadTree writes files below a temp dir and loads it.
func loadTree(t testing.TB, files map[string]string, opts LoadOptions) *Package {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, files)
	p, err := Load(dir, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}
