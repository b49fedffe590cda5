package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// The commit: the Makefile's ldflag wins, Go's build info is the fallback,
// and a dirty tree says so.
func TestHarnessRevision(t *testing.T) {
	info := func(kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, ""},
		{"no vcs settings", info(), true, ""},
		{"clean tree", info("vcs.revision", "abc123", "vcs.modified", "false"), true, "abc123"},
		{"dirty tree", info("vcs.revision", "abc123", "vcs.modified", "true"), true, "abc123-dirty"},
		{"modified without a revision", info("vcs.modified", "true"), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := vcsRevision(tc.bi, tc.ok); got != tc.want {
				t.Errorf("vcsRevision = %q, want %q", got, tc.want)
			}
		})
	}

	old := harnessCommit
	defer func() { harnessCommit = old }()
	for _, stamp := range []string{"0123abcd-dirty", "unknown"} {
		harnessCommit = stamp
		if got := harnessRevision(); got != stamp {
			t.Errorf("with the ldflag %q, harnessRevision = %q: the ldflag must win", stamp, got)
		}
		var out, errb strings.Builder
		if code := runMain(&cli{stdout: &out, stderr: &errb}, []string{"version"}); code != exitOK ||
			!strings.Contains(out.String(), "(commit "+stamp+")") {
			t.Errorf("conformance version = %d %q, want it to name commit %s", code, out.String(), stamp)
		}
	}
	harnessCommit = ""
	bi, ok := debug.ReadBuildInfo()
	if got, want := harnessRevision(), vcsRevision(bi, ok); got != want {
		t.Errorf("without the ldflag, harnessRevision = %q, want the build info's %q", got, want)
	}
}
