package appserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/appserver/golden"
)

// App Server methods (spec 000 app.runtime.yaml bridge methods; 001 the
// mapping table).
const (
	MethodInitialize    = "initialize"
	MethodInitialized   = "initialized"
	MethodSessionStart  = "agentSession/start"
	MethodSessionRead   = "agentSession/read"
	MethodTurnStart     = "agentSession/turn/start"
	MethodTurnCancel    = "agentSession/turn/cancel"
	MethodActionRespond = "agentSession/action/respond"
	MethodEvent         = "agentSession/event"
	MethodCapabilities  = "capability/list"
	MethodArtifactRead  = "artifact/read"
	MethodEvidence      = "evidence/export"
)

// CodeNotInitialized answers a business method sent before the
// connection's initialize → initialized handshake.
const CodeNotInitialized = -32002

// CodeFailed answers the method a script's ErrorOn names: the runtime
// behind the App Server failed (JSON-RPC's server error range).
const CodeFailed = -32000

// Event is one fact a turn emits as an agentSession/event notification:
// a type of the lime.agent-task-event.v1 vocabulary, a subtype for the
// result, a payload.
type Event struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype,omitempty"`
	Payload any    `json:"payload,omitempty"`
}

// EventParams are agentSession/event's params: which session and turn the
// fact belongs to, its place in the turn and the fact.
type EventParams struct {
	SessionID string    `json:"sessionId"`
	TurnID    string    `json:"turnId"`
	EventID   string    `json:"eventId"`
	Sequence  int       `json:"sequence"`
	TraceID   string    `json:"traceId"`
	At        time.Time `json:"at"`
	Event
}

// Script is what the server answers: a session per agentSession/start
// and, per turn, its events in order.
type Script struct {
	// Turn is the facts every turn emits, in order; the last is its
	// result.
	Turn []Event
	// Turns, when set, overrides Turn for the first turns: turn n of the
	// script emits Turns[n-1]. A turn whose facts end without a result
	// hangs until it is cancelled (HangingTurn).
	Turns [][]Event
	// EventGap is the pause between two events of a turn.
	EventGap time.Duration
	// SilentOn, when set, is a method the server reads and never answers
	// (until MaxHang), answering every other one: a peer silent at one
	// step of the exchange.
	SilentOn string
	// ErrorOn, when set, is a method the server answers with a JSON-RPC
	// error (CodeFailed), answering every other one: a peer that fails at
	// one step of the exchange.
	ErrorOn string

	mu       sync.Mutex
	sessions int
	turns    int
	// id sets this script's session and turn ids apart from those of the
	// scripts before it on the same server: a host keys its turns by id, as
	// a real App Server's never repeat.
	id string
	// cancels ends a running turn's stream, by turn id.
	cancels map[string]chan struct{}
	// approval makes a turn wait for agentSession/action/respond after its
	// events (ApprovalTurn); decisions carries each turn's decision.
	approval  bool
	decisions map[string]chan string
	// known are what agentSession/read answers of a session, by id: the
	// Session of those agentSession/start made, and any a spec seeds (Seed,
	// SeedAnswer).
	known map[string]any
	// golden, when set, is replayed instead: the App Server answers what
	// the golden exchange says (ReplayScript).
	golden *golden.Golden
	used   map[int]bool // golden lines consumed
	// projections answers capability/list, artifact/read and
	// evidence/export (SetProjections).
	projections Projections
}

// Projections are what the App Server answers the projection methods
// with (spec 000 app.runtime.yaml fixed rules: "capability/list,
// artifact/read, and evidence/export are current entries for capability,
// artifact, and evidence projection").
type Projections struct {
	// Capabilities answers capability/list: {"capabilities": ...}.
	Capabilities []any
	// Artifacts answers artifact/read {artifactId}, by id: the artifact,
	// or the error when the value is a *jsonrpc2.Error; an unknown id is
	// -32602.
	Artifacts map[string]any
	// Evidence answers evidence/export.
	Evidence any
}

// SetProjections sets what the projection methods answer.
func (sc *Script) SetProjections(p Projections) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.projections = p
}

// ReplayScript plays the App Server's side of a golden exchange: each host
// message is answered with the answer written under the first golden line
// of its method not yet used, and the notifications written after that
// answer follow it. A message the golden exchange does not have is
// answered with -32601.
func ReplayScript(g *golden.Golden) *Script {
	sc := NewScript()
	sc.golden, sc.used = g, map[int]bool{}
	return sc
}

