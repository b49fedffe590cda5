package mockhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// agentClient is the host's App Server client (spec 001 actors: "Owned by
// the host; performs JSON-RPC initialization, session / turn / action
// requests, event subscription, reconnect, and error projection"). It
// holds one connection, handshaken before any business method, and opens
// (and handshakes) a new one when the last is gone.
type agentClient struct {
	h *Host

	mu      sync.Mutex
	cfg     protocol.AppServerConfig
	timeout atomic.Int64 // one call's bound (callTimeout), set by configure
	conn    *jsonrpc2.Conn
	cmd     *exec.Cmd                 // the sidecar, for transport stdio
	tasks   map[string]*agentTaskLink // by turnId
	// early holds events of a turn whose turn/start answer has not come
	// yet (the App Server may stream before it answers), at most
	// maxEarlyEvents.
	early map[string][]appServerEvent
	seq   int
	// secrets are the credential values the host holds (host/configure),
	// kept out of every fact and answer projected to an app.
	secrets []string
}

// maxEarlyEvents bounds the events kept for turns not yet registered: as
// many as a page's event queue holds (maxQueuedEvents), since an App Server
// may stream a whole burst before its turn/start answer is read.
const maxEarlyEvents = maxQueuedEvents

// agentTaskLink ties a turn to the app surface that started it.
type agentTaskLink struct {
	l         *launch
	taskID    string
	sessionID string
	turnID    string
	delivered int  // events projected so far
	ended     bool // a result was projected
	// endedByApp: a faulty host took a result the app's frame posted as
	// the task's end (fault frame-result-ends-task).
	endedByApp bool
	// result is the turn's result fact, once it came (a workflow's
	// agent-task state waits for it); done is closed when the result came
	// or the connection went away.
	result         *appServerEvent
	done           chan struct{}
	brokenNotified bool
	// output is the structured output the app asked for (output.go).
	output *outputCheck
	// approvals are the runtime approvals the turn asked for and the app
	// has not answered: requestId -> tool name.
	approvals map[string]string
}

// finishLocked tells whoever waits for the turn that it ended (under the
// client's mu).
func (t *agentTaskLink) finishLocked() {
	if t.done != nil {
		select {
		case <-t.done:
		default:
			close(t.done)
		}
	}
}

func newAgentClient(h *Host) *agentClient {
	c := &agentClient{h: h, tasks: map[string]*agentTaskLink{}, early: map[string][]appServerEvent{}}
	c.timeout.Store(int64(agentCallTimeout))
	return c
}

// callTimeout bounds one App Server call (and a dial).
func (c *agentClient) callTimeout() time.Duration { return time.Duration(c.timeout.Load()) }

// configure takes the App Server the host was configured with and the
// credentials it holds; a change of App Server drops the connection.
func (c *agentClient) configure(cfg *protocol.AppServerConfig, secrets []string, timeout time.Duration) {
	c.timeout.Store(int64(timeout))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.secrets = secrets
	var next protocol.AppServerConfig
	if cfg != nil {
		next = *cfg
	}
	if fmt.Sprint(next) == fmt.Sprint(c.cfg) && c.conn != nil {
		return
	}
	// fault: appserver-change-keeps-old-connection — a host/configure naming another App Server on the same transport keeps the live connection, and the address, of the first (held-out m11).
	if next.Transport == c.cfg.Transport && c.conn != nil && c.h.faults.Has("appserver-change-keeps-old-connection") {
		return
	}
	c.dropLocked()
	c.cfg = next
}

// close drops the connection and the sidecar.
func (c *agentClient) close() {
	c.timeout.Store(int64(agentCallTimeout))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked()
	c.tasks = map[string]*agentTaskLink{}
	c.early = map[string][]appServerEvent{}
	c.secrets = nil
}

// heldSecrets are the credential values to keep out of what apps get.
func (c *agentClient) heldSecrets() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.secrets
}

// disconnected says whether conn has gone away.
func disconnected(conn *jsonrpc2.Conn) bool {
	select {
	case <-conn.DisconnectNotify():
		return true
	default:
		return false
	}
}

