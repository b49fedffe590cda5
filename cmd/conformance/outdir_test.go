package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// readTree returns every file of a flat folder by name.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// names lists a folder's entries, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range entries {
		ns = append(ns, e.Name())
	}
	sort.Strings(ns)
	return ns
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

var oldReport = map[string]string{
	reports.ReportFile:     `{"old":"green"}`,
	reports.JUnitFile:      "<old/>",
	reports.EnvelopeFile:   `{"signed":"old"}`,
	reports.TranscriptFile: "old\n",
}

// TestReportDirCommitReplacesTheWholeFolder: after commit, --out holds the
// new run's files and nothing of the old one; nothing else stays beside it
// but the lock file.
func TestReportDirCommitReplacesTheWholeFolder(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	writeTree(t, out, oldReport)
	d, err := openReportDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(d.dir()) != parent || !strings.HasPrefix(filepath.Base(d.dir()), ".report.staging-") {
		t.Errorf("staging folder %s, want a hidden folder beside %s", d.dir(), out)
	}
	if !sameTree(readTree(t, out), oldReport) {
		t.Error("opening touched the previous report")
	}
	fresh := map[string]string{reports.ReportFile: `{"new":"red"}`, reports.TranscriptFile: "new\n"}
	writeTree(t, d.dir(), fresh)
	if err := d.commit(); err != nil {
		t.Fatal(err)
	}
	d.abort() // a deferred abort after commit does nothing
	if got := readTree(t, out); !sameTree(got, fresh) {
		t.Errorf("--out after commit = %v, want only %v", got, fresh)
	}
	if got := names(t, parent); strings.Join(got, " ") != ".report.lock report" {
		t.Errorf("beside --out after commit: %v, want the lock file and the report", got)
	}
}

// TestReportDirCommitCreatesAMissingFolder: a first run (no --out yet).
func TestReportDirCommitCreatesAMissingFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a", "report")
	d, err := openReportDir(out)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, d.dir(), map[string]string{reports.ReportFile: "{}"})
	if err := d.commit(); err != nil {
		t.Fatal(err)
	}
	if got := readTree(t, out); got[reports.ReportFile] != "{}" {
		t.Errorf("--out = %v", got)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("--out mode %v (%v), want 0755", st.Mode(), err)
	}
}

// TestReportDirAbortKeepsThePreviousReport injects a failure halfway
// through writing a report: the previous report stays whole and the
// staging folder goes.
func TestReportDirAbortKeepsThePreviousReport(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	writeTree(t, out, oldReport)
	d, err := openReportDir(out)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, d.dir(), map[string]string{reports.TranscriptFile: "half a run\n"})
	d.abort() // the run failed before writing report.json
	if got := readTree(t, out); !sameTree(got, oldReport) {
		t.Errorf("--out after a failed run = %v, want the previous report %v", got, oldReport)
	}
	if got := names(t, parent); strings.Join(got, " ") != ".report.lock report" {
		t.Errorf("beside --out after a failed run: %v, want the lock file and the report", got)
	}
	if err := d.commit(); err == nil {
		t.Error("commit after abort succeeded")
	}
	if got := readTree(t, out); !sameTree(got, oldReport) {
		t.Error("commit after abort touched the previous report")
	}
}

// TestReportDirFailedSwapPutsThePreviousReportBack: when the new report
// cannot be moved in, the previous one is moved back.
func TestReportDirFailedSwapPutsThePreviousReportBack(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	writeTree(t, out, oldReport)
	d, err := openReportDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(d.dir()); err != nil { // the rename in will fail
		t.Fatal(err)
	}
	if err := d.commit(); err == nil {
		t.Fatal("commit of a vanished staging folder succeeded")
	}
	if got := readTree(t, out); !sameTree(got, oldReport) {
		t.Errorf("--out after a failed swap = %v, want the previous report", got)
	}
	if got := names(t, parent); strings.Join(got, " ") != ".report.lock report" {
		t.Errorf("beside --out after a failed swap: %v", got)
	}
	again, err := openReportDir(out)
	if err != nil {
		t.Fatalf("the lock was not released: %v", err)
	}
	again.abort()
}

