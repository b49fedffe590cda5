package agent

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// afterAnswerQuiet is how long the spec waits after the host answered
// before it reads what the App Server was asked: work a host starts in the
// background shows within it.
const afterAnswerQuiet = 150 * time.Millisecond

// describeAgentAtProjection declares the spec of projection kept from the
// agent runtime (000 Projection contract: "Projection does not run agents,
// call models, execute workers, or access customer data").
func describeAgentAtProjection(tc *harness.TestContext) {
	Describe("Desktop P0: projection runs no agent", func() {
		DescribeTable("starts no agent session or turn on the App Server it holds",
			func(method string, params func(dir string) any) {
				requireAgentOffered(tc)
				tc.Configure(tc.WithAppServer(tc.DefaultConfigure()))
				// full-app declares an expert-chat entry on lime.agent.
				dir := tc.Fixture("full-app")
				var raw json.RawMessage
				err := tc.Call(method, params(dir), &raw)
				time.Sleep(afterAnswerQuiet)
				msgs := tc.AppServer().Messages()
				if n := len(harness.FromHost(msgs, appserver.MethodSessionStart)) + len(harness.FromHost(msgs, appserver.MethodTurnStart)); n > 0 {
					tc.Failf("during %s of full-app the host asked the App Server for %d agent sessions and turns: %s", method, n, appServerMethods(msgs))
				}
				if _, isHostErr := harness.HostError(err); err != nil && !isHostErr && !harness.IsSchemaError(err) {
					tc.Errorf("no usable answer to %s, so the harness cannot tell whether an agent would have run: %v", method, err)
				}
			},
			Entry("during package/verify", tc.Req("AGENT-NONE-AT-PROJECTION", levels.EveryEntryPoint), protocol.MethodVerify,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during package/project", tc.Req("AGENT-NONE-AT-PROJECTION", levels.EveryEntryPoint), protocol.MethodProject,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during app/readiness", tc.Req("AGENT-NONE-AT-PROJECTION", levels.EveryEntryPoint), protocol.MethodReadiness,
				func(dir string) any { return protocol.ReadinessParams{Path: dir} }),
		)
	})
}

// appServerMethods lists the methods the host called on the App Server, in
// order.
func appServerMethods(msgs []appserver.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Dir == appserver.FromHost && m.Method != "" {
			out = append(out, m.Method)
		}
	}
	return out
}
