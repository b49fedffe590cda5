package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2" //nolint:revive // Ginkgo's DSL reads as the clause.

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/telemetry"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// telemetryWait is how long the spec waits, after the host last held the
// content, for an export to arrive: longer than the 5 s an OpenTelemetry
// SDK's batch span processor waits before it sends a batch.
const telemetryWait = 6 * time.Second

// describeTelemetry checks what the host exports to the OpenTelemetry
// collector the harness plays (spec 000, Tool discovery and
// observability).
func describeTelemetry(tc *harness.TestContext) {
	Describe("Runtime: what the host exports as telemetry", func() {
		BeforeEach(func() { requireAgentOffered(tc) })
		It("exports no prompt text, user content or artifact body to the OpenTelemetry collector while the user has not opted in to content export", tc.Req("TELEMETRY-NO-CONTENT", levels.EveryMember), func() {
			planted := map[string]string{
				"the prompt text":   harness.Nonce("prompt"),
				"the user content":  harness.Nonce("user-content"),
				"the artifact body": harness.Nonce("artifact-body"),
			}
			artifact := harness.Nonce("artifact")
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{
				artifact: map[string]any{"artifactId": artifact, "content": planted["the artifact body"]}}})
			tc.AppServer().SetScript(sc)
			appID := tc.InstallProbe(tc.WithTelemetry(tc.WithAppServer(tc.DefaultConfigure()), false))
			invoke := func(capability, method string, args any) hostbridge.Message {
				GinkgoHelper()
				b, _ := json.Marshal(args)
				return tc.InvokeAsApp(protocol.InvokeParams{AppID: appID, EntryKey: "main", RequestID: harness.Nonce("telemetry"),
					Capability: capability, Method: method, Args: b})
			}
			tc.Precondition("a task carries the prompt text and the user content to the App Server", func() {
				input := map[string]any{"text": planted["the prompt text"],
					"attachments": []any{map[string]any{"name": "notes.txt", "content": planted["the user content"]}}}
				m := invoke("lime.agent", "startTask", map[string]any{"input": input, "idempotencyKey": harness.Nonce("idem")})
				if m.Type != hostbridge.TypeResponse {
					tc.Failf("lime.agent startTask got %s", harness.AnswerText(m, true))
				}
				turns := harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart)
				if len(turns) == 0 || !harness.ContainsText(turns[0].Params, planted["the prompt text"]) || !harness.ContainsText(turns[0].Params, planted["the user content"]) {
					tc.Failf("the App Server got no agentSession/turn/start carrying the task's input (%d turns)", len(turns))
				}
			})
			tc.Precondition("the app reads the artifact body through lime.artifacts read", func() {
				if m := invoke("lime.artifacts", "read", map[string]any{"artifactId": artifact}); m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, planted["the artifact body"]) {
					tc.Failf("lime.artifacts read of %s got %s, not the body artifact/read returned", artifact, harness.AnswerText(m, true))
				}
			})
			held := time.Now()
			ctx, cancel := context.WithTimeout(tc.Context(), telemetryWait)
			defer cancel()
			tc.Telemetry().WaitSince(ctx, held)
			exports := tc.Telemetry().Exports()
			if len(exports) == 0 {
				tc.NotApplicablef("the host exported nothing to the OTLP collector host/configure named, within %s of holding the content: it exports no telemetry the harness can see", telemetryWait)
			}
			var leaks []string
			for _, what := range []string{"the prompt text", "the user content", "the artifact body"} {
				if where := exportsHolding(exports, planted[what]); where != "" {
					leaks = append(leaks, fmt.Sprintf("%s (%s)", what, where))
				}
			}
			if len(leaks) > 0 {
				tc.Failf("with content export left off, the host exported %s to the collector", strings.Join(leaks, "; "))
			}
		})
	})
}

// exportsHolding names the exports whose body holds s, or "".
func exportsHolding(exports []telemetry.Export, s string) string {
	var where []string
	for i, e := range exports {
		if strings.Contains(string(e.Body), s) {
			where = append(where, fmt.Sprintf("export %d of %d, %s, spans %q", i+1, len(exports), e.Signal, e.Spans))
		}
	}
	return strings.Join(where, "; ")
}
