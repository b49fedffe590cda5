package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/appserver/golden"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
	"github.com/agentapp/conformance/levels"
)

// agentAnswerTimeout is how long the probe waits for startTask's answer:
// longer than one bridge answer, since the host may wait out a hung App
// Server before it refuses.
const agentAnswerTimeout = 10 * time.Second

// The quiet periods the agent specs wait out in the app's frame.
const (
	// cancelSettle: after cancelTask's answer, for the host's interrupt to
	// reach the App Server.
	cancelSettle = time.Second
	// respondSettle: after respondApproval's answer, for the decision to
	// reach the App Server.
	respondSettle = 500 * time.Millisecond
	// resultPoll: one wait of the poll for a task's result event.
	resultPoll = 300 * time.Millisecond
	// downQuiet: with the App Server down, for startTask's answer.
	downQuiet = 800 * time.Millisecond
	// dropQuiet: with the App Server dropping the connection mid-turn, for
	// the host to answer and end the task.
	dropQuiet = 1500 * time.Millisecond
)

// goldenTranscript loads a golden App Server exchange of the fixtures.
func goldenTranscript(tc *harness.TestContext, name string) *golden.Golden {
	GinkgoHelper()
	b, err := platformconformance.Transcript(name)
	if err != nil {
		tc.Errorf("%v", err)
	}
	g, err := golden.Parse(bytes.NewReader(b), "transcripts/"+name+".io")
	if err != nil {
		tc.Errorf("%v", err)
	}
	return g
}

// agentTask is what the app asked lime.agent startTask for and what it
// was answered.
type agentTask struct {
	requestID, input, key string
	answer                hostbridge.Message
	answered              bool
	TaskID, SessionID     string
}

// startTask asks lime.agent startTask from the app's frame.
func startTask(s *harness.Surface, requestID string) *agentTask {
	GinkgoHelper()
	return resumeTask(s, requestID, "")
}

// expectHandshakes judges every connection of the host in msgs (one App
// Server's): it begins with initialize carrying clientInfo.name, and no
// business method comes before initialized (spec 002, Conformance
// checklist). It answers how many connections there were; which names the
// App Server in a failure ("" for the harness's first).
func expectHandshakes(tc *harness.TestContext, msgs []appserver.Message, which string) int {
	GinkgoHelper()
	conns := map[int][]appserver.Message{}
	var order []int
	for _, m := range msgs {
		if m.Dir != appserver.FromHost {
			continue
		}
		if _, seen := conns[m.Conn]; !seen {
			order = append(order, m.Conn)
		}
		conns[m.Conn] = append(conns[m.Conn], m)
	}
	for n, id := range order {
		ms := conns[id]
		label := fmt.Sprintf("connection %d of the host", n+1)
		if which != "" {
			label += " to " + which
		}
		if ms[0].Method != appserver.MethodInitialize {
			tc.Failf("%s began with %s, not initialize", label, ms[0].Method)
		}
		var init struct {
			ClientInfo struct {
				Name string `json:"name"`
			} `json:"clientInfo"`
		}
		_ = json.Unmarshal(ms[0].Params, &init)
		if init.ClientInfo.Name == "" {
			tc.Failf("%s: initialize carries no clientInfo.name: %s", label, ms[0].Params)
		}
		for _, m := range ms[1:] {
			if m.Method == appserver.MethodInitialized && m.IsNotification() {
				break
			}
			if m.Method != "" && m.Method != appserver.MethodInitialize {
				tc.Failf("%s: %s was sent before initialized", label, m.Method)
			}
		}
	}
	return len(order)
}

