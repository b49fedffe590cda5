package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// TestParseEnginesReadsOneOrSeveral: --browser-engine takes one engine or
// a list, in the order given; checkRunOptions keeps it as o.engines.
func TestParseEnginesReadsOneOrSeveral(t *testing.T) {
	for in, want := range map[string][]browser.Engine{
		"chromium":           {browser.EngineChromium},
		"webkit":             {browser.EngineWebKit},
		"chromium,webkit":    {browser.EngineChromium, browser.EngineWebKit},
		" WebKit , chromium": {browser.EngineWebKit, browser.EngineChromium},
	} {
		got, err := parseEngines(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseEngines(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	o := &runOptions{out: t.TempDir() + "/report", browserEngine: "chromium,webkit"}
	if err := checkRunOptions(o); err != nil || !slices.Equal(o.engines, []browser.Engine{browser.EngineChromium, browser.EngineWebKit}) {
		t.Errorf("checkRunOptions: engines %v, %v", o.engines, err)
	}
}

// TestEngineChildArgsKeepTheSelection: each engine's child gets the run's
// host, levels and selection, its own engine, out and filter, and never
// the signing key or another engine's browser.
func TestEngineChildArgsKeepTheSelection(t *testing.T) {
	o := &runOptions{hostCmd: "h --stdio", levels: multiFlag{"desktop-p2"}, focus: multiFlag{"snap"}, callTimeout: 5 * time.Second,
		signKey: "k.pem", hostArtifact: "a.bin", browserAttempts: 1, faults: multiFlag{"f"}, shardSpec: "1/2", quiet: true}
	args := strings.Join(engineChildArgs(o, browser.EngineWebKit, "/w/engine-webkit", "(BRIDGE-SNAPSHOT)"), " ")
	for _, want := range []string{"run --browser-engine webkit --out /w/engine-webkit", "--host-cmd h --stdio", "--level desktop-p2",
		"--label-filter (BRIDGE-SNAPSHOT)", "--focus snap", "--fault f", "--shard 1/2", "--browser-attempts 1", "--quiet", "--call-timeout 5s"} {
		if !strings.Contains(args, want) {
			t.Errorf("child args %q lack %q", args, want)
		}
	}
	for _, not := range []string{"k.pem", "a.bin", "--webdriver", "--browser "} {
		if strings.Contains(args, not) {
			t.Errorf("child args %q carry %q", args, not)
		}
	}
	if got := laterEngineFilter("desktop-p2", []string{"A", "B"}); got != "(desktop-p2) && (A || B)" {
		t.Errorf("laterEngineFilter = %q", got)
	}
}

// engineChild is a child report of one engine with one requirement.
func engineChild(engine string, specs ...reports.SpecResult) *shardReport {
	rep := &reports.Report{Format: reports.FormatVersion}
	rep.Requested = []string{"desktop-p2"}
	rep.Run.Status = reports.RunComplete
	rep.Environment.Browser = engine + " browser"
	rep.Environment.Browsers = []reports.BrowserEnv{{Engine: engine, Protocol: "webdriver"}}
	rep.Requirements = []reports.RequirementResult{{ID: "BRIDGE-SNAPSHOT", Strength: "must", Outcome: reports.RequirementOutcome(specs), Specs: specs}}
	return &shardReport{dir: "/w/engine-" + engine, rep: rep}
}

// TestMergeEnginesFailsARequirementThatFailsOnOneEngine: a requirement
// whose browser spec passes on chromium and fails on webkit fails, its
// reason names both outcomes; the later engine's browser-free spec (run
// on the first already) is dropped, its exchanges and artifacts move, and
// environment.browsers names both engines.
func TestMergeEnginesFailsARequirementThatFailsOnOneEngine(t *testing.T) {
	shot := reports.Artifact{Path: "artifacts/217-BRIDGE-SNAPSHOT-a1-1.png", Kind: reports.ArtifactScreenshot}
	chromium := engineChild("chromium",
		reports.SpecResult{Name: "snapshot", Outcome: reports.Passed, Engine: "chromium", Exchanges: [2]int{1, 4}},
		reports.SpecResult{Name: "catalog", Outcome: reports.Passed, Exchanges: [2]int{5, 6}})
	webkit := engineChild("webkit",
		reports.SpecResult{Name: "snapshot", Outcome: reports.Failed, Engine: "webkit", Exchanges: [2]int{1, 3},
			Failure: &reports.Failure{Message: "no host:snapshot within 5s\nmore"}, Artifacts: []reports.Artifact{shot}},
		reports.SpecResult{Name: "catalog", Outcome: reports.Failed, Failure: &reports.Failure{Message: "not run here"}})
	rep := mergeEngines([]*shardReport{chromium, webkit}, []int{0, 6})
	if err := reports.Settle(&rep.Results, levels.Default()); err != nil {
		t.Fatal(err)
	}
	rr := rep.Requirements[0]
	if rr.Outcome != reports.Failed {
		t.Errorf("outcome %s, want failed", rr.Outcome)
	}
	if want := "chromium: passed; webkit: failed: no host:snapshot within 5s"; rr.Reason != want {
		t.Errorf("reason %q, want %q", rr.Reason, want)
	}
	if len(rr.Specs) != 3 {
		t.Fatalf("specs %+v, want chromium's two and webkit's browser spec", rr.Specs)
	}
	w := rr.Specs[2]
	if w.Engine != "webkit" || w.Exchanges != [2]int{7, 9} || w.Artifacts[0].Path != "artifacts/webkit/217-BRIDGE-SNAPSHOT-a1-1.png" {
		t.Errorf("webkit spec %+v: want exchanges [7 9] and its artifact under artifacts/webkit/", w)
	}
	var engines []string
	for _, b := range rep.Environment.Browsers {
		engines = append(engines, b.Engine)
	}
	if !slices.Equal(engines, []string{"chromium", "webkit"}) || rep.Environment.Browser != "chromium browser; webkit browser" {
		t.Errorf("environment %+v: want both engines", rep.Environment)
	}

	// Both pass: the requirement passes, with no reason.
	webkit.rep.Requirements[0].Specs[0] = reports.SpecResult{Name: "snapshot", Outcome: reports.Passed, Engine: "webkit"}
	rep = mergeEngines([]*shardReport{chromium, webkit}, []int{0, 6})
	if err := reports.Settle(&rep.Results, levels.Default()); err != nil {
		t.Fatal(err)
	}
	if rr := rep.Requirements[0]; rr.Outcome != reports.Passed || rr.Reason != "" {
		t.Errorf("both engines passed: %s %q, want passed", rr.Outcome, rr.Reason)
	}
}
