package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseArgs parses a command's flags wherever they stand among the
// positional arguments and returns the positional ones. A code of -1 means
// go on; otherwise stop with that exit code: 0 after -h (the usage is on
// stdout), 2 on a bad flag (one line on stderr naming it).
func parseArgs(c *cli, fs *flag.FlagSet, args []string) ([]string, int) {
	pos, err := parseFlags(c, fs, args)
	switch {
	case err == nil:
		return pos, -1
	case errors.Is(err, flag.ErrHelp):
		return nil, exitOK
	}
	fmt.Fprintf(c.stderr, "conformance %s: %v\n", fs.Name(), err)
	return nil, exitUsage
}

// parseFlags parses like parseArgs but leaves a bad flag's error to the
// caller. It prints the command's usage on stdout for -h and returns
// flag.ErrHelp. The flag set itself prints nothing: the flag package would
// print the whole usage after every error.
func parseFlags(c *cli, fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if c.flagSets != nil {
		// commandFlags asks for the flags only: the command stops here,
		// as after -h, having done nothing.
		c.flagSets(fs)
		return nil, flag.ErrHelp
	}
	pos, err := parseInterleaved(fs, args)
	err = suggestFlag(fs, err)
	if errors.Is(err, flag.ErrHelp) {
		printCommandUsage(c.stdout, fs)
	}
	return pos, err
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments (`verify --key K ENV --require-level L`); the flag
// package alone stops at the first positional argument.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		rest := fs.Args()
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
