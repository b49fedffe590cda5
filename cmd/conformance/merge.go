package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// mergeDetail is `conformance merge -h`'s text under the summary.
const mergeDetail = `Each SHARD_DIR is the --out of one ` + "`conformance run --shard I/N`" + ` of the same run
(same harness, host, faults, levels, selection and N; every index once). The
merged report is the one an unsharded run writes: each spec from the shard
that ran it, outcomes and verdicts settled again, the transcripts joined in
shard order (seq renumbered), every shard's artifacts/ copied. --out is
replaced whole, as run replaces it. Exit codes are run's.

With --kill-matrix, each folder is a ` + "`conformance selftest --keep`" + ` folder (of
selftest --shard I/N): the baseline is taken from the first, every fault from
the folder named after it, and the kill matrix one unsharded selftest prints
is printed, with its exit code.`

func cmdMerge(c *cli, args []string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	out := fs.String("out", "./conformance-report", "`DIR` the merged report replaces whole")
	signKey := fs.String("sign-key", "", "PEM private key `FILE` (PKCS#8) to sign the merged report with")
	killMatrix := fs.Bool("kill-matrix", false, "the folders are selftest --keep folders: print the merged kill matrix")
	dirs, code := parseArgs(c, fs, args)
	if code >= 0 {
		return code
	}
	if len(dirs) == 0 {
		fmt.Fprintln(c.stderr, "conformance merge: name at least one SHARD_DIR")
		return exitUsage
	}
	if *killMatrix {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "out" || f.Name == "sign-key" })
		if set {
			fmt.Fprintln(c.stderr, "conformance merge: --kill-matrix prints the kill matrix and writes no report: drop --out and --sign-key")
			return exitUsage
		}
		return mergeKillMatrix(c, dirs)
	}
	return mergeRun(c, dirs, *out, *signKey)
}

// mergeRun joins run shards into one report folder.
func mergeRun(c *cli, dirs []string, out, signKey string) int {
	if err := checkMergeOut(out, signKey, dirs); err != nil {
		fmt.Fprintf(c.stderr, "conformance merge: %v\n", err)
		return exitUsage
	}
	shards, err := loadShards(dirs)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance merge: %v\n", err)
		return exitUsage
	}
	cat := levels.Default()
	rep, err := writeMerged(c, shards, cat, out, signKey)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance merge: %v\n", err)
		return exitHarness
	}
	code := exitCodeOf(rep)
	if len(rep.Run.ExpectedFailures) > 0 {
		// The shards ran with --expected-failures: the exit code is run's with it.
		bc, err := checkBaseline(rep, cat, rep.Run.ExpectedFailures)
		if err != nil {
			fmt.Fprintf(c.stderr, "conformance merge: %v\n", err)
			return exitHarness
		}
		bc.print(c.stdout, "the --expected-failures file")
		code = bc.code
	}
	// Last, as run ends: the line a CI log greps.
	fmt.Fprintln(c.stdout, reports.SummaryLine(&rep.Results))
	return code
}

// checkMergeOut checks --out and --sign-key before anything is read, as
// run does (checkRunOptions); --out may not be one of the shards.
func checkMergeOut(out, signKey string, dirs []string) error {
	if err := checkRunOptions(&runOptions{out: out, signKey: signKey}); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	for _, d := range dirs {
		if da, err := filepath.Abs(d); err == nil && da == abs {
			return fmt.Errorf("--out %s is a shard being merged: choose another folder", out)
		}
	}
	return nil
}

// writeMerged writes the merged report into out: the joined transcript,
// logs and artifacts first (WriteAll digests them), then every report file
// by reports.WriteAll once reports.Settle has decided the outcomes.
func writeMerged(c *cli, shards []*shardReport, cat *levels.Catalog, out, signKey string) (*reports.Report, error) {
	rd, err := openReportDir(out)
	if err != nil {
		return nil, err
	}
	defer rd.abort() // a merge that fails leaves the previous report as it was
	offsets, err := joinTranscripts(filepath.Join(rd.dir(), reports.TranscriptFile), shards)
	if err != nil {
		return nil, err
	}
	rep, from := mergeResults(shards, offsets)
	if err := reports.Settle(&rep.Results, cat); err != nil {
		return nil, fmt.Errorf("settling outcomes: %w", err)
	}
	if err := joinLogs(filepath.Join(rd.dir(), "ginkgo.log"), shards); err != nil {
		return nil, err
	}
	if err := copyArtifacts(rd.dir(), shards, rep, from); err != nil {
		return nil, err
	}
	written, err := reports.WriteAll(rd.dir(), rep, reports.WriteOptions{SignKeyPath: signKey, Catalog: cat})
	if err != nil {
		return nil, fmt.Errorf("writing report: %w", err)
	}
	if err := rd.commit(); err != nil {
		return nil, fmt.Errorf("writing report: %w", err)
	}
	fmt.Fprintf(c.stdout, "merged %d shards\n", len(shards))
	printSummary(c.stdout, rep, out, written)
	return rep, nil
}
