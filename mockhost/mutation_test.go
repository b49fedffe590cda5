//go:build mutation

package mockhost_test

import (
	"io"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// TestSuitesPassAgainstMockhost is the one test of this package under the
// mutation build tag (`make mutation`; mockhost's own unit tests are built
// without it): the conformance suites at every judged level against an
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
	cfg.WorkDir = t.TempDir()
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
	for _, s := range res.Specs {
		if s.Outcome != reports.Passed {
			t.Errorf("%s: %s: %s", s.Name, s.Outcome, s.Failure)
		}
	}
}
