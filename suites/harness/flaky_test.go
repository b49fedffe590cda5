package harness

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/agentapp/conformance/reports"
)

// A spec that failed and passed when run again is flaky, carrying the first
// attempt's failure; one that passed at once is passed; one that failed
// every attempt is failed.
func TestSpecOutcomeReportsAFlakeNotAPass(t *testing.T) {
	first := types.AdditionalFailure{State: types.SpecStateFailed,
		Failure: types.Failure{Message: "Failure recorded during attempt 1:\nno host:snapshot within 3000 ms"}}
	for name, c := range map[string]struct {
		r    types.SpecReport
		want reports.Outcome
		msg  string
	}{
		"passed at once": {types.SpecReport{State: types.SpecStatePassed, NumAttempts: 1, MaxFlakeAttempts: 2}, reports.Passed, ""},
		"failed then passed": {types.SpecReport{State: types.SpecStatePassed, NumAttempts: 2, MaxFlakeAttempts: 2,
			AdditionalFailures: []types.AdditionalFailure{first}}, reports.Flaky, "no host:snapshot within 3000 ms"},
		"failed twice": {types.SpecReport{State: types.SpecStateFailed, NumAttempts: 2, MaxFlakeAttempts: 2,
			Failure: types.Failure{Message: "no host:snapshot"}, AdditionalFailures: []types.AdditionalFailure{first}}, reports.Failed, "no host:snapshot"},
	} {
		got, msg := specOutcome(c.r)
		if got != c.want || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: outcome %s (%q), want %s with %q", name, got, msg, c.want, c.msg)
		}
	}
}
