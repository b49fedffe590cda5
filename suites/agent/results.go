package agent

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// resultSubtypes are the final result's subtypes of spec 000 Agent task
// event envelope, each for its cause.
var resultSubtypes = []string{"success", "error_max_turns", "error_during_execution", "error_max_budget",
	"error_max_structured_output_retries", "error_permission_denied", "cancelled"}

// describeAgentResults declares the specs of a task's final result (000
// Agent task event envelope: "The final result must use type: "result" and
// a stable subtype").
func describeAgentResults(tc *harness.TestContext) {
	entries := []TableEntry{}
	for _, sub := range resultSubtypes {
		entries = append(entries, Entry(sub, tc.Req("AGENT-RESULT-SUBTYPE", levels.EveryMember), sub))
	}
	DescribeTable("ends the app's task events with one result carrying the subtype of the App Server's result:", func(subtype string) {
		sc := appserver.NewScript()
		sc.Turn = []appserver.Event{{Type: "task:queued"}, {Type: "result", Subtype: subtype, Payload: map[string]any{"message": "the turn ended: " + subtype}}}
		tc.AppServer().SetScript(sc)
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		expectStarted(s, "task-1")
		r := s.Run(harness.AwaitCount(hostbridge.TypeEvent, len(sc.Turn)))
		if len(harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart)) == 0 {
			tc.Blockedf("the host sent no agentSession/turn/start, so the App Server reported no result")
		}
		var results []string
		got := taskEvents(r)
		for _, e := range got {
			if e.Type == "result" {
				results = append(results, e.Subtype)
			}
		}
		switch {
		case len(results) == 0:
			tc.Failf("the App Server ended the turn with result %s; the app received %d task events and no result", subtype, len(got))
		case len(results) > 1:
			tc.Failf("the App Server ended the turn with one result, %s; the app received %d: %s", subtype, len(results), strings.Join(results, ", "))
		case got[len(got)-1].Type != "result":
			tc.Failf("the app's last task event is %s, after the result %s", got[len(got)-1].Type, results[0])
		case results[0] != subtype:
			tc.Failf("the App Server ended the turn with result %s; the app's result has subtype %q", subtype, results[0])
		}
	}, entries)
}
