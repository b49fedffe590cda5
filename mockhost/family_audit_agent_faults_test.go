//go:build !mutation

package mockhost

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// agentAuditProbes answer, per fault of agentAuditFaults, the call whose
// answer the fault changes.
func agentAuditProbes() map[string]probe {
	return map[string]probe{
		"approval-answered-by-any-id": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, appserver.ApprovalTurn(), protocol.ConfigureParams{})
			s := x.mount("tiny-app", "main")
			ev := s.events()
			task := taskIDOf(s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"}))
			for m := next(ev, 2*time.Second); m.Type != ""; m = next(ev, 2*time.Second) {
				if strings.Contains(string(m.Payload), "approval:requested") {
					break
				}
			}
			m := s.invoke("a1", "lime.agent", "respondApproval", map[string]any{"taskId": task, "requestId": "approval-1-other", "behavior": "allow"})
			return m.Type + " " + paramsOf(as.Messages(), appserver.MethodActionRespond)
		},
		"agent-cancel-any-task": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, appserver.LongTurn(), protocol.ConfigureParams{})
			s := x.mount("tiny-app", "main")
			task := taskIDOf(s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x"}))
			m := s.invoke("r2", "lime.agent", "cancelTask", map[string]any{"taskId": task + "-other"})
			return m.Type + " " + paramsOf(as.Messages(), appserver.MethodTurnCancel)
		},
		"agent-resume-workspace-prefix": func(t *testing.T, x *harness) string {
			as := appServerFor(t, x, nil, protocol.ConfigureParams{})
			as.Script().Seed(appserver.Session{SessionID: "shadowed", AppID: "tiny-app", WorkspaceID: "w1-shadow"})
			s := x.mount("tiny-app", "main")
			return s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "sessionId": "shadowed"}).Type
		},
		"workflow-respond-current-review": func(t *testing.T, x *harness) string {
			d := newWorkflowDriver(t, x, nil, []string{"pdf_reader"})
			run := d.start("review_flow")
			d.settle(run)
			m := d.call("respond", map[string]any{"runId": run + "-other", "decision": "approve"})
			return m.Type + " " + d.summary(d.settle(run), "review-flow-result")
		},
		"workflow-run-owner-prefix": func(t *testing.T, x *harness) string {
			d := newWorkflowDriver(t, x, nil, nil)
			dir := fixtureCopy(t, "workflow-app", "name: workflow-app", "name: workflow-app-neighbour")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(map[string]any{"workflowKey": "retry_flow", "input": map[string]any{"topic": "t"}})
			var r protocol.InvokeResult
			x.must(protocol.MethodInvoke, protocol.InvokeParams{AppID: "workflow-app-neighbour", EntryKey: "main", RequestID: "own",
				Capability: "lime.workflow", Method: "start", Args: raw}, &r)
			var m hostbridge.Message
			_ = json.Unmarshal(r.Answer, &m)
			return d.call("read", map[string]any{"runId": taskRunID(m)}).Type
		},
		"backend-grants-prefixed-apps": func(t *testing.T, x *harness) string {
			neighbour := pkg(t, "tiny-app-neighbour", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "name: tiny-app", "name: tiny-app-neighbour", 1)})
			if _, err := x.install(neighbour, nil, true); err != nil {
				t.Fatal(err)
			}
			x.h.mu.Lock()
			state := x.h.apps["tiny-app-neighbour"].dataDir + "/state.json"
			x.h.mu.Unlock()
			launched(x, backendApp(t, ""))
			r, err := report(x, map[string]any{"paths": []string{state}})
			if err != nil {
				t.Fatal(err)
			}
			var read []string
			for _, f := range r.Files {
				if f.Path == state {
					read = append(read, "state.json")
				}
			}
			return fmt.Sprint(read)
		},
		"backend-relaunch-stderr-lost": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			x.must(protocol.MethodEnable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, nil)
			b := loggedLine(t, x, "a line after the relaunch")
			return fmt.Sprint(len(b) > 0 && strings.Contains(b[0].Log, "a line after the relaunch"))
		},
	}
}

// taskIDOf is the taskId a startTask answer carries.
func taskIDOf(m hostbridge.Message) string {
	var task struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(m.Payload, &task)
	return task.TaskID
}

// taskRunID is the runId a lime.workflow start answer carries.
func taskRunID(m hostbridge.Message) string {
	var v struct {
		RunID string `json:"runId"`
	}
	_ = json.Unmarshal(m.Payload, &v)
	return v.RunID
}