// forget drops conn if it is still the client's connection, so the next
// call dials (or spawns) and handshakes a new one.
func (c *agentClient) forget(conn *jsonrpc2.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == conn {
		c.dropLocked()
	}
}

func (c *agentClient) dropLocked() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
		c.cmd = nil
	}
}

// connection returns a handshaken connection, dialling (or spawning) and
// handshaking a new one when there is none (spec 002: "initialize ->
// initialized is a required gate for every App Server transport").
func (c *agentClient) connection(ctx context.Context) (*jsonrpc2.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		select {
		case <-c.conn.DisconnectNotify():
			c.dropLocked()
		default:
			return c.conn, nil
		}
	}
	var rwc io.ReadWriteCloser
	switch c.cfg.Transport {
	case protocol.AppServerSocket:
		d := net.Dialer{Timeout: c.callTimeout()}
		nc, err := d.DialContext(ctx, "tcp", c.cfg.Address)
		if err != nil {
			return nil, fmt.Errorf("dialing the App Server at %s: %w", c.cfg.Address, err)
		}
		rwc = nc
	case protocol.AppServerStdio:
		cmd := exec.Command(c.cfg.Command[0], c.cfg.Command[1:]...)
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("starting the App Server sidecar: %w", err)
		}
		c.cmd = cmd
		rwc = pipeConn{ReadCloser: out, WriteCloser: in}
	default:
		return nil, errors.New("this host has no App Server configured")
	}
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(rwc),
		jsonrpc2.HandlerWithError(c.handle), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	info := map[string]any{"name": Name, "version": Version}
	// fault: appserver-no-clientinfo — initialize carries no clientInfo.
	if c.h.faults.Has("appserver-no-clientinfo") {
		info = nil
	}
	var init json.RawMessage
	if err := call(ctx, c.callTimeout(), conn, "initialize", map[string]any{"clientInfo": info, "protocolVersion": "appserver.v0"}, &init); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	// fault: appserver-skips-initialized — the client never sends initialized and goes straight to business methods.
	if !c.h.faults.Has("appserver-skips-initialized") {
		if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("initialized: %w", err)
		}
	}
	c.conn = conn
	go c.watch(conn)
	return conn, nil
}

// watch ends the tasks of a connection that went away mid-turn: their
// apps get an error result, never a fabricated success (spec 001
// forbidden paths: "Product paths falling back to mock success").
func (c *agentClient) watch(conn *jsonrpc2.Conn) {
	<-conn.DisconnectNotify()
	c.mu.Lock()
	var broken []*agentTaskLink
	for id, t := range c.tasks {
		if !t.ended && !t.brokenNotified {
			t.brokenNotified = true
			t.finishLocked()
			broken = append(broken, t)
		}
		delete(c.tasks, id)
	}
	c.mu.Unlock()
	for _, t := range broken {
		// fault: agent-drop-ends-in-success — a turn whose App Server went away mid-turn is reported to the app as a success.
		if c.h.faults.Has("agent-drop-ends-in-success") {
			c.h.pushTaskEvent(t, hostbridge.TaskEvent{Type: "result", Subtype: "success"})
			continue
		}
		c.h.pushTaskEvent(t, hostbridge.TaskEvent{Type: "result", Subtype: "error_during_execution", TraceID: "",
			Payload: json.RawMessage(`{"message":"The agent runtime stopped before the task finished."}`)})
	}
}

// call makes one call bounded by timeout.
func call(ctx context.Context, timeout time.Duration, conn *jsonrpc2.Conn, method string, params, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return conn.Call(ctx, method, params, out)
}

// pipeConn joins a sidecar's stdout and stdin.
type pipeConn struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipeConn) Close() error { return errors.Join(p.WriteCloser.Close(), p.ReadCloser.Close()) }

// appServerEvent is agentSession/event's params as the harness's App
// Server sends them.
type appServerEvent struct {
	SessionID string          `json:"sessionId"`
	TurnID    string          `json:"turnId"`
	EventID   string          `json:"eventId"`
	Sequence  int             `json:"sequence"`
	TraceID   string          `json:"traceId"`
	At        string          `json:"at"`
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype"`
	Payload   json.RawMessage `json:"payload"`
}

