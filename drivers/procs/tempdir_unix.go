//go:build unix

package procs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockFile is the owner lock in every temp folder: a file its owner holds
// an exclusive flock on for as long as it lives.
const LockFile = ".agentapp-owner"

// staleAfter is how old the lock of a folder whose owner is gone must be
// for SweepStale to remove it.
const staleAfter = time.Minute

// TempDir is a temp folder this process owns.
type TempDir struct {
	Path string
	lock *os.File
}

// MkdirTemp makes a folder in the default temp folder as os.MkdirTemp does
// (pattern must begin with Prefix) and puts the owner lock in it, held
// until Remove or until this process ends, however it ends. The lock file
// is locked before it gets its name, so no sweep sees it unlocked.
func MkdirTemp(pattern string) (*TempDir, error) {
	if !strings.HasPrefix(pattern, Prefix) {
		return nil, fmt.Errorf("temp folder pattern %q does not begin with %q", pattern, Prefix)
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, LockFile+"-*")
	if err == nil {
		if err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
			if _, err = fmt.Fprintf(f, "%d\n", os.Getpid()); err == nil {
				err = os.Rename(f.Name(), filepath.Join(dir, LockFile))
			}
		}
		if err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("locking temp folder %s: %w", dir, err)
	}
	return &TempDir{Path: dir, lock: f}, nil
}

// Remove removes the folder and releases its lock.
func (d *TempDir) Remove() error {
	err := os.RemoveAll(d.Path)
	_ = d.lock.Close()
	return err
}

// Swept is what SweepStale cleared.
type Swept struct {
	Folders []string // the folders removed
	Killed  int      // processes of hosts that still ran there
}

// SweepStale removes the folders directly under root (the default temp
// folder when "") whose names begin with Prefix, whose owner lock is free
// (the process that made them is gone: a run killed with SIGKILL) and at
// least a minute old. First it kills the processes still running there:
// those whose environment names the folder (TMPDIR, EnvHost, a browser
// profile). A folder without a lock
// (made by something else, or still being made) is never touched, nor one
// a live process holds.
func SweepStale(root string) (Swept, error) {
	if root == "" {
		root = os.TempDir()
	}
	var sw Swept
	entries, err := os.ReadDir(root)
	if err != nil {
		return sw, fmt.Errorf("sweeping %s: %w", root, err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		removed, killed, err := sweepOne(dir)
		sw.Killed += killed
		if removed {
			sw.Folders = append(sw.Folders, dir)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return sw, errors.Join(errs...)
}

// sweepOne removes dir if its owner is gone, holding its lock meanwhile.
func sweepOne(dir string) (removed bool, killed int, err error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false, 0, nil // no lock: not a folder a run owns
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || time.Since(st.ModTime()) < staleAfter {
		return false, 0, nil
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false, 0, nil // held: its owner lives
	}
	killed = KillUsing(dir)
	if err := os.RemoveAll(dir); err != nil {
		return false, killed, fmt.Errorf("removing stale temp folder %s: %w", dir, err)
	}
	return true, killed, nil
}
