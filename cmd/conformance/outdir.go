package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentapp/conformance/reports"
)

// errOutBusy says another run holds the lock of the same --out.
var errOutBusy = errors.New("another run is writing this report folder")

// reportDir is the report folder of one run. The run writes into a fresh
// hidden staging folder beside --out (same parent, so a rename moves it);
// commit swaps it in whole, abort removes it. Either way --out never holds
// a mix of two runs, and a run that fails leaves the previous report as it
// was. A lock file beside --out (kept, never removed, so no run can lock a
// file another has just unlinked) keeps two runs off the same --out.
type reportDir struct {
	out     string // the --out folder, absolute
	staging string // where the run writes, beside out
	lock    *os.File
	done    bool
}

// openReportDir takes the lock of out and makes its staging folder.
func openReportDir(out string) (*reportDir, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("report folder %s: %w", out, err)
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return nil, fmt.Errorf("report folder %s: cannot replace a file system root", out)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("making the folder of the report: %w", err)
	}
	lockPath := filepath.Join(parent, "."+base+".lock")
	lock, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("report folder lock: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("--out %s: %w (lock %s held); wait for it or choose another --out", out, errOutBusy, lockPath)
		}
		return nil, fmt.Errorf("locking %s: %w", lockPath, err)
	}
	d := &reportDir{out: abs, lock: lock}
	if err := d.start(out, parent, base); err != nil {
		d.abort()
		return nil, err
	}
	return d, nil
}

// start checks that out may be replaced, clears what a killed run on out
// left behind (the lock says no live run owns it) and makes the staging folder.
func (d *reportDir) start(out, parent, base string) error {
	if err := checkReplaceable(d.out); err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return fmt.Errorf("reading the folder of the report: %w", err)
	}
	for _, e := range entries {
		if leftOver(e.Name(), base) {
			if err := os.RemoveAll(filepath.Join(parent, e.Name())); err != nil {
				return fmt.Errorf("removing what a killed run left: %w", err)
			}
		}
	}
	staging, err := os.MkdirTemp(parent, "."+base+".staging-")
	if err != nil {
		return fmt.Errorf("making the staging folder of the report: %w", err)
	}
	d.staging = staging
	if err := os.Chmod(staging, 0o755); err != nil {
		return fmt.Errorf("making the staging folder of the report: %w", err)
	}
	return nil
}

// leftOver reports whether name is a staging or set-aside folder of a run
// on the report folder base: ".BASE.staging-" or ".BASE.old-" and the
// digits os.MkdirTemp adds (so another folder's lock file never matches).
func leftOver(name, base string) bool {
	for _, p := range []string{"." + base + ".staging-", "." + base + ".old-"} {
		if rest, ok := strings.CutPrefix(name, p); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// checkReplaceable refuses to replace a folder that is not a report: a
// missing or empty folder, or a folder holding a report.json or
// transcript.jsonl and no folder but artifacts/ (the screenshots and logs
// of failing specs), may be replaced; `--out .` in a source tree may not.
func checkReplaceable(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New("exists and is not a folder")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	report := len(entries) == 0
	for _, e := range entries {
		if e.IsDir() && e.Name() != reports.ArtifactsDir {
			return fmt.Errorf("holds a folder (%s), so it is not a report folder; the report replaces --out whole: choose a new folder", e.Name())
		}
		if e.Name() == reports.ReportFile || e.Name() == reports.TranscriptFile {
			report = true
		}
	}
	if !report {
		return fmt.Errorf("holds no %s, so it is not a report folder; the report replaces --out whole: choose a new folder", reports.ReportFile)
	}
	return nil
}

// dir is the folder the run writes its report into.
func (d *reportDir) dir() string { return d.staging }

// commit swaps the staging folder in place of out: the previous report is
// renamed aside, the new one renamed in, the previous one removed. It
// releases the lock.
func (d *reportDir) commit() error {
	if d.done {
		return errors.New("report folder already committed or aborted")
	}
	old := ""
	if _, err := os.Lstat(d.out); err == nil {
		old = strings.Replace(d.staging, ".staging-", ".old-", 1)
		if err := os.Rename(d.out, old); err != nil {
			d.abort()
			return fmt.Errorf("moving the previous report aside: %w", err)
		}
	}
	if err := os.Rename(d.staging, d.out); err != nil {
		if old != "" {
			if rerr := os.Rename(old, d.out); rerr != nil {
				err = fmt.Errorf("%w; and putting the previous report back: %v (it is in %s)", err, rerr, old)
			}
		}
		d.abort()
		return fmt.Errorf("moving the report into place: %w", err)
	}
	d.staging = ""
	if old != "" {
		// The new report is in place; were this to fail, the next run on out
		// removes the leftover (start).
		_ = os.RemoveAll(old)
	}
	d.release()
	return nil
}

// abort removes the staging folder and releases the lock; out is left as
// it was. It does nothing after commit, so callers may defer it.
func (d *reportDir) abort() {
	if d.done {
		return
	}
	if d.staging != "" {
		_ = os.RemoveAll(d.staging)
	}
	d.release()
}

func (d *reportDir) release() {
	d.done = true
	_ = d.lock.Close()
}
