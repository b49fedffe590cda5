package agent

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads as the clause.

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// agentCapability is the capability through which an app reaches the agent
// runtime (spec 002, App Server bridge: the host "projects lime.agent /
// lime.workflow through Desktop Host IPC into JSON-RPC").
const agentCapability = "lime.agent"

// offersAgent reports whether the host's own profile (conformance/hello)
// offers lime.agent, and what the profile says of it.
func offersAgent(tc *harness.TestContext) (bool, string) {
	c, listed := tc.Host().Hello().Capabilities[agentCapability]
	switch {
	case !listed:
		return false, "conformance/hello's profile does not list " + agentCapability
	case !c.Enabled:
		return false, fmt.Sprintf("conformance/hello's profile lists %s %s switched off", agentCapability, c.Version)
	}
	return true, ""
}

// requireAgentOffered ends the spec as not-applicable on a host that says
// it offers no lime.agent: the App Server mapping binds the host from the
// level at which it offers lime.agent (docs/decisions.md, "The App Server
// bridge from the level that offers it"). Whether a level needs it offered
// is AGENT-OFFERED's to judge; a host offering none is judged on refusing
// it (AGENT-NO-MOCK-WITHOUT-APP-SERVER).
func requireAgentOffered(tc *harness.TestContext) {
	GinkgoHelper()
	if ok, why := offersAgent(tc); !ok {
		tc.NotApplicablef("the host offers no %s (%s): the App Server mapping binds a host that offers it", agentCapability, why)
	}
}

// describeAgentOffered checks that a host at a level whose text needs the
// agent runtime offers it: Runtime, and Desktop P5's "App Server JSON-RPC /
// RuntimeCore fact source".
func describeAgentOffered(tc *harness.TestContext) {
	Describe("Runtime: the App Server bridge is offered", func() {
		It("offers lime.agent in its profile and takes an App Server to reach", tc.Req("AGENT-OFFERED", levels.EveryEntryPoint), func() {
			if ok, why := offersAgent(tc); !ok {
				tc.Failf("the host offers no %s (%s): at this level the host owns the App Server client and projects %s into it", agentCapability, why, agentCapability)
			}
			err := tc.Call(protocol.MethodConfigure, tc.WithAppServer(tc.DefaultConfigure()), &protocol.OK{})
			if code, refused := tc.HostErrorCode(protocol.MethodConfigure, err); refused {
				tc.Failf("host/configure naming the App Server the harness plays was refused (%d: %s): a host at this level owns an App Server client", code, harness.AnswerOf(err))
			}
		})
	})
}
