package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// reportOf is a report whose requirements end as given.
func reportOf(outcomes map[string]reports.Outcome) *reports.Report {
	rep := &reports.Report{}
	for id, o := range outcomes {
		rep.Requirements = append(rep.Requirements, reports.RequirementResult{ID: id, Outcome: o, Reason: "why " + id})
	}
	return rep
}

// A variant is accepted only when nothing is blamed: no failure, no
// blocked or error it does not opt out of, every touched requirement
// judged.
func TestJudgeVariantBlamesWhatItMust(t *testing.T) {
	cat := levels.Default()
	v := mockhost.Variant{Name: "v", Touches: []string{"BRIDGE-VISIBILITY", "AGENT-*"}, OptsOut: []string{"AGENT-*"}}
	for _, tc := range []struct {
		name     string
		outcomes map[string]reports.Outcome
		want     string
	}{
		{"passed", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Passed, "AGENT-APPROVAL": reports.Passed}, "ACCEPTED"},
		{"opted out blocked", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Passed, "AGENT-APPROVAL": reports.Blocked, "AGENT-NO-LEAK": reports.Error}, "ACCEPTED"},
		{"opted out but failed", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Passed, "AGENT-APPROVAL": reports.Failed}, "FALSE-BLAME"},
		{"failed", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Failed}, "FALSE-BLAME"},
		{"error not opted out", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Error}, "FALSE-BLAME"},
		{"a neighbour failed", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Passed, "BRIDGE-SNAPSHOT": reports.Failed}, "FALSE-BLAME"},
		{"touched not run", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.NotRun}, "FALSE-BLAME"},
		{"touched missing", map[string]reports.Outcome{"AGENT-APPROVAL": reports.Passed}, "FALSE-BLAME"},
		{"skipped", map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Skipped}, "FALSE-BLAME"},
	} {
		k := &selftestCase{variant: v, report: reportOf(tc.outcomes)}
		if got := judgeVariant(k, cat); got.status != tc.want {
			t.Errorf("%s: %s, want %s (%+v)", tc.name, got.status, tc.want, got)
		}
	}
	p0 := mockhost.Variant{Name: "p0", Touches: []string{"READY-SECRETS"}, Claims: []string{"catalog", "desktop-p0"}}
	for outcomes, want := range map[string]string{"WORKFLOW-STATE-KINDS:blocked": "ACCEPTED", "READY-STATUS:blocked": "FALSE-BLAME", "WORKFLOW-STATE-KINDS:failed": "FALSE-BLAME"} {
		id, o, _ := strings.Cut(outcomes, ":")
		k := &selftestCase{variant: p0, report: reportOf(map[string]reports.Outcome{"READY-SECRETS": reports.Passed, id: reports.Outcome(o)})}
		if got := judgeVariant(k, cat); got.status != want {
			t.Errorf("a host claiming catalog and desktop-p0, %s: %s, want %s", outcomes, got.status, want)
		}
	}
	if got := judgeVariant(&selftestCase{variant: v}, cat); got.status != "ERROR" {
		t.Errorf("a child without a report: %s, want ERROR", got.status)
	}
}

// A wrong blame is printed as FALSE-BLAME VARIANT REQ: outcome: reason, and
// fails the selftest, whose closing problem line names the variant and the
// requirement (a CI log that keeps only the tail still says which).
func TestFalseBlameFailsTheSelftest(t *testing.T) {
	cat := levels.Default()
	v := mockhost.Variant{Name: "visibility-as-word", Touches: []string{"BRIDGE-VISIBILITY"}}
	var out bytes.Buffer
	code := judgeKillMatrix(&out, []*selftestCase{{variant: v, report: reportOf(map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Failed})}}, cat, killMatrixScope{})
	if code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	for _, want := range []string{"FALSE-BLAME visibility-as-word BRIDGE-VISIBILITY: failed: why BRIDGE-VISIBILITY", "problem: variant blamed: visibility-as-word (BRIDGE-VISIBILITY failed)\nselftest: 0 passed, 1 failed"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	code = judgeKillMatrix(&out, []*selftestCase{{variant: v, report: reportOf(map[string]reports.Outcome{"BRIDGE-VISIBILITY": reports.Passed})}}, cat, killMatrixScope{})
	if code != exitOK || !strings.Contains(out.String(), "ACCEPTED") || strings.Contains(out.String(), "kill matrix") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
}

// A variant's child in the breaks scope runs the specs of what it touches,
// over the levels they count in; in the levels scope every spec there.
func TestVariantChildRunsWhatItTouches(t *testing.T) {
	cat := levels.Default()
	v := mockhost.Variant{Name: "v", Touches: []string{"BRIDGE-VISIBILITY", "READY-SECRETS"}}
	args := strings.Join(variantArgs(cat, v, childOptions{scope: scopeBreaks}), " ")
	for _, want := range []string{"--level capability", "--level desktop-p2", "--level desktop-p0", "--label-filter /^(READY-SECRETS|BRIDGE-VISIBILITY)$/"} {
		if !strings.Contains(args, want) {
			t.Errorf("breaks scope: %q lacks %q", args, want)
		}
	}
	for _, f := range strings.Fields(args) {
		if l, ok := cat.Level(f); ok && !cat.CanJudge(l.ID) {
			t.Errorf("breaks scope certifies level %s, which the harness does not judge: %q", l.ID, args)
		}
	}
	if args := strings.Join(variantArgs(cat, v, childOptions{scope: scopeLevels}), " "); strings.Contains(args, "--label-filter") {
		t.Errorf("levels scope filters: %q", args)
	}
	only := variantArgs(cat, v, childOptions{scope: scopeBreaks, levels: []string{"desktop-p0"}})
	if slices.Contains(only, "capability") || !slices.Contains(only, "desktop-p0") {
		t.Errorf("--level desktop-p0: %v", only)
	}
	wide := mockhost.Variant{Name: "w", Touches: []string{"AGENT-*"}}
	if f := variantFilter(cat, wide); !strings.Contains(f, "AGENT-APPROVAL") || strings.Contains(f, "*") {
		t.Errorf("a prefix is not expanded: %q", f)
	}
}

