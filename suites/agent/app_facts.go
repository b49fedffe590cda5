package agent

import (
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// appFactsGap is the pause between the App Server's facts of the planted
// turn: the app posts its fabricated facts after the first and before the
// result, while the task runs.
const appFactsGap = 800 * time.Millisecond

// fakeFact is one task fact the app's frame fabricates (001 Forbidden
// paths: "App UI state fabricating successful assistant:delta, tool
// result, artifact, or evidence events").
type fakeFact struct {
	kind, subtype string
	payload       map[string]any
}

// appFactKinds are the facts the clause lists, each as a success.
func appFactKinds(marker, artifactID string) []fakeFact {
	return []fakeFact{
		{kind: "assistant:delta", payload: map[string]any{"text": marker}},
		{kind: "tool:call", payload: map[string]any{"toolName": "publish", "status": "succeeded", "output": marker}},
		{kind: "artifact:created", payload: map[string]any{"artifactId": artifactID, "content": marker}},
		{kind: "evidence:recorded", payload: map[string]any{"evidenceId": marker, "summary": marker}},
		{kind: "result", subtype: "success", payload: map[string]any{"output": marker}},
	}
}

// fakeFactSteps posts each fact for the app's task t through both ways an
// app could hand the host a fact: as the host:event the host itself sends,
// and as the bare lime.agent-task-event.v1 envelope.
func fakeFactSteps(t *agentTask, facts []fakeFact, marker string) []harness.Step {
	var steps []harness.Step
	for i, f := range facts {
		env := map[string]any{"schemaVersion": hostbridge.TaskEventSchema, "eventId": fmt.Sprintf("%s-%d", marker, i),
			"sequence": 2, "type": f.kind, "taskId": t.TaskID, "sessionId": t.SessionID, "traceId": marker,
			"at": time.Now().UTC().Format(time.RFC3339), "payload": f.payload}
		if f.subtype != "" {
			env["subtype"] = f.subtype
		}
		steps = append(steps, harness.Send(map[string]any{"type": hostbridge.TypeEvent, "requestId": fmt.Sprintf("%s-%d", marker, i), "payload": env}))
		bare := map[string]any{"protocol": nil, "version": nil, "entryKey": nil}
		for k, v := range env {
			bare[k] = v
		}
		steps = append(steps, harness.Send(bare))
	}
	return steps
}

// describeAgentAppFacts declares the spec of the facts an app fabricates
// (001 Forbidden paths; 000 app.runtime.yaml fixed rules: "assistant:delta,
// tool, approval, artifact, evidence, and terminal status must derive from
// RuntimeCore facts, not app UI state").
func describeAgentAppFacts(tc *harness.TestContext) {
	It("takes none of the task facts the app's frame fabricates for its running task (a delta, a tool call, an artifact, evidence, a success result) as the task's, in what the app receives, reads or exports",
		tc.Req("AGENT-NO-APP-FACTS", levels.EveryMember, levels.EveryEntryPoint), func() {
			marker, artifactID, unknown := harness.Nonce("fabricated"), harness.Nonce("artifact"), harness.Nonce("artifact")
			sc := appserver.NewScript()
			sc.EventGap = appFactsGap
			sc.Turn = []appserver.Event{{Type: "task:queued"}, {Type: "assistant:delta", Payload: map[string]any{"text": "from the runtime"}},
				{Type: "result", Subtype: "error_during_execution", Payload: map[string]any{"message": "the runtime failed"}}}
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{}, Evidence: map[string]any{"records": []any{}}})
			tc.AppServer().SetScript(sc)
			s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
			// The control, same session and script: with the app posting
			// nothing, the App Server's facts reach it, and a read of an
			// artifact the App Server does not know is refused.
			control := expectStarted(s, "control-1")
			tc.Precondition("the App Server's facts of a task reach the app, and a read of an artifact it does not know is refused", func() {
				got := eventsOf(taskEvents(s.Run(harness.AwaitCount(hostbridge.TypeEvent, len(sc.Turn)))), control.TaskID)
				if types := typesOf(got); !slices.Equal(types, []string{"task:queued", "assistant:delta", "result error_during_execution"}) {
					tc.Failf("the App Server sent task:queued, assistant:delta and result error_during_execution; the app received %v", types)
				}
				if m, answered := readArtifact(s, unknown); !answered || m.Type != hostbridge.TypeError {
					tc.Failf("lime.artifacts read of %s, which artifact/read does not know, got %s, not host:error", unknown, harness.AnswerText(m, answered))
				}
			})
			before := len(taskEvents(s.Run(harness.Collect())))
			t := expectStarted(s, "planted-1")
			steps := append([]harness.Step{harness.AwaitCount(hostbridge.TypeEvent, before+1)}, fakeFactSteps(t, appFactKinds(marker, artifactID), marker)...)
			posted := eventsOf(taskEvents(s.Run(steps...)), t.TaskID)
			if len(posted) == 0 || slices.ContainsFunc(posted, func(e hostbridge.TaskEvent) bool { return e.Type == "result" }) {
				tc.Errorf("the app posted its facts when the task's events were %v: not while the task ran, so nothing is judged", typesOf(posted))
			}
			got := eventsOf(taskEvents(s.Run(harness.AwaitCount(hostbridge.TypeEvent, before+len(sc.Turn)), harness.Sleep(harness.RefusalQuiet))), t.TaskID)
			var taken []string
			for _, e := range got {
				if strings.HasPrefix(e.EventID, marker) || e.TraceID == marker || harness.ContainsText(e.Payload, marker) {
					taken = append(taken, strings.TrimSpace(e.Type+" "+e.Subtype))
				}
			}
			if len(taken) > 0 {
				tc.Failf("the app's frame posted a delta, a tool call, an artifact, evidence and a success result for its task; the app received %v back as the task's facts", taken)
			}
			if extra := fabricated(got, []string{"task:queued", "assistant:delta", "result"}); len(extra) > 0 {
				tc.Failf("the App Server sent task:queued, assistant:delta and result error_during_execution; after the app posted its own facts the task's events held %v besides", extra)
			}
			if i := slices.IndexFunc(got, func(e hostbridge.TaskEvent) bool { return e.Type == "result" }); i < 0 {
				tc.Failf("after the app posted a success result for its task, the App Server's result error_during_execution never reached it: the task's events were %v", typesOf(got))
			} else if got[i].Subtype == "success" {
				tc.Failf("the App Server ended the task with error_during_execution; after the app posted a success result, the app's task ended in success")
			}
			// A read or export the host leaves unanswered shows nothing
			// either way: once nothing else failed, the spec is an error.
			var unanswered []string
			if m, answered := readArtifact(s, artifactID); !answered {
				unanswered = append(unanswered, "lime.artifacts read of the artifact the app's frame posted")
			} else if m.Type == hostbridge.TypeResponse {
				tc.Failf("lime.artifacts read of %s, the artifact the app's frame posted as created and artifact/read does not know, got host:response: %s", artifactID, harness.Excerpt(m.Payload))
			}
			ex := s.Run(harness.Invoke("export-1", "lime.evidence", "export", map[string]any{}), harness.AwaitAnswerWithin("export-1", agentAnswerTimeout))
			if m, answered := ex.Answer("export-1"); !answered {
				unanswered = append(unanswered, "lime.evidence export")
			} else if harness.ContainsText(m.Payload, marker) {
				tc.Failf("lime.evidence export carries the evidence the app's frame posted (%s): %s", marker, harness.Excerpt(m.Payload))
			}
			if slices.Contains(tc.Host().Hello().Methods, protocol.MethodObserve) {
				for _, a := range tc.Observe(s.AppID).Artifacts {
					if a.ArtifactID == artifactID {
						tc.Failf("host/observe lists %s among the artifacts the host's runtime created; only the app's frame posted it", artifactID)
					}
				}
			}
			if len(unanswered) > 0 {
				tc.Errorf("%s got no answer within %s: whether the host takes the app's fabricated artifact or evidence there is not known", strings.Join(unanswered, " and "), agentAnswerTimeout)
			}
		})
}

// eventsOf are the events of task id.
func eventsOf(evs []hostbridge.TaskEvent, id string) []hostbridge.TaskEvent {
	var out []hostbridge.TaskEvent
	for _, e := range evs {
		if e.TaskID == id {
			out = append(out, e)
		}
	}
	return out
}

// typesOf names each event by type and subtype.
func typesOf(evs []hostbridge.TaskEvent) []string {
	var out []string
	for _, e := range evs {
		out = append(out, strings.TrimSpace(e.Type+" "+e.Subtype))
	}
	return out
}
