//go:build !mutation

package mockhost

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/sourcegraph/jsonrpc2"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/telemetry"
)

// agentProbe mounts the tiny app's main entry with the harness's App
// Server configured (or none), starts a task and reports what read makes
// of the answer, the App Server's messages and the first task event.
func agentProbe(configured bool, read func(answer hostbridge.Message, msgs []appserver.Message, first hostbridge.Message) string) probe {
	return func(t *testing.T, x *harness) string {
		as := appServerFor(t, x, nil, protocol.ConfigureParams{})
		if !configured {
			x.configureWith(protocol.ConfigureParams{})
		}
		s := x.mount("tiny-app", "main")
		ev := s.events()
		answer := s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "idempotencyKey": "k1"})
		first := next(ev, 2*time.Second)
		return read(answer, as.Messages(), first)
	}
}

// appServerFor starts the harness's App Server with script (nil: the
// default) and configures x to reach it over its socket, with p's other
// settings; the server stops with the test.
func appServerFor(t testing.TB, x *harness, script *appserver.Script, p protocol.ConfigureParams) *appserver.Server {
	t.Helper()
	as, err := appserver.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = as.Close() })
	if script != nil {
		as.SetScript(script)
	}
	p.AppServer = &protocol.AppServerConfig{Transport: protocol.AppServerSocket, Address: as.Addr()}
	x.configureWith(p)
	return as
}

// paramsOf is the params of the first message the host sent with method.
func paramsOf(msgs []appserver.Message, method string) string {
	for _, m := range msgs {
		if m.Dir == appserver.FromHost && m.Method == method {
			return string(m.Params)
		}
	}
	return ""
}

// projectionProbe serves an App Server with an artifact and an evidence
// pack (down when down is set) and reports what the app gets for
// capability, method and args.
func projectionProbe(capability, method string, args map[string]any, down bool) probe {
	return func(t *testing.T, x *harness) string {
		sc := appserver.NewScript()
		sc.SetProjections(appserver.Projections{Capabilities: []any{map[string]any{"capabilityId": "from-app-server"}},
			Artifacts: map[string]any{"a1": map[string]any{"artifactId": "a1", "content": "from the App Server"}},
			Evidence:  map[string]any{"exportRef": "pack-from-app-server"}})
		as := appServerFor(t, x, sc, protocol.ConfigureParams{})
		s := x.mount("tiny-app", "main")
		if down {
			as.SetMode(appserver.Refuse)
			as.DropConnections()
		}
		m := s.invoke("r1", capability, method, args)
		return m.Type + " " + string(m.Payload)
	}
}

// quotingProbe has the App Server quote the host's session token in the
// first fact of a turn and in an artifact, and reports whether the token
// reached the app through the event or the artifact read.
func quotingProbe() probe {
	return func(t *testing.T, x *harness) string {
		const token = "canary-quoted-token"
		sc := appserver.NewScript()
		sc.Turn[0].Payload = map[string]any{"headers": map[string]any{"authorization": "Bearer " + token}}
		sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": map[string]any{"artifactId": "a1", "content": token}}})
		appServerFor(t, x, sc, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": token}})
		s := x.mount("tiny-app", "main")
		ev := s.events()
		s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "idempotencyKey": "k1"})
		first := next(ev, 2*time.Second)
		read := s.invoke("r2", "lime.artifacts", "read", map[string]any{"artifactId": "a1"})
		return fmt.Sprintf("event %v, artifact %v", strings.Contains(string(first.Payload), token), strings.Contains(string(read.Payload), token))
	}
}

// telemetryExports runs a task whose input holds a prompt and an
// attachment and reads an artifact, with telemetry going to a collector
// and content export off, and gives what reached the collector.
func telemetryExports(t *testing.T, x *harness) []telemetry.Export {
	return telemetryExportsReading(t, x, map[string]any{"artifactId": "a1"})
}

