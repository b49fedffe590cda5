package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// killMatrixScope says what a set of finished cases can be judged on.
type killMatrixScope struct {
	// everyFault is set when the cases hold every fault selftest runs, so
	// each spec must have failed under at least one of them.
	everyFault bool
	// skipped, when the every-spec check is not made and the output must
	// say why (a shard, --level); "" says nothing (--fault picks faults).
	skipped string
}

// judgeKillMatrix judges a set of finished cases, the baseline first: it
// prints the kill matrix, the every-spec check, the false-pass check of
// each indiscriminate fault, the variants' verdicts (printVariants) and
// the closing line CI runners read, and returns the exit code. selftest
// and merge --kill-matrix both judge here.
func judgeKillMatrix(w io.Writer, all []*selftestCase, cat *levels.Catalog, scope killMatrixScope) int {
	var cases, variants []*selftestCase
	for _, k := range all {
		if k.variant.Name != "" {
			variants = append(variants, k)
		} else {
			cases = append(cases, k)
		}
	}
	bad, checks := 0, 0
	// problems recaps each failed check by name just above the closing
	// line, so a runner that keeps only the output's tail still says which.
	var problems []string
	if len(cases) > 0 {
		problems = printKillMatrix(w, cases)
		bad, checks = len(problems), len(cases)
	}
	switch {
	case len(cases) == 0:
	case scope.everyFault:
		// With every fault run, each spec (not only each requirement) must
		// have failed under at least one of them.
		checks++
		if idle := unkilledSpecs(cases); len(idle) > 0 {
			fmt.Fprintf(w, "%d specs failed under no fault (a broken host could pass them):\n", len(idle))
			for _, s := range idle {
				fmt.Fprintf(w, "  %s\n", s)
			}
			bad++
			problems = append(problems, fmt.Sprintf("%d specs failed under no fault", len(idle)))
		} else {
			fmt.Fprintln(w, "every spec failed under at least one fault")
		}
	case scope.skipped != "":
		fmt.Fprintf(w, "not checked that every spec failed under at least one fault: %s\n", scope.skipped)
	}
	// Under an indiscriminate fault, no requirement resting on a refusal of
	// the kinds it gives or withholds regardless of what was planted may pass.
	for _, k := range cases {
		if len(k.fault.Indiscriminate) == 0 || k.report == nil {
			continue
		}
		checks++
		if passed, n := refusalPasses(k, cat); len(passed) > 0 {
			fmt.Fprintf(w, "FALSE-PASS  %s: %d requirements rest on a refusal it gives regardless, and these passed: %s\n",
				k.fault.Name, n, strings.Join(passed, " "))
			bad++
			problems = append(problems, "FALSE-PASS under "+k.fault.Name)
		} else {
			fmt.Fprintf(w, "no false pass under %s: none of the %d requirements resting on a refusal passed\n", k.fault.Name, n)
		}
	}
	// Under a variant, a reading the texts allow, nothing may be blamed.
	if len(variants) > 0 {
		checks += len(variants)
		// The closing problem line names them: a CI log that keeps only
		// its tail still says which reading was blamed.
		if blamed := printVariants(w, variants, cat); len(blamed) > 0 {
			bad += len(blamed)
			for _, b := range blamed {
				problems = append(problems, "variant blamed: "+b)
			}
		}
	}
	for _, p := range problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	// The closing line CI runners read.
	fmt.Fprintf(w, "selftest: %d passed, %d failed\n", checks-bad, bad)
	if bad > 0 {
		return exitFailed
	}
	return exitOK
}

// refusalPasses lists the requirements resting on a refusal of a kind the
// fault gives regardless (levels.Requirement.Refusal) that passed under
// it, and how many such requirements the run judged.
func refusalPasses(k *selftestCase, cat *levels.Catalog) (passed []string, n int) {
	out := map[string]reports.Outcome{}
	for _, r := range k.report.Requirements {
		out[r.ID] = r.Outcome
	}
	for _, r := range cat.Requirements() {
		o, ran := out[r.ID]
		if !ran || !restsOn(r, k.fault.Indiscriminate) {
			continue
		}
		n++
		if o == reports.Passed {
			passed = append(passed, r.ID)
		}
	}
	return passed, n
}

func restsOn(r levels.Requirement, kinds []levels.RefusalKind) bool {
	for _, k := range r.Refusal {
		if slices.Contains(kinds, k) {
			return true
		}
	}
	return false
}

// unkilledSpecs lists the baseline's specs that no fault run failed.
func unkilledSpecs(cases []*selftestCase) []string {
	killed := map[string]bool{}
	var all []string
	for _, k := range cases {
		if k.report == nil {
			continue
		}
		for _, r := range k.report.Requirements {
			for _, s := range r.Specs {
				if k.fault.Name == "" {
					all = append(all, s.Name)
				} else if s.Outcome == reports.Failed {
					killed[s.Name] = true
				}
			}
		}
	}
	var idle []string
	for _, s := range all {
		if !killed[s] {
			idle = append(idle, s)
		}
	}
	sort.Strings(idle)
	return idle
}