// handle takes the App Server's notifications: agentSession/event facts
// are projected to the app that started the turn.
func (c *agentClient) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	if req.Method != "agentSession/event" || req.Params == nil {
		return nil, nil
	}
	var ev appServerEvent
	if json.Unmarshal(*req.Params, &ev) != nil {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tasks[ev.TurnID]
	if !ok {
		n := 0
		for _, evs := range c.early {
			n += len(evs)
		}
		if n < maxEarlyEvents {
			c.early[ev.TurnID] = append(c.early[ev.TurnID], ev)
		}
		return nil, nil
	}
	c.projectLocked(t, ev)
	return nil, nil
}

// projectLocked projects one App Server fact of t's turn. Called under
// c.mu, so a turn's facts reach the app in the order they came.
func (c *agentClient) projectLocked(t *agentTaskLink, ev appServerEvent) {
	if t.endedByApp {
		return
	}
	// fault: agent-events-unredacted — a fact quoting a credential the host holds (a tool call's headers) reaches the app as it is.
	if !c.h.faults.Has("agent-events-unredacted") {
		ev.Payload = redactJSON(ev.Payload, c.secrets, c.h.redactionGaps())
	}
	if ev.Type == "result" && t.result == nil {
		t.ended = true
		t.result = &ev
		t.finishLocked()
	}
	if !c.checkOutput(t, &ev) {
		return
	}
	if ev.Type == "approval:requested" {
		var a struct {
			RequestID string `json:"requestId"`
			ToolName  string `json:"toolName"`
		}
		if json.Unmarshal(ev.Payload, &a) == nil && a.RequestID != "" {
			// variant: approval-policy-first — a tool the tenant policy denies is denied by the host at once; the approval never reaches the app.
			if c.h.variants.Has("approval-policy-first") && c.h.policyDeniesTool(a.ToolName) {
				go c.h.sendApprovalDecision(t.sessionID, t.turnID, a.RequestID, "deny")
				return
			}
			if t.approvals == nil {
				t.approvals = map[string]string{}
			}
			t.approvals[a.RequestID] = a.ToolName
		}
	}
	// fault: agent-events-raw — the App Server's event params reach the app as they are, not in the task event envelope.
	if c.h.faults.Has("agent-events-raw") {
		t.l.push(c.h.message(t.l, hostbridge.TypeEvent, "", ev))
		return
	}
	c.h.pushTaskEventLocked(t, hostbridge.TaskEvent{EventID: ev.EventID, Type: ev.Type, Subtype: c.h.resultSubtype(ev.Type, ev.Subtype),
		TraceID: ev.TraceID, TurnID: ev.TurnID, At: ev.At, Payload: ev.Payload})
}

// resultSubtype is the subtype of a projected fact: the App Server's own
// (000 Agent task event envelope: "a stable subtype", each for its cause).
func (h *Host) resultSubtype(typ, sub string) string {
	if typ != "result" {
		return sub
	}
	switch {
	// fault: agent-result-subtype-dropped — the result reaches the app without its subtype.
	case h.faults.Has("agent-result-subtype-dropped"):
		return ""
	// fault: agent-result-errors-collapsed — every error result reaches the app as error_during_execution, whatever its cause.
	case h.faults.Has("agent-result-errors-collapsed") && strings.HasPrefix(sub, "error_"):
		return "error_during_execution"
	// fault: agent-result-limits-as-success — a turn ended by its turn or budget limit reaches the app as success.
	case h.faults.Has("agent-result-limits-as-success") && (sub == "error_max_turns" || sub == "error_max_budget"):
		return "success"
	}
	return sub
}

// pushTaskEvent projects one fact to the app in the task event envelope
// (spec 000, Agent task event envelope), numbered per task.
func (h *Host) pushTaskEvent(t *agentTaskLink, e hostbridge.TaskEvent) {
	h.agent.mu.Lock()
	defer h.agent.mu.Unlock()
	h.pushTaskEventLocked(t, e)
}

