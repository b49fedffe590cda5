package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/suites"
)

// coverage joins the catalog with the specs that carry each requirement's
// label and the faults that break it.
type coverage struct {
	specs  map[string][]string
	faults map[string][]string
}

func loadCoverage(cat *levels.Catalog) (*coverage, error) {
	cfg := suites.DefaultConfig()
	cfg.Catalog = cat
	specs, err := suites.Preview(cfg)
	if err != nil {
		return nil, fmt.Errorf("listing specs: %w", err)
	}
	cov := &coverage{specs: map[string][]string{}, faults: map[string][]string{}}
	for _, s := range specs {
		for _, l := range s.Labels {
			if _, ok := cat.Requirement(l); ok {
				cov.specs[l] = append(cov.specs[l], s.Name)
			}
		}
	}
	for _, f := range mockhost.Faults() {
		for _, id := range f.Fails() {
			cov.faults[id] = append(cov.faults[id], f.Name)
		}
	}
	return cov, nil
}

func cmdLevels(c *cli, args []string) int {
	fs := flag.NewFlagSet("levels", flag.ContinueOnError)
	only := multiFlag{}
	fs.Var(&only, "level", "print only the requirements of this level (repeatable)")
	if _, code := parseArgs(c, fs, args); code >= 0 {
		return code
	}
	cat := levels.Default()
	ids := cat.LevelIDs()
	if len(only) > 0 {
		var err error
		if ids, err = cat.ParseLevels(only); err != nil {
			fmt.Fprintf(c.stderr, "conformance levels: --level: %v\n", err)
			return exitUsage
		}
	}
	cov, err := loadCoverage(cat)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance levels: %v\n", err)
		return exitHarness
	}
	fmt.Fprintln(c.stdout, "LEVELS")
	for _, id := range ids {
		l, _ := cat.Level(id)
		judged := "judged"
		if !cat.CanJudge(id) {
			judged = "not judged yet"
		}
		fmt.Fprintf(c.stdout, "  %-12s %-8s %-15s %s\n", l.ID, l.Family, judged, l.Meaning)
	}
	fmt.Fprintln(c.stdout, "\nREQUIREMENTS")
	for _, r := range cat.ForLevels(ids) {
		fmt.Fprintf(c.stdout, "\n%s [%s] %s\n", r.ID, r.Strength, r.Title)
		fmt.Fprintf(c.stdout, "  levels: %s and every level above (cumulative)\n", strings.Join(r.Levels, ", "))
		fmt.Fprintf(c.stdout, "  cites:  %s\n", r.Clause)
		if r.IsPrecondition() {
			fmt.Fprintln(c.stdout, "  kind:   protocol precondition (a rule of the harness's control protocol, not of the standard)")
		}
		if r.Reading != "" {
			fmt.Fprintf(c.stdout, "  reading: the harness's reading %q (docs/decisions.md)\n", r.Reading)
		}
		if len(r.BugFamilies) > 0 {
			fams := make([]string, len(r.BugFamilies))
			for i, f := range r.BugFamilies {
				fams[i] = string(f)
			}
			fmt.Fprintf(c.stdout, "  families: %s\n", strings.Join(fams, ", "))
		}
		for _, s := range cov.specs[r.ID] {
			fmt.Fprintf(c.stdout, "  spec:   %s\n", s)
		}
		fmt.Fprintf(c.stdout, "  faults: %s\n", strings.Join(cov.faults[r.ID], " "))
	}
	return exitOK
}

func cmdVersion(c *cli, args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, code := parseArgs(c, fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "conformance version: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	rev := harnessRevision()
	if rev == "" {
		rev = "unknown"
	}
	fmt.Fprintf(c.stdout, "agentapp-conformance %s (commit %s), standard agentapp %s, protocol %s\n", harnessVersion, rev, "0.10.0", "1")
	return exitOK
}