// telemetryExportsReading is telemetryExports with the artifact read with
// readArgs.
func telemetryExportsReading(t *testing.T, x *harness, readArgs map[string]any) []telemetry.Export {
	col, err := telemetry.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	sc := appserver.NewScript()
	sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": map[string]any{"artifactId": "a1", "content": "planted-body"}}})
	appServerFor(t, x, sc, protocol.ConfigureParams{Telemetry: &protocol.Telemetry{Endpoint: col.URL()}})
	s := x.mount("tiny-app", "main")
	s.invoke("r1", "lime.agent", "startTask", map[string]any{"idempotencyKey": "k1",
		"input": map[string]any{"text": "planted-prompt", "attachments": []any{map[string]any{"content": "planted-user"}}}})
	s.invoke("r2", "lime.artifacts", "read", readArgs)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	col.WaitSince(ctx, time.Time{})
	time.Sleep(2 * otelBatchDelay)
	return col.Exports()
}

// telemetryProbe reports which of the planted prompt, user content and
// artifact body reached the collector.
func telemetryProbe(t *testing.T, x *harness) string {
	var body strings.Builder
	for _, e := range telemetryExports(t, x) {
		body.Write(e.Body)
	}
	return fmt.Sprintf("prompt %v, user %v, body %v", strings.Contains(body.String(), "planted-prompt"),
		strings.Contains(body.String(), "planted-user"), strings.Contains(body.String(), "planted-body"))
}

// telemetryEncodingProbe reports each export's encoding and spans.
func telemetryEncodingProbe(t *testing.T, x *harness) string {
	var out []string
	for _, e := range telemetryExports(t, x) {
		out = append(out, fmt.Sprintf("%s %q %s", e.ContentType, e.Spans, e.Err))
	}
	return strings.Join(out, "; ")
}

