package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// cmdDiff lists the requirements that regressed, recovered, changed,
// appeared or vanished between two runs, and exits 1 on a regression: the
// gate a host team puts on every pull request (docs/report-format.md
// "Diff").
func cmdDiff(c *cli, args []string) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the differences as JSON")
	pos, code := parseArgs(c, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintf(c.stderr, "conformance diff: want OLD and NEW, got %d argument(s)\n", len(pos))
		return exitUsage
	}
	var in [2]*reports.DiffInput
	for i, p := range pos {
		var err error
		if in[i], err = reports.LoadForDiff(p); err != nil {
			fmt.Fprintf(c.stderr, "conformance diff: %v\n", err)
			return exitHarness
		}
		if in[i].Kind == reports.InputEnvelope {
			fmt.Fprintf(c.stderr, "conformance diff: %s is a signed envelope; its signature is NOT verified here (use conformance verify)\n", p)
		}
	}
	d, err := reports.Diff(in[0].Report, in[1].Report, levels.Default())
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance diff: %v\n", err)
		return exitHarness
	}
	// The note comes before the diff: on stdout with the text, on stderr
	// with --json, whose stdout is one JSON document.
	if note := reports.DiffNote(in[0].Report, in[1].Report); note != "" {
		if *asJSON {
			fmt.Fprintf(c.stderr, "conformance diff: %s\n", note)
		} else {
			fmt.Fprintln(c.stdout, note)
		}
	}
	if *asJSON {
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance diff: %v\n", err)
			return exitHarness
		}
		fmt.Fprintln(c.stdout, string(b))
	} else if err := d.WriteText(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "conformance diff: %v\n", err)
		return exitHarness
	}
	if d.HasRegression() {
		return exitFailed
	}
	return exitOK
}
