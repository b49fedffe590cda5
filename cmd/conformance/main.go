// Command conformance certifies Agent App hosts: it drives a host under test
// through the host control protocol, runs the conformance suites and writes
// a report. With no host named it certifies the embedded reference host.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes shared by every command (README.md; verify's in docs/report-format.md).
const (
	exitOK       = 0
	exitFailed   = 1 // a requested level failed, a regression, a surviving fault
	exitUsage    = 2 // bad flags or arguments
	exitHarness  = 3 // the harness itself could not do its job (or malformed input)
	exitBadSig   = 4 // verify: signature does not verify with the key
	exitSubject  = 5 // verify: subject does not match --host / --artifact
	exitNotLevel = 6 // verify: a required level did not pass
	// run: no level failed, but the host could not be judged (an error or
	// blocked requirement, a broken protocol precondition, an unreachable host).
	exitNotJudged = 7
	// run: no level failed or was unjudgeable, but requirements were not run
	// (--focus, --label-filter) or the level is beyond this harness version.
	exitIncomplete = 8
	// run: SIGINT or SIGTERM stopped the run (128 + SIGINT, as shells report it).
	exitInterrupted = 130
)

// cli carries what a command may touch; commands take no global state.
type cli struct {
	stdout, stderr io.Writer
	// self is the path of this executable, used to start child processes.
	self string
	// flagSets, when set, receives the flag set a command parses with, and
	// the command stops there as after -h (commandFlags).
	flagSets func(*flag.FlagSet)
}

type command struct {
	summary string
	// synopsis follows `conformance NAME` in the usage line: flags and
	// positional arguments.
	synopsis string
	run      func(c *cli, args []string) int
	// detail, when set, is printed under the summary by -h.
	detail string
}

func commands() map[string]command {
	return map[string]command{
		"run": {summary: "certify a host (default: the embedded mockhost) and write the report",
			synopsis: "[flags]", run: cmdRun,
			detail: "The report replaces --out whole once every file is written; a run that fails\nleaves the previous report untouched, and two runs may not share an --out.\nWith --shard I/N it runs one slice of the requirements (the rest end not-run,\nexit 8); `conformance merge` joins the slices into the unsharded report."},
		"validate": {summary: "validate an Agent App package folder",
			synopsis: "[flags] PACKAGE_DIR", run: cmdValidate},
		"project": {summary: "print the deterministic projection of a package",
			synopsis: "PACKAGE_DIR", run: cmdProject},
		"readiness": {summary: "print the static readiness of a package",
			synopsis: "[flags] PACKAGE_DIR", run: cmdReadiness},
		"levels": {summary: "print the level and requirement catalog",
			synopsis: "[flags]", run: cmdLevels},
		"coverage": {summary: "write docs/coverage.md: each clause of the five texts and what judges it",
			synopsis: "[--out FILE] [--check]", run: cmdCoverage},
		"mockhost": {summary: "run the reference host (stdio or TCP), optionally with faults",
			synopsis: "(--stdio | --tcp ADDR | --list-faults) [--fault NAME]...", run: cmdMockhost},
		"transcript": {summary: "explain where a recorded App Server exchange departs from a golden one",
			synopsis: "diff [flags] GOLDEN RECORDED", run: cmdTranscript,
			detail: "GOLDEN is a .io file (fixtures/platform-conformance/transcripts); RECORDED a report's\ntranscript.jsonl. Exits 1 when it departs."},
		"appserver-relay": {summary: "relay stdio (JSON lines) to the harness's App Server: the sidecar command a host spawns",
			synopsis: "ADDR", run: cmdAppServerRelay},
		"selftest": {summary: "prove the suites kill every mockhost fault (the kill matrix)",
			synopsis: "[flags]", run: cmdSelftest,
			detail: "With --shard I/N it runs one slice of the faults and the baseline; `conformance\nmerge --kill-matrix` over the shards' --keep folders prints the whole kill matrix."},
		"merge": {summary: "join the report folders of run --shard (or selftest --shard --keep) into one",
			synopsis: "[--out DIR] [--sign-key FILE] SHARD_DIR... | --kill-matrix KEEP_DIR...", run: cmdMerge,
			detail: mergeDetail},
		"keygen": {summary: "write a signing key pair for reports",
			synopsis: "--out DIR [flags]", run: cmdKeygen},
		"verify": {summary: "verify a signed report offline",
			synopsis: "[flags] ENVELOPE", run: cmdVerify,
			detail: "ENVELOPE is a signed report.intoto.json; --key is required."},
		"diff": {summary: "list requirements that regressed or recovered between two reports",
			synopsis: "[flags] OLD NEW", run: cmdDiff,
			detail: "OLD and NEW are each a report.json, report.intoto.json or report.statement.json.\nExits 1 on a regression."},
		"version": {summary: "print the harness version", run: cmdVersion},
		"help":    {summary: "print this list, or a command's usage", synopsis: "[COMMAND]", run: cmdHelp},
		"completion": {summary: "print a shell completion script (bash, zsh or fish)", synopsis: "bash|zsh|fish", run: cmdCompletion,
			detail: "bash: source <(conformance completion bash)\nzsh:  conformance completion zsh > \"${fpath[1]}/_conformance\"\nfish: conformance completion fish > ~/.config/fish/completions/conformance.fish"},
	}
}

func main() {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	os.Exit(runMain(&cli{stdout: os.Stdout, stderr: os.Stderr, self: self}, os.Args[1:]))
}

// runMain dispatches to a command. It never picks one for the user: a bare
// `conformance` (or flags with no command) prints the command list and
// exits 2, so a script written for an implicit run fails loudly instead of
// passing without a report.
func runMain(c *cli, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.stderr, "conformance: no command given (`conformance run` certifies a host)")
		usage(c.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		usage(c.stdout)
		return exitOK
	case "-version", "--version":
		return cmdVersion(c, args[1:])
	}
	if strings.HasPrefix(name, "-") {
		fmt.Fprintf(c.stderr, "conformance: flag %s before a command; did you mean `conformance run %s`?\n", name, strings.Join(args, " "))
		return exitUsage
	}
	cmd, ok := commands()[name]
	if !ok {
		fmt.Fprintf(c.stderr, "conformance: %s\n", unknownCommand(name))
		return exitUsage
	}
	return cmd.run(c, args[1:])
}