// pushTaskEventLocked is pushTaskEvent under h.agent.mu.
func (h *Host) pushTaskEventLocked(t *agentTaskLink, e hostbridge.TaskEvent) {
	t.delivered++
	e.Sequence = t.delivered
	e.SchemaVersion = hostbridge.TaskEventSchema
	e.AppID, e.TaskID, e.SessionID = t.l.appID, t.taskID, t.sessionID
	if e.EventID == "" {
		e.EventID = fmt.Sprintf("%s-host-%d", t.taskID, e.Sequence)
	}
	if e.At == "" {
		e.At = time.Now().UTC().Format(time.RFC3339Nano)
	}
	t.l.push(h.message(t.l, hostbridge.TypeEvent, "", e))
}

// startTask answers lime.agent startTask: a session bound to the app and
// workspace, then a turn carrying the app's input and idempotency key
// (spec 001, the App Server mapping). Without a reachable App Server the
// task is refused with a stable code, never mocked (spec 002: "When App
// Server is unavailable, the host returns blocked / host:error").
func (h *Host) startTask(l *launch, args json.RawMessage) (any, *denial) {
	var a taskArgs
	_ = json.Unmarshal(args, &a)
	link, d, down := h.beginTurn(l, a)
	// fault: agent-mock-without-app-server — a host with no App Server configured answers startTask with a canned task and a canned reply.
	if cfg, _ := h.config(); down && cfg.AppServer == nil && h.faults.Has("agent-mock-without-app-server") {
		t := &agentTaskLink{l: l, taskID: "task-local", sessionID: "session-local"}
		go h.pushTaskEvent(t, hostbridge.TaskEvent{Type: "result", Subtype: "success"})
		return map[string]any{"taskId": t.taskID, "sessionId": t.sessionID}, nil
	}
	if down {
		// fault: agent-mock-success-when-down — with the App Server unreachable, the task "succeeds" with a mock turn and fabricated events.
		if h.faults.Has("agent-mock-success-when-down") {
			t := &agentTaskLink{l: l, taskID: "task-mock", sessionID: "session-mock"}
			go func() {
				h.pushTaskEvent(t, hostbridge.TaskEvent{Type: "assistant:delta", Payload: json.RawMessage(`{"text":"Done."}`)})
				h.pushTaskEvent(t, hostbridge.TaskEvent{Type: "result", Subtype: "success"})
			}()
			return map[string]any{"taskId": t.taskID, "sessionId": t.sessionID}, nil
		}
		return nil, d
	}
	if d != nil {
		return nil, d
	}
	h.exportSpan(l, "agent.task", map[string]string{"lime.task.id": link.taskID, "lime.session.id": link.sessionID}, taskContent(a.Input)...)
	return map[string]any{"taskId": link.taskID, "sessionId": link.sessionID}, nil
}

// taskArgs are lime.agent startTask's args.
type taskArgs struct {
	Input          json.RawMessage `json:"input"`
	IdempotencyKey string          `json:"idempotencyKey"`
	ExpectedOutput json.RawMessage `json:"expectedOutput"`
	// SessionID resumes a session the app cached (sessionPolicy resume).
	SessionID string `json:"sessionId"`
}

// askAgentAbout is what a host that warms its agent up while it reads a
// package does (the faults verify-, project- and readiness-asks-the-agent):
// an App Server session and turn asking for a summary of the package at
// dir. Errors are ignored.
func (h *Host) askAgentAbout(dir string) {
	ctx := context.Background()
	conn, err := h.agent.connection(ctx)
	if err != nil {
		return
	}
	cfg, _ := h.config()
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if call(ctx, h.agent.callTimeout(), conn, "agentSession/start", map[string]any{"appId": filepath.Base(dir), "workspaceId": cfg.WorkspaceID}, &s) != nil {
		return
	}
	_ = call(ctx, h.agent.callTimeout(), conn, "agentSession/turn/start", map[string]any{"sessionId": s.SessionID,
		"input": map[string]any{"text": "Summarise this app for its catalog card."}}, nil)
}