// replay answers req from the golden exchange.
func (sc *Script) replay(ctx context.Context, h handler, req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	sc.mu.Lock()
	at := -1
	for i, l := range sc.golden.Lines {
		if l.Dir == golden.HostSends && l.Method == req.Method && !sc.used[i] {
			at = i
			break
		}
	}
	if at < 0 {
		sc.mu.Unlock()
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: req.Method + " is not in the golden exchange " + sc.golden.Name}
	}
	sc.used[at] = true
	var result any = map[string]any{}
	var rpcErr *jsonrpc2.Error
	var notes []golden.Line
	for _, l := range sc.golden.Lines[at+1:] {
		if l.Dir == golden.HostSends {
			break
		}
		switch l.Dir {
		case golden.ServerAnswers:
			result = json.RawMessage(l.Body)
		case golden.ServerFails:
			var e jsonrpc2.Error
			_ = json.Unmarshal(l.Body, &e)
			rpcErr = &e
		case golden.ServerNotifies:
			notes = append(notes, l)
		}
	}
	sc.mu.Unlock()
	if len(notes) > 0 {
		go func() {
			// After the answer: the host reads it first.
			time.Sleep(20 * time.Millisecond)
			for _, n := range notes {
				var params any
				if n.Body != nil {
					params = json.RawMessage(n.Body)
				}
				if h.notify(context.Background(), n.Method, params) != nil {
					return
				}
			}
		}()
	}
	return result, rpcErr
}

// NewScript is the default script: a turn that queues, says two deltas
// and succeeds.
func NewScript() *Script {
	return &Script{
		id: scriptID(),
		Turn: []Event{
			{Type: "task:queued"},
			{Type: "assistant:delta", Payload: map[string]any{"text": "Working on it"}},
			{Type: "assistant:delta", Payload: map[string]any{"text": "; done."}},
			{Type: "result", Subtype: "success", Payload: map[string]any{"output": map[string]any{"ok": true}}},
		},
		EventGap:  20 * time.Millisecond,
		cancels:   map[string]chan struct{}{},
		known:     map[string]any{},
		decisions: map[string]chan string{},
	}
}

// scriptID is a fresh random id for a script's sessions and turns.
func scriptID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Session is what agentSession/read says of a session.
type Session struct {
	SessionID   string `json:"sessionId"`
	AppID       string `json:"appId"`
	WorkspaceID string `json:"workspaceId"`
}

// Seed adds a session the App Server knows without having started it on
// this run: another workspace's, for instance.
func (sc *Script) Seed(s Session) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.known[s.SessionID] = s
}

// SeedAnswer makes agentSession/read of session answer with answer as it
// is: an answer that leaves out a member Session always carries (its
// workspaceId, say), or states it as null.
func (sc *Script) SeedAnswer(session string, answer map[string]any) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.known[session] = answer
}

// ApprovalRequest is a runtime approval a turn asks for (an
// approval:requested fact's payload).
type ApprovalRequest struct {
	RequestID, Kind, ToolName, Risk string
}

// RuntimeApproval is the runtime approval ApprovalTurn asks for.
func RuntimeApproval() ApprovalRequest {
	return ApprovalRequest{RequestID: "approval-1", Kind: "tool_confirmation", ToolName: "publish", Risk: "high"}
}

// Payload is the approval as the fact carries it.
func (a ApprovalRequest) Payload() map[string]any {
	return map[string]any{"requestId": a.RequestID, "kind": a.Kind, "toolName": a.ToolName, "risk": a.Risk}
}

// ApprovalTurn is a script whose turns ask for a runtime approval of the
// tool "publish" (an approval:requested fact) and wait for
// agentSession/action/respond: allow goes on to success, deny ends with
// error_permission_denied (spec 000, Runtime approval).
func ApprovalTurn() *Script {
	sc := NewScript()
	sc.Turn = []Event{{Type: "task:queued"}, {Type: "approval:requested", Payload: RuntimeApproval().Payload()}}
	sc.approval = true
	return sc
}

// StructuredTurn is a script whose turns end in success with output: a
// JSON value, or a natural-language summary standing in for one.
func StructuredTurn(output any) *Script {
	sc := NewScript()
	sc.Turn = []Event{{Type: "task:queued"}, {Type: "result", Subtype: "success", Payload: map[string]any{"output": output}}}
	return sc
}

