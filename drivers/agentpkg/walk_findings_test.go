package agentpkg

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plantProblems writes a valid package whose APP.md climbs out with ../ and
// beside it an escaping link, a dangling link, a link cycle and a FIFO. It
// returns the folder and, for each planted entry, the code the walk must
// report for it.
func plantProblems(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"APP.md":    appMD(requiredFields + "storage:\n  namespace: x\n  schema: ../outside/schema.json\n"),
		"a/ok.txt":  "fine",
		"zz-ok.txt": "fine too",
	})
	outside := filepath.Join(t.TempDir(), "secret")
	writeTree(t, filepath.Dir(outside), map[string]string{"secret": "s3cr3t"})
	links := map[string]string{"b-leak": outside, "c-dangling": "nowhere.txt", "d-loop1": "d-loop2", "d-loop2": "d-loop1"}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	if err := mkfifo(filepath.Join(dir, "a", "pipe")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	return dir, map[string]string{
		"a/pipe":     CodeSpecialFile,
		"b-leak":     CodeSymlinkEscapesPackage,
		"c-dangling": CodeDanglingSymlink,
		"d-loop1":    CodeSymlinkCycle,
		"d-loop2":    CodeSymlinkCycle,
	}
}

// walkFindings returns file -> code of the findings in err, failing on
// anything but a *PackageError.
func walkFindings(t *testing.T, err error) []Finding {
	t.Helper()
	var pe *PackageError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *PackageError, got %v", err)
	}
	return pe.Findings
}

func TestWalkReportsEveryProblemAtOnce(t *testing.T) {
	dir, want := plantProblems(t)
	_, _, err := HashPackage(dir, LoadOptions{})
	got := map[string]string{}
	for _, f := range walkFindings(t, err) {
		got[f.File] = f.Code
		if !strings.HasPrefix(f.Message, f.File+": ") {
			t.Errorf("message does not name the file: %+v", f)
		}
	}
	if len(got) != len(want) {
		t.Errorf("findings = %v, want %v", got, want)
	}
	for file, code := range want {
		if got[file] != code {
			t.Errorf("%s: code %q, want %q (all: %v)", file, got[file], code, got)
		}
	}
}

func TestLoadListsWalkAndManifestFindingsTogether(t *testing.T) {
	dir, want := plantProblems(t)
	_, err := Load(dir, LoadOptions{})
	fs := walkFindings(t, err)
	var files []string
	for _, f := range fs[:len(want)] {
		files = append(files, f.File)
	}
	if !slices.Equal(files, []string{"a/pipe", "b-leak", "c-dangling", "d-loop1", "d-loop2"}) {
		t.Errorf("walk findings first, in walk order: got %v", files)
	}
	f, ok := hasCode(fs, CodePathEscapesPackage)
	if !ok || f.File != ManifestFile || f.Field != "storage.schema" {
		t.Errorf("the ../ reference is not reported with the walk's findings: %v", fs)
	}
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("a finding quotes the file outside: %v", err)
	}
}

// TestRefusedLayeredFileIsNotRead: a layered file that is a link leaving the
// package is refused by the walk and never parsed, though the manifest is.
func TestRefusedLayeredFileIsNotRead(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"APP.md": minimalAppMD})
	outside := filepath.Join(t.TempDir(), "entries.yaml")
	writeTree(t, filepath.Dir(outside), map[string]string{"entries.yaml": "entries: [unclosed\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "app.entries.yaml")); err != nil {
		t.Skip(err)
	}
	_, err := Load(dir, LoadOptions{})
	for _, f := range walkFindings(t, err) {
		if f.File == "app.entries.yaml" && f.Code != CodeSymlinkEscapesPackage {
			t.Errorf("the file outside was parsed: %+v", f)
		}
	}
	if _, ok := hasCode(walkFindings(t, err), CodeSymlinkEscapesPackage); !ok {
		t.Errorf("escaping layered file not reported: %v", err)
	}
}

// TestRefusedManifestIsNotRead: when APP.md itself is refused, its walk
// finding is the whole answer (no "missing APP.md", nothing read through it).
func TestRefusedManifestIsNotRead(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "APP.md")
	writeTree(t, filepath.Dir(outside), map[string]string{"APP.md": "---\nname: [unclosed\n---\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "APP.md")); err != nil {
		t.Skip(err)
	}
	_, err := Load(dir, LoadOptions{})
	fs := walkFindings(t, err)
	if len(fs) != 1 || fs[0].Code != CodeSymlinkEscapesPackage || fs[0].File != ManifestFile {
		t.Errorf("findings = %v, want only APP.md's symlink-escapes-package", fs)
	}
}

// TestWalkLimitsStillStopTheWalk: refused entries count against MaxFiles,
// and a limit ends the walk: nothing after it is looked at or reported.
func TestWalkLimitsStillStopTheWalk(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"APP.md": minimalAppMD})
	for _, name := range []string{"d1", "d2", "d3", "d4", "d5"} {
		if err := os.Symlink("nowhere", filepath.Join(dir, name)); err != nil {
			t.Skip(err)
		}
	}
	_, err := Load(dir, LoadOptions{Limits: Limits{MaxFiles: 3}})
	fs := walkFindings(t, err)
	var codes []string
	for _, f := range fs {
		codes = append(codes, f.Code)
	}
	// APP.md and d1, d2 fill the limit; d3 is one entry too many.
	want := []string{CodeDanglingSymlink, CodeDanglingSymlink, CodeTooManyFiles}
	if !slices.Equal(codes, want) || fs[2].File != "d3" {
		t.Errorf("findings = %v, want %v ending at d3", fs, want)
	}

	dir = t.TempDir()
	writeTree(t, dir, map[string]string{"APP.md": minimalAppMD, "b-big": minimalAppMD + "!"})
	if err := os.Symlink("nowhere", filepath.Join(dir, "c-dangling")); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir, LoadOptions{Limits: Limits{MaxFileBytes: int64(len(minimalAppMD))}})
	if fs := walkFindings(t, err); len(fs) != 1 || fs[0].Code != CodeFileTooLarge || fs[0].File != "b-big" {
		t.Errorf("findings = %v, want the walk to stop at b-big", fs)
	}
}

// TestSkipUnreadableStillLeavesOutQuietly: the skip-unreadable-files fault
// drops dangling links, link loops and special files but not escaping links.
func TestSkipUnreadableStillLeavesOutQuietly(t *testing.T) {
	dir, _ := plantProblems(t)
	_, _, err := HashPackage(dir, LoadOptions{SkipUnreadable: true})
	fs := walkFindings(t, err)
	if len(fs) != 1 || fs[0].File != "b-leak" || fs[0].Code != CodeSymlinkEscapesPackage {
		t.Errorf("findings = %v, want only b-leak's escape", fs)
	}
	if err := os.Remove(filepath.Join(dir, "b-leak")); err != nil {
		t.Fatal(err)
	}
	if _, files, err := HashPackage(dir, LoadOptions{SkipUnreadable: true}); err != nil || len(files) != 3 {
		t.Errorf("files = %v, err = %v; want APP.md, a/ok.txt and zz-ok.txt", files, err)
	}
}
