package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"

	"github.com/agentapp/conformance/reports"
)

// shardReport is one shard's report folder, loaded.
type shardReport struct {
	dir  string
	file string // dir/report.json, as errors name it
	rep  *reports.Report
}

// loadShards loads every folder's report.json and checks that they are the
// shards of one run: one line naming the file and the field otherwise. The
// shards come back in shard order.
func loadShards(dirs []string) ([]*shardReport, error) {
	var shards []*shardReport
	for _, d := range dirs {
		file := filepath.Join(d, reports.ReportFile)
		if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: missing: %s is not a shard's report folder", file, d)
		}
		rep, err := reports.Load(file)
		if err != nil {
			return nil, errors.New(oneLine(err))
		}
		if rep.Run.Shard == nil {
			return nil, fmt.Errorf("%s: run.shard is absent: not a shard's report (run --shard I/N)", file)
		}
		shards = append(shards, &shardReport{dir: d, file: file, rep: rep})
	}
	first := shards[0]
	for _, s := range shards[1:] {
		if err := sameRun(first, s); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(shards, func(i, j int) bool { return shards[i].rep.Run.Shard.Index < shards[j].rep.Run.Shard.Index })
	total := first.rep.Run.Shard.Total
	for i, s := range shards {
		idx := s.rep.Run.Shard.Index
		if i > 0 && shards[i-1].rep.Run.Shard.Index == idx {
			return nil, fmt.Errorf("%s: run.shard.index %d/%d is repeated (also %s)", s.file, idx, total, shards[i-1].file)
		}
		if idx < 1 || idx > total {
			return nil, fmt.Errorf("%s: run.shard.index %d is not in 1..%d", s.file, idx, total)
		}
	}
	if len(shards) != total {
		have := map[int]bool{}
		for _, s := range shards {
			have[s.rep.Run.Shard.Index] = true
		}
		for i := 1; i <= total; i++ {
			if !have[i] {
				return nil, fmt.Errorf("%s: run.shard.total is %d, but shard %d/%d is missing", first.file, total, i, total)
			}
		}
	}
	return shards, nil
}

// sameRun refuses a shard that is not of the same run as the first: the
// same harness, standard, host, selection and fixtures, and the same split.
func sameRun(a, b *shardReport) error {
	x, y := a.rep, b.rep
	for _, f := range []struct {
		field string
		a, b  any
	}{
		{"harness.name", x.Harness.Name, y.Harness.Name},
		{"harness.version", x.Harness.Version, y.Harness.Version},
		{"harness.commit", x.Harness.Commit, y.Harness.Commit},
		{"standard.name", x.Standard.Name, y.Standard.Name},
		{"standard.version", x.Standard.Version, y.Standard.Version},
		{"host.name", x.Host.Name, y.Host.Name},
		{"host.version", x.Host.Version, y.Host.Version},
		{"host.kind", x.Host.Kind, y.Host.Kind},
		{"host.transport", x.Host.Transport, y.Host.Transport},
		{"host.faults", x.Host.Faults, y.Host.Faults},
		// A subject of the signed report: shards of two builds are two runs.
		{"host.artifactDigest", x.Host.ArtifactDigest, y.Host.ArtifactDigest},
		{"levelsRequested", x.Requested, y.Requested},
		{"fixtureSetDigest", x.FixtureSet, y.FixtureSet},
		{"run.focus", x.Run.Focus, y.Run.Focus},
		{"run.labelFilter", x.Run.LabelFilter, y.Run.LabelFilter},
		{"run.expectedFailures", x.Run.ExpectedFailures, y.Run.ExpectedFailures},
		{"run.shard.total", x.Run.Shard.Total, y.Run.Shard.Total},
	} {
		if !sameValue(f.a, f.b) {
			return fmt.Errorf("%s: %s is %s, but %s has %s: not a shard of the same run", b.file, f.field, show(f.b), a.file, show(f.a))
		}
	}
	return nil
}

// sameValue compares field values, taking an empty list for an absent one
// (omitempty drops both).
func sameValue(a, b any) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if ra.Kind() == reflect.Slice && rb.Kind() == reflect.Slice && ra.Len() == 0 && rb.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