// FailedTurn is a turn that ends in an error result.
func FailedTurn() []Event {
	return []Event{{Type: "task:queued"}, {Type: "result", Subtype: "error_during_execution", Payload: map[string]any{"message": "the model call failed"}}}
}

// HangingTurn is a turn that queues and then says nothing more until the
// host cancels it.
func HangingTurn() []Event { return []Event{{Type: "task:queued"}} }

// LongTurn is a script whose turns stream for a while (a delta every
// 200 ms, twenty of them) before succeeding: long enough to cancel.
func LongTurn() *Script {
	sc := NewScript()
	sc.Turn = []Event{{Type: "task:queued"}}
	for i := 0; i < 20; i++ {
		sc.Turn = append(sc.Turn, Event{Type: "assistant:delta", Payload: map[string]any{"text": "."}})
	}
	sc.Turn = append(sc.Turn, Event{Type: "result", Subtype: "success"})
	sc.EventGap = 200 * time.Millisecond
	return sc
}

// handle answers one request (or takes one notification).
func (sc *Script) handle(ctx context.Context, h handler, req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	if sc.golden != nil {
		return sc.replay(ctx, h, req)
	}
	switch req.Method {
	case MethodInitialize:
		h.s.mu.Lock()
		h.p.initialize = true
		h.s.mu.Unlock()
		return map[string]any{
			"protocolVersion": "appserver.v0",
			"serverInfo":      map[string]any{"name": "agentapp-conformance-appserver", "version": "0.1.0"},
		}, nil
	case MethodInitialized:
		h.s.mu.Lock()
		h.p.initialized = h.p.initialize
		h.s.mu.Unlock()
		return nil, nil
	}
	h.s.mu.Lock()
	ready := h.p.initialized
	h.s.mu.Unlock()
	if !ready {
		return nil, &jsonrpc2.Error{Code: CodeNotInitialized, Message: "initialize and initialized come before " + req.Method}
	}
	if sc.ErrorOn != "" && req.Method == sc.ErrorOn {
		return nil, &jsonrpc2.Error{Code: CodeFailed, Message: "the runtime failed to serve " + req.Method}
	}
	switch req.Method {
	case MethodSessionStart:
		var p Session
		decodeParams(req, &p)
		sc.mu.Lock()
		sc.sessions++
		p.SessionID = fmt.Sprintf("session-%s-%d", sc.id, sc.sessions)
		sc.known[p.SessionID] = p
		sc.mu.Unlock()
		return map[string]any{"sessionId": p.SessionID}, nil
	case MethodSessionRead:
		var p struct {
			SessionID string `json:"sessionId"`
		}
		decodeParams(req, &p)
		sc.mu.Lock()
		known, ok := sc.known[p.SessionID]
		sc.mu.Unlock()
		if !ok {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("no session %q", p.SessionID)}
		}
		return known, nil
	case MethodTurnStart:
		var p struct {
			SessionID string `json:"sessionId"`
		}
		decodeParams(req, &p)
		if p.SessionID == "" {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "agentSession/turn/start needs the sessionId agentSession/start gave"}
		}
		sc.mu.Lock()
		sc.turns++
		turn := fmt.Sprintf("turn-%s-%d", sc.id, sc.turns)
		events := append([]Event(nil), sc.Turn...)
		if sc.turns <= len(sc.Turns) {
			events = append([]Event(nil), sc.Turns[sc.turns-1]...)
		}
		gap := sc.EventGap
		cancel := make(chan struct{})
		sc.cancels[turn] = cancel
		var decided chan string
		if sc.approval {
			decided = make(chan string, 1)
			sc.decisions[turn] = decided
		}
		sc.mu.Unlock()
		go sc.run(h, p.SessionID, turn, events, gap, cancel, decided)
		return map[string]any{"turnId": turn}, nil
	case MethodTurnCancel:
		var p struct {
			TurnID string `json:"turnId"`
		}
		decodeParams(req, &p)
		sc.mu.Lock()
		cancel, ok := sc.cancels[p.TurnID]
		delete(sc.cancels, p.TurnID)
		sc.mu.Unlock()
		if !ok {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("no running turn %q to cancel", p.TurnID)}
		}
		close(cancel)
		return map[string]any{"ok": true}, nil
	case MethodActionRespond:
		var p struct {
			TurnID   string `json:"turnId"`
			Decision struct {
				Behavior string `json:"behavior"`
			} `json:"decision"`
			Behavior string `json:"behavior"`
		}
		decodeParams(req, &p)
		behavior := p.Decision.Behavior
		if behavior == "" {
			behavior = p.Behavior
		}
		sc.mu.Lock()
		ch, ok := sc.decisions[p.TurnID]
		delete(sc.decisions, p.TurnID)
		sc.mu.Unlock()
		if !ok {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("no approval pending on turn %q", p.TurnID)}
		}
		ch <- behavior
		return map[string]any{"ok": true}, nil
	}
	if res, rpcErr, ok := sc.project(req); ok {
		return res, rpcErr
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "this App Server does not know " + req.Method}
}

