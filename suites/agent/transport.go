package agent

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// describeAgentTransport declares the spec of the App Server's transport
// kept from the app (000 Host Bridge v1: apps "must not see ... App Server
// transport"; docs/decisions.md "The App Server's port": the harness hands
// the frame the port, as an app scanning loopback would find it).
func describeAgentTransport(tc *harness.TestContext) {
	It("lets the app's frame get nothing through to the App Server's port, by fetch or by WebSocket, while the host holds its connection",
		tc.Req("AGENT-TRANSPORT-UNREACHABLE", levels.EveryEntryPoint), func() {
			s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
			// Seen holding what it must not expose: the host's client is
			// connected and serving the app's task.
			expectStarted(s, "task-1")
			addr := tc.AppServer().Addr()
			own := s.FrameFile("download.txt")
			r := s.Run(harness.Step{"contain": map[string]any{"hostURLs": []string{own, "http://" + addr + "/"}, "socketURLs": []string{"ws://" + addr + "/"}}})
			if r.Containment == nil || len(r.Containment.Fetches) != 3 {
				tc.Errorf("the probe did not report its fetch and WebSocket attempts")
			}
			if strays := tc.AppServer().Strays(); len(strays) > 0 {
				tc.Failf("the app's frame got %d requests through to the App Server's port %s: %s", len(strays), addr, strings.Join(strays, "; "))
			}
			// The positive control of the attempts: the frame fetches a file
			// of its own; else attempts that got nowhere prove nothing.
			if f := r.Containment.Fetches[0]; !f.Reached || f.Status != 200 {
				tc.Blockedf("the app's frame could not fetch a file of its own UI (%s: status %d %s), so attempts on the App Server's port that got nowhere judge nothing",
					own, f.Status, f.Detail)
			}
		})
}