// mergeResults joins the shards' results into what one unsharded run
// records, unsettled: each spec is taken from a shard that ran it (the
// worst, should two have), with its exchanges moved by its shard's offset
// in the merged transcript. Outcomes, reasons and verdicts are left to
// reports.Settle, the one place that decides them.
func mergeResults(shards []*shardReport, offsets []int) (*reports.Report, map[string]int) {
	first := shards[0].rep
	rep := &reports.Report{Format: reports.FormatVersion, Results: first.Results}
	rep.Run.Shard = nil
	rep.Readings = nil
	rep.Requirements = nil
	rep.Levels, rep.LevelsPassed = nil, nil
	// from says which shard each chosen spec came from (its artifacts).
	from := map[string]int{}
	var parts []*reports.Report
	for _, s := range shards {
		parts = append(parts, s.rep)
	}
	mergeRunFacts(rep, parts)
	for _, tmpl := range first.Requirements {
		rr := tmpl
		rr.Specs = []reports.SpecResult{}
		chosen := map[string]int{} // specName -> index in rr.Specs
		var spare *reports.RequirementResult
		for i, s := range shards {
			other := requirementOf(s.rep, tmpl.ID)
			if other == nil {
				continue
			}
			if len(other.Specs) == 0 && other.Outcome != reports.NotRun && spare == nil {
				spare = other
			}
			for _, sp := range other.Specs {
				sp.Exchanges = moveExchanges(sp.Exchanges, offsets[i])
				j, ok := chosen[specName(sp)]
				switch {
				case !ok:
					chosen[specName(sp)] = len(rr.Specs)
					rr.Specs = append(rr.Specs, sp)
				case takes(rr.Specs[j].Outcome, sp.Outcome):
					rr.Specs[j] = sp
				default:
					continue
				}
				from[specKey(tmpl.ID, specName(sp))] = i
			}
		}
		sort.SliceStable(rr.Specs, func(i, j int) bool { return rr.Specs[i].Name < rr.Specs[j].Name })
		switch {
		case len(rr.Specs) > 0:
			rr.Outcome, rr.Reason = "", ""
		case spare != nil:
			// No spec, but a shard stopped or skipped it: say so.
			rr.Outcome, rr.Reason = spare.Outcome, spare.Reason
		}
		rep.Requirements = append(rep.Requirements, rr)
	}
	return rep, from
}

// takes reports whether a spec's outcome from a later shard replaces the
// one kept: a spec a shard ran beats one it did not select (not-run), and
// of two that ran, the worse is kept (reports.Worst).
func takes(kept, next reports.Outcome) bool {
	switch {
	case next == reports.NotRun:
		return false
	case kept == reports.NotRun:
		return true
	}
	return next != kept && reports.Worst(kept, next) == next
}

// runRank orders run statuses, worst last: the merged run ended as its
// worst shard did.
func runRank(status string) int {
	switch status {
	case reports.RunInterrupted:
		return 2
	case reports.RunHostUnreachable:
		return 1
	}
	return 0
}

func requirementOf(r *reports.Report, id string) *reports.RequirementResult {
	for i := range r.Requirements {
		if r.Requirements[i].ID == id {
			return &r.Requirements[i]
		}
	}
	return nil
}

// moveExchanges moves a spec's transcript range by its shard's offset;
// [0, 0] is no range and stays so.
func moveExchanges(e [2]int, offset int) [2]int {
	if e == [2]int{} {
		return e
	}
	return [2]int{e[0] + offset, e[1] + offset}
}

func specKey(req, spec string) string { return req + "\x00" + spec }

// specName names a spec within its requirement: its name and, for a
// browser spec of a run over several engines, its engine.
func specName(sp reports.SpecResult) string { return sp.Name + "\x00" + sp.Engine }

// mergeRunFacts folds the run-wide facts of the reports parts (shards, or
// one child per browser engine) into rep: the earliest start and latest
// finish, the worst run status, every escaped process and every reading
// once, and the duration they span.
func mergeRunFacts(rep *reports.Report, parts []*reports.Report) {
	seenReading := map[reports.Reading]bool{}
	var escaped [][]reports.EscapedProcess
	for _, r := range parts {
		if r.StartedAt.Before(rep.StartedAt) {
			rep.StartedAt = r.StartedAt
		}
		if r.FinishedAt.After(rep.FinishedAt) {
			rep.FinishedAt = r.FinishedAt
		}
		if runRank(r.Run.Status) > runRank(rep.Run.Status) {
			rep.Run.Status, rep.Run.Reason = r.Run.Status, r.Run.Reason
		}
		escaped = append(escaped, r.Run.EscapedProcesses)
		for _, rd := range r.Readings {
			if !seenReading[rd] {
				seenReading[rd] = true
				rep.Readings = append(rep.Readings, rd)
			}
		}
	}
	rep.Run.EscapedProcesses = joinEscapes(escaped...)
	rep.DurationMs = rep.FinishedAt.Sub(rep.StartedAt).Milliseconds()
}
