package main

import (
	"errors"
	"flag"
	"strings"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// parseArgs parses flags wherever they stand among the positional
// arguments and returns the positional ones. A code of -1 means go on;
// otherwise stop with that exit code (0 after -h, 2 on a bad flag, which the
// flag set has already reported).
func parseArgs(fs *flag.FlagSet, args []string) ([]string, int) {
	pos, err := parseInterleaved(fs, args)
	switch {
	case err == nil:
		return pos, -1
	case errors.Is(err, flag.ErrHelp):
		return nil, exitOK
	}
	return nil, exitUsage
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
