package main

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// TestEveryCommandPrintsItsUsageOnHelp runs -h and --help of every command
// in commands(), and `conformance help CMD`: each exits 0 and prints, on
// stdout, a usage line naming the command.
func TestEveryCommandPrintsItsUsageOnHelp(t *testing.T) {
	var names []string
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want := "usage: conformance " + name
			for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {"help", name}} {
				code, stdout, stderr := runCLI(t, args...)
				if code != exitOK {
					t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitOK, stderr)
				}
				first, _, _ := strings.Cut(stdout, "\n")
				if first != want && !strings.HasPrefix(first, want+" ") {
					t.Errorf("%v: first line %q, want a usage line naming the command (%q)", args, first, want)
				}
				if stderr != "" {
					t.Errorf("%v: stderr %q, want nothing", args, stderr)
				}
			}
		})
	}
}

// TestUsageLinesShowPositionalArguments checks the usage line of the
// commands that take positional arguments, and that flags are listed.
func TestUsageLinesShowPositionalArguments(t *testing.T) {
	for name, want := range map[string]string{
		"validate":  "usage: conformance validate [flags] PACKAGE_DIR",
		"project":   "usage: conformance project PACKAGE_DIR",
		"readiness": "usage: conformance readiness [flags] PACKAGE_DIR",
		"verify":    "usage: conformance verify [flags] ENVELOPE",
		"diff":      "usage: conformance diff [flags] OLD NEW",
		"keygen":    "usage: conformance keygen --out DIR [flags]",
		"help":      "usage: conformance help [COMMAND]",
	} {
		_, stdout, _ := runCLI(t, name, "-h")
		if first, _, _ := strings.Cut(stdout, "\n"); first != want {
			t.Errorf("%s -h: usage line %q, want %q", name, first, want)
		}
	}
	_, stdout, _ := runCLI(t, "verify", "-h")
	for _, flag := range []string{"-key", "-require-level", "-host", "-artifact"} {
		if !strings.Contains(stdout, "  "+flag+" ") {
			t.Errorf("verify -h does not list %s:\n%s", flag, stdout)
		}
	}
	_, stdout, _ = runCLI(t, "run", "-h")
	for _, flag := range []string{"-host-cmd", "-host-addr", "-out", "-sign-key", "-focus", "-label-filter"} {
		if !strings.Contains(stdout, "  "+flag+" ") {
			t.Errorf("run -h does not list %s:\n%s", flag, stdout)
		}
	}
}

// TestTopLevelHelpAndVersion: help, -h and --help list every command;
// --version and version print the version; all exit 0.
func TestTopLevelHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
		for name, cmd := range commands() {
			if !strings.Contains(stdout, "  "+name+" ") || !strings.Contains(stdout, cmd.summary) {
				t.Errorf("%v: command %s missing from:\n%s", args, name, stdout)
			}
		}
	}
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, "agentapp-conformance "+harnessVersion+" ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestNoCommandRunsNothing: a bare `conformance` prints the command list and
// exits 2, and writes no report; so do flags given without a command.
func TestNoCommandRunsNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{nil, {"--quiet"}, {"--out", "r"}} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q, want nothing", args, stdout)
		}
		if args == nil && !strings.Contains(stderr, "  run ") {
			t.Errorf("bare conformance does not list the commands:\n%s", stderr)
		}
		if args != nil && !strings.Contains(stderr, "conformance run "+strings.Join(args, " ")) {
			t.Errorf("%v: stderr %q does not suggest `conformance run`", args, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("a command-less invocation wrote %v", entries[0].Name())
	}
}

// TestBadInvocationsAreOneLineUsageErrors: an unknown flag, an unknown
// command to help, extra arguments: exit 2, one line on stderr.
func TestBadInvocationsAreOneLineUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"levels", "--bogus"}, "-bogus"},
		{[]string{"diff", "--json=maybe", "a", "b"}, "-json"},
		{[]string{"run", "--call-timeout", "soon"}, "-call-timeout"},
		{[]string{"help", "no-such-command"}, "no-such-command"},
		{[]string{"version", "extra"}, "extra"},
		{[]string{"mockhost"}, "--stdio"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitUsage)
		}
		if stdout != "" {
			t.Errorf("%v: stdout %q, want nothing", tc.args, stdout)
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: stderr %q, want one line naming %q", tc.args, stderr, tc.want)
		}
	}
}
