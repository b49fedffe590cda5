//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// TestValidateListsEveryPlantedProblemInOneRun: a package with an escaping
// link, a dangling link, a FIFO and ../ references needs one validate run to
// see them all, one line each naming the file (and the field when there is one).
func TestValidateListsEveryPlantedProblemInOneRun(t *testing.T) {
	dir, err := platformconformance.Materialize("parent-ref", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("s3cr3t"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "leak.txt")); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	if err := os.Symlink("missing.txt", filepath.Join(dir, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "run", "pipe"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}

	code, stdout, stderr := runCLI(t, "validate", dir)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d; stdout %q", code, exitFailed, stdout)
	}
	wantLines := []string{
		"leak.txt: symbolic link",                    // [symlink-escapes-package]
		"dangling.txt: symbolic link",                // [dangling-symlink]
		"run/pipe: special file",                     // [special-file]
		"APP.md: field runtimePackage.ui.path: path", // [path-escapes-package]
		"APP.md: field entries[0].persona: path",     // [path-escapes-package]
	}
	wantCodes := []string{"symlink-escapes-package", "dangling-symlink", "special-file", "path-escapes-package", "path-escapes-package"}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i, want := range wantLines {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, "error: "+want) && strings.HasSuffix(l, "["+wantCodes[i]+"]") {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q ... [%s]; stderr:\n%s", want, wantCodes[i], stderr)
		}
	}
	if strings.Contains(stderr, "s3cr3t") {
		t.Errorf("validate quoted the file outside the package:\n%s", stderr)
	}
}

// A finding names a file of the package as the package spells it, and the
// package is not trusted: a file name with an escape sequence, a carriage
// return, a newline or invalid UTF-8 prints quoted, on one line.
func TestValidateQuotesHostileFileNames(t *testing.T) {
	dir, err := platformconformance.Materialize("minimal-app", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := "evil\x1b[2K\rdesktop-p0 passed\n\xff.txt"
	if err := os.Symlink("missing.txt", filepath.Join(dir, name)); err != nil {
		t.Skipf("this filesystem refuses the name: %v", err)
	}
	code, _, stderr := runCLI(t, "validate", dir)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitFailed, stderr)
	}
	if strings.ContainsAny(stderr, "\r\x1b") || !utf8.ValidString(stderr) {
		t.Errorf("the file name reached the terminal raw: %q", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	found := false
	for _, l := range lines {
		if strings.HasPrefix(l, "desktop-p0") {
			t.Errorf("the file name started a line: %q", l)
		}
		if strings.Contains(l, `evil\x1b[2K\rdesktop-p0 passed\n\xff.txt`) && strings.HasSuffix(l, "[dangling-symlink]") {
			found = true
		}
	}
	if !found {
		t.Errorf("no line names the file quoted as a dangling link:\n%s", stderr)
	}
}
