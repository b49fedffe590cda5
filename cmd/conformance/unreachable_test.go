package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// TestAnUnreachableHostEndsTheRunSayingWhy: a host that cannot be reached
// twice in a row ends the run at once. The user is told why in their terms,
// every requirement is an error (the host was never seen breaking a clause),
// the exit code says "could not judge", and the harness tried the host no
// more than twice (which is what bounds the run's time).
func TestAnUnreachableHostEndsTheRunSayingWhy(t *testing.T) {
	bin := buildBinary(t)
	// Only the silent host waits out its call and start timeouts; the others
	// are given long ones, so a loaded machine cannot turn their answer into
	// silence.
	cases := []struct{ name, hostCmd, timeout, says string }{
		{"log on stdout", "echo listening on 7000; sleep 30", "20s",
			`the host wrote "listening on 7000" where the answer to conformance/hello was due: that is not a Content-Length frame`},
		{"not found", "no-such-host-binary --conformance", "20s", `its last line on stderr: "/bin/sh: 1: no-such-host-binary: not found"`},
		{"silent", "sleep 30", "1s", "host did not answer conformance/hello within 1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			cmd := exec.Command(bin, "run", "--quiet", "--out", out, "--call-timeout", tc.timeout, "--start-timeout", tc.timeout, "--host-cmd", tc.hostCmd)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitNotJudged {
				t.Fatalf("want exit %d (the host could not be judged), got %v\n%s", exitNotJudged, err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "giving up on the host") || !strings.Contains(stderr.String(), tc.says) {
				t.Errorf("stderr does not say why in the user's terms (%q):\n%s", tc.says, stderr.String())
			}
			if !strings.Contains(stdout.String(), "run: host-unreachable: ") || !strings.Contains(stdout.String(), tc.says) ||
				!strings.Contains(stdout.String(), "ERRORS") {
				t.Errorf("the summary does not open with how the run ended and count the errors:\n%s", stdout.String())
			}
			rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Run.Status != reports.RunHostUnreachable || !strings.Contains(rep.Run.Reason, tc.says) {
				t.Errorf("run = %+v, want %s saying %q", rep.Run, reports.RunHostUnreachable, tc.says)
			}
			for _, r := range rep.Requirements {
				if r.Outcome != reports.Error {
					t.Errorf("%s is %s; a host never reached broke nothing and passed nothing", r.ID, r.Outcome)
				}
			}
			for _, l := range rep.Levels {
				if l.Verdict != reports.LevelError {
					t.Errorf("level %s is %s, want %s", l.ID, l.Verdict, reports.LevelError)
				}
			}
			transcript, err := os.ReadFile(filepath.Join(out, reports.TranscriptFile))
			if err != nil {
				t.Fatal(err)
			}
			// A host that is gone before the first call (not found), or
			// whose first bytes are no frame (log on stdout: on a loaded
			// machine they arrive before hello is written), may get no
			// hello at all: the harness sees it end the session first.
			n := strings.Count(string(transcript), `"dir":"send","method":"conformance/hello"`)
			if n > 2 || (n < 1 && tc.name == "silent") {
				t.Errorf("the harness said hello %d times; it must try, and give up after two attempts", n)
			}
		})
	}
}
