//go:build !unix

package procs

import (
	"fmt"
	"os"
	"strings"
)

// TempDir is a temp folder this process owns.
type TempDir struct {
	Path string
}

// MkdirTemp makes a folder in the default temp folder as os.MkdirTemp does
// (pattern must begin with Prefix). Without flock there is no owner lock.
func MkdirTemp(pattern string) (*TempDir, error) {
	if !strings.HasPrefix(pattern, Prefix) {
		return nil, fmt.Errorf("temp folder pattern %q does not begin with %q", pattern, Prefix)
	}
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return nil, err
	}
	return &TempDir{Path: dir}, nil
}

// Remove removes the folder.
func (d *TempDir) Remove() error { return os.RemoveAll(d.Path) }

// Swept is what SweepStale cleared.
type Swept struct {
	Folders []string
	Killed  int
}

// SweepStale does nothing: without an owner lock no folder is known stale.
func SweepStale(string) (Swept, error) { return Swept{}, nil }