// resumeTask asks lime.agent startTask in session (a session id the app
// cached; "" for a new session).
func resumeTask(s *harness.Surface, requestID, session string) *agentTask {
	GinkgoHelper()
	t := &agentTask{requestID: requestID, input: harness.Nonce("probe-input"), key: harness.Nonce("idem")}
	args := map[string]any{"input": map[string]any{"text": t.input}, "idempotencyKey": t.key}
	if session != "" {
		args["sessionId"] = session
	}
	step := harness.Invoke(requestID, "lime.agent", "startTask", args)
	r := s.Run(step, harness.AwaitAnswerWithin(requestID, agentAnswerTimeout))
	t.answer, t.answered = r.Answer(requestID)
	if t.answered && t.answer.Type == hostbridge.TypeResponse {
		var p struct {
			TaskID    string `json:"taskId"`
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(t.answer.Payload, &p)
		t.TaskID, t.SessionID = p.TaskID, p.SessionID
	}
	return t
}

// expectStarted is the positive control of the agent specs: with the App
// Server serving, startTask is answered with host:response.
func expectStarted(s *harness.Surface, requestID string) *agentTask {
	GinkgoHelper()
	var t *agentTask
	s.TC().Precondition("lime.agent startTask is answered with host:response while the App Server serves", func() {
		t = startTask(s, requestID)
		if !t.answered || t.answer.Type != hostbridge.TypeResponse {
			s.TC().Failf("startTask got %s", harness.AnswerText(t.answer, t.answered))
		}
	})
	return t
}

// taskEvents are the host:event envelopes the app received, in order.
func taskEvents(r *harness.ProbeResult) []hostbridge.TaskEvent {
	var out []hostbridge.TaskEvent
	for _, m := range r.OfType(hostbridge.TypeEvent) {
		var e hostbridge.TaskEvent
		_ = json.Unmarshal(m.Payload, &e)
		out = append(out, e)
	}
	return out
}

// readArtifact asks lime.artifacts read of artifact id from the app's
// frame and returns the answer.
func readArtifact(s *harness.Surface, id string) (hostbridge.Message, bool) {
	GinkgoHelper()
	r := s.Run(harness.Invoke(id, "lime.artifacts", "read", map[string]any{"artifactId": id}), harness.AwaitAnswerWithin(id, agentAnswerTimeout))
	return r.Answer(id)
}

// answerTo finds the App Server's answer to request id on connection conn.
func answerTo(msgs []appserver.Message, conn int, id string) (appserver.Message, bool) {
	for _, m := range msgs {
		if m.Dir == appserver.ToHost && m.Conn == conn && m.Method == "" && m.ID == id {
			return m, true
		}
	}
	return appserver.Message{}, false
}

// turnIDOf is the turn id the App Server answered agentSession/turn/start
// request start with ("" when it did not).
func turnIDOf(msgs []appserver.Message, start appserver.Message) string {
	ans, _ := answerTo(msgs, start.Conn, start.ID)
	var turn struct {
		TurnID string `json:"turnId"`
	}
	_ = json.Unmarshal(ans.Result, &turn)
	return turn.TurnID
}

// sentTypes lists the event types the App Server sent for turn, in order.
func sentTypes(msgs []appserver.Message, turn string) []string {
	var out []string
	for _, m := range msgs {
		if m.Dir != appserver.ToHost || m.Method != appserver.MethodEvent {
			continue
		}
		var p appserver.EventParams
		if json.Unmarshal(m.Params, &p) == nil && p.TurnID == turn {
			out = append(out, p.Type)
		}
	}
	return out
}

// fabricated lists the facts the app received that the App Server never
// sent: every event of the app beyond the App Server's facts, in order,
// except a result that is not a success (how a host ends a broken task).
func fabricated(got []hostbridge.TaskEvent, sent []string) []string {
	var extra []string
	i := 0
	for _, e := range got {
		if i < len(sent) && e.Type == sent[i] {
			i++
			continue
		}
		if e.Type == "result" && e.Subtype != "success" {
			continue
		}
		extra = append(extra, strings.TrimSuffix(e.Type+" "+e.Subtype, " "))
	}
	return extra
}

// describeAgent checks the App Server bridge: the app's lime.agent calls
// carried into App Server JSON-RPC and the facts projected back (spec 000
// Agent Task Runtime Control Plane; 001 the App Server mapping; 002 the
// desktop agent execution path).
func describeAgent(tc *harness.TestContext) {
	describeAgentOffered(tc)
	describeAgentAtProjection(tc)
	Describe("Runtime: lime.agent through App Server JSON-RPC, called with app/invoke", func() {
		BeforeEach(func() { requireAgentOffered(tc) })
		It("maps startTask made as the app through app/invoke to agentSession/start bound to the app and workspace, then turn/start with the app's input and idempotency key", tc.Req("AGENT-TASK-MAPPED", levels.EveryEntryPoint), func() {
			appID := tc.InstallProbe(tc.WithAppServer(tc.DefaultConfigure()))
			input, key := harness.Nonce("probe-input"), harness.Nonce("idem")
			args, _ := json.Marshal(map[string]any{"input": map[string]any{"text": input}, "idempotencyKey": key})
			tc.Precondition("lime.agent startTask through app/invoke is answered with host:response while the App Server serves", func() {
				m := tc.InvokeAsApp(protocol.InvokeParams{AppID: appID, EntryKey: "main", RequestID: "task-1",
					Capability: "lime.agent", Method: "startTask", Args: args})
				if m.Type != hostbridge.TypeResponse {
					tc.Failf("app/invoke of lime.agent startTask answered %s", harness.AnswerText(m, true))
				}
			})
			expectTaskMapped(tc, appID, input, key)
		})

		It("follows the golden exchange of the capability, artifact and evidence projections (transcripts/agent-projections.io) made through app/invoke, and answers the app with what the App Server returned", tc.Req("AGENT-PROJECTIONS", levels.EveryMember, levels.EveryEntryPoint), func() {
			g := goldenTranscript(tc, "agent-projections")
			appID := tc.InstallProbe(tc.WithAppServer(tc.DefaultConfigure()))
			tc.AppServer().SetScript(appserver.ReplayScript(g))
			tc.AppServer().DropConnections()
			artifact := harness.Nonce("artifact")
			args, _ := json.Marshal(map[string]any{"artifactId": artifact})
			for _, c := range []struct {
				capability, method string
				args               json.RawMessage
				returned           string
			}{
				{"lime.agent", "listCapabilities", nil, "golden-capability"},
				{"lime.artifacts", "read", args, "golden artifact content"},
				{"lime.evidence", "export", nil, "golden-evidence-pack"},
			} {
				m := tc.InvokeAsApp(protocol.InvokeParams{AppID: appID, EntryKey: "main", RequestID: harness.Nonce("read"),
					Capability: c.capability, Method: c.method, Args: c.args})
				if m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, c.returned) {
					tc.Failf("app/invoke of %s %s answered %s, not with what the App Server returned (it holds %q)",
						c.capability, c.method, harness.AnswerText(m, true), c.returned)
				}
			}
			var seen []golden.Seen
			for _, m := range tc.AppServer().Messages() {
				if m.Dir == appserver.FromHost {
					seen = append(seen, golden.Seen{Method: m.Method, Params: m.Params})
				}
			}
			b := golden.Bindings{"app": appID, "workspace": harness.WorkspaceID, "artifact": artifact}
			if mis := golden.Check(g, seen, b, false); len(mis) > 0 {
				var lines []string
				for _, m := range mis {
					lines = append(lines, m.String())
				}
				tc.Failf("the host's side departs from the golden exchange %s:\n%s", g.Name, strings.Join(lines, "\n"))
			}
		})
	})

	Describe("Runtime: lime.agent through App Server JSON-RPC", tc.BrowserRetry(), func() {
		BeforeEach(func() { requireAgentOffered(tc) })
		describeAgentSession(tc)
		describeAgentTasks(tc)
		describeAgentResults(tc)
		describeAgentTransport(tc)
		describeAgentDecisions(tc)
		describeAgentReads(tc)
		describeAgentFailClosed(tc)
		describeAgentAppFacts(tc)
	})
	describeTelemetry(tc)
}

// describeAgentSession declares the specs of the handshake, the startTask mapping and the golden exchange.
func describeAgentSession(tc *harness.TestContext) {
	It("handshakes every App Server connection, a reconnect and one to the App Server a later host/configure names too, before any business method", tc.Req("APPSERVER-HANDSHAKE", levels.EveryTransition, levels.ChangeBetweenReads), func() {
		// What the host sent is judged whether or not the App Server
		// let the tasks start: one that refuses business methods
		// before the handshake stops a host that skips it.
		p := tc.WithAppServer(tc.DefaultConfigure())
		s := tc.ProbeSurface(p)
		startTask(s, "task-1")
		tc.AppServer().DropConnections()
		startTask(s, "task-2")
		msgs := tc.AppServer().Messages()
		conns := expectHandshakes(tc, msgs, "")
		if len(harness.FromHost(msgs, appserver.MethodSessionStart)) == 0 {
			tc.Blockedf("the host sent the App Server no business method for lime.agent startTask, so its handshake gated nothing")
		}
		if conns < 2 {
			tc.Errorf("the host asked for two tasks around an App Server restart on %d connection(s); a restart closes the connection, so the second task needs a new one", conns)
		}
		// A change between two reads: host/configure names another App
		// Server on the same transport (it replaces the configuration
		// before it, docs/host-control-protocol.md). The next task goes
		// there, on a connection handshaken first, and none to the first.
		next := tc.AnotherAppServer()
		p.AppServer = &protocol.AppServerConfig{Transport: protocol.AppServerSocket, Address: next.Addr()}
		tc.Configure(p)
		started := len(harness.FromHost(tc.AppServer().Messages(), appserver.MethodSessionStart))
		startTask(s, "task-3")
		if n := len(harness.FromHost(tc.AppServer().Messages(), appserver.MethodSessionStart)); n > started {
			tc.Failf("after host/configure named another App Server (%s), lime.agent startTask still went to the first one (%s): agentSession/start sent there", next.Addr(), tc.AppServer().Addr())
		}
		moved := next.Messages()
		if len(harness.FromHost(moved, appserver.MethodSessionStart)) == 0 {
			tc.Failf("after host/configure named another App Server (%s), lime.agent startTask sent it no agentSession/start", next.Addr())
		}
		expectHandshakes(tc, moved, "the App Server host/configure named next")
	})

	DescribeTable("maps startTask to agentSession/start bound to the app and workspace, then turn/start with the app's input and idempotency key", func(transport string) {
		s := tc.ProbeSurface(tc.WithAppServerOver(tc.DefaultConfigure(), transport))
		t := expectStarted(s, "task-1")
		expectTaskMapped(tc, s.AppID, t.input, t.key)
	},
		Entry("over a loopback socket", tc.Req("AGENT-TASK-MAPPED", levels.EveryEntryPoint), protocol.AppServerSocket),
		Entry("over the stdio of a sidecar the host spawns", tc.Req("AGENT-TASK-MAPPED", levels.EveryEntryPoint), protocol.AppServerStdio),
	)

	It("follows the golden exchange of one task (transcripts/agent-task.io), the App Server's side replayed", tc.Req("AGENT-TASK-MAPPED"), func() {
		g := goldenTranscript(tc, "agent-task")
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		tc.AppServer().SetScript(appserver.ReplayScript(g))
		tc.AppServer().DropConnections()
		t := startTask(s, "task-1")
		var seen []golden.Seen
		for _, m := range tc.AppServer().Messages() {
			if m.Dir == appserver.FromHost {
				seen = append(seen, golden.Seen{Method: m.Method, Params: m.Params})
			}
		}
		b := golden.Bindings{"app": s.AppID, "workspace": harness.WorkspaceID, "input": t.input, "key": t.key}
		if mis := golden.Check(g, seen, b, false); len(mis) > 0 {
			var lines []string
			for _, m := range mis {
				lines = append(lines, m.String())
			}
			tc.Failf("the host's side departs from the golden exchange %s:\n%s", g.Name, strings.Join(lines, "\n"))
		}
	})
}

