package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// harnessVersion is this harness's version.
const harnessVersion = "0.1.0"

type reportInput struct {
	catalog   *levels.Catalog
	levels    []string
	result    *suites.Result
	started   time.Time
	finished  time.Time
	transport string
	faults    []string
	variants  []string
	work      string
	// reportDir is the (staging) folder the report is written to: the
	// files specs saved there (suites.SpecOutcome.Artifacts) are read from
	// it for their digests ("": no artifact is recorded).
	reportDir string
	// focus and labelFilter are the user's selection, recorded in the report.
	focus       []string
	labelFilter string
	// expected is the baseline of known failures, recorded as given.
	expected []reports.ExpectedFailure
	// shard is the slice of the run this report holds (nil: the whole run).
	shard *shard
	// escaped are the host's processes found outside its process group.
	escaped []reports.EscapedProcess
}

// buildReport turns spec outcomes into report.json's model: every
// requirement of the requested levels, in catalog order, with its specs.
func buildReport(in reportInput) (*reports.Report, error) {
	bySpecReq := map[string][]reports.SpecResult{}
	var readings []reports.Reading
	seenReading := map[string]bool{}
	for _, s := range in.result.Specs {
		sr := s.Result()
		// A path that would leave the report folder, or whose file is
		// gone, is dropped: the report lists only what verify can check.
		sr.Artifacts = reports.ArtifactsIn(in.reportDir, s.Artifacts)
		for _, id := range s.Requirements {
			bySpecReq[id] = append(bySpecReq[id], sr)
		}
		for _, r := range s.Readings {
			topic, reading, _ := strings.Cut(r, ": ")
			reading = reports.TruncateUTF8(reading, maxReading)
			if !seenReading[r] {
				seenReading[r] = true
				readings = append(readings, reports.Reading{Topic: topic, Reading: reading})
			}
		}
	}
	var reqs []reports.RequirementResult
	for _, r := range in.catalog.ForLevels(in.levels) {
		specs := bySpecReq[r.ID]
		sort.SliceStable(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
		rr := reports.RequirementResult{
			ID: r.ID, Title: r.Title, Strength: string(r.Strength), Kind: string(r.Kind),
			Levels: append([]string(nil), r.Levels...), Clause: reports.ClauseOf(r.Clause), Reading: r.Reading,
			Specs: specs,
		}
		if rr.Specs == nil {
			rr.Specs = []reports.SpecResult{}
		}
		reqs = append(reqs, rr)
	}
	fixtures, set, err := fixtureDigests(in.work)
	if err != nil {
		return nil, err
	}
	h := clipHello(in.result.Hello)
	rep := &reports.Report{Format: reports.FormatVersion, Results: reports.Results{
		Harness:  reports.Harness{Name: "agentapp-conformance", Version: harnessVersion, Commit: harnessRevision()},
		Standard: reports.Standard{Name: agentpkg.Standard, Version: agentpkg.StandardVersion},
		Host: reports.Host{
			Name: h.Host.Name, Version: h.Host.Version, Kind: h.Host.Kind, ProtocolVersion: h.ProtocolVersion,
			LevelsClaimed: h.Levels, Transport: in.transport, Faults: in.faults, Variants: in.variants,
		},
		Environment: reports.Environment{OS: runtime.GOOS, Arch: runtime.GOARCH, GoVersion: runtime.Version(),
			Browser: clipRunes(strings.Join(in.result.Browsers, "; "), maxBrowserText), Browsers: browserEnvs(in.result.BrowserInfos)},
		StartedAt:    in.started,
		FinishedAt:   in.finished,
		DurationMs:   in.finished.Sub(in.started).Milliseconds(),
		Run:          runStatus(in),
		Requested:    in.levels,
		Requirements: reqs,
		Fixtures:     fixtures,
		FixtureSet:   set,
		Readings:     readings,
	}}
	if err := reports.Settle(&rep.Results, in.catalog); err != nil {
		return nil, fmt.Errorf("settling outcomes: %w", err)
	}
	// A host that could not be reached, or whose hello named nothing, still
	// gets a report: its subject must name something.
	if rep.Host.Name == "" {
		rep.Host.Name = "unnamed-host"
		if !in.result.Connected {
			rep.Host.Name = "unreachable-host"
		}
	}
	if rep.Host.Version == "" {
		rep.Host.Version = "unknown"
	}
	return rep, nil
}

// runStatus says how the run ended and what it selected.
func runStatus(in reportInput) reports.RunStatus {
	st := reports.RunStatus{Status: reports.RunComplete, Focus: in.focus, LabelFilter: in.labelFilter, ExpectedFailures: in.expected,
		Shard: in.shard.status(), EscapedProcesses: in.escaped}
	switch {
	case in.result.Interrupted != "":
		st.Status = reports.RunInterrupted
		st.Reason = "interrupted by " + in.result.Interrupted
	case in.result.Unreachable != "":
		st.Status = reports.RunHostUnreachable
		st.Reason = in.result.Unreachable
	}
	return st
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// fixtureDigests hashes every fixture package with the standard's algorithm;
// the set digest covers the sorted name/hash lines.
func fixtureDigests(work string) ([]reports.Digest, string, error) {
	dir, err := os.MkdirTemp(work, "fixture-digests-")
	if err != nil {
		return nil, "", fmt.Errorf("making fixture digest folder: %w", err)
	}
	defer os.RemoveAll(dir)
	names := platformconformance.Names()
	sort.Strings(names)
	var out []reports.Digest
	set := sha256.New()
	for _, n := range names {
		p, err := platformconformance.Materialize(n, dir)
		if err != nil {
			return nil, "", fmt.Errorf("materializing fixture %s: %w", n, err)
		}
		h, _, err := agentpkg.HashPackage(p, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
		if err != nil {
			return nil, "", fmt.Errorf("hashing fixture %s: %w", n, err)
		}
		out = append(out, reports.Digest{Name: n, SHA256: strings.TrimPrefix(h, "sha256:")})
		fmt.Fprintf(set, "%s %s\n", n, h)
		if err := os.RemoveAll(filepath.Join(dir, n)); err != nil {
			return nil, "", fmt.Errorf("removing fixture copy %s: %w", n, err)
		}
	}
	return out, hex.EncodeToString(set.Sum(nil)), nil
}

// harnessCommit is the commit the harness was built from, stamped by the
// Makefile's build (go build -ldflags "-X main.harnessCommit=...": the
// output of git rev-parse HEAD, with "-dirty" when the tree had changes,
// or "unknown" when the build was outside git). Empty in any other build.
var harnessCommit string

// harnessRevision is the commit the harness was built from, "" when
// nothing says. The ldflag wins: it is what the Makefile saw when it
// built; Go's own stamp (debug.ReadBuildInfo's vcs.revision, which go build
// records in a git tree but go run and go test do not) is the fallback
// when the ldflag is empty.
func harnessRevision() string {
	if harnessCommit != "" {
		return harnessCommit
	}
	return vcsRevision(debug.ReadBuildInfo())
}

// vcsRevision is the commit Go recorded in the build info, with "-dirty"
// when the tree had changes ("" when Go recorded none).
func vcsRevision(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// Host-controlled text lands in the report; these caps keep a hostile host
// from making the report unwritable or unreadable (failure messages are cut
// where suites build them, to reports.MaxFailureText).
const (
	maxHostField  = 256
	maxReading    = 1024
	maxLevelClaim = 32
)

// clipHello caps what the host said about itself.
func clipHello(h protocol.HelloResult) protocol.HelloResult {
	h.Host.Name = reports.TruncateUTF8(h.Host.Name, maxHostField)
	h.Host.Version = reports.TruncateUTF8(h.Host.Version, maxHostField)
	h.Host.Kind = reports.TruncateUTF8(h.Host.Kind, maxHostField)
	h.ProtocolVersion = reports.TruncateUTF8(h.ProtocolVersion, maxHostField)
	if len(h.Levels) > maxLevelClaim {
		h.Levels = h.Levels[:maxLevelClaim]
	}
	levels := make([]string, len(h.Levels))
	for i, l := range h.Levels {
		levels[i] = reports.TruncateUTF8(l, maxHostField)
	}
	h.Levels = levels
	return h
}

// maxBrowserText is the longest environment.browser the report schema
// takes.
const maxBrowserText = 1024

// Caps of environment.browsers[] (the report schema's).
const (
	maxBrowsers       = 16
	maxBrowserField   = 64
	maxBrowserReached = 256
)

// browserEnvs are the browsers the suites describe (suites.Result.Browsers,
// each beginning with browser.Info's text), as report values. A
// description that does not begin with one is left to environment.browser.
func browserEnvs(infos []browser.Info) []reports.BrowserEnv {
	var out []reports.BrowserEnv
	for _, i := range infos {
		if len(out) == maxBrowsers {
			break
		}
		out = append(out, reports.BrowserEnv{
			Engine: string(i.Engine), EngineVersion: clipRunes(i.EngineVersion, maxBrowserField),
			Product: clipRunes(i.Product, maxBrowserField), Version: clipRunes(i.Version, maxBrowserField),
			Protocol: i.Protocol, Reached: clipRunes(i.Reached, maxBrowserReached),
		})
	}
	return out
}

// clipRunes cuts s to at most n runes, marking the cut with an ellipsis.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