// project answers the projection methods from the script's Projections;
// ok is false for any other method.
func (sc *Script) project(req *jsonrpc2.Request) (result any, rpcErr *jsonrpc2.Error, ok bool) {
	sc.mu.Lock()
	p := sc.projections
	sc.mu.Unlock()
	switch req.Method {
	case MethodCapabilities:
		caps := p.Capabilities
		if caps == nil {
			caps = []any{}
		}
		return map[string]any{"capabilities": caps}, nil, true
	case MethodArtifactRead:
		var a struct {
			ArtifactID string `json:"artifactId"`
		}
		decodeParams(req, &a)
		art, found := p.Artifacts[a.ArtifactID]
		if !found {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("no artifact %q", a.ArtifactID)}, true
		}
		if e, isErr := art.(*jsonrpc2.Error); isErr {
			return nil, e, true
		}
		return art, nil, true
	case MethodEvidence:
		if p.Evidence == nil {
			return map[string]any{"items": []any{}}, nil, true
		}
		return p.Evidence, nil, true
	}
	return nil, nil, false
}

// run streams one turn and, for an approval turn, waits for the decision
// and ends the turn by it.
func (sc *Script) run(h handler, session, turn string, events []Event, gap time.Duration, cancel chan struct{}, decided chan string) {
	defer func() {
		sc.mu.Lock()
		delete(sc.cancels, turn)
		delete(sc.decisions, turn)
		sc.mu.Unlock()
	}()
	if !sc.emit(h, session, turn, events, gap, cancel, 1) {
		return
	}
	end := Event{Type: "result", Subtype: "error_permission_denied"}
	if decided == nil {
		// A turn without a result hangs until it is cancelled.
		end = Event{Type: "result", Subtype: "cancelled"}
	}
	select {
	case b := <-decided:
		if b == "allow" {
			end = Event{Type: "result", Subtype: "success"}
		}
	case <-cancel:
		end = Event{Type: "result", Subtype: "cancelled"}
	case <-h.conn.DisconnectNotify():
		return
	case <-time.After(MaxHang):
		return
	}
	sc.emit(h, session, turn, []Event{end}, 0, nil, len(events)+1)
}

// emit sends a turn's events in order, numbered from seq; under
// DropMidTurn the connection is closed after the first. A cancel ends the
// turn with result cancelled. It reports whether the turn may go on: every
// event was sent and none ended it.
func (sc *Script) emit(h handler, session, turn string, events []Event, gap time.Duration, cancelled <-chan struct{}, seq int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, e := range events {
		last := false
		select {
		case <-time.After(gap):
		case <-h.conn.DisconnectNotify():
			return false
		case <-cancelled:
			// A cancelled turn ends with result cancelled (spec 000, the
			// result subtypes: "User or system cancelled the task").
			e, last = Event{Type: "result", Subtype: "cancelled"}, true
		}
		if mode, _ := h.s.state(); mode == DropMidTurn && seq+i > 1 {
			h.drop()
			return false
		}
		n := seq + i
		p := EventParams{SessionID: session, TurnID: turn, EventID: fmt.Sprintf("%s-e%d", turn, n), Sequence: n,
			TraceID: "trace-" + turn, At: time.Now().UTC(), Event: e}
		if err := h.notify(ctx, MethodEvent, p); err != nil || last || e.Type == "result" {
			return false
		}
	}
	return true
}

// decodeParams reads a request's params into p, leaving p as it is when
// there are none or they do not fit: a spec judges what the host sent
// from the recorded messages, not from what the App Server made of them.
func decodeParams(req *jsonrpc2.Request, p any) {
	if req.Params != nil {
		_ = json.Unmarshal(*req.Params, p)
	}
}