// describeAgentTasks declares the specs of event projection, cancel and resume.
func describeAgentTasks(tc *harness.TestContext) {
	DescribeTable("projects each agentSession/event fact to the app, in order, in the task event envelope", func(deltas int) {
		sc := appserver.NewScript()
		if deltas > 0 {
			// A burst: the facts come with no pause, as a model streams.
			sc.EventGap = 0
			burst := make([]appserver.Event, 0, deltas+2)
			burst = append(burst, sc.Turn[0])
			for i := range deltas {
				burst = append(burst, appserver.Event{Type: "assistant:delta", Payload: map[string]any{"text": fmt.Sprintf("part %d", i)}})
			}
			sc.Turn = append(burst, sc.Turn[len(sc.Turn)-1])
		}
		tc.AppServer().SetScript(sc)
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		t := expectStarted(s, "task-1")
		r := s.Run(harness.AwaitCount(hostbridge.TypeEvent, len(sc.Turn)))
		turns := harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart)
		if len(turns) == 0 {
			tc.Blockedf("the host sent no agentSession/turn/start, so no fact can be projected")
		}
		sent := sentTypes(tc.AppServer().Messages(), turnIDOf(tc.AppServer().Messages(), turns[0]))
		got := taskEvents(r)
		var types []string
		for _, e := range got {
			types = append(types, e.Type)
		}
		if !slices.Equal(types, sent) {
			tc.Failf("the app received %d events; the App Server sent %d facts for the turn, and they differ first at %s", len(types), len(sent), firstDifference(types, sent))
		}
		for i, e := range got {
			var missing []string
			for name, v := range map[string]string{"schemaVersion": e.SchemaVersion, "eventId": e.EventID, "appId": e.AppID,
				"taskId": e.TaskID, "traceId": e.TraceID, "sessionId": e.SessionID, "at": e.At} {
				if v == "" {
					missing = append(missing, name)
				}
			}
			slices.Sort(missing)
			switch {
			case len(missing) > 0:
				tc.Failf("event %d (%s) lacks %s", i+1, e.Type, strings.Join(missing, ", "))
			case e.SchemaVersion != hostbridge.TaskEventSchema:
				tc.Failf("event %d has schemaVersion %q, not %q", i+1, e.SchemaVersion, hostbridge.TaskEventSchema)
			case e.AppID != s.AppID || e.TaskID != t.TaskID:
				tc.Failf("event %d names app %q task %q; the task is %q of %s", i+1, e.AppID, e.TaskID, t.TaskID, s.AppID)
			case i > 0 && e.Sequence <= got[i-1].Sequence:
				tc.Failf("event %d has sequence %d after %d: not in order", i+1, e.Sequence, got[i-1].Sequence)
			}
		}
	},
		Entry("a turn of a few facts", tc.Req("AGENT-EVENTS-PROJECTED", levels.EveryMember), 0),
		Entry("a burst of 500 facts with no pause between them", tc.Req("AGENT-EVENTS-PROJECTED", levels.EveryMember), 500),
	)

	It("maps cancelTask to agentSession/turn/cancel of the task's turn and ends the task with the App Server's cancelled result", tc.Req("AGENT-CANCEL-MAPPED", levels.WhoAnswers), func() {
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		tc.AppServer().SetScript(appserver.LongTurn())
		t := expectStarted(s, "task-1")
		s.Run(harness.AwaitCount(hostbridge.TypeEvent, 2))
		// Who answers: a cancel naming no task of the app (an id that
		// extends the running task's) cancels nothing.
		wrong := t.TaskID + "-other"
		r := s.Run(harness.Invoke("cancel-wrong", "lime.agent", "cancelTask", map[string]any{"taskId": wrong}), harness.AwaitAnswer("cancel-wrong"))
		if sent := harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnCancel); len(sent) > 0 {
			tc.Failf("the app cancelled task %s, which it never started, and the host sent the App Server agentSession/turn/cancel %s of its running task %s", wrong, sent[0].Params, t.TaskID)
		}
		if m, answered := r.Answer("cancel-wrong"); answered && m.Type == hostbridge.TypeResponse {
			tc.Failf("cancelTask of task %s, which the app never started, was answered host:response %s, not refused", wrong, m.Payload)
		}
		r = s.Run(harness.Invoke("cancel-1", "lime.agent", "cancelTask", map[string]any{"taskId": t.TaskID}), harness.AwaitAnswer("cancel-1"), harness.Sleep(cancelSettle))
		msgs := tc.AppServer().Messages()
		turns := harness.FromHost(msgs, appserver.MethodTurnStart)
		if len(turns) == 0 {
			tc.Blockedf("the host sent no agentSession/turn/start, so there was no turn to cancel")
		}
		turn := turnIDOf(msgs, turns[0])
		cancels := harness.FromHost(msgs, appserver.MethodTurnCancel)
		if len(cancels) == 0 {
			tc.Failf("the app cancelled task %s (answered %s) but the host sent the App Server no agentSession/turn/cancel", t.TaskID, harness.AnswerText(r.Answer("cancel-1")))
		}
		if !harness.ContainsText(cancels[0].Params, `"`+turn+`"`) {
			tc.Failf("agentSession/turn/cancel does not name the task's turn %s: %s", turn, cancels[0].Params)
		}
		var last hostbridge.TaskEvent
		for _, e := range taskEvents(r) {
			if e.TaskID == t.TaskID && e.Type == "result" {
				last = e
			}
		}
		if last.Type == "result" && last.Subtype == "success" {
			tc.Failf("the cancelled task ended with result success")
		}
		if last.Subtype != "cancelled" {
			tc.Failf("the cancelled task's last result is %q, not the cancelled the App Server sent", last.Subtype)
		}
	})

	It("confirms a session the app resumes with agentSession/read and refuses one of another workspace or another app, or whose workspace the App Server does not state", tc.Req("AGENT-RESUME-CONFIRMED", levels.EveryMember, levels.ConfusableIdentity, levels.WhoAnswers), func() {
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		own := expectStarted(s, "task-1")
		tc.Precondition("the app's own session resumes", func() {
			if t := resumeTask(s, "resume-own", own.SessionID); !t.answered || t.answer.Type != hostbridge.TypeResponse {
				tc.Failf("resuming the session %s the host started for this app got %s", own.SessionID, harness.AnswerText(t.answer, t.answered))
			}
		})
		turnsOn := func(session string) int {
			n := 0
			for _, m := range harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart) {
				if harness.ContainsText(m.Params, `"`+session+`"`) {
					n++
				}
			}
			return n
		}
		// The resumed turn came after agentSession/read of that session.
		var readAt, turnAt = -1, -1
		for i, m := range tc.AppServer().Messages() {
			if m.Dir != appserver.FromHost || !harness.ContainsText(m.Params, `"`+own.SessionID+`"`) {
				continue
			}
			if m.Method == appserver.MethodSessionRead && readAt < 0 {
				readAt = i
			}
			if m.Method == appserver.MethodTurnStart {
				turnAt = i
			}
		}
		if readAt < 0 || readAt > turnAt {
			tc.Failf("the host resumed session %s without confirming it with agentSession/read first", own.SessionID)
		}
		foreign := appserver.Session{SessionID: harness.Nonce("foreign-session"), AppID: s.AppID, WorkspaceID: "workspace-of-someone-else"}
		// A workspace whose id begins with this one's: confusable.
		shadow := appserver.Session{SessionID: harness.Nonce("shadow-session"), AppID: s.AppID, WorkspaceID: harness.WorkspaceID + "-shadow"}
		// Another app's session in this workspace, whose id extends this
		// app's: the session binds its app (spec 001, agentSession/start
		// "Binds appId, workspaceId"), and its history is that app's data.
		neighbours := appserver.Session{SessionID: harness.Nonce("neighbour-session"), AppID: s.AppID + "-b", WorkspaceID: harness.WorkspaceID}
		// A workspace whose id is this one's in other case: confusable.
		cased := appserver.Session{SessionID: harness.Nonce("cased-session"), AppID: s.AppID, WorkspaceID: strings.ToUpper(harness.WorkspaceID)}
		tc.AppServer().Script().Seed(foreign)
		tc.AppServer().Script().Seed(shadow)
		tc.AppServer().Script().Seed(neighbours)
		tc.AppServer().Script().Seed(cased)
		type refused struct{ what, id string }
		cases := []refused{
			{"of another workspace", foreign.SessionID},
			{"of a workspace whose id begins with this one's (" + shadow.WorkspaceID + ")", shadow.SessionID},
			{"of a workspace whose id is this one's in other case (" + cased.WorkspaceID + ")", cased.SessionID},
			{"of another app (" + neighbours.AppID + ") in this workspace", neighbours.SessionID},
			{"the App Server does not know", harness.Nonce("unknown-session")},
		}
		// Who answers: the session must be confirmed as this workspace's
		// ("must be confirmed by the server and must belong to the current
		// workspace"); an answer that states no workspace confirms nothing.
		for _, u := range []struct {
			what      string
			workspace any
			stated    bool
		}{
			{"whose workspace agentSession/read leaves out", nil, false},
			{"whose workspace agentSession/read states as null", nil, true},
			{"whose workspace agentSession/read states as \"\"", "", true},
		} {
			id := harness.Nonce("unstated-session")
			answer := map[string]any{"sessionId": id, "appId": s.AppID}
			if u.stated {
				answer["workspaceId"] = u.workspace
			}
			tc.AppServer().Script().SeedAnswer(id, answer)
			cases = append(cases, refused{u.what, id})
		}
		for _, c := range cases {
			t := resumeTask(s, "resume-"+c.id, c.id)
			if t.answered && t.answer.Type == hostbridge.TypeResponse {
				tc.Failf("resuming a session %s (%s) was answered host:response", c.what, c.id)
			}
			if n := turnsOn(c.id); n > 0 {
				tc.Failf("the host started %d turn(s) on a session %s", n, c.what)
			}
			if !t.answered || t.answer.Type != hostbridge.TypeError {
				tc.Failf("resuming a session %s got %s, not host:error", c.what, harness.AnswerText(t.answer, t.answered))
			}
		}
	})
}