// beginTurn starts the App Server session and turn of a task of the app
// l runs: for lime.agent startTask and for a workflow's agent-task state.
// down reports that the App Server could not be reached or did not start
// the turn (d then says so to the app).
func (h *Host) beginTurn(l *launch, a taskArgs) (link *agentTaskLink, d *denial, down bool) {
	unavailable := func(err error) (*agentTaskLink, *denial, bool) {
		return nil, &denial{protocol.GateReadiness, hostbridge.CodeRuntimeUnavailable,
			"The agent runtime is not available, so the task was not started. Try again later."}, true
	}
	output, d := parseOutputCheck(a.ExpectedOutput)
	if d != nil {
		return nil, d, false
	}
	// fault: zero-retries-taken-as-default — maxValidationRetries 0 is read as unstated: a failing output gets the default two retries.
	if output != nil && output.retries == 0 && h.faults.Has("zero-retries-taken-as-default") {
		output.retries = 2
	}
	cfg, _ := h.config()
	ctx := context.Background()
	conn, err := h.agent.connection(ctx)
	if err != nil {
		return unavailable(err)
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if a.SessionID != "" {
		// A cached session id is confirmed by the App Server and must
		// belong to this workspace (spec 001, the App Server mapping:
		// agentSession/read).
		if d := h.confirmSession(ctx, conn, l, cfg.WorkspaceID, a.SessionID); d != nil {
			return nil, d, false
		}
		s.SessionID = a.SessionID
	} else {
		start := map[string]any{"appId": l.appID, "workspaceId": cfg.WorkspaceID, "entryKey": l.entryKey}
		// fault: agent-session-unbound — agentSession/start binds no workspace.
		if h.faults.Has("agent-session-unbound") {
			delete(start, "workspaceId")
		}
		err := call(ctx, h.agent.callTimeout(), conn, "agentSession/start", start, &s)
		if err != nil && disconnected(conn) {
			// The App Server went away before this host noticed (a
			// restart): reconnect, handshake again and start once more
			// (spec 001: the client owns "reconnect").
			h.agent.forget(conn)
			if conn, err = h.agent.connection(ctx); err == nil {
				err = call(ctx, h.agent.callTimeout(), conn, "agentSession/start", start, &s)
			}
		}
		// fault: agent-session-error-taken-as-local — an agentSession/start the App Server answers with a JSON-RPC error is taken for a local session, and the turn starts on it.
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && h.faults.Has("agent-session-error-taken-as-local") {
			s.SessionID, err = "session-local", nil
		}
		if err != nil || s.SessionID == "" {
			return unavailable(fmt.Errorf("agentSession/start: %v", err))
		}
	}
	turn := map[string]any{"sessionId": s.SessionID, "input": a.Input, "capabilityId": "lime.agent",
		"idempotencyKey": a.IdempotencyKey}
	if len(a.ExpectedOutput) > 0 {
		turn["expectedOutput"] = a.ExpectedOutput
	}
	// fault: agent-turn-drops-idempotency-key — agentSession/turn/start carries no idempotency key.
	if h.faults.Has("agent-turn-drops-idempotency-key") {
		delete(turn, "idempotencyKey")
	}
	if output != nil {
		output.turn = turn
	}
	h.agent.mu.Lock()
	h.agent.seq++
	link = &agentTaskLink{l: l, taskID: fmt.Sprintf("task-%d", h.agent.seq), sessionID: s.SessionID, output: output, done: make(chan struct{})}
	h.agent.mu.Unlock()
	var t struct {
		TurnID string `json:"turnId"`
	}
	err = call(ctx, h.agent.callTimeout(), conn, "agentSession/turn/start", turn, &t)
	// fault: agent-turn-timeout-taken-as-started — an agentSession/turn/start the App Server does not answer in time is taken as started: the task is answered with a made-up turn.
	if errors.Is(err, context.DeadlineExceeded) && h.faults.Has("agent-turn-timeout-taken-as-started") {
		t.TurnID, err = "pending-"+link.taskID, nil
	}
	// fault: agent-turn-error-taken-as-started — an agentSession/turn/start the App Server answers with a JSON-RPC error is taken as started: the task is answered with a made-up turn.
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) && h.faults.Has("agent-turn-error-taken-as-started") {
		t.TurnID, err = "pending-"+link.taskID, nil
	}
	if err == nil && t.TurnID != "" {
		h.agent.register(link, t.TurnID)
	}
	if err != nil || t.TurnID == "" {
		return unavailable(fmt.Errorf("agentSession/turn/start: %v", err))
	}
	return link, nil, false
}

