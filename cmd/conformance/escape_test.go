package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/procs"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// Escapes are grouped by redacted command line and session, counted and
// sorted; shards' lists add up.
func TestEscapedProcessesGroupAndJoin(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "/tmp/work1", "$WORK") }
	got := escapedProcesses([]procs.Escape{
		{PID: 3, Command: "sleep 300", NewSession: true},
		{PID: 1, Command: "helper /tmp/work1/x", NewSession: false},
		{PID: 2, Command: "sleep 300", NewSession: true},
		{PID: 4, Command: "sleep 300", NewSession: false},
	}, redact)
	want := []reports.EscapedProcess{
		{Command: "helper $WORK/x", Count: 1},
		{Command: "sleep 300", Count: 1},
		{Command: "sleep 300", NewSession: true, Count: 2},
	}
	if !slices.Equal(got, want) {
		t.Errorf("escapedProcesses: %+v, want %+v", got, want)
	}
	joined := joinEscapes(want, []reports.EscapedProcess{{Command: "sleep 300", NewSession: true, Count: 3}})
	if len(joined) != 3 || joined[2].Count != 5 {
		t.Errorf("joined %+v, want the setsid sleep counted 5 times", joined)
	}
	if escapedProcesses(nil, redact) != nil {
		t.Error("no escape must leave the report's field out")
	}
}

// A fault that leaves a process behind is killed only when the report
// names an escaped process; any other run that names one fails the matrix.
func TestKillMatrixJudgesEscapes(t *testing.T) {
	escaped := []reports.EscapedProcess{{Command: "/usr/bin/sleep 300", NewSession: true, Count: 1}}
	report := func(es []reports.EscapedProcess, failed ...string) *reports.Report {
		r := &reports.Report{Results: reports.Results{Run: reports.RunStatus{EscapedProcesses: es}}}
		r.Requirements = append(r.Requirements, reports.RequirementResult{ID: "PROTO-HELLO", Outcome: reports.Passed})
		for _, id := range failed {
			r.Requirements = append(r.Requirements, reports.RequirementResult{ID: id, Outcome: reports.Failed})
		}
		return r
	}
	leaves := mockhost.Fault{Name: "leave-setsid-child", Hostile: true, Escapes: true}
	plain := mockhost.Fault{Name: "export-keeps-data", Breaks: []string{"UNINSTALL-EXPORT"}}
	for _, tc := range []struct {
		name string
		k    *selftestCase
		want string
	}{
		{"escape reported", &selftestCase{fault: leaves, report: report(escaped)}, "KILLED"},
		{"escape not reported", &selftestCase{fault: leaves, report: report(nil)}, "SURVIVED"},
		{"baseline with an escape", &selftestCase{report: report(escaped)}, "FALSE-FAIL"},
		{"another fault with an escape", &selftestCase{fault: plain, report: report(escaped, "UNINSTALL-EXPORT")}, "COLLATERAL"},
		{"another fault without", &selftestCase{fault: plain, report: report(nil, "UNINSTALL-EXPORT")}, "KILLED"},
	} {
		if v := judge(tc.k); v.status != tc.want {
			t.Errorf("%s: %s, want %s (%+v)", tc.name, v.status, tc.want, v)
		}
	}
	var out strings.Builder
	if bad := printKillMatrix(&out, []*selftestCase{{report: report(nil)}, {fault: leaves, report: report(nil)}}); len(bad) != 1 ||
		!strings.Contains(out.String(), "not in the report (run.escapedProcesses)") {
		t.Errorf("kill matrix with an unreported escape: problems %q\n%s", bad, out.String())
	}
}