func agentProbes() map[string]probe {
	return map[string]probe{
		"telemetry-exports-prompt":        telemetryProbe,
		"telemetry-exports-user-content":  telemetryProbe,
		"telemetry-exports-artifact-body": telemetryProbe,
		"no-app-server-client":            func(t *testing.T, x *harness) string { return string(x.c.HelloRaw()) },
		"events-dropped-under-burst": func(t *testing.T, x *harness) string {
			sc := appserver.NewScript()
			sc.EventGap = 0
			for range 2000 {
				sc.Turn = append(sc.Turn[:len(sc.Turn)-1:len(sc.Turn)-1], appserver.Event{Type: "assistant:delta"}, sc.Turn[len(sc.Turn)-1])
			}
			appServerFor(t, x, sc, protocol.ConfigureParams{})
			s := x.mount("tiny-app", "main")
			ev := s.events()
			s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "idempotencyKey": "k"})
			// Read until every fact came or none came for 10 s: a loaded
			// machine may pause the stream, which is not a drop.
			got := 0
			for got < len(sc.Turn) && next(ev, 10*time.Second).Type != "" {
				got++
			}
			return fmt.Sprint(got >= len(sc.Turn))
		},
		"agent-events-unredacted":      quotingProbe(),
		"agent-projections-unredacted": quotingProbe(),
		// an artifact read the App Server refuses with error data keyed by
		// a credential the host holds
		"appserver-error-data-forwarded": func(t *testing.T, x *harness) string {
			const token = "canary-quoted-token"
			refusal := &jsonrpc2.Error{Code: -32000, Message: "upstream refused the request"}
			refusal.SetError(map[string]any{"Bearer " + token: "rejected"})
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{Artifacts: map[string]any{"a1": refusal}})
			appServerFor(t, x, sc, protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": token}})
			read := x.mount("tiny-app", "main").invoke("r1", "lime.artifacts", "read", map[string]any{"artifactId": "a1"})
			return fmt.Sprintf("%s quoted %v", read.Type, strings.Contains(string(read.Payload), token))
		},
		"capabilities-from-manifest":  projectionProbe("lime.agent", "listCapabilities", nil, false),
		"artifact-read-local":         projectionProbe("lime.artifacts", "read", map[string]any{"artifactId": "a1"}, false),
		"artifact-mock-when-down":     projectionProbe("lime.artifacts", "read", map[string]any{"artifactId": "a1"}, true),
		"evidence-export-synthesized": projectionProbe("lime.evidence", "export", nil, false),
		"appserver-no-clientinfo": agentProbe(true, func(_ hostbridge.Message, msgs []appserver.Message, _ hostbridge.Message) string {
			return paramsOf(msgs, appserver.MethodInitialize)
		}),
		"appserver-skips-initialized": agentProbe(true, func(_ hostbridge.Message, msgs []appserver.Message, _ hostbridge.Message) string {
			var methods []string
			for _, m := range msgs {
				if m.Dir == appserver.FromHost {
					methods = append(methods, m.Method)
				}
			}
			return strings.Join(methods, ",")
		}),
		"agent-session-unbound": agentProbe(true, func(_ hostbridge.Message, msgs []appserver.Message, _ hostbridge.Message) string {
			return paramsOf(msgs, appserver.MethodSessionStart)
		}),
		"agent-turn-drops-idempotency-key": agentProbe(true, func(_ hostbridge.Message, msgs []appserver.Message, _ hostbridge.Message) string {
			return paramsOf(msgs, appserver.MethodTurnStart)
		}),
		"agent-events-raw": agentProbe(true, func(_ hostbridge.Message, _ []appserver.Message, first hostbridge.Message) string {
			var e hostbridge.TaskEvent
			_ = json.Unmarshal(first.Payload, &e)
			return first.Type + " " + e.SchemaVersion
		}),
		"agent-cancel-local-only": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, appserver.LongTurn(), protocol.ConfigureParams{})
			s := x.mount("tiny-app", "main")
			started := s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"})
			var task struct {
				TaskID string `json:"taskId"`
			}
			_ = json.Unmarshal(started.Payload, &task)
			s.invoke("r2", "lime.agent", "cancelTask", map[string]any{"taskId": task.TaskID})
			return paramsOf(as.Messages(), appserver.MethodTurnCancel)
		},
		"frame-facts-relayed":      frameFactProbe,
		"frame-bare-facts-relayed": frameFactProbe,
		"frame-result-ends-task":   frameFactProbe,
		"frame-artifact-kept":      frameFactProbe,
		"frame-evidence-exported":  frameFactProbe,
		"verify-asks-the-agent": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			_ = x.call(protocol.MethodVerify, protocol.PackageParams{Path: surfaceApp(t, "tiny-app")}, nil)
			return paramsOf(as.Messages(), appserver.MethodSessionStart)
		},
		"readiness-asks-the-agent": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			_, _ = x.readiness(protocol.ReadinessParams{Path: surfaceApp(t, "tiny-app")})
			return paramsOf(as.Messages(), appserver.MethodSessionStart)
		},
		"project-asks-the-agent": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			if _, err := x.project(surfaceApp(t, "tiny-app")); err != nil {
				t.Fatal(err)
			}
			return paramsOf(as.Messages(), appserver.MethodSessionStart)
		},
		"agent-result-subtype-dropped":        resultProbe,
		"agent-result-errors-collapsed":       resultProbe,
		"agent-result-limits-as-success":      resultProbe,
		"approval-decision-dropped":           approvalProbe(false),
		"approval-app-overrides-policy":       approvalProbe(true),
		"structured-output-unchecked":         structuredProbe(1),
		"structured-output-retries-unbounded": structuredProbe(1),
		"agent-resume-unconfirmed":            resumeProbe(),
		"agent-resume-any-workspace":          resumeProbe(),
		"agent-drop-ends-in-success": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			as.SetMode(appserver.DropMidTurn)
			s := x.mount("tiny-app", "main")
			ev := s.events()
			s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"})
			var seen []string
			for range 2 {
				var e hostbridge.TaskEvent
				_ = json.Unmarshal(next(ev, 2*time.Second).Payload, &e)
				seen = append(seen, e.Type+" "+e.Subtype)
			}
			return strings.Join(seen, ",")
		},
		"agent-mock-success-when-down": agentProbe(false, func(answer hostbridge.Message, _ []appserver.Message, first hostbridge.Message) string {
			return fmt.Sprint(answer.Type, " ", first.Type)
		}),
		"agent-mock-without-app-server": agentProbe(false, func(answer hostbridge.Message, _ []appserver.Message, _ hostbridge.Message) string {
			return string(answer.Type)
		}),
		"agent-session-error-taken-as-local": appServerErrorProbe(appserver.MethodSessionStart),
		"agent-turn-error-taken-as-started":  appServerErrorProbe(appserver.MethodTurnStart),
	}
}

