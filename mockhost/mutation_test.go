//go:build mutation

package mockhost_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// relayArg is the argument that makes the test binary the App Server relay
// of a sidecar (as `conformance appserver-relay ADDR` is for a run): the
// agent specs have mockhost start it, and gremlins' mutants must not need
// a second binary built per mutant.
const relayArg = "appserver-relay"

func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Arg(0) == relayArg && flag.NArg() == 2 {
		if err := appserver.Relay(context.Background(), flag.Arg(1), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "appserver-relay:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSuitesPassAgainstMockhost is the one test of this package under the
// mutation build tag (`make mutation`; mockhost's own unit tests are built
// without it): the conformance suites at every judged level (or those
// MUTATION_LEVELS names) against an
// in-process mockhost with no fault. gremlins runs it once per mutant of
// mockhost. A mutant that leaves every spec passing lived: the suites do
// not see the behaviour it changed, so a spec is weak or a requirement is
// missing (docs/mutation.md).
func TestSuitesPassAgainstMockhost(t *testing.T) {
	h := mockhost.New(nil)
	defer func() { _ = h.Close() }()
	opts := control.DefaultOptions()
	opts.CallTimeout = 2 * time.Second
	cfg := suites.DefaultConfig()
	cfg.Connector = control.PipeConnector(func(rwc io.ReadWriteCloser) { _ = h.Serve(rwc) }, opts)
	cfg.Levels = cfg.Catalog.JudgedLevels()
	// mockhost/mutation/run.sh runs one area at a time and names the
	// levels whose specs judge it, so a mutant costs a run of those only.
	if only := os.Getenv("MUTATION_LEVELS"); only != "" {
		ls, err := cfg.Catalog.ParseLevels(strings.Split(only, ","))
		if err != nil {
			t.Fatalf("MUTATION_LEVELS: %v", err)
		}
		cfg.Levels = ls
	}
	cfg.LabelFilter = os.Getenv("MUTATION_LABELS")
	cfg.WorkDir = t.TempDir()
	cfg.Relay = []string{os.Args[0], "-test.run=^$", relayArg}
	red := control.NewRedactor()
	canaries, err := suites.NewCanaries(red)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Canaries = canaries
	cfg.Transcript = control.NewTranscript(io.Discard, red)
	res, err := suites.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Specs) == 0 {
		t.Fatal("no spec ran")
	}
	ran := 0
	for _, s := range res.Specs {
		if s.Outcome == reports.NotRun {
			continue // a spec of a level not judged yet (executable: overlays)
		}
		ran++
		// A spec that failed once and passed when run again does not
		// kill the mutant: on a loaded machine timing alone can do that,
		// and a kill must be the mutant's doing (the score under-claims
		// rather than over-claims).
		if s.Outcome != reports.Passed && s.Outcome != reports.Flaky {
			t.Errorf("%s: %s: %s", s.Name, s.Outcome, s.Failure)
		}
	}
	if ran == 0 {
		t.Fatal("no spec of a judged level ran")
	}
}