// cancelTask answers lime.agent cancelTask {taskId}: the app's running
// turn is cancelled on the App Server (spec 001, the App Server mapping:
// agentSession/turn/cancel "Cancels the active turn; apps do not kill
// processes directly"); its end comes back as a fact.
func (h *Host) cancelTask(l *launch, args json.RawMessage) (any, *denial) {
	var a struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(args, &a)
	h.agent.mu.Lock()
	var link *agentTaskLink
	for _, t := range h.agent.tasks {
		if t.taskID == a.TaskID && t.l.appID == l.appID && !t.ended {
			link = t
		}
	}
	// fault: agent-cancel-any-task — a cancelTask naming no running task of the app cancels the app's running task.
	if link == nil && h.faults.Has("agent-cancel-any-task") {
		for _, t := range h.agent.tasks {
			if t.l.appID == l.appID && !t.ended {
				link = t
			}
		}
	}
	h.agent.mu.Unlock()
	if link == nil {
		return nil, invalidArgs(fmt.Sprintf("This app has no running task %q.", clip(a.TaskID, 100)))
	}
	// fault: agent-cancel-local-only — cancelTask is answered ok but the App Server is never told; the turn runs on.
	if h.faults.Has("agent-cancel-local-only") {
		return map[string]any{"ok": true}, nil
	}
	conn, err := h.agent.connection(context.Background())
	if err != nil {
		return nil, &denial{protocol.GateReadiness, hostbridge.CodeRuntimeUnavailable, "The agent runtime is not available, so the task could not be cancelled."}
	}
	if err := call(context.Background(), h.agent.callTimeout(), conn, "agentSession/turn/cancel", map[string]any{"sessionId": link.sessionID, "turnId": link.turnID}, nil); err != nil {
		return nil, &denial{protocol.GateReadiness, hostbridge.CodeRuntimeUnavailable, "The agent runtime did not cancel the task."}
	}
	return map[string]any{"ok": true}, nil
}

// confirmSession asks the App Server about a session the app wants to
// resume and refuses it unless it belongs to this app and workspace.
func (h *Host) confirmSession(ctx context.Context, conn *jsonrpc2.Conn, l *launch, workspace, id string) *denial {
	// fault: agent-resume-unconfirmed — a cached session id from the app is used as it is, never confirmed with agentSession/read.
	if h.faults.Has("agent-resume-unconfirmed") {
		return nil
	}
	var r struct {
		SessionID   string `json:"sessionId"`
		AppID       string `json:"appId"`
		WorkspaceID string `json:"workspaceId"`
	}
	refused := &denial{protocol.GateValidation, hostbridge.CodeInvalidRequest, "This session cannot be resumed here."}
	if err := call(ctx, h.agent.callTimeout(), conn, "agentSession/read", map[string]any{"sessionId": id}, &r); err != nil {
		return refused
	}
	// fault: agent-resume-any-workspace — agentSession/read confirms the session exists; whose workspace it is goes unchecked.
	if h.faults.Has("agent-resume-any-workspace") {
		return nil
	}
	sameWorkspace := r.WorkspaceID == workspace
	// fault: agent-resume-unstated-workspace — an agentSession/read answer that states no workspace is taken for a session of this one.
	if r.WorkspaceID == "" && h.faults.Has("agent-resume-unstated-workspace") {
		sameWorkspace = true
	}
	// fault: agent-resume-workspace-prefix — the session's workspace is checked as a prefix match: a workspace whose id begins with the current one's passes.
	if h.faults.Has("agent-resume-workspace-prefix") {
		sameWorkspace = strings.HasPrefix(r.WorkspaceID, workspace)
	}
	// fault: agent-resume-other-app-session — agentSession/read's answer is checked for its workspace only: a session another app started there is resumed.
	otherApp := r.AppID != "" && r.AppID != l.appID && !h.faults.Has("agent-resume-other-app-session")
	if !sameWorkspace || otherApp {
		return refused
	}
	return nil
}