// describeAgentDecisions declares the specs of runtime approvals and structured output.
func describeAgentDecisions(tc *harness.TestContext) {
	DescribeTable("carries a runtime approval to the app and its decision back, the tenant policy's deny winning",
		func(policyDenies bool, decision, wantBehavior, wantSubtype, claim string) {
			p := tc.WithAppServer(tc.DefaultConfigure())
			if policyDenies {
				p.Policy = &protocol.Policy{DeniedTools: []string{appserver.RuntimeApproval().ToolName}}
			}
			s := tc.ProbeSurface(p)
			tc.AppServer().SetScript(appserver.ApprovalTurn())
			t := expectStarted(s, "task-1")
			requestID := appserver.RuntimeApproval().RequestID
			r := s.Run(harness.AwaitCount(hostbridge.TypeEvent, 2))
			asked := false
			for _, e := range taskEvents(r) {
				if e.TaskID == t.TaskID && e.Type == "approval:requested" && harness.ContainsText(e.Payload, `"`+requestID+`"`) {
					asked = true
				}
			}
			// A tool the tenant policy denies may be denied at the policy
			// gate, which spec 000's permission order puts before runtime
			// approval: the app is then not asked, and the host itself
			// answers the App Server deny.
			if !asked && !policyDenies {
				tc.Failf("the App Server asked for approval %s; the app never received it (events: %v)", requestID, taskEvents(r))
			}
			if asked {
				// Who answers: a decision naming another request or
				// another task answers nothing.
				for i, w := range []struct{ what, task, request string }{
					{"a request the App Server never made", t.TaskID, requestID + "-other"},
					{"a task the app never started", t.TaskID + "-other", requestID},
				} {
					id := fmt.Sprintf("decide-wrong-%d", i)
					wr := s.Run(harness.Invoke(id, "lime.agent", "respondApproval", map[string]any{"taskId": w.task, "requestId": w.request, "behavior": decision}), harness.AwaitAnswer(id))
					if sent := harness.FromHost(tc.AppServer().Messages(), appserver.MethodActionRespond); len(sent) > 0 {
						tc.Failf("the app decided %s on %s (task %s, request %s), and the host answered the App Server's approval %s with agentSession/action/respond %s",
							decision, w.what, w.task, w.request, requestID, sent[0].Params)
					}
					if m, answered := wr.Answer(id); answered && m.Type == hostbridge.TypeResponse {
						tc.Failf("respondApproval on %s (task %s, request %s) was answered host:response %s, not refused", w.what, w.task, w.request, m.Payload)
					}
				}
				args := map[string]any{"taskId": t.TaskID, "requestId": requestID, "behavior": decision}
				if claim != "" {
					// Who answers for the tool: the App Server's request names
					// it, not the app's decision (a host may refuse a member
					// it does not know: the decision is then sent without it).
					args["toolName"] = claim
				}
				r = s.Run(harness.Invoke("decide-1", "lime.agent", "respondApproval", args), harness.AwaitAnswer("decide-1"), harness.Sleep(respondSettle))
				if m, ok := r.Answer("decide-1"); claim != "" && ok && m.Type == hostbridge.TypeError {
					delete(args, "toolName")
					r = s.Run(harness.Invoke("decide-2", "lime.agent", "respondApproval", args), harness.AwaitAnswer("decide-2"), harness.Sleep(respondSettle))
				}
			} else {
				tc.Reading("Agent task mapping", "the host applies the tenant policy's deny before a runtime approval reaches the app")
			}
			responds := harness.FromHost(tc.AppServer().Messages(), appserver.MethodActionRespond)
			switch {
			case len(responds) == 0 && asked:
				tc.Failf("the app decided %s on approval %s (answered %s) but the host sent the App Server no agentSession/action/respond",
					decision, requestID, harness.AnswerText(r.Answer("decide-1")))
			case len(responds) == 0:
				tc.Failf("the App Server asked for approval %s of a tool the tenant policy denies; the host neither asked the app nor answered the App Server with agentSession/action/respond (events: %v)",
					requestID, taskEvents(r))
			}
			var rp struct {
				Decision struct {
					Behavior string `json:"behavior"`
				} `json:"decision"`
				Behavior string `json:"behavior"`
			}
			_ = json.Unmarshal(responds[0].Params, &rp)
			if got := harness.FirstNonEmpty(rp.Decision.Behavior, rp.Behavior); got != wantBehavior {
				why := "the app's decision"
				if policyDenies {
					why = "deny: the tenant policy denies the tool, and deny wins over the app's allow"
				}
				tc.Failf("agentSession/action/respond says %q; it should say %s (%s)", got, wantBehavior, why)
			}
			var end hostbridge.TaskEvent
			for _, e := range taskEvents(r) {
				if e.TaskID == t.TaskID && e.Type == "result" {
					end = e
				}
			}
			if end.Subtype != wantSubtype {
				tc.Failf("the task ended with result %q, not the %q the App Server sent", end.Subtype, wantSubtype)
			}
		},
		Entry("the app allows", tc.Req("AGENT-APPROVAL", levels.EveryMember, levels.WhoAnswers), false, "allow", "allow", "success", ""),
		Entry("the app denies", tc.Req("AGENT-APPROVAL", levels.EveryMember, levels.WhoAnswers), false, "deny", "deny", "error_permission_denied", ""),
		// 000 RuntimeApprovalDecision: behavior "allow" | "deny" | "defer".
		// The harness's App Server runs the tool on allow alone.
		Entry("the app defers", tc.Req("AGENT-APPROVAL", levels.EveryMember, levels.WhoAnswers), false, "defer", "defer", "error_permission_denied", ""),
		Entry("the app allows a tool the tenant policy denies", tc.Req("AGENT-APPROVAL", levels.EveryMember), true, "allow", "deny", "error_permission_denied", ""),
		Entry("the app allows a tool the tenant policy denies, its decision naming another tool", tc.Req("AGENT-APPROVAL", levels.WhoAnswers), true, "allow", "deny", "error_permission_denied", "web.search"),
	)

	It("retries output that fails the app's schema at most maxValidationRetries times and never takes a summary for success", tc.Req("AGENT-STRUCTURED-OUTPUT", levels.RepresentationLimit), func() {
		schema := map[string]any{"type": "object", "required": []string{"title"}, "properties": map[string]any{"title": map[string]any{"type": "string"}}}
		expectedWith := func(retries int) map[string]any {
			return map[string]any{"outputFormat": map[string]any{"type": "json_schema", "schema": schema, "maxValidationRetries": retries}}
		}
		start := func(s *harness.Surface, id string, expected map[string]any) *agentTask {
			t := &agentTask{requestID: id}
			r := s.Run(harness.Invoke(id, "lime.agent", "startTask", map[string]any{"input": map[string]any{"text": "patch"}, "expectedOutput": expected}),
				harness.AwaitAnswerWithin(id, agentAnswerTimeout))
			t.answer, t.answered = r.Answer(id)
			var p struct {
				TaskID string `json:"taskId"`
			}
			_ = json.Unmarshal(t.answer.Payload, &p)
			t.TaskID = p.TaskID
			return t
		}
		resultOf := func(s *harness.Surface, t *agentTask) hostbridge.TaskEvent {
			var end hostbridge.TaskEvent
			for i := 0; i < 10 && end.Type == ""; i++ {
				for _, e := range taskEvents(s.Run(harness.Sleep(resultPoll))) {
					if e.TaskID == t.TaskID && e.Type == "result" {
						end = e
					}
				}
			}
			return end
		}
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		tc.Precondition("a task whose output meets the schema succeeds", func() {
			tc.AppServer().SetScript(appserver.StructuredTurn(map[string]any{"title": "ok"}))
			t := start(s, "valid-1", expectedWith(2))
			if !t.answered || t.answer.Type != hostbridge.TypeResponse {
				tc.Failf("startTask with expectedOutput got %s", harness.AnswerText(t.answer, t.answered))
			}
			if end := resultOf(s, t); end.Subtype != "success" {
				tc.Failf("the task whose output meets the schema ended with result %q, not success", end.Subtype)
			}
		})
		// A limit the host's own default might stand in for, and the
		// boundary: 0 retries means none, not "unstated".
		for _, retries := range []int{2, 0} {
			before := len(harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart))
			tc.AppServer().SetScript(appserver.StructuredTurn("Here is your patch: I updated the title."))
			t := start(s, fmt.Sprintf("summary-%d", retries), expectedWith(retries))
			if !t.answered || t.answer.Type != hostbridge.TypeResponse {
				tc.Blockedf("startTask with expectedOutput (maxValidationRetries %d) got %s", retries, harness.AnswerText(t.answer, t.answered))
			}
			end := resultOf(s, t)
			for _, e := range taskEvents(s.Run(harness.Collect())) {
				if e.TaskID == t.TaskID && e.Type == "result" && e.Subtype == "success" {
					tc.Failf("a natural-language summary reached the app as result success")
				}
			}
			if turns := len(harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart)) - before; turns > 1+retries {
				tc.Failf("the host started %d turns for output that keeps failing its schema with maxValidationRetries %d: the first and at most %d retries", turns, retries, retries)
			}
			if end.Subtype != "error_max_structured_output_retries" {
				tc.Failf("the task whose output never meets the schema (maxValidationRetries %d) ended with result %q, not error_max_structured_output_retries", retries, end.Subtype)
			}
		}
	})
}

