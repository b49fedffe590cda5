package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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
		// "content export must be explicit opt-in", and host/configure
		// "replaces any earlier configuration (no merge)": the opt-in that
		// counts is the configuration's the host runs under when it holds
		// the content. The host first runs never opted in, then the user
		// opts in, then a host/configure naming the same collector takes
		// the opt-in back; what the host holds in the first and the last
		// phase must reach no export, however the host set up its
		// exporter for that collector before.
		It("exports no prompt text, user content or artifact body to the OpenTelemetry collector while the user has not opted in to content export, from its first configuration on and once a later host/configure took an opt-in back",
			tc.Req("TELEMETRY-NO-CONTENT", levels.EveryMember, levels.ChangeBetweenReads, levels.WhoAnswers), func() {
				never, optedIn, optedOut := plantContent("never-opted-in"), plantContent("opted-in"), plantContent("opted-out")
				sc := appserver.NewScript()
				profile := func(exportContent bool) protocol.ConfigureParams {
					return tc.WithTelemetry(tc.WithAppServer(tc.DefaultConfigure()), exportContent)
				}
				sc.SetProjections(appserver.Projections{Artifacts: map[string]any{
					never.artifact:    map[string]any{"artifactId": never.artifact, "content": never.body},
					optedIn.artifact:  map[string]any{"artifactId": optedIn.artifact, "content": optedIn.body},
					optedOut.artifact: map[string]any{"artifactId": optedOut.artifact, "content": optedOut.body}}})
				tc.AppServer().SetScript(sc)
				// The first configuration the host runs under says no, and
				// names a collector of its own, so the one the user later
				// opts in for and out of is first named with the opt-in
				// given. The content held before any opt-in is judged on
				// what reached that first collector before the opt-in was
				// given: a host that decides at export time is not blamed
				// for sending it after the user said yes.
				firstCollector := tc.AnotherCollector()
				first := profile(false)
				first.Telemetry.Endpoint = firstCollector.URL()
				appID := tc.InstallProbe(first)
				holdContent(tc, appID, never, "before the user ever opted in")
				beforeOptIn := awaitExports(tc, firstCollector, time.Now())
				tc.Configure(profile(true))
				holdContent(tc, appID, optedIn, "with content export opted in")
				tc.Configure(profile(false))
				holdContent(tc, appID, optedOut, "after host/configure took the opt-in back")
				// Every entry point of the user's content: the input of a
				// workflow run the app starts from typed, the entry naming
				// typed_flow, where the host offers lime.workflow (a
				// Desktop level may offer none).
				workflowInput := harness.Nonce("opted-out-workflow-input")
				wf := tc.Fixture("workflow-app")
				if wfApp, err := tc.TryInstall(wf, tc.ReleaseOf(wf), true); err != nil {
					tc.Reading("Telemetry content", fmt.Sprintf("the host did not install workflow-app (%v): a run's input is not judged", err))
					workflowInput = ""
				} else {
					args, _ := json.Marshal(map[string]any{"workflowKey": "typed_flow", "input": map[string]any{"topic": workflowInput, "count": 1}, "idempotencyKey": harness.Nonce("idem")})
					started := tc.InvokeAsApp(protocol.InvokeParams{AppID: wfApp.AppID, EntryKey: "typed", RequestID: harness.Nonce("workflow"), Capability: "lime.workflow", Method: "start", Args: args})
					if started.Type != hostbridge.TypeResponse {
						tc.Reading("Telemetry content", "the host started no workflow run ("+harness.AnswerText(started, true)+"): a run's input is not judged")
						workflowInput = ""
					}
				}
				exports := awaitExports(tc, tc.Telemetry(), time.Now())
				if len(exports) == 0 && len(beforeOptIn) == 0 {
					tc.NotApplicablef("the host exported nothing to the OTLP collectors host/configure named, within %s of holding the content: it exports no telemetry the harness can see", telemetryWait)
				}
				var leaks []string
				for _, phase := range []struct {
					content telemetryContent
					exports []telemetry.Export
					when    string
				}{{never, beforeOptIn, "held before the user ever opted in"}, {optedOut, exports, "held after host/configure took back the opt-in an earlier one gave"}} {
					for _, c := range phase.content.members() {
						if where := exportsHolding(phase.exports, c.value); where != "" {
							leaks = append(leaks, fmt.Sprintf("%s %s (%s)", c.what, phase.when, where))
						}
					}
				}
				if workflowInput != "" {
					if where := exportsHolding(exports, workflowInput); where != "" {
						leaks = append(leaks, fmt.Sprintf("the input of a workflow run started after the opt-in was taken back (%s)", where))
					}
				}
				if len(leaks) > 0 {
					tc.Failf("with content export off, the host exported content it held to the collector: %s", strings.Join(leaks, "; "))
				}
			})
	})
}