// resultProbe ends a turn with each error subtype the App Server can
// report and lists the subtype of the result the app received.
// frameFactProbe posts a task fact of each kind for the app's running task
// from its frame, as host:event and bare, and reports the task's events
// the app received after, a read of the posted artifact and the export.
func frameFactProbe(t *testing.T, x *harness) string {
	sc := appserver.NewScript()
	sc.EventGap = 300 * time.Millisecond
	sc.SetProjections(appserver.Projections{Artifacts: map[string]any{}, Evidence: map[string]any{"records": []any{}}})
	appServerFor(t, x, sc, protocol.ConfigureParams{})
	s := x.mount("tiny-app", "main")
	ev := s.events()
	answer := s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"})
	var task struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(answer.Payload, &task)
	seen := []string{next(ev, 2*time.Second).Type}
	for i, kind := range []string{"assistant:delta", "artifact:created", "evidence:recorded", "result"} {
		fact := map[string]any{"schemaVersion": hostbridge.TaskEventSchema, "eventId": fmt.Sprint("posted-", i), "type": kind, "subtype": "success",
			"taskId": task.TaskID, "payload": map[string]any{"artifactId": "posted-artifact", "text": "posted"}}
		s.send(hostbridge.TypeEvent, fmt.Sprint("f", i), fact)
		fact["eventId"] = fmt.Sprint("bare-", i)
		s.sendRaw(raw(fact))
	}
	for m := next(ev, time.Second); m.Type != ""; m = next(ev, time.Second) {
		var e hostbridge.TaskEvent
		_ = json.Unmarshal(m.Payload, &e)
		seen = append(seen, e.EventID+" "+e.Type)
	}
	read := s.invoke("r2", "lime.artifacts", "read", map[string]any{"artifactId": "posted-artifact"})
	export := s.invoke("r3", "lime.evidence", "export", map[string]any{})
	return fmt.Sprint(seen, " read:", read.Type, " export:", string(export.Payload))
}

func resultProbe(t *testing.T, x *harness) string {
	sc := appserver.NewScript()
	as := appServerFor(t, x, sc, protocol.ConfigureParams{})
	s := x.mount("tiny-app", "main")
	ev := s.events()
	var seen []string
	for i, sub := range []string{"error_max_turns", "error_max_budget", "error_permission_denied"} {
		end := appserver.NewScript()
		end.Turn = []appserver.Event{{Type: "result", Subtype: sub}}
		as.SetScript(end)
		s.invoke(fmt.Sprintf("r%d", i), "lime.agent", "startTask", map[string]any{"input": "x"})
		var e hostbridge.TaskEvent
		_ = json.Unmarshal(next(ev, 2*time.Second).Payload, &e)
		seen = append(seen, sub+"->"+e.Subtype)
	}
	return strings.Join(seen, ",")
}

// The App Server client: a handshaken connection, a session bound to the
// app and workspace, a turn with the app's input and key, the facts
// projected in the task event envelope in order, and a refusal with a
// stable code when there is no App Server.
func TestAgentTaskThroughTheAppServer(t *testing.T) {
	x := start(t)
	x.install(surfaceApp(t, "tiny-app"), nil, true)
	answer := ""
	agentProbe(true, func(a hostbridge.Message, msgs []appserver.Message, first hostbridge.Message) string {
		answer = a.Type
		var methods []string
		for _, m := range msgs {
			if m.Dir == appserver.FromHost {
				methods = append(methods, m.Method)
			}
		}
		if got := strings.Join(methods, ","); !strings.HasPrefix(got, "initialize,initialized,agentSession/start,agentSession/turn/start") {
			t.Errorf("the host sent %s", got)
		}
		if p := paramsOf(msgs, appserver.MethodSessionStart); !strings.Contains(p, `"workspaceId":"w1"`) || !strings.Contains(p, `"appId":"tiny-app"`) {
			t.Errorf("agentSession/start %s", p)
		}
		if p := paramsOf(msgs, appserver.MethodTurnStart); !strings.Contains(p, `"idempotencyKey":"k1"`) || !strings.Contains(p, `"input":"x"`) {
			t.Errorf("agentSession/turn/start %s", p)
		}
		var e hostbridge.TaskEvent
		_ = json.Unmarshal(first.Payload, &e)
		if first.Type != hostbridge.TypeEvent || e.SchemaVersion != hostbridge.TaskEventSchema || e.Sequence != 1 || e.Type != "task:queued" || e.AppID != "tiny-app" {
			t.Errorf("first event %s %+v", first.Type, e)
		}
		return ""
	})(t, x)
	if answer != hostbridge.TypeResponse {
		t.Errorf("startTask answered %s", answer)
	}
	agentProbe(false, func(a hostbridge.Message, _ []appserver.Message, first hostbridge.Message) string {
		if a.Type != hostbridge.TypeError || hostbridge.ErrorOf(a).Code != hostbridge.CodeRuntimeUnavailable || first.Type != "" {
			t.Errorf("without an App Server: %s %s, then %s", a.Type, hostbridge.ErrorOf(a).Code, first.Type)
		}
		return ""
	})(t, x)
}