// describeAgentReads declares the specs of the App Server's projection reads and the credentials kept out of them.
func describeAgentReads(tc *harness.TestContext) {
	DescribeTable("answers the app's capability, artifact and evidence reads with what the App Server's projection method returns, bound to the app and workspace whatever app or workspace its args name, and fails closed without it",
		func(capability, method, asMethod string) {
			marker, artifactID := harness.Nonce("projected"), harness.Nonce("artifact")
			sc := appserver.NewScript()
			sc.SetProjections(appserver.Projections{
				Capabilities: []any{map[string]any{"capabilityId": marker}},
				Artifacts:    map[string]any{artifactID: map[string]any{"artifactId": artifactID, "content": marker}},
				Evidence:     map[string]any{"exportRef": marker},
			})
			tc.AppServer().SetScript(sc)
			cfg := tc.WithAppServer(tc.DefaultConfigure())
			s := tc.ProbeSurface(cfg)
			var args map[string]any
			if asMethod == appserver.MethodArtifactRead {
				args = map[string]any{"artifactId": artifactID}
			}
			read := func(id string, args map[string]any) (hostbridge.Message, bool) {
				GinkgoHelper()
				r := s.Run(harness.Invoke(id, capability, method, args), harness.AwaitAnswerWithin(id, agentAnswerTimeout))
				return r.Answer(id)
			}
			call := capability + " " + method
			// expectBound judges each asMethod request the host sent since
			// the first before of them: bound to this app and workspace.
			expectBound := func(before int, what string) {
				GinkgoHelper()
				for _, sent := range harness.FromHost(tc.AppServer().Messages(), asMethod)[before:] {
					var bound struct {
						AppID       string `json:"appId"`
						WorkspaceID string `json:"workspaceId"`
					}
					_ = json.Unmarshal(sent.Params, &bound)
					if bound.AppID != s.AppID || bound.WorkspaceID != cfg.WorkspaceID {
						tc.Failf("%s%s reached the App Server as %s %s, not bound to app %s and workspace %s", call, what, asMethod, sent.Params, s.AppID, cfg.WorkspaceID)
					}
				}
			}
			before := len(harness.FromHost(tc.AppServer().Messages(), asMethod))
			m, answered := read(harness.Nonce("read"), args)
			if !answered || m.Type != hostbridge.TypeResponse {
				tc.Failf("%s with the App Server serving got %s, not host:response", call, harness.AnswerText(m, answered))
			}
			if len(harness.FromHost(tc.AppServer().Messages(), asMethod)) == before {
				tc.Failf("%s was answered (%s) without asking the App Server's %s", call, m.Payload, asMethod)
			}
			if !harness.ContainsText(m.Payload, marker) {
				tc.Failf("%s was answered %s, not with what %s returned (it holds %s)", call, m.Payload, asMethod, marker)
			}
			expectBound(before, "")
			// The records are the calling app's whatever app or workspace
			// its args name (the App Server the harness plays: "evidence/export
			// {..., appId, workspaceId}", the app and workspace of the call):
			// another app's, one whose id extends this app's, this app's in
			// other case. Either answer is fine; what the host asked is judged.
			for _, named := range []struct{ what, appID, workspaceID string }{
				{"another app and workspace", harness.Nonce("other-app"), "workspace-of-someone-else"},
				{"an app and workspace whose ids extend this one's", s.AppID + "-b", cfg.WorkspaceID + "-shadow"},
				{"this app and workspace in other case", strings.ToUpper(s.AppID), strings.ToUpper(cfg.WorkspaceID)},
			} {
				confused := map[string]any{"appId": named.appID, "workspaceId": named.workspaceID}
				maps.Copy(confused, args)
				before := len(harness.FromHost(tc.AppServer().Messages(), asMethod))
				read(harness.Nonce("named"), confused)
				expectBound(before, fmt.Sprintf(" whose args name %s (%s, %s)", named.what, named.appID, named.workspaceID))
			}
			tc.AppServer().SetMode(appserver.Refuse)
			tc.AppServer().DropConnections()
			m, answered = read(harness.Nonce("down"), args)
			if answered && m.Type == hostbridge.TypeResponse {
				tc.Failf("with the App Server refusing connections, %s was answered host:response %s", call, m.Payload)
			}
			if !answered {
				tc.Errorf("%s got no answer within %s with the App Server refusing connections", call, agentAnswerTimeout)
			}
			if m.Type != hostbridge.TypeError || hostbridge.ErrorOf(m).Code == "" {
				tc.Failf("with the App Server refusing connections, %s got %s, not host:error with a stable code", call, harness.AnswerText(m, answered))
			}
		},
		Entry("lime.agent listCapabilities from capability/list", tc.Req("AGENT-PROJECTIONS", levels.EveryMember, levels.EveryEntryPoint, levels.ConfusableIdentity), "lime.agent", "listCapabilities", appserver.MethodCapabilities),
		Entry("lime.artifacts read from artifact/read", tc.Req("AGENT-PROJECTIONS", levels.EveryMember, levels.EveryEntryPoint, levels.ConfusableIdentity), "lime.artifacts", "read", appserver.MethodArtifactRead),
		Entry("lime.evidence export from evidence/export", tc.Req("AGENT-PROJECTIONS", levels.EveryMember, levels.EveryEntryPoint, levels.ConfusableIdentity), "lime.evidence", "export", appserver.MethodEvidence),
	)

	DescribeTable("keeps the credentials it holds out of what the app gets from the agent runtime, even when the App Server quotes them",
		func(where, quoted string) {
			quoting := credentialQuotes(tc.Config.Canaries, quoted)
			cleanID, taintedID, marker := harness.Nonce("artifact"), harness.Nonce("artifact"), harness.Nonce("projected")
			// A provider key the host is given only by a later
			// host/configure (a change between two reads: a host that
			// learns what to redact once lets the new key through).
			fresh := "canary-" + harness.Nonce("key")
			// projections is what the projection methods answer: before
			// the control read nothing quotes a credential; after it, the
			// read of where does.
			projections := func(tainted bool) appserver.Projections {
				p := appserver.Projections{
					Capabilities: []any{map[string]any{"capabilityId": marker}},
					Artifacts:    map[string]any{cleanID: map[string]any{"artifactId": cleanID, "content": marker}},
					Evidence:     map[string]any{"exportRef": marker},
				}
				if !tainted {
					return p
				}
				switch where {
				case "artifact":
					p.Artifacts[taintedID] = map[string]any{"artifactId": taintedID, "content": marker, "source": quoting}
				case "evidence":
					p.Evidence = map[string]any{"exportRef": marker, "source": quoting}
				case "capabilities":
					p.Capabilities = append(p.Capabilities, map[string]any{"capabilityId": marker + "-quoting", "source": quoting})
				case "error-after-configure":
					p.Artifacts[taintedID] = &jsonrpc2.Error{Code: -32000, Message: "upstream refused the provider key " + fresh}
				case "error":
					e := &jsonrpc2.Error{Code: -32000, Message: "upstream refused the request"}
					if quoted == "values" {
						canaries := tc.Config.Canaries
						// Each credential twice: a host that redacts the first
						// copy of a value passes the second on.
						e.Message = "upstream refused the credential " + canaries.SessionToken + " (provider key " + canaries.ProviderKey +
							"); retried with " + canaries.SessionToken + " and key " + canaries.ProviderKey + ", refused again"
					} else {
						e.SetError(quoting)
					}
					p.Artifacts[taintedID] = e
				}
				return p
			}
			sc := appserver.NewScript()
			sc.SetProjections(projections(false))
			if where == "facts" {
				fact := appserver.Event{Type: "tool:call", Payload: map[string]any{"toolName": "http.fetch", "input": quoting}}
				sc.Turn = append(sc.Turn[:1:1], append([]appserver.Event{fact}, sc.Turn[1:]...)...)
			}
			tc.AppServer().SetScript(sc)
			s := tc.ProbeSurface(tc.WithAppServer(tc.WithSecret()))
			var r *harness.ProbeResult
			if where == "facts" {
				expectStarted(s, "task-1")
				r = s.Run(harness.AwaitCount(hostbridge.TypeEvent, len(sc.Turn)))
				ended := slices.ContainsFunc(taskEvents(r), func(e hostbridge.TaskEvent) bool { return e.Type == "result" })
				tc.Precondition("the turn that quotes the credentials reaches the app, to its result", func() {
					if !ended {
						tc.Failf("the app received no result event of the task; the App Server sent %d facts", len(sc.Turn))
					}
				})
			} else {
				capability, method, asMethod := "lime.artifacts", "read", appserver.MethodArtifactRead
				switch where {
				case "evidence":
					capability, method, asMethod = "lime.evidence", "export", appserver.MethodEvidence
				case "capabilities":
					capability, method, asMethod = "lime.agent", "listCapabilities", appserver.MethodCapabilities
				}
				read := func(id string) (hostbridge.Message, bool) {
					GinkgoHelper()
					var args map[string]any
					if asMethod == appserver.MethodArtifactRead {
						args = map[string]any{"artifactId": id}
					}
					r = s.Run(harness.Invoke(id, capability, method, args), harness.AwaitAnswerWithin(id, agentAnswerTimeout))
					return r.Answer(id)
				}
				tc.Precondition("a "+asMethod+" answer that quotes nothing reaches the app through "+capability+" "+method, func() {
					if m, answered := read(cleanID); !answered || m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, marker) {
						tc.Failf("%s %s got %s, not host:response with what %s returned", capability, method, harness.AnswerText(m, answered), asMethod)
					}
				})
				sc.SetProjections(projections(true))
				if where == "error-after-configure" {
					p := tc.WithAppServer(tc.WithSecret())
					p.Secrets["provider_api_key"] = fresh
					tc.Configure(p)
				}
				// Either answer is fine (host:response without the
				// credentials, or host:error); what it carries is judged.
				read(taintedID)
			}
			tc.ExpectNoCanary("what the app's frame received from the agent runtime (task events, projection answers and errors)", r.Raw)
			if harness.ContainsText(r.Raw, fresh) {
				tc.Failf("the provider key host/configure gave the host after the first, %s, reached the app's frame in what the App Server said: %s", fresh, harness.Excerpt(r.Raw))
			}
		},
		Entry("in a task's facts (a tool call's headers)", tc.Req("AGENT-NO-LEAK", levels.EveryMember), "facts", "values"),
		Entry("in an artifact artifact/read returns", tc.Req("AGENT-NO-LEAK", levels.EveryMember), "artifact", "values"),
		Entry("in the evidence pack evidence/export returns", tc.Req("AGENT-NO-LEAK", levels.EveryMember), "evidence", "values"),
		Entry("in the error message artifact/read answers, each credential quoted twice", tc.Req("AGENT-NO-LEAK", levels.EveryMember), "error", "values"),
		Entry("in the error message artifact/read answers, quoting a provider key a later host/configure gave the host", tc.Req("AGENT-NO-LEAK", levels.ChangeBetweenReads), "error-after-configure", "values"),
		Entry("in a task's facts, quoted as member names (a tool call's headers keyed by the credential)", tc.Req("AGENT-NO-LEAK", levels.RepresentationLimit), "facts", "names"),
		Entry("in an artifact artifact/read returns, quoted as member names of nested objects and of objects in lists", tc.Req("AGENT-NO-LEAK", levels.RepresentationLimit), "artifact", "names"),
		Entry("in the evidence pack evidence/export returns, quoted as member names", tc.Req("AGENT-NO-LEAK", levels.RepresentationLimit), "evidence", "names"),
		Entry("in the capability list capability/list returns, quoted as member names", tc.Req("AGENT-NO-LEAK", levels.RepresentationLimit), "capabilities", "names"),
		Entry("in the data of the error artifact/read answers, quoted as member names", tc.Req("AGENT-NO-LEAK", levels.RepresentationLimit), "error", "names"),
	)
}

