package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// mergeKillMatrix loads the children selftest --keep kept in each folder
// (of selftest --shard I/N) and judges them as one unsharded selftest:
// the baseline from the first folder, every fault from the folder named
// after it.
func mergeKillMatrix(c *cli, dirs []string) int {
	cat := levels.Default()
	cases, err := loadKeptCases(dirs)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance merge: %v\n", err)
		return exitUsage
	}
	// The levels the baseline ran say whether selftest ran with --level:
	// unrestricted, it runs childLevels of no fault.
	base := cases[0].report.Requested
	var judged map[string]bool
	restricted := !sameSet(base, childLevels(cat, mockhost.Fault{}))
	if restricted {
		judged = judgedRequirements(cat, base)
	}
	all := mockhost.Faults()
	if restricted {
		all = slices.DeleteFunc(all, func(f mockhost.Fault) bool { return len(scoped(f.Fails(), judged)) == 0 && !f.Escapes })
	}
	if cases[0].report.Host.Transport == "in-process" {
		// selftest runs no fault that needs a host process in-process.
		all = slices.DeleteFunc(all, func(f mockhost.Fault) bool { return f.Escapes })
	}
	for _, k := range cases {
		k.judged = judged
	}
	nf := len(slices.DeleteFunc(slices.Clone(cases), func(k *selftestCase) bool { return k.variant.Name != "" })) - 1
	ks := killMatrixScope{everyFault: !restricted && nf == len(all)}
	if restricted && nf == len(all) {
		ks.skipped = levelsSkip
	}
	fmt.Fprintf(c.stdout, "merged the kill matrix of %d folders: baseline, %d faults and %d variants\n", len(dirs), nf, len(cases)-1-nf)
	return judgeKillMatrix(c.stdout, cases, cat, ks)
}

// loadKeptCases reads the kept children: the baseline of the first folder,
// and every fault's folder, once, in mockhost.Faults() order (as selftest
// runs them). A folder naming no fault, or a fault kept twice, is refused
// naming the folder.
func loadKeptCases(dirs []string) ([]*selftestCase, error) {
	byName := map[string]mockhost.Fault{}
	for _, f := range mockhost.Faults() {
		byName[f.Name] = f
	}
	variants := map[string]mockhost.Variant{}
	for _, v := range mockhost.Variants() {
		variants[variantDir(v.Name)] = v
	}
	base := filepath.Join(dirs[0], "baseline")
	rep, err := reports.Load(filepath.Join(base, reports.ReportFile))
	if err != nil {
		return nil, fmt.Errorf("%s: the baseline: %s", base, oneLine(err))
	}
	cases := []*selftestCase{{report: rep}}
	seen := map[string]string{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", d, oneLine(err))
		}
		for _, e := range entries {
			name := e.Name()
			if !e.IsDir() || name == "baseline" || name[0] == '.' {
				continue // lock files and staging folders of the children
			}
			dir := filepath.Join(d, name)
			f, ok := byName[name]
			v, isVariant := variants[name]
			if !ok && !isVariant {
				return nil, fmt.Errorf("%s: %q is not a mockhost fault (conformance mockhost --list-faults) nor a variant's folder", dir, name)
			}
			if prev, dup := seen[name]; dup {
				return nil, fmt.Errorf("%s: %s is kept twice (also %s)", dir, name, prev)
			}
			seen[name] = dir
			k := &selftestCase{fault: f, variant: v}
			// A child that wrote no report is an ERROR line, as in selftest.
			k.report, k.err = reports.Load(filepath.Join(dir, reports.ReportFile))
			if k.err != nil {
				k.report = nil
			}
			cases = append(cases, k)
		}
	}
	order := map[string]int{}
	for i, f := range mockhost.Faults() {
		order[f.Name] = i
	}
	for i, v := range mockhost.Variants() {
		order[variantDir(v.Name)] = len(mockhost.Faults()) + i
	}
	key := func(k *selftestCase) int {
		if k.variant.Name != "" {
			return order[variantDir(k.variant.Name)]
		}
		return order[k.fault.Name]
	}
	slices.SortStableFunc(cases[1:], func(a, b *selftestCase) int { return key(a) - key(b) })
	return cases, nil
}

// sameSet reports whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}
