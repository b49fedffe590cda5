package agent

import (
	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads as the clause.

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// describeAgentWithoutAppServer checks lime.agent from the level at which
// a host injects the Capability SDK (Capability, Desktop P2), before any
// App Server is in play: spec 002 puts "Host owns the App Server client and
// projects lime.agent / lime.workflow" among the required desktop host
// behaviours, and "When App Server is unavailable, the host returns
// blocked / host:error; product paths must not fall back to mock success".
// A host with no App Server, whether or not it offers lime.agent, answers
// the app's lime.agent calls with host:error; it never mocks them.
func describeAgentWithoutAppServer(tc *harness.TestContext) {
	Describe("Capability: lime.agent on a host with no App Server", tc.BrowserRetry(), func() {
		It("answers lime.agent startTask and listCapabilities with host:error and sends no task fact, while it answers the app's other calls", tc.Req("AGENT-NO-MOCK-WITHOUT-APP-SERVER", levels.EveryMember), func() {
			// No appServer in the configuration: the host has none.
			s := tc.ProbeSurface(tc.DefaultConfigure())
			tc.Precondition("the host answers the same frame's lime.ui getLocale with host:response", func() {
				r := s.Run(harness.Invoke("locale-1", "lime.ui", "getLocale", nil), harness.AwaitAnswer("locale-1"))
				if m, ok := r.Answer("locale-1"); !ok || m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.ui getLocale got %s", harness.AnswerText(m, ok))
				}
			})
			task := startTask(s, "task-1")
			r := s.Run(harness.Invoke("caps-1", "lime.agent", "listCapabilities", nil), harness.AwaitAnswerWithin("caps-1", agentAnswerTimeout),
				harness.Sleep(downQuiet))
			caps, capsAnswered := r.Answer("caps-1")
			for _, c := range []struct {
				call     string
				m        hostbridge.Message
				answered bool
			}{
				{"startTask", task.answer, task.answered},
				{"listCapabilities", caps, capsAnswered},
			} {
				switch {
				case !c.answered:
					tc.Failf("lime.agent %s got no answer within %s from a host with no App Server: the app needs host:error", c.call, agentAnswerTimeout)
				case c.m.Type == hostbridge.TypeResponse:
					tc.Failf("lime.agent %s was answered host:response by a host with no App Server (a mock): %s", c.call, harness.AnswerText(c.m, true))
				case c.m.Type != hostbridge.TypeError || hostbridge.ErrorOf(c.m).Code == "":
					tc.Failf("lime.agent %s got %s, not host:error with a stable code", c.call, harness.AnswerText(c.m, true))
				}
			}
			if extra := fabricated(taskEvents(r), nil); len(extra) > 0 {
				tc.Failf("a host with no App Server sent the app task facts %v", extra)
			}
		})
	})
}
