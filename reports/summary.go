package reports

import (
	"fmt"
	"strings"
)

// SummaryLine is the run's last line, for a CI log to grep
// (docs/report-format.md "The summary line"):
//
//	conformance: 48 passed, 1 failed, 0 error, 0 blocked (levels: catalog, installable)
//
// It counts the report's requirements (every requirement of the requested
// levels, once each) by the outcome Settle gave them, and decides nothing:
// failed counts every failed requirement whatever its strength (a failed
// should / may is one, though it fails no level); the other outcomes
// (flaky, interrupted, skipped, not-run, not-applicable), which are in none of the four
// fixed fields, follow the parenthesis when any requirement has them,
// "; 1 flaky, 3 not-run", so that the four fields and the parenthesis keep
// their place. The parenthesis lists the levels certified (levelsPassed),
// or says none.
func SummaryLine(r *Results) string {
	n := map[Outcome]int{}
	for _, rr := range r.Requirements {
		n[rr.Outcome]++
	}
	certified := "none"
	if len(r.LevelsPassed) > 0 {
		certified = strings.Join(r.LevelsPassed, ", ")
	}
	line := fmt.Sprintf("conformance: %d passed, %d failed, %d error, %d blocked (levels: %s)",
		n[Passed], n[Failed], n[Error], n[Blocked], certified)
	var rest []string
	for _, o := range []Outcome{Flaky, Interrupted, Skipped, NotRun, NotApplicable} {
		if n[o] > 0 {
			rest = append(rest, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	if len(rest) > 0 {
		line += "; " + strings.Join(rest, ", ")
	}
	return line
}
