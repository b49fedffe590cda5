package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// maxExpectedFile bounds an --expected-failures file.
const maxExpectedFile = 1 << 20

// loadExpectedFailures reads a baseline of known failures: a YAML mapping
// from requirement id to why it fails,
//
//	BRIDGE-ORIGIN: "HOST-123: the origin check lands in 2.4"
//
// Every id must be in the catalog and every reason non-empty; an error
// names the file, the line and the entry.
func loadExpectedFailures(path string, cat *levels.Catalog) ([]reports.ExpectedFailure, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxExpectedFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxExpectedFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxExpectedFile)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.TrimPrefix(oneLine(err), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty; want a mapping from requirement id to reason", path)
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping from requirement id to reason", path, m.Line)
	}
	var out []reports.ExpectedFailure
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		id := strings.TrimSpace(k.Value)
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s:%d: a key must be a requirement id", path, k.Line)
		}
		if _, ok := cat.Requirement(id); !ok {
			return nil, fmt.Errorf("%s:%d: %q is no requirement id (conformance levels lists them)", path, k.Line, id)
		}
		if seen[id] {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, k.Line, id)
		}
		seen[id] = true
		if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
			return nil, fmt.Errorf("%s:%d: %s: give the reason it is expected to fail", path, v.Line, id)
		}
		out = append(out, reports.ExpectedFailure{ID: id, Reason: strings.TrimSpace(v.Value)})
	}
	if len(out) == 0 {
		return nil, errors.New(path + ": lists no requirement")
	}
	return out, nil
}

// baselineCheck is what a baseline of known failures makes of a run:
// which listed requirements still fail, which pass now (stale entries) and
// the exit code with the known failures forgiven.
type baselineCheck struct {
	stillFailing, stale []reports.ExpectedFailure
	// unjudged are listed requirements that neither failed nor passed
	// (blocked, error, skipped, ...): the baseline forgives failures only,
	// so they count as the report says.
	unjudged []unjudgedEntry
	// forgiven are the levels whose verdict the forgiven failures change
	// for the exit code; report.json and the table keep the run's verdict.
	forgiven []forgivenLevel
	code     int
}

// unjudgedEntry is a listed requirement the run did not judge, with the
// outcome and reason report.json gives it.
type unjudgedEntry struct {
	reports.ExpectedFailure
	outcome reports.Outcome
	reason  string
}

// forgivenLevel is a level whose verdict the baseline changes for the exit code.
type forgivenLevel struct {
	id        string
	found, as reports.Verdict
}

// checkBaseline forgives the listed requirements that failed and recomputes
// the levels without them (reports.ComputeLevels, the one place verdicts
// are decided); the report itself keeps every failure. A listed
// requirement that passed is stale and fails the run, so that a baseline
// only shrinks.
func checkBaseline(rep *reports.Report, cat *levels.Catalog, expected []reports.ExpectedFailure) (baselineCheck, error) {
	var bc baselineCheck
	withBaseline := rep.Results
	withBaseline.Run.ExpectedFailures = expected
	forgive := map[string]bool{}
	for _, e := range reports.Baseline(&withBaseline) {
		switch e.State {
		case reports.BaselineStillFailing:
			bc.stillFailing = append(bc.stillFailing, e.ExpectedFailure)
			forgive[e.ID] = true
		case reports.BaselineStale:
			bc.stale = append(bc.stale, e.ExpectedFailure)
		default:
			bc.unjudged = append(bc.unjudged, unjudgedEntry{ExpectedFailure: e.ExpectedFailure, outcome: e.Outcome, reason: e.Why})
		}
	}
	reqs := make([]reports.RequirementResult, len(rep.Requirements))
	copy(reqs, rep.Requirements)
	for i := range reqs {
		if forgive[reqs[i].ID] {
			reqs[i].Outcome = reports.Passed
		}
	}
	forgiven := *rep
	var err error
	forgiven.Levels, err = reports.ComputeLevels(cat, rep.Requested, reqs)
	if err != nil {
		return bc, fmt.Errorf("recomputing the levels without the expected failures: %w", err)
	}
	for i, l := range forgiven.Levels {
		if i < len(rep.Levels) && rep.Levels[i].ID == l.ID && rep.Levels[i].Verdict != l.Verdict {
			bc.forgiven = append(bc.forgiven, forgivenLevel{id: l.ID, found: rep.Levels[i].Verdict, as: l.Verdict})
		}
	}
	bc.code = exitCodeOf(&forgiven)
	if len(bc.stale) > 0 && bc.code != exitInterrupted {
		bc.code = exitFailed
	}
	return bc, nil
}

// print says what the baseline did, one line per entry.
func (bc baselineCheck) print(w io.Writer, file string) {
	for _, e := range bc.stillFailing {
		fmt.Fprintf(w, "expected failure: %s still fails (%s); it does not fail the run\n", e.ID, e.Reason)
	}
	for _, e := range bc.stale {
		fmt.Fprintf(w, "stale expected failure: %s passes now; remove it from %s\n", e.ID, file)
	}
	for _, e := range bc.unjudged {
		// The outcome and reason are report.json's; the host wrote part
		// of the reason, so it is quoted when it is not plain text.
		fmt.Fprintf(w, "expected failure: %s is %s, not failed (%s): the baseline forgives failures only, so it counts as %s\n",
			e.ID, e.outcome, reports.ForTerminal(e.reason), e.outcome)
	}
	for _, l := range bc.forgiven {
		fmt.Fprintf(w, "level %s: %s in the report; %s for the exit code, with the expected failures forgiven\n", l.id, l.found, l.as)
	}
}