// credentialQuotes is how the App Server quotes the credentials the host
// holds, in every place a credential may travel in what it says: in an
// object's members and in a list, nested. quoted "values" puts them in
// string values; "names" in member names (a representation boundary: a
// headers object keyed by "Bearer <token>"), which the app gets just as
// well.
func credentialQuotes(canaries harness.Canaries, quoted string) map[string]any {
	if quoted == "names" {
		return map[string]any{
			"request": map[string]any{"headers": map[string]any{"Bearer " + canaries.SessionToken: "authorization"},
				"cookies": []any{map[string]any{"sid=" + canaries.SessionToken: true}}},
			canaries.ProviderKey: "apiKey",
			"keys":               []any{map[string]any{canaries.ProviderKey: map[string]any{"provider": "generic-llm"}}},
		}
	}
	return map[string]any{
		"request": map[string]any{"headers": map[string]any{"authorization": "Bearer " + canaries.SessionToken},
			"cookies": []any{"sid=" + canaries.SessionToken}},
		"apiKey": canaries.ProviderKey,
		"keys":   []any{map[string]any{"provider": canaries.ProviderKey}},
	}
}

// describeAgentFailClosed declares the specs of a task when the App Server is down, refusing or dropping.
func describeAgentFailClosed(tc *harness.TestContext) {
	DescribeTable("fails closed, never mocking success, when the App Server",
		func(mode appserver.Mode, configured bool, silentOn, errorOn string) {
			s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
			expectStarted(s, "control-1")
			s.Run(harness.AwaitCount(hostbridge.TypeEvent, len(appserver.NewScript().Turn)))
			switch {
			case silentOn != "" || errorOn != "":
				// Every step of the exchange a task needs, the peer silent
				// at one (the host's own timeout must end the task closed)
				// or answering it with a JSON-RPC error.
				sc := appserver.NewScript()
				sc.SilentOn, sc.ErrorOn = silentOn, errorOn
				tc.AppServer().SetScript(sc)
			case configured:
				tc.AppServer().SetMode(mode)
				tc.AppServer().DropConnections()
			default:
				tc.Configure(tc.DefaultConfigure()) // the host now has no App Server
			}
			before := len(taskEvents(s.Run(harness.Collect())))
			t := startTask(s, "down-1")
			r := s.Run(harness.Sleep(downQuiet))
			what := "the App Server " + mode.String()
			switch {
			case silentOn != "":
				what = "the App Server silent at " + silentOn
			case errorOn != "":
				what = "the App Server answering " + errorOn + " with a JSON-RPC error"
			case !configured:
				what = "no App Server configured"
			}
			if t.answered && t.answer.Type == hostbridge.TypeResponse {
				tc.Failf("startTask was answered host:response with %s: %s", what, t.answer.Payload)
			}
			got := taskEvents(r)
			if len(got) < before {
				tc.Errorf("the probe reports fewer task events (%d) than it had seen before (%d)", len(got), before)
			}
			if got = got[before:]; len(fabricated(got, nil)) > 0 {
				tc.Failf("with %s, the app received %v, facts no App Server sent", what, fabricated(got, nil))
			}
			if !t.answered {
				tc.Errorf("startTask got no answer within %s with %s: not a mock success, but not the host:error the app needs either", agentAnswerTimeout, what)
			}
			if t.answer.Type != hostbridge.TypeError || hostbridge.ErrorOf(t.answer).Code == "" {
				tc.Failf("startTask got %s, not host:error with a stable code", harness.AnswerText(t.answer, t.answered))
			}
		},
		Entry("refuses connections", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Refuse, true, "", ""),
		Entry("hangs", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Hang, true, "", ""),
		Entry("answers garbage", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Garbage, true, "", ""),
		Entry("is no longer configured", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Serve, false, "", ""),
		Entry("is silent at agentSession/start", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Serve, true, appserver.MethodSessionStart, ""),
		Entry("is silent at agentSession/turn/start", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Serve, true, appserver.MethodTurnStart, ""),
		Entry("answers agentSession/start with a JSON-RPC error", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Serve, true, "", appserver.MethodSessionStart),
		Entry("answers agentSession/turn/start with a JSON-RPC error", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), appserver.Serve, true, "", appserver.MethodTurnStart),
	)

	// Who answers: an App Server that answers a projection read with
	// nothing gave the host nothing to project; an empty success would be
	// the host's own mock (spec 001, UI runtime: "mock results must not
	// masquerade as success").
	It("answers the app host:error, never an empty success, when artifact/read answers null", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember, levels.WhoAnswers), func() {
		found, empty, marker := harness.Nonce("artifact"), harness.Nonce("artifact"), harness.Nonce("projected")
		sc := appserver.NewScript()
		sc.SetProjections(appserver.Projections{Artifacts: map[string]any{
			found: map[string]any{"artifactId": found, "content": marker},
			empty: nil,
		}})
		tc.AppServer().SetScript(sc)
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		tc.Precondition("an artifact artifact/read returns is read", func() {
			if m, answered := readArtifact(s, found); !answered || m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, marker) {
				tc.Failf("lime.artifacts read of %s got %s, not host:response with what artifact/read returned", found, harness.AnswerText(m, answered))
			}
		})
		m, answered := readArtifact(s, empty)
		if !answered {
			tc.Errorf("lime.artifacts read of %s got no answer within %s", empty, agentAnswerTimeout)
		}
		if m.Type != hostbridge.TypeError {
			tc.Failf("artifact/read answered null for %s, and lime.artifacts read got %s, not host:error", empty, harness.AnswerText(m, answered))
		}
	})

	It("ends a task whose App Server drops mid-turn without a fact it never sent", tc.Req("AGENT-FAIL-CLOSED", levels.EveryMember), func() {
		s := tc.ProbeSurface(tc.WithAppServer(tc.DefaultConfigure()))
		control := expectStarted(s, "control-1")
		s.Run(harness.AwaitCount(hostbridge.TypeEvent, len(appserver.NewScript().Turn)))
		tc.AppServer().SetMode(appserver.DropMidTurn)
		t := startTask(s, "drop-1")
		r := s.Run(harness.Sleep(dropQuiet))
		if !t.answered || t.answer.Type != hostbridge.TypeResponse {
			// Refusing at once is failing closed too.
			return
		}
		var got []hostbridge.TaskEvent
		for _, e := range taskEvents(r) {
			if e.TaskID == t.TaskID && e.TaskID != control.TaskID {
				got = append(got, e)
			}
		}
		turns := harness.FromHost(tc.AppServer().Messages(), appserver.MethodTurnStart)
		var sent []string
		if len(turns) > 1 {
			sent = sentTypes(tc.AppServer().Messages(), turnIDOf(tc.AppServer().Messages(), turns[len(turns)-1]))
		}
		if extra := fabricated(got, sent); len(extra) > 0 {
			tc.Failf("the App Server sent %v and dropped the connection; the app received %v beyond that", sent, extra)
		}
	})
}

