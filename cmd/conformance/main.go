// Command conformance certifies Agent App hosts: it drives a host under test
// through the host control protocol, runs the conformance suites and writes
// a report. With no host named it certifies the embedded reference host.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
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
}

type command struct {
	summary string
	run     func(c *cli, args []string) int
}

func commands() map[string]command {
	return map[string]command{
		"run":       {"certify a host (default: the embedded mockhost) and write the report", cmdRun},
		"validate":  {"validate an Agent App package folder", cmdValidate},
		"project":   {"print the deterministic projection of a package", cmdProject},
		"readiness": {"print the static readiness of a package", cmdReadiness},
		"levels":    {"print the level and requirement catalog", cmdLevels},
		"mockhost":  {"run the reference host (stdio or TCP), optionally with faults", cmdMockhost},
		"selftest":  {"prove the suites kill every mockhost fault (the kill matrix)", cmdSelftest},
		"keygen":    {"write a signing key pair for reports", cmdKeygen},
		"verify":    {"verify a signed report offline", cmdVerify},
		"diff":      {"list requirements that regressed or recovered between two reports", cmdDiff},
		"version":   {"print the harness version", cmdVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: conformance <command> [flags]")
	fmt.Fprintln(w, "\ncommands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun `conformance <command> -h` for a command's flags.")
}

func main() {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	os.Exit(runMain(&cli{stdout: os.Stdout, stderr: os.Stderr, self: self}, os.Args[1:]))
}

func runMain(c *cli, args []string) int {
	if len(args) == 0 {
		return cmdRun(c, nil)
	}
	name := args[0]
	if strings.HasPrefix(name, "-") {
		if name == "-h" || name == "--help" || name == "-help" {
			usage(c.stdout)
			return exitOK
		}
		return cmdRun(c, args)
	}
	cmd, ok := commands()[name]
	if !ok {
		fmt.Fprintf(c.stderr, "conformance: unknown command %q\n", name)
		usage(c.stderr)
		return exitUsage
	}
	return cmd.run(c, args[1:])
}