// failedIn reports whether a requirement failed in a run: judged and not
// passed. A fault under which the host says a clause binds nothing on it
// (not-applicable) was not caught.
func failedIn(r reports.RequirementResult) bool {
	return r.Outcome != reports.Passed && r.Outcome != reports.NotRun && r.Outcome != reports.NotApplicable
}

// judge compares a case's failed requirements with what its fault is meant
// to break (the kill verdict) and what its collateral file records.
func judge(k *selftestCase) killVerdict {
	if k.err != nil {
		return killVerdict{status: "ERROR"}
	}
	failed := map[string]bool{}
	for _, r := range k.report.Requirements {
		if failedIn(r) {
			failed[r.ID] = true
		}
	}
	v := killVerdict{}
	for _, id := range k.breaks() {
		if !failed[id] {
			v.survivors = append(v.survivors, id)
		}
	}
	ran := map[string]bool{}
	for _, r := range k.report.Requirements {
		ran[r.ID] = r.Outcome != reports.NotRun
	}
	// A recorded collateral the child did not run (the breaks scope runs
	// only what the fault breaks) is neither stale nor new.
	for _, id := range k.collateral() {
		if ran[id] && !failed[id] {
			v.stale = append(v.stale, id)
		}
	}
	expected := slices.Concat(k.breaks(), k.collateral())
	for id := range failed {
		if !slices.Contains(expected, id) {
			v.collateral = append(v.collateral, id)
		}
	}
	sort.Strings(v.collateral)
	escaped := k.report.Run.EscapedProcesses
	v.unreported = k.fault.Escapes && len(escaped) == 0
	if !k.fault.Escapes {
		for _, e := range escaped {
			v.strays = append(v.strays, e.Command)
		}
	}
	switch {
	case k.fault.Name == "" && (len(v.collateral) > 0 || len(v.strays) > 0):
		v.status = "FALSE-FAIL"
	case k.fault.Name == "":
		v.status = "PASSED"
	case len(v.survivors) > 0 || v.unreported:
		v.status = "SURVIVED"
	case len(v.collateral) > 0 || len(v.strays) > 0:
		v.status = "COLLATERAL"
	case len(v.stale) > 0:
		v.status = "STALE"
	default:
		v.status = "KILLED"
	}
	return v
}

// printKillMatrix prints a line per case and returns the cases that
// failed, each as its status and fault. A STALE case is killed: a recorded
// collateral that passed this time is reported, never a failure (no
// verdict may rest on another requirement's failure, so one that holds
// under a fault is no fault of the suite's).
func printKillMatrix(w io.Writer, cases []*selftestCase) []string {
	var bad []string
	killed := 0
	for _, k := range cases {
		v := judge(k)
		name := k.fault.Name
		if name == "" {
			name = "(no fault)"
		}
		what := slices.Clone(k.breaks())
		if n := len(k.collateral()); n > 0 {
			what = append(what, fmt.Sprintf("(+%d recorded collateral)", n))
		}
		if k.fault.Escapes {
			what = append(what, "(leaves a process: run.escapedProcesses)")
		}
		fmt.Fprintf(w, "%-11s %-30s %s\n", v.status, name, strings.Join(what, " "))
		switch v.status {
		case "KILLED", "STALE":
			killed++
		case "PASSED":
		default:
			bad = append(bad, v.status+" "+name)
		}
		if len(v.survivors) > 0 {
			fmt.Fprintf(w, "            passed though the fault breaks them: %s\n", strings.Join(v.survivors, " "))
		}
		if v.unreported {
			fmt.Fprintln(w, "            the process the fault leaves behind is not in the report (run.escapedProcesses)")
		}
		if len(v.strays) > 0 {
			fmt.Fprintf(w, "            processes escaped the host's process group though the fault leaves none: %s\n", strings.Join(v.strays, "; "))
		}
		if len(v.collateral) > 0 {
			fmt.Fprintf(w, "            failed though the fault does not break them: %s\n", strings.Join(v.collateral, " "))
			for _, id := range v.collateral {
				if msg := failureOf(k.report, id); msg != "" {
					fmt.Fprintf(w, "              %s: %s\n", id, reports.ForTerminal(reports.TruncateUTF8(firstLine(msg), 240)))
				}
			}
			if k.fault.Name != "" {
				fmt.Fprintf(w, "            new collateral: record it with %s\n", refreshCollateral(k.fault.Name))
			}
		}
		if len(v.stale) > 0 {
			fmt.Fprintf(w, "            stale %s: recorded as its collateral but did not fail: %s; refresh with %s\n",
				mockhost.CollateralFile, strings.Join(v.stale, " "), refreshCollateral(k.fault.Name))
		}
		if k.err != nil {
			fmt.Fprintf(w, "            %v\n%s\n", k.err, indent(lastLines(k.output, 20), "            | "))
		}
	}
	fmt.Fprintf(w, "\nkill matrix: %d of %d faults killed, %d problems\n", killed, len(cases)-1, len(bad))
	return bad
}

func failureOf(rep *reports.Report, id string) string {
	if rep == nil {
		return ""
	}
	for _, r := range rep.Requirements {
		if r.ID == id {
			return r.Reason
		}
	}
	return ""
}