// resumeProbe asks to resume a session of another workspace and reports
// the answer.
func resumeProbe() probe {
	return func(t *testing.T, x *harness) string {
		as := appServerFor(t, x, nil, protocol.ConfigureParams{})
		as.Script().Seed(appserver.Session{SessionID: "foreign", AppID: "tiny-app", WorkspaceID: "elsewhere"})
		s := x.mount("tiny-app", "main")
		return s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "sessionId": "foreign"}).Type
	}
}

// approvalProbe starts an approval turn (with the tool denied by policy
// when deny), answers allow and reports what reached the App Server.
func approvalProbe(deny bool) probe { return approvalDecisionProbe(deny, "allow") }

// approvalDecisionProbe is approvalProbe with the app deciding behavior,
// its decision naming the tool claim when one is given.
func approvalDecisionProbe(deny bool, behavior string, claim ...string) probe {
	return func(t *testing.T, x *harness) string {
		p := protocol.ConfigureParams{}
		if deny {
			p.Policy = &protocol.Policy{DeniedTools: []string{"publish"}}
		}
		as := appServerFor(t, x, appserver.ApprovalTurn(), p)
		s := x.mount("tiny-app", "main")
		started := s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"})
		var task struct {
			TaskID string `json:"taskId"`
		}
		_ = json.Unmarshal(started.Payload, &task)
		for i := 0; i < 100; i++ {
			args := map[string]any{"taskId": task.TaskID, "requestId": "approval-1", "behavior": behavior}
			for _, c := range claim {
				args["toolName"] = c
			}
			m := s.invoke(fmt.Sprint("a", i), "lime.agent", "respondApproval", args)
			if m.Type == hostbridge.TypeResponse {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		return paramsOf(as.Messages(), appserver.MethodActionRespond)
	}
}

// structuredProbe starts a task asking for a schema whose output never
// meets it and reports how many turns ran and how the app saw it end.
func structuredProbe(retries int) probe {
	return func(t *testing.T, x *harness) string {
		as := appServerFor(t, x, appserver.StructuredTurn("a summary"), protocol.ConfigureParams{})
		s := x.mount("tiny-app", "main")
		ev := s.events()
		s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "expectedOutput": map[string]any{
			"outputFormat": map[string]any{"type": "json_schema", "schema": map[string]any{"type": "object"}, "maxValidationRetries": retries}}})
		var ends []string
		for m := next(ev, 2*time.Second); m.Type != ""; m = next(ev, 2*time.Second) {
			var e hostbridge.TaskEvent
			_ = json.Unmarshal(m.Payload, &e)
			if e.Type == "result" {
				ends = append(ends, e.Subtype)
				break
			}
		}
		n := 0
		for _, m := range as.Messages() {
			if m.Dir == appserver.FromHost && m.Method == appserver.MethodTurnStart {
				n++
			}
		}
		return fmt.Sprint(n, ends)
	}
}

// appServerErrorProbe answers the type of startTask's answer while the App
// Server answers method with a JSON-RPC error.
func appServerErrorProbe(method string) probe {
	return func(t *testing.T, x *harness) string {
		sc := appserver.NewScript()
		sc.ErrorOn = method
		appServerFor(t, x, sc, protocol.ConfigureParams{})
		return x.mount("tiny-app", "main").invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"}).Type
	}
}
