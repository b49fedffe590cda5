package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every command, and every flag of it, is in each shell's script: the
// scripts are made from commands() and the flag set each command parses.
func TestCompletionNamesEveryCommandAndFlag(t *testing.T) {
	for _, shell := range completionShells {
		t.Run(shell, func(t *testing.T) {
			code, script, stderr := runCLI(t, "completion", shell)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			for _, name := range commandNames() {
				want := map[string]string{"bash": " " + name + ")\n", "zsh": "        " + name + ")\n", "fish": "-a " + name + " -d "}[shell]
				if !strings.Contains(script, want) {
					t.Errorf("command %s is not in the %s script (%q)", name, shell, want)
				}
				fs := commandFlags(name)
				if fs == nil {
					t.Errorf("command %s parses no flag set: its flags cannot be completed", name)
					continue
				}
				fs.VisitAll(func(f *flag.Flag) {
					want := "--" + f.Name
					if shell == "fish" {
						want = "'__fish_seen_subcommand_from " + name + "' -l " + f.Name + " "
					}
					if !strings.Contains(script, want) {
						t.Errorf("flag --%s of %s is not in the %s script (%q)", f.Name, name, shell, want)
					}
				})
			}
		})
	}
	// The run command's flags are there by name, not only by count.
	fs := commandFlags("run")
	for _, f := range []string{"level", "host-cmd", "expected-failures", "quiet"} {
		if fs.Lookup(f) == nil {
			t.Errorf("commandFlags(run) lacks --%s", f)
		}
	}
}

// bash accepts the bash script (bash -n), and sourced, it completes
// commands, flags, level ids and the words help and completion take; zsh
// and fish check theirs when they are installed.
func TestCompletionScriptsParseAndComplete(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is not on PATH, and make test runs under bash: %v", err)
	}
	dir := t.TempDir()
	for _, shell := range completionShells {
		_, script, _ := runCLI(t, "completion", shell)
		p := filepath.Join(dir, "conformance."+shell)
		if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := shell
		if shell == "bash" {
			bin = bash
		} else if bin, err = exec.LookPath(shell); err != nil {
			t.Logf("%s is not installed: its script is checked by content only", shell)
			continue
		}
		if out, err := exec.Command(bin, "-n", p).CombinedOutput(); err != nil {
			t.Errorf("%s -n refuses the %s script: %v\n%s", shell, shell, err, out)
		}
	}
	for _, tc := range []struct {
		words []string // the command line; the last word is the one completed
		want  []string
		not   []string
	}{
		{[]string{"r"}, []string{"run", "readiness"}, []string{"verify"}},
		{[]string{"v"}, []string{"validate", "verify", "version"}, []string{"run"}},
		{[]string{"run", "--le"}, []string{"--level"}, []string{"--require-level"}},
		{[]string{"run", "--level", ""}, []string{"catalog", "desktop-p0"}, []string{"--level"}},
		{[]string{"verify", "--req"}, []string{"--require-level"}, nil},
		{[]string{"verify", "--require-level", "desk"}, []string{"desktop-p0"}, []string{"catalog"}},
		{[]string{"help", "ve"}, []string{"verify", "version"}, []string{"run"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, nil},
		{[]string{"diff", "--"}, []string{"--json"}, []string{"--level"}},
	} {
		words := append([]string{"conformance"}, tc.words...)
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, singleQuoted(w))
		}
		script := "source " + singleQuoted(filepath.Join(dir, "conformance.bash")) + "\n" +
			"COMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n" +
			"_conformance\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		cmd.Dir = t.TempDir() // no file of this folder matches
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%v: %v\n%s", tc.words, err, out)
			continue
		}
		got := map[string]bool{}
		for _, w := range strings.Fields(string(out)) {
			got[w] = true
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("completing %q offers %q, want %s among them", strings.Join(tc.words, " "), strings.Fields(string(out)), w)
			}
		}
		for _, w := range tc.not {
			if got[w] {
				t.Errorf("completing %q offers %s", strings.Join(tc.words, " "), w)
			}
		}
	}
}

func TestCompletionRefusesAnUnknownShell(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"completion"}, "conformance completion: want one shell (bash, zsh, fish), got 0 arguments\n"},
		{[]string{"completion", "bsh"}, "conformance completion: unknown shell \"bsh\": want bash, zsh or fish; did you mean bash?\n"},
		{[]string{"completion", "powershell"}, "conformance completion: unknown shell \"powershell\": want bash, zsh or fish\n"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" || stderr != tc.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, nothing, %q", tc.args, code, stdout, stderr, exitUsage, tc.want)
		}
	}
}