// TestReportDirLockKeepsASecondRunOff: while one run holds --out a second
// cannot open it; once the first is done it can, and the lock file stays.
func TestReportDirLockKeepsASecondRunOff(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	first, err := openReportDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openReportDir(out); !errors.Is(err, errOutBusy) {
		t.Fatalf("second open while the first runs: %v, want %v", err, errOutBusy)
	}
	if got := names(t, parent); len(got) != 2 {
		t.Errorf("the refused run left something beside --out: %v", got)
	}
	first.abort()
	second, err := openReportDir(out)
	if err != nil {
		t.Fatalf("open after the first run ended: %v", err)
	}
	defer second.abort()
	if _, err := os.Stat(filepath.Join(parent, ".report.lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
}

// A report with artifacts of failing specs (artifacts/) is a report: the
// next run replaces it.
func TestReportDirReplacesAReportWithArtifacts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	writeTree(t, filepath.Join(out, reports.ArtifactsDir), map[string]string{"spec-1.png": "png"})
	writeTree(t, out, map[string]string{reports.ReportFile: "{}"})
	d, err := openReportDir(out)
	if err != nil {
		t.Fatalf("open over a report with artifacts: %v", err)
	}
	d.abort()
}

// TestReportDirRefusesAFolderThatIsNotAReport: --out pointing at a source
// tree, a folder of other files or a file is refused, and nothing is made.
func TestReportDirRefusesAFolderThatIsNotAReport(t *testing.T) {
	for name, setup := range map[string]func(out string){
		"holds a folder": func(out string) {
			writeTree(t, filepath.Join(out, "src"), map[string]string{"main.go": "package main"})
			writeTree(t, out, map[string]string{reports.ReportFile: "{}"})
		},
		"holds other files": func(out string) { writeTree(t, out, map[string]string{"notes.txt": "mine"}) },
		"is a file": func(out string) {
			if err := os.WriteFile(out, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "report")
			setup(out)
			if _, err := openReportDir(out); err == nil || !strings.Contains(err.Error(), "--out") {
				t.Fatalf("open: %v, want a refusal naming --out", err)
			}
			for _, n := range names(t, parent) {
				if strings.Contains(n, "staging") {
					t.Errorf("a refused open left %s", n)
				}
			}
		})
	}
}

// TestReportDirClearsWhatAKilledRunLeft: staging and set-aside folders of
// out go; another report folder's lock file that looks alike stays.
func TestReportDirClearsWhatAKilledRunLeft(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	writeTree(t, filepath.Join(parent, ".report.staging-123"), map[string]string{reports.TranscriptFile: "x"})
	writeTree(t, filepath.Join(parent, ".report.old-456"), map[string]string{reports.ReportFile: "x"})
	writeTree(t, parent, map[string]string{".report.old-7.lock": "", ".report.staging-x": ""})
	d, err := openReportDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer d.abort()
	got := strings.Join(names(t, parent), " ")
	kept := []string{".report.lock", ".report.old-7.lock", ".report.staging-x", filepath.Base(d.dir())}
	sort.Strings(kept)
	if want := strings.Join(kept, " "); got != want {
		t.Errorf("beside --out: %s\nwant %s", got, want)
	}
}

// TestARunRefusesAnOutAnotherRunHolds holds the lock of --out as a running
// `conformance run` would: a second run refuses with one line and exit 3,
// and does not touch --out.
func TestARunRefusesAnOutAnotherRunHolds(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	writeTree(t, out, oldReport)
	lock, err := os.OpenFile(filepath.Join(parent, ".report.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", out)
	if code != exitHarness {
		t.Errorf("exit %d, want %d", code, exitHarness)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--out "+out) || !strings.Contains(stderr, errOutBusy.Error()) {
		t.Errorf("stderr %q, want one line saying --out is in use", stderr)
	}
	if got := readTree(t, out); !sameTree(got, oldReport) {
		t.Errorf("the refused run touched --out: %v", got)
	}
}

// TestAFailedRunLeavesThePreviousReportWhole certifies mockhost into --out,
// then runs again with a host command that deletes the --host-artifact
// once the flags were checked, so writing the second report fails: the
// first report must stay byte for byte, with no staging folder beside it.
// A third, good run then replaces the folder whole.
func TestAFailedRunLeavesThePreviousReportWhole(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	// The catalog level, the cheapest: the report folder is what is judged.
	parent := t.TempDir()
	out := filepath.Join(parent, "report")
	if code := runBinary(t, bin, "run", "--quiet", "--level", "catalog", "--out", out); code != exitOK {
		t.Fatalf("first run: exit %d", code)
	}
	first := readTree(t, out)

	artifact := filepath.Join(t.TempDir(), "host.bin")
	if err := os.WriteFile(artifact, []byte("host build"), 0o644); err != nil {
		t.Fatal(err)
	}
	hostCmd := "rm -f " + shellQuote(artifact) + "; exec " + shellQuote(bin) + " mockhost --stdio"
	cmd := exec.Command(bin, "run", "--quiet", "--level", "catalog", "--out", out, "--host-artifact", artifact, "--host-cmd", hostCmd)
	msg, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitHarness {
		t.Fatalf("second run: %v, want exit %d\n%s", err, exitHarness, msg)
	}
	if !strings.Contains(string(msg), "host artifact") {
		t.Errorf("second run failed for another reason:\n%s", msg)
	}
	if got := readTree(t, out); !sameTree(got, first) {
		t.Error("a failed run changed the previous report")
	}
	if got := strings.Join(names(t, parent), " "); got != ".report.lock report" {
		t.Errorf("beside --out after a failed run: %s", got)
	}

	writeTree(t, out, map[string]string{"stale.txt": "from an older run"})
	if code := runBinary(t, bin, "run", "--quiet", "--level", "catalog", "--out", out, "--fault", catalogFault); code != exitFailed {
		t.Fatalf("third run: exit %d, want %d", code, exitFailed)
	}
	third := readTree(t, out)
	if _, ok := third["stale.txt"]; ok {
		t.Error("a file of the previous report folder survived the swap")
	}
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Host.Faults) != 1 {
		t.Errorf("report.json is not the third run's: faults %v", rep.Host.Faults)
	}
	if got := strings.Join(names(t, parent), " "); got != ".report.lock report" {
		t.Errorf("beside --out after a good run: %s", got)
	}
}
