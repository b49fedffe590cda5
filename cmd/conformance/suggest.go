package main

import (
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
)

// editDistance is the Levenshtein distance between a and b (insertions,
// deletions and substitutions of bytes; names here are ASCII) that also
// counts a swap of two adjacent letters as one edit (the optimal string
// alignment distance): "levle" is one edit from "level", as a typist sees it.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// suggest names what the user probably meant by name among candidates, ""
// when nothing is close: the candidates name starts (up to three: "--host"
// suggests --host-addr, --host-artifact, --host-cmd), else the nearest by
// editDistance when it is at most a third of name's length (at least 1)
// away. Candidates are taken in sorted order, so a tie always gives the
// same answer.
func suggest(name string, candidates []string) []string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	lower := strings.ToLower(name)
	var prefixed []string
	for _, c := range sorted {
		if len(lower) >= 2 && strings.HasPrefix(c, lower) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) > 0 && len(prefixed) <= 3 {
		return prefixed
	}
	best, bestD := "", -1
	for _, c := range sorted {
		if d := editDistance(lower, strings.ToLower(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(1, len(name)/3) {
		return nil
	}
	return []string{best}
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// undefinedFlagPrefix starts the flag package's error for a flag the set
// does not define.
const undefinedFlagPrefix = "flag provided but not defined: -"

// suggestFlag rewrites the flag package's error for an unknown flag into
// one line that names the nearest flag of the command's own set, or says
// where the flags are listed.
func suggestFlag(fs *flag.FlagSet, err error) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	name, ok := strings.CutPrefix(err.Error(), undefinedFlagPrefix)
	if !ok {
		return err
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if ns := suggest(name, names); len(ns) > 0 {
		for i := range ns {
			ns[i] = "--" + ns[i]
		}
		return fmt.Errorf("unknown flag --%s; did you mean %s?", name, orList(ns))
	}
	return fmt.Errorf("unknown flag --%s (`conformance help %s` lists its flags)", name, fs.Name())
}

// commandNames are the names of every command, sorted.
func commandNames() []string {
	var names []string
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// unknownCommand is the one line for a command that does not exist.
func unknownCommand(name string) string {
	if ns := suggest(name, commandNames()); len(ns) > 0 {
		return fmt.Sprintf("unknown command %q; did you mean %s? (`conformance help` lists them)", name, orList(ns))
	}
	return fmt.Sprintf("unknown command %q (`conformance help` lists them)", name)
}
