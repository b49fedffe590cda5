package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentapp/conformance/reports"
)

// catalogFault fails a requirement of the catalog level (CAT-MANIFEST-VERSION),
// so a failing verdict must survive the merge. The catalog level is the
// cheapest whole level (14 requirements, a few seconds) and sharding deals
// whole requirements, so it shows the merge as well as a longer level would.
const catalogFault = "accept-any-manifest-version"

// shardedRun runs `run --level catalog` (with args) as n shards into
// root/shard-I and returns their folders. Each shard alone leaves the
// others' requirements not-run, so it exits 8 (1 when it holds a failure
// under a fault), and records its shard.
func shardedRun(t *testing.T, bin, root string, n int, args ...string) []string {
	t.Helper()
	var dirs []string
	for i := 1; i <= n; i++ {
		dir := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		a := append([]string{"run", "--quiet", "--level", "catalog", "--shard", fmt.Sprintf("%d/%d", i, n), "--out", dir}, args...)
		code := runBinary(t, bin, a...)
		if code != exitIncomplete && !(len(args) > 0 && code == exitFailed) {
			t.Fatalf("shard %d/%d %v exited %d, want %d", i, n, args, code, exitIncomplete)
		}
		rep, err := reports.Load(filepath.Join(dir, reports.ReportFile))
		if err != nil {
			t.Fatal(err)
		}
		if s := rep.Run.Shard; s == nil || *s != (reports.Shard{Index: i, Total: n}) {
			t.Errorf("shard %d/%d: run.shard = %+v", i, n, s)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// TestMergingRunShardsGivesTheUnshardedReport: three shards of a run,
// merged, give the levels, verdicts, requirement outcomes and spec outcomes
// of one unsharded run, and its exit code; with and without a fault.
func TestMergingRunShardsGivesTheUnshardedReport(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	priv, pub := keygen(t, reports.Ed25519)
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"no fault", nil, exitOK},
		{catalogFault, []string{"--fault", catalogFault}, exitFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			whole := filepath.Join(root, "whole")
			if code := runBinary(t, bin, append([]string{"run", "--quiet", "--level", "catalog", "--out", whole}, tc.args...)...); code != tc.code {
				t.Fatalf("unsharded run exited %d, want %d", code, tc.code)
			}
			shards := shardedRun(t, bin, root, 3, tc.args...)
			merged := filepath.Join(root, "merged")
			code, stdout, stderr := cliRun(t, append([]string{"merge", "--out", merged, "--sign-key", priv}, shards...)...)
			if code != tc.code {
				t.Fatalf("merge exited %d, want %d (the unsharded run's): %s", code, tc.code, stderr)
			}
			want, err := reports.Load(filepath.Join(whole, reports.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			got, err := reports.Load(filepath.Join(merged, reports.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			// merge ends as run does, with the summary line.
			if !strings.HasSuffix(stdout, reports.SummaryLine(&got.Results)+"\n") {
				t.Errorf("merge's stdout does not end with the summary line %q:\n%s", reports.SummaryLine(&got.Results), stdout)
			}
			if got.Run.Shard != nil {
				t.Errorf("merged run.shard = %+v, want none", got.Run.Shard)
			}
			if diff := cmp.Diff(judged(want), judged(got)); diff != "" {
				t.Errorf("merged report differs from the unsharded one (-unsharded +merged):\n%s", diff)
			}
			if code := exitCodeOf(got); code != tc.code {
				t.Errorf("merged report's exit code %d, want %d", code, tc.code)
			}
			if code, _, stderr := cliRun(t, "verify", "--key", pub, filepath.Join(merged, reports.EnvelopeFile)); code != exitOK {
				t.Errorf("verify of the merged report: exit %d: %s", code, stderr)
			}
			if got.Transcript.Exchanges == 0 {
				t.Error("the merged transcript is empty")
			}
		})
	}
}

// judgedRequirement is what a report judged about one requirement.
type judgedRequirement struct {
	ID, Outcome string
	Specs       []string // name: outcome
}

// judged is what a report judged, without times, durations and exchanges.
func judged(r *reports.Report) any {
	var reqs []judgedRequirement
	for _, rr := range r.Requirements {
		jr := judgedRequirement{ID: rr.ID, Outcome: string(rr.Outcome)}
		for _, s := range rr.Specs {
			jr.Specs = append(jr.Specs, s.Name+": "+string(s.Outcome))
		}
		reqs = append(reqs, jr)
	}
	return struct {
		Requested, LevelsPassed []string
		Levels                  []reports.LevelResult
		Run                     reports.RunStatus
		Requirements            []judgedRequirement
	}{r.Requested, r.LevelsPassed, r.Levels, r.Run, reqs}
}

// TestMergeRefusesShardsOfDifferentRuns: shards of two runs, a shard given
// twice, a folder without report.json: exit 2, one line naming the file and
// the field.
func TestMergeRefusesShardsOfDifferentRuns(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	root := t.TempDir()
	plain := shardedRun(t, bin, filepath.Join(root, "plain"), 2)
	faulty := shardedRun(t, bin, filepath.Join(root, "faulty"), 2, "--fault", catalogFault)
	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		dirs   []string
		file   string
		fields []string
	}{
		{"another host fault set", []string{plain[0], faulty[1]}, filepath.Join(faulty[1], reports.ReportFile), []string{"host.faults"}},
		{"a repeated shard", []string{plain[0], plain[1], plain[0]}, filepath.Join(plain[0], reports.ReportFile), []string{"run.shard.index", "repeated"}},
		{"a missing shard", []string{plain[1]}, filepath.Join(plain[1], reports.ReportFile), []string{"run.shard.total", "shard 1/2 is missing"}},
		{"no report.json", []string{plain[0], empty}, filepath.Join(empty, reports.ReportFile), []string{"missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(root, "out")
			code, stdout, stderr := cliRun(t, append([]string{"merge", "--out", out}, tc.dirs...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || !strings.Contains(stderr, tc.file+":") {
				t.Errorf("stderr %q: want one line naming %s", stderr, tc.file)
			}
			for _, f := range tc.fields {
				if !strings.Contains(stderr, f) {
					t.Errorf("stderr %q does not name %q", stderr, f)
				}
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("a refused merge wrote %s", out)
			}
		})
	}
}