// Each variant's child filter parses and fits the report's labelFilter: a
// longer one fails the child at its report, after every spec ran (as
// every-reading once did, at 4,099 characters of ids joined with ||).
func TestEveryVariantFilterFitsTheReport(t *testing.T) {
	cat := levels.Default()
	for _, v := range mockhost.Variants() {
		f := variantFilter(cat, v)
		if len(f) > reports.MaxLabelFilter {
			t.Errorf("variant %s: its child's label filter is %d characters, more than the report keeps (%d)", v.Name, len(f), reports.MaxLabelFilter)
		}
		if _, err := types.ParseLabelFilter(f); err != nil {
			t.Errorf("variant %s: %q does not parse: %v", v.Name, f, err)
		}
	}
}

// --variant alone picks those variants; --fault alone picks none; neither
// picks every one; --level drops those touching none of its requirements.
func TestSelectVariants(t *testing.T) {
	cat := levels.Default()
	all := mockhost.Variants()
	if got, err := selectVariants(nil, nil, cat, nil); err != nil || len(got) != len(all) {
		t.Errorf("default: %d variants (%v), want %d", len(got), err, len(all))
	}
	if got, _ := selectVariants(nil, []string{"skip-package-hash"}, cat, nil); len(got) != 0 {
		t.Errorf("--fault alone runs %d variants", len(got))
	}
	if got, _ := selectVariants([]string{"visibility-as-word"}, nil, cat, nil); len(got) != 1 || got[0].Name != "visibility-as-word" {
		t.Errorf("--variant: %v", got)
	}
	if _, err := selectVariants([]string{"no-such-variant"}, nil, cat, nil); err == nil {
		t.Error("an unknown variant is accepted")
	}
	got, _ := selectVariants(nil, nil, cat, judgedRequirements(cat, []string{"desktop-p6"}))
	for _, v := range got {
		if len(variantTouched(cat, v, judgedRequirements(cat, []string{"desktop-p6"}))) == 0 {
			t.Errorf("--level desktop-p6 keeps %s", v.Name)
		}
	}
	if len(got) == 0 {
		t.Error("--level desktop-p6 keeps no variant")
	}
}

// A variant case's settled line names it as a variant.
func TestVariantSettledLine(t *testing.T) {
	var out bytes.Buffer
	c := &cli{self: "/bin/false", stdout: &out, stderr: &out}
	v := mockhost.Variant{Name: "visibility-as-word", Touches: []string{"BRIDGE-VISIBILITY"}}
	runCases(c, []*selftestCase{{variant: v}}, t.TempDir(), childOptions{transport: "in-process", callTimeout: time.Second, scope: scopeBreaks}, 1)
	if !strings.Contains(out.String(), "settled ERROR       variant visibility-as-word") {
		t.Errorf("settled line:\n%s", out.String())
	}
}

// mockhost --list-variants lists every variant with what it touches and
// the clause allowing it; an unknown variant is a usage error, and run
// takes variants for the embedded host only.
func TestVariantFlags(t *testing.T) {
	code, stdout, _ := runCLI(t, "mockhost", "--list-variants")
	if code != exitOK {
		t.Fatalf("--list-variants: exit %d", code)
	}
	for _, v := range mockhost.Variants() {
		if !strings.Contains(stdout, v.Name+" "+strings.Join(v.Touches, " ")+" # "+v.Description+" ("+v.Clause+")\n") {
			t.Errorf("--list-variants does not list %s:\n%s", v.Name, stdout)
		}
	}
	for _, args := range [][]string{
		{"mockhost", "--stdio", "--variant", "no-such-variant"},
		{"run", "--variant", "no-such-variant", "--out", t.TempDir()},
		{"run", "--variant", "visibility-as-word", "--host-cmd", "true", "--out", t.TempDir()},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "variant") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the variant", args, code, stderr)
		}
	}
}

// run --variant certifies the embedded mockhost taking the variant's
// reading, records the variant in the report, and the reading the host
// took.
func TestRunWithAVariantRecordsIt(t *testing.T) {
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "report")
	if code := runBinary(t, bin, "run", "--quiet", "--level", "catalog", "--label-filter", "CAT-LEGACY-KINDS",
		"--variant", "legacy-kinds-marked", "--out", out); code != exitIncomplete {
		t.Fatalf("exit %d, want %d (one requirement run, the level incomplete)", code, exitIncomplete)
	}
	rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Host.Variants, []string{"legacy-kinds-marked"}) {
		t.Errorf("host.variants = %v", rep.Host.Variants)
	}
	if !slices.ContainsFunc(rep.Readings, func(r reports.Reading) bool { return r.Reading == "projected as compatibility entries" }) {
		t.Errorf("the reading the variant takes is not recorded: %+v", rep.Readings)
	}
	for _, r := range rep.Requirements {
		if r.ID == "CAT-LEGACY-KINDS" && r.Outcome != reports.Passed {
			t.Errorf("CAT-LEGACY-KINDS %s under the variant: %s", r.Outcome, r.Reason)
		}
	}
}
