package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// verifyExit maps a verification failure to its exit code
// (docs/report-format.md "Exit codes of verify").
func verifyExit(err error) int {
	switch reports.KindOf(err) {
	case reports.KindBadSignature:
		return exitBadSig
	case reports.KindWrongSubject, reports.KindArtifact:
		return exitSubject
	case reports.KindLevel:
		return exitNotLevel
	}
	return exitHarness
}

// cmdVerify verifies a signed report offline: every signature, the
// statement and predicate types, the predicate schema, every level verdict
// recomputed from requirement outcomes, the subject, every artifact the
// predicate lists against the file beside the envelope, the required levels.
func cmdVerify(c *cli, args []string) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var keys, required multiFlag
	fs.Var(&keys, "key", "required: PEM public key `FILE` (PKIX) the report must be signed with (repeatable: every signature must verify with one of them)")
	fs.Var(&required, "require-level", "`LEVEL` that must have passed, recomputed from requirement outcomes (repeatable)")
	host := fs.String("host", "", "`NAME@VERSION` the report must be about")
	artifact := fs.String("artifact", "", "host artifact `FILE` whose SHA-256 the report's host subject must carry")
	pos, code := parseArgs(c, fs, args)
	if code >= 0 {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(c.stderr, "conformance verify: "+format+"\n", a...)
		return exitUsage
	}
	if len(pos) != 1 {
		return usageErr("want exactly one ENVELOPE argument, got %d", len(pos))
	}
	if len(keys) == 0 {
		return usageErr("--key PUB is required")
	}
	// The artifacts are files of the report folder, beside the envelope.
	opts := reports.VerifyOptions{RequireLevels: required, Host: *host, Catalog: levels.Default(),
		ArtifactDir: filepath.Dir(pos[0])}
	for _, p := range keys {
		k, err := reports.LoadPublicKey(p)
		if err != nil {
			return usageErr("--key: %v", err)
		}
		opts.Keys = append(opts.Keys, k)
	}
	if *artifact != "" {
		var err error
		if opts.ArtifactSHA256, err = reports.FileSHA256(*artifact); err != nil {
			return usageErr("--artifact: %v", err)
		}
	}
	v, err := reports.NewVerifier(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	data, err := reports.ReadLimited(pos[0], reports.MaxInputBytes)
	if err != nil {
		fmt.Fprintf(c.stderr, "conformance verify: %s: %v\n", reports.KindMalformed, err)
		return exitHarness
	}
	res, err := v.Verify(context.Background(), data)
	if err != nil {
		// The error may quote what the report says of its host.
		fmt.Fprintf(c.stderr, "conformance verify: %s: %s\n", pos[0], reports.ForTerminal(err.Error()))
		if res != nil {
			printLevels(c.stderr, res)
		}
		return verifyExit(err)
	}
	printVerified(c.stdout, pos[0], res, opts)
	return exitOK
}

func printVerified(w io.Writer, path string, v *reports.Verified, opts reports.VerifyOptions) {
	p := v.Predicate
	fmt.Fprintf(w, "verified %s\n", path)
	for _, id := range v.KeyIDs {
		alg := ""
		for _, k := range opts.Keys {
			if k.ID() == id {
				alg = k.Algorithm() + " "
			}
		}
		fmt.Fprintf(w, "  signed by: %skey %s\n", alg, id)
	}
	fmt.Fprintf(w, "  predicate: %s\n", reports.PredicateType)
	// What the host said of itself is quoted when it is not plain text;
	// so is any other text of the signed report.
	t := reports.ForTerminal
	fmt.Fprintf(w, "  host:      %s %s (%s, %s)\n", t(p.Host.Name), t(p.Host.Version), t(p.Host.Kind), t(p.Host.Transport))
	fmt.Fprintf(w, "  harness:   %s %s %s; standard %s %s\n", t(p.Harness.Name), t(p.Harness.Version), t(p.Harness.Commit), t(p.Standard.Name), t(p.Standard.Version))
	fmt.Fprintf(w, "  run:       %s to %s\n", p.StartedAt.Format("2006-01-02T15:04:05Z07:00"), p.FinishedAt.Format("2006-01-02T15:04:05Z07:00"))
	for _, s := range v.Subjects {
		var ds []string
		for alg, d := range s.GetDigest() {
			ds = append(ds, alg+":"+d)
		}
		fmt.Fprintf(w, "  subject:   %s %s\n", t(s.GetName()), t(strings.Join(ds, " ")))
	}
	if v.Files > 0 {
		fmt.Fprintf(w, "  files:     %d, each matching its SHA-256 in the statement's subjects\n", v.Files)
	}
	if v.Artifacts > 0 {
		fmt.Fprintf(w, "  artifacts: %d, each matching its SHA-256 in the predicate\n", v.Artifacts)
	}
	printLevels(w, v)
	if len(opts.RequireLevels) > 0 {
		fmt.Fprintf(w, "required levels passed: %s\n", strings.Join(opts.RequireLevels, ", "))
	}
}

func printLevels(w io.Writer, v *reports.Verified) {
	fmt.Fprintf(w, "levels, recomputed from %d requirement outcomes:\n", len(v.Predicate.Requirements))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, l := range v.Levels {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", reports.ForTerminal(l.ID), reports.ForTerminal(string(l.Verdict)), reports.ForTerminal(l.Reason))
	}
	_ = tw.Flush()
}
