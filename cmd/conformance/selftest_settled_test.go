package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/mockhost"
)

// TestRunCasesPrintsALinePerCaseAsItSettles runs the cases with a child
// that cannot run (/bin/false): each case still prints its settled line,
// with the status judge gives it.
func TestRunCasesPrintsALinePerCaseAsItSettles(t *testing.T) {
	self, err := exec.LookPath("false")
	if err != nil {
		t.Skip("no false command")
	}
	var out bytes.Buffer
	c := &cli{stdout: &out, stderr: &out, self: self}
	faults := mockhost.Faults()
	cases := []*selftestCase{{}, {fault: faults[0]}, {fault: faults[1]}}
	runCases(c, cases, t.TempDir(), childOptions{transport: "in-process", callTimeout: time.Second, scope: scopeLevels}, 2)
	got := out.String()
	for _, k := range cases {
		name := k.fault.Name
		if name == "" {
			name = "(no fault)"
		}
		line := regexp.MustCompile(`(?m)^settled ` + judge(k).status + ` +` + regexp.QuoteMeta(name) + ` \([0-9][0-9.hmsµ]*\)$`)
		if !line.MatchString(got) {
			t.Errorf("no settled line for %s in:\n%s", name, got)
		}
	}
	if n := strings.Count(got, "\n"); n != len(cases) {
		t.Errorf("%d lines for %d cases:\n%s", n, len(cases), got)
	}
}

// TestSelftestPrintsEachFaultAsItSettles runs a one-fault selftest: the
// settled lines come before the kill matrix and agree with it. One level
// holds the fault's requirement: the console is what is judged here.
func TestSelftestPrintsEachFaultAsItSettles(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	fault := "accept-any-manifest-version"
	stdout, _ := exec.Command(bin, "selftest", "--transport", "in-process", "--level", "catalog", "--fault", fault).Output()
	got := string(stdout)
	matrix := strings.Index(got, "\nkill matrix:")
	if matrix < 0 {
		t.Fatalf("no kill matrix in:\n%s", got)
	}
	for _, name := range []string{"(no fault)", fault} {
		settled := regexp.MustCompile(`(?m)^settled (\S+) +` + regexp.QuoteMeta(name) + ` \([0-9][0-9.hmsµ]*\)$`).FindStringSubmatchIndex(got)
		if settled == nil {
			t.Errorf("no settled line for %s in:\n%s", name, got)
			continue
		}
		if settled[0] > matrix {
			t.Errorf("the settled line of %s comes after the kill matrix", name)
		}
		status := got[settled[2]:settled[3]]
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^%s +%s( |$)`, regexp.QuoteMeta(status), regexp.QuoteMeta(name))).MatchString(got) {
			t.Errorf("settled %s %s, but the kill matrix says otherwise:\n%s", status, name, got)
		}
	}
	if !regexp.MustCompile(`(?m)^selftest: \d+ passed, \d+ failed$`).MatchString(got) {
		t.Errorf("no closing selftest line in:\n%s", got)
	}
}
