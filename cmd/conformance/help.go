package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// usage prints the command list.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: conformance <command> [flags] [arguments]")
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
	fmt.Fprintln(w, "\nRun `conformance help <command>` or `conformance <command> -h` for a command's usage and flags.")
}

// printCommandUsage prints what -h prints: the usage line of the command fs
// belongs to, its summary and its flags.
func printCommandUsage(w io.Writer, fs *flag.FlagSet) {
	name := fs.Name()
	cmd := commands()[name]
	fmt.Fprintln(w, strings.TrimSpace("usage: conformance "+name+" "+cmd.synopsis))
	if cmd.summary != "" {
		fmt.Fprintf(w, "\n%s\n", cmd.summary)
	}
	if cmd.detail != "" {
		fmt.Fprintln(w, cmd.detail)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// cmdHelp prints the command list, or one command's usage (what its -h prints).
func cmdHelp(c *cli, args []string) int {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	pos, code := parseArgs(c, fs, args)
	if code >= 0 {
		return code
	}
	switch len(pos) {
	case 0:
		usage(c.stdout)
		return exitOK
	case 1:
		cmd, ok := commands()[pos[0]]
		if !ok {
			fmt.Fprintf(c.stderr, "conformance help: %s\n", unknownCommand(pos[0]))
			return exitUsage
		}
		return cmd.run(c, []string{"-h"})
	}
	fmt.Fprintf(c.stderr, "conformance help: want at most one COMMAND, got %d arguments\n", len(pos))
	return exitUsage
}
