package agentpkg

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHashPackageMatchesHandBuiltStream(t *testing.T) {
	files := map[string]string{
		"APP.md":           "app\n",
		"a/b.txt":          "ab",
		"a-b/c.txt":        "abc",
		"a.txt":            "a",
		"\U0001F600.txt":   "emoji",
		"\uFF5A.txt":       "fullwidth z",
		"Z.txt":            "upper",
		"dir/sub/deep.bin": "\x00\x01\x02",
	}
	dir := t.TempDir()
	writeTree(t, dir, files)
	// Per directory, UTF-16 order: "APP.md" < "Z.txt" < "a" (dir) < "a-b" <
	// "a.txt" < "dir" < U+1F600 (0xD83D) < U+FF5A.
	order := []string{"APP.md", "Z.txt", "a/b.txt", "a-b/c.txt", "a.txt", "dir/sub/deep.bin", "\U0001F600.txt", "\uFF5A.txt"}
	want := stream(order, files)
	got, list, err := HashPackage(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got != sha(want) {
		t.Errorf("hash = %s, want %s", got, sha(want))
	}
	if ref := sha256sum(t, want); ref != "" && ref != got {
		t.Errorf("hash = %s, sha256sum of the stream = %s", got, ref)
	}
	var paths []string
	for _, f := range list {
		paths = append(paths, f.Path)
	}
	if !slices.Equal(paths, order) {
		t.Errorf("files = %q, want %q", paths, order)
	}
}

func TestUTF16OrderDiffersFromByteOrder(t *testing.T) {
	emoji, fw := "\U0001F600.txt", "\uFF5A.txt"
	if compareUTF16(emoji, fw) >= 0 {
		t.Error("U+1F600 must sort before U+FF5A as UTF-16 code units")
	}
	if strings.Compare(emoji, fw) <= 0 {
		t.Error("precondition: U+1F600 sorts after U+FF5A as UTF-8 bytes")
	}
	files := map[string]string{emoji: "1", fw: "2"}
	dir := t.TempDir()
	writeTree(t, dir, files)
	got, _, err := HashPackage(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got != sha(stream([]string{emoji, fw}, files)) {
		t.Error("hash does not follow UTF-16 order")
	}
	if got == sha(stream([]string{fw, emoji}, files)) {
		t.Error("hash follows byte order")
	}
}

func TestPerDirectorySortNotFullPath(t *testing.T) {
	files := map[string]string{"a/b.txt": "1", "a-b/c.txt": "2"}
	dir := t.TempDir()
	writeTree(t, dir, files)
	got, _, err := HashPackage(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Per directory "a" < "a-b"; by full path "a-b/c.txt" < "a/b.txt" ('-' < '/').
	if got != sha(stream([]string{"a/b.txt", "a-b/c.txt"}, files)) {
		t.Error("hash does not sort each directory on its own")
	}
	if got == sha(stream([]string{"a-b/c.txt", "a/b.txt"}, files)) {
		t.Error("hash sorts by full path")
	}
}

func TestSkipsNodeModulesGitAndEmptyDirs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"APP.md": "x", "sub/keep.txt": "k"}
	writeTree(t, dir, files)
	writeTree(t, dir, map[string]string{
		"node_modules/dep/index.js": "skip", "sub/node_modules/x.js": "skip",
		".git/HEAD": "skip", "sub/.git": "skip (a file named .git)",
	})
	if err := os.MkdirAll(filepath.Join(dir, "empty", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, list, err := HashPackage(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := sha(stream([]string{"APP.md", "sub/keep.txt"}, files)); got != want {
		t.Errorf("hash = %s, want %s (files %v)", got, want, list)
	}
}

func TestModeAndMtimeNotHashed(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.sh": "#!/bin/sh\n"})
	h1, _, _ := HashPackage(dir, LoadOptions{})
	p := filepath.Join(dir, "a.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	h2, _, _ := HashPackage(dir, LoadOptions{})
	if h1 != h2 {
		t.Error("mode or mtime changed the hash")
	}
}

func TestSymlinkInsideIsHashedAsTarget(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"real/f.txt": "content", "z.txt": "z"}
	writeTree(t, dir, files)
	if err := os.Symlink("real/f.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	got, _, err := HashPackage(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"link.txt": "content", "linkdir/f.txt": "content", "real/f.txt": "content", "z.txt": "z"}
	if want := sha(stream([]string{"link.txt", "linkdir/f.txt", "real/f.txt", "z.txt"}, all)); got != want {
		t.Errorf("hash = %s, want %s", got, want)
	}
}

func TestBadLinksAndSpecialFilesRejected(t *testing.T) {
	cases := map[string]struct {
		make func(t *testing.T, dir string) error
		code string
	}{
		"escaping file": {func(t *testing.T, dir string) error {
			outside := filepath.Join(t.TempDir(), "secret")
			writeTree(t, filepath.Dir(outside), map[string]string{"secret": "s"})
			return os.Symlink(outside, filepath.Join(dir, "leak"))
		}, CodeSymlinkEscapesPackage},
		"escaping relative": {func(t *testing.T, dir string) error {
			return os.Symlink("../../../../../../../../etc", filepath.Join(dir, "etc"))
		}, CodeSymlinkEscapesPackage},
		"dangling": {func(t *testing.T, dir string) error {
			return os.Symlink("nowhere.txt", filepath.Join(dir, "dangling"))
		}, CodeDanglingSymlink},
		"link cycle": {func(t *testing.T, dir string) error {
			if err := os.Symlink("b", filepath.Join(dir, "a")); err != nil {
				return err
			}
			return os.Symlink("a", filepath.Join(dir, "b"))
		}, CodeSymlinkCycle},
		"directory loop": {func(t *testing.T, dir string) error {
			writeTree(t, dir, map[string]string{"d/f.txt": "f"})
			return os.Symlink("..", filepath.Join(dir, "d", "up"))
		}, CodeSymlinkCycle},
		"fifo": {func(t *testing.T, dir string) error {
			return mkfifo(filepath.Join(dir, "pipe"))
		}, CodeSpecialFile},
		"link to fifo": {func(t *testing.T, dir string) error {
			if err := mkfifo(filepath.Join(dir, "pipe")); err != nil {
				return err
			}
			return os.Symlink("pipe", filepath.Join(dir, "a-link"))
		}, CodeSpecialFile},
	}
	for name, tc := range cases {
		for _, follow := range []bool{false, true} {
			if follow && tc.code == CodeSymlinkEscapesPackage {
				continue
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				writeTree(t, dir, map[string]string{"APP.md": minimalAppMD})
				if err := tc.make(t, dir); err != nil {
					t.Skipf("cannot build the case here: %v", err)
				}
				done := make(chan error, 1)
				go func() { _, _, err := HashPackage(dir, LoadOptions{FollowEscapingLinks: follow}); done <- err }()
				var err error
				select {
				case err = <-done:
				case <-time.After(20 * time.Second):
					t.Fatal("HashPackage hangs")
				}
				if codes := errCodes(t, err); !slices.Contains(codes, tc.code) {
					t.Errorf("codes = %v, want %s", codes, tc.code)
				}
				if _, err := Load(dir, LoadOptions{}); err == nil {
					t.Error("Load accepted the package")
				}
			})
		}
	}
}

func TestFollowEscapingLinksHashesOutsideFile(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret": "s3cr3t"})
	writeTree(t, dir, map[string]string{"APP.md": "x"})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "leak")); err != nil {
		t.Skip(err)
	}
	got, _, err := HashPackage(dir, LoadOptions{FollowEscapingLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := sha(stream([]string{"APP.md", "leak"}, map[string]string{"APP.md": "x", "leak": "s3cr3t"})); got != want {
		t.Errorf("hash = %s, want the reference CLI's %s", got, want)
	}
}

func TestWalkLimits(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a": "1", "b": "2", "c": "333333"})
	_, _, err := HashPackage(dir, LoadOptions{Limits: Limits{MaxFiles: 2}})
	if codes := errCodes(t, err); !slices.Contains(codes, CodeTooManyFiles) {
		t.Errorf("codes = %v", codes)
	}
	_, _, err = HashPackage(dir, LoadOptions{Limits: Limits{MaxFileBytes: 5}})
	if codes := errCodes(t, err); !slices.Contains(codes, CodeFileTooLarge) {
		t.Errorf("codes = %v", codes)
	} else if f := err.(*PackageError).Findings[0]; f.File != "c" || !strings.HasPrefix(f.Message, "c: ") {
		t.Errorf("finding does not name the file: %+v", f)
	}
	_, _, err = HashPackage(dir, LoadOptions{Limits: Limits{MaxTotalBytes: 4}})
	if codes := errCodes(t, err); !slices.Contains(codes, CodeFileTooLarge) {
		t.Errorf("codes = %v", codes)
	}
	if _, _, err := HashPackage(filepath.Join(dir, "missing"), LoadOptions{}); err == nil {
		t.Error("a missing folder hashed")
	}
}

// TestLinksInsideThePackageCannotMultiplyTheWalk: folders that each link
// twice to the next would make 2^40 visits; the walk must refuse quickly.
func TestLinksInsideThePackageCannotMultiplyTheWalk(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "APP.md"), []byte("---\nname: x\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 40
	for i := 0; i < n; i++ {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n-1; i++ {
		for _, l := range []string{"a", "b"} {
			if err := os.Symlink(filepath.Join(dir, fmt.Sprintf("d%d", i+1)), filepath.Join(dir, fmt.Sprintf("d%d", i), l)); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, _, err := HashPackage(dir, LoadOptions{})
	var pe *PackageError
	if !errors.As(err, &pe) || pe.Findings[0].Code != CodeTooManyFiles {
		t.Fatalf("want a too-many-files refusal, got %v", err)
	}
}