// expectTaskMapped judges what the app's startTask became on the App
// Server (spec 001, the App Server mapping): agentSession/start binding the
// app and the workspace, then agentSession/turn/start on the session it
// answered, carrying the app's input and idempotency key.
func expectTaskMapped(tc *harness.TestContext, appID, input, key string) {
	GinkgoHelper()
	msgs := tc.AppServer().Messages()
	starts := harness.FromHost(msgs, appserver.MethodSessionStart)
	if len(starts) == 0 {
		tc.Failf("the host started the task (host:response) without agentSession/start on the App Server")
	}
	var sp struct {
		AppID       string `json:"appId"`
		WorkspaceID string `json:"workspaceId"`
	}
	_ = json.Unmarshal(starts[0].Params, &sp)
	if sp.AppID != appID || sp.WorkspaceID != harness.WorkspaceID {
		tc.Failf("agentSession/start binds appId %q and workspaceId %q; the app is %s in workspace %s: %s",
			sp.AppID, sp.WorkspaceID, appID, harness.WorkspaceID, starts[0].Params)
	}
	ans, ok := answerTo(msgs, starts[0].Conn, starts[0].ID)
	var session struct {
		SessionID string `json:"sessionId"`
	}
	if ok {
		_ = json.Unmarshal(ans.Result, &session)
	}
	turns := harness.FromHost(msgs, appserver.MethodTurnStart)
	if len(turns) == 0 {
		tc.Failf("the host started the task without agentSession/turn/start")
	}
	var tp struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(turns[0].Params, &tp)
	var wrong []string
	if tp.SessionID != session.SessionID {
		wrong = append(wrong, fmt.Sprintf("sessionId %q, not the %q agentSession/start gave", tp.SessionID, session.SessionID))
	}
	if !harness.ContainsText(turns[0].Params, input) {
		wrong = append(wrong, "not the app's input")
	}
	if !harness.ContainsText(turns[0].Params, key) {
		wrong = append(wrong, "not the app's idempotency key")
	}
	if len(wrong) > 0 {
		tc.Failf("agentSession/turn/start carries %s: %s", strings.Join(wrong, "; "), turns[0].Params)
	}
}

// firstDifference says where got first departs from want: the position
// and the two values there.
func firstDifference(got, want []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("position %d: %s received where %s was sent", i+1, got[i], want[i])
		}
	}
	if len(got) < len(want) {
		return fmt.Sprintf("position %d: nothing received where %s was sent", len(got)+1, want[len(got)])
	}
	return fmt.Sprintf("position %d: %s received after the last fact sent", len(want)+1, got[len(want)])
}