// awaitExports waits, up to telemetryWait, for an export to c received
// after held, and answers every export c received so far.
func awaitExports(tc *harness.TestContext, c *telemetry.Collector, held time.Time) []telemetry.Export {
	ctx, cancel := context.WithTimeout(tc.Context(), telemetryWait)
	defer cancel()
	c.WaitSince(ctx, held)
	return c.Exports()
}

// telemetryContent is content the host holds for an app: a task's prompt
// text and user content, and the body of an artifact the app reads.
type telemetryContent struct{ prompt, user, artifact, body string }

// plantContent is fresh content, each piece named after phase.
func plantContent(phase string) telemetryContent {
	return telemetryContent{prompt: harness.Nonce(phase + "-prompt"), user: harness.Nonce(phase + "-user-content"),
		artifact: harness.Nonce(phase + "-artifact"), body: harness.Nonce(phase + "-artifact-body")}
}

// members are the pieces of c the clause names.
func (c telemetryContent) members() []struct{ what, value string } {
	return []struct{ what, value string }{{"the prompt text", c.prompt}, {"the user content", c.user}, {"the artifact body", c.body}}
}

// holdContent has the host hold c for appID (when says under which
// opt-in): a task carries the prompt text and the user content to the App
// Server, and the app reads the artifact body through lime.artifacts read.
// These are the spec's positive controls: content the host was never seen
// holding proves nothing by staying out of the exports.
func holdContent(tc *harness.TestContext, appID string, c telemetryContent, when string) {
	GinkgoHelper()
	invoke := func(capability, method string, args any) hostbridge.Message {
		GinkgoHelper()
		b, _ := json.Marshal(args)
		return tc.InvokeAsApp(protocol.InvokeParams{AppID: appID, EntryKey: "main", RequestID: harness.Nonce("telemetry"),
			Capability: capability, Method: method, Args: b})
	}
	tc.Precondition("a task carries the prompt text and the user content to the App Server, "+when, func() {
		input := map[string]any{"text": c.prompt, "attachments": []any{map[string]any{"name": "notes.txt", "content": c.user}}}
		m := invoke("lime.agent", "startTask", map[string]any{"input": input, "idempotencyKey": harness.Nonce("idem")})
		if m.Type != hostbridge.TypeResponse {
			tc.Failf("lime.agent startTask got %s", harness.AnswerText(m, true))
		}
		turns := harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart)
		if !slices.ContainsFunc(turns, func(t appserver.Message) bool {
			return harness.ContainsText(t.Params, c.prompt) && harness.ContainsText(t.Params, c.user)
		}) {
			tc.Failf("the App Server got no agentSession/turn/start carrying the task's input (%d turns)", len(turns))
		}
	})
	tc.Precondition("the app reads the artifact body through lime.artifacts read, "+when, func() {
		if m := invoke("lime.artifacts", "read", map[string]any{"artifactId": c.artifact}); m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, c.body) {
			tc.Failf("lime.artifacts read of %s got %s, not the body artifact/read returned", c.artifact, harness.AnswerText(m, true))
		}
	})
	// Who answers: the app asks, in its own call, for the content to be
	// captured, in the words a tracing SDK gives such an option. The
	// opt-in is the user's (host/configure telemetry.exportContent), never
	// the app's: the host may refuse the call or read the artifact, and
	// exports its body only as the user chose.
	invoke("lime.artifacts", "read", map[string]any{"artifactId": c.artifact, "captureContent": true, "exportContent": true,
		"telemetry": map[string]any{"captureContent": true, "exportContent": true}})
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