// respondApproval answers lime.agent respondApproval {taskId, requestId,
// behavior}: the app's decision on a runtime approval goes back to the App
// Server with agentSession/action/respond, unless the tenant policy denies
// the tool, which wins (spec 000, Runtime approval: "Deny wins over
// allow").
func (h *Host) respondApproval(l *launch, args json.RawMessage) (any, *denial) {
	var a struct {
		TaskID    string `json:"taskId"`
		RequestID string `json:"requestId"`
		Behavior  string `json:"behavior"`
		ToolName  string `json:"toolName"`
	}
	_ = json.Unmarshal(args, &a)
	switch a.Behavior {
	case "allow", "deny", "defer":
	default:
		return nil, invalidArgs("An approval decision is allow, deny or defer.")
	}
	h.agent.mu.Lock()
	var link *agentTaskLink
	tool := ""
	for _, t := range h.agent.tasks {
		if tn, ok := t.approvals[a.RequestID]; ok && t.taskID == a.TaskID && t.l.appID == l.appID {
			link, tool = t, tn
			delete(t.approvals, a.RequestID)
		}
	}
	// fault: approval-answered-by-any-id — a decision naming no waiting approval of the task answers the app's first waiting approval.
	if link == nil && h.faults.Has("approval-answered-by-any-id") {
		for _, t := range h.agent.tasks {
			for rid, tn := range t.approvals {
				if link == nil && t.l.appID == l.appID {
					link, tool, a.RequestID = t, tn, rid
					delete(t.approvals, rid)
				}
			}
		}
	}
	h.agent.mu.Unlock()
	if link == nil {
		return nil, invalidArgs(fmt.Sprintf("Task %q has no approval %q waiting.", clip(a.TaskID, 100), clip(a.RequestID, 100)))
	}
	// fault: approval-tool-named-by-app — the tenant policy is judged on the tool the app's decision names (toolName), not the one the App Server asked approval for.
	if a.ToolName != "" && h.faults.Has("approval-tool-named-by-app") {
		tool = a.ToolName
	}
	behavior := a.Behavior
	// fault: approval-defer-sent-as-allow — the App Server is told yes or no: anything but deny, a defer included, goes to it as allow.
	if behavior == "defer" && h.faults.Has("approval-defer-sent-as-allow") {
		behavior = "allow"
	}
	// fault: approval-app-overrides-policy — the app's allow is passed on although the tenant policy denies the tool.
	if h.policyDeniesTool(tool) && !h.faults.Has("approval-app-overrides-policy") {
		behavior = "deny"
	}
	// fault: approval-decision-dropped — the app's decision is acknowledged but never sent to the App Server.
	if h.faults.Has("approval-decision-dropped") {
		return map[string]any{"ok": true, "behavior": behavior}, nil
	}
	if d := h.sendApprovalDecision(link.sessionID, link.turnID, a.RequestID, behavior); d != nil {
		return nil, d
	}
	return map[string]any{"ok": true, "behavior": behavior}, nil
}

// policyDeniesTool reports whether the tenant policy denies tool.
func (h *Host) policyDeniesTool(tool string) bool {
	cfg, _ := h.config()
	return cfg.Policy != nil && slices.Contains(cfg.Policy.DeniedTools, tool)
}

// sendApprovalDecision answers a runtime approval of a turn on the App
// Server (agentSession/action/respond) with behavior.
func (h *Host) sendApprovalDecision(sessionID, turnID, requestID, behavior string) *denial {
	conn, err := h.agent.connection(context.Background())
	if err != nil {
		return &denial{protocol.GateReadiness, hostbridge.CodeRuntimeUnavailable, "The agent runtime is not available, so the decision could not be passed on."}
	}
	params := map[string]any{"sessionId": sessionID, "turnId": turnID, "requestId": requestID,
		"decision": map[string]any{"behavior": behavior}}
	if err := call(context.Background(), h.agent.callTimeout(), conn, "agentSession/action/respond", params, nil); err != nil {
		return &denial{protocol.GateReadiness, hostbridge.CodeRuntimeUnavailable, "The agent runtime did not take the decision."}
	}
	return nil
}

// register ties turnID to t; facts of the turn that came before (the App
// Server may stream before it answers turn/start) are projected first, in
// order.
func (c *agentClient) register(t *agentTaskLink, turnID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t.turnID = turnID
	c.tasks[turnID] = t
	for _, ev := range c.early[turnID] {
		c.projectLocked(t, ev)
	}
	delete(c.early, turnID)
}
