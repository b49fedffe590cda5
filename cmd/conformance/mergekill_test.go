package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// selftestFaults break requirements of the catalog level (the cheapest
// whole level), so a selftest restricted to it runs and judges each of them.
var selftestFaults = []string{"accept-any-manifest-version", "name-from-directory", "trust-self-declared-verified"}

// selftestVariants touch requirements of the catalog level, so their
// children run in the same selftest and are sharded and merged too.
var selftestVariants = []string{"legacy-kinds-marked"}

// runSelftest runs the binary's selftest over the catalog level and
// returns its exit code and its kill-matrix lines: the output without the
// lines that differ between runs (each child's settled line and time) or
// between a selftest and a merge (the opening line, a shard's skip note).
func runSelftest(t *testing.T, bin string, args ...string) (int, []string) {
	t.Helper()
	a := []string{"selftest", "--transport", "in-process", "--level", "catalog", "--jobs", "2"}
	for _, f := range selftestFaults {
		a = append(a, "--fault", f)
	}
	for _, v := range selftestVariants {
		a = append(a, "--variant", v)
	}
	out, err := exec.Command(bin, append(a, args...)...).Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("selftest %v: %v", args, err)
	}
	return code, killMatrixLines(string(out))
}

var unjudgedLine = regexp.MustCompile(`^(settled |selftest: baseline[ ,]|merged the kill matrix |not checked that every spec)`)

func killMatrixLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if !unjudgedLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestMergingSelftestShardsGivesTheUnshardedKillMatrix: selftest --shard
// 1/2 and 2/2, merged with merge --kill-matrix, print the kill matrix and
// exit code of one unsharded selftest; merge refuses a folder that names
// no fault and a fault kept twice.
func TestMergingSelftestShardsGivesTheUnshardedKillMatrix(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	root := t.TempDir()
	wantCode, want := runSelftest(t, bin, "--keep", filepath.Join(root, "whole"))
	if len(want) < len(selftestFaults)+len(selftestVariants)+2 {
		t.Fatalf("the unsharded selftest printed no kill matrix: %q", want)
	}
	for _, v := range selftestVariants {
		if !slices.ContainsFunc(want, func(l string) bool { return strings.HasPrefix(l, "ACCEPTED") && strings.Contains(l, " "+v+" ") }) {
			t.Errorf("the unsharded selftest did not accept variant %s: %q", v, want)
		}
	}
	var keeps []string
	for _, s := range []string{"1/2", "2/2"} {
		keep := filepath.Join(root, "shard-"+strings.ReplaceAll(s, "/", "-of-"))
		code, lines := runSelftest(t, bin, "--shard", s, "--keep", keep)
		if code != exitOK {
			t.Errorf("selftest --shard %s exited %d: %q", s, code, lines)
		}
		if _, err := os.Stat(filepath.Join(keep, "baseline")); err != nil {
			t.Errorf("shard %s ran no baseline: %v", s, err)
		}
		keeps = append(keeps, keep)
	}
	code, stdout, stderr := cliRun(t, append([]string{"merge", "--kill-matrix"}, keeps...)...)
	if code != wantCode {
		t.Errorf("merge --kill-matrix exited %d, want %d (the unsharded selftest's): %s", code, wantCode, stderr)
	}
	if got := killMatrixLines(stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("merged kill matrix:\n%s\nunsharded:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, tc := range []struct {
		name, want string
		dirs       []string
	}{
		{"a fault kept twice", "kept twice", []string{keeps[0], keeps[1], keeps[0]}},
		{"a folder naming no fault", "is not a mockhost fault", []string{keeps[0], filepath.Join(root, "odd")}},
	} {
		if err := os.MkdirAll(filepath.Join(root, "odd", "no-such-fault"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := cliRun(t, append([]string{"merge", "--kill-matrix"}, tc.dirs...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want %d and one line saying %q", tc.name, code, stderr, exitUsage, tc.want)
		}
	}
}
