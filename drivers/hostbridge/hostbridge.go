// Package hostbridge is the wire of Host Bridge v1 (spec 000, "Host Bridge
// v1"): the message envelope a host and the app frame exchange with
// postMessage, the message types, and the harness's readings of the payloads
// the standard leaves open (docs/decisions.md, "Host Bridge payloads").
// mockhost's bridge speaks it and the suites judge what the probe saw by it.
package hostbridge

import (
	"encoding/json"
	"fmt"
)

// Protocol and Version every bridge message carries.
const (
	Protocol = "lime.agentApp.bridge"
	Version  = 1
)

// Host -> app message types.
const (
	TypeSnapshot    = "host:snapshot"
	TypeThemeUpdate = "theme:update"
	TypeResponse    = "host:response"
	TypeError       = "host:error"
	TypeVisibility  = "host:visibility"
	// TypeEvent carries an agent task event to the app (spec 001, the
	// App Server mapping: "Host Bridge host:response / host:event
	// projection").
	TypeEvent = "host:event"
)

// App -> host message types.
const (
	TypeReady        = "app:ready"
	TypeGetSnapshot  = "host:getSnapshot"
	TypeNavigate     = "host:navigate"
	TypeToast        = "host:toast"
	TypeOpenExternal = "host:openExternal"
	TypeDownload     = "host:download"
	TypeInvoke       = "capability:invoke"
)

// AppTypes lists the app -> host types.
func AppTypes() []string {
	return []string{TypeReady, TypeGetSnapshot, TypeNavigate, TypeToast, TypeOpenExternal, TypeDownload, TypeInvoke}
}

// Message is the standard envelope (LimeAgentAppBridgeMessage).
type Message struct {
	Protocol  string          `json:"protocol"`
	Version   json.Number     `json:"version"`
	Type      string          `json:"type"`
	RequestID string          `json:"requestId,omitempty"`
	AppID     string          `json:"appId"`
	EntryKey  string          `json:"entryKey,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	// Code and Message are where a host:error may carry its stable code
	// and user-readable message instead of in the payload (reading).
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// EnvelopeProblem says what is wrong with a message's envelope ("" when
// nothing is): the protocol, the version, or a missing type.
func (m Message) EnvelopeProblem() string {
	switch {
	case m.Protocol != Protocol:
		return fmt.Sprintf("protocol is %q, not %q", m.Protocol, Protocol)
	case m.Version.String() != "1":
		return fmt.Sprintf("version is %s, not 1", orNone(m.Version.String()))
	case m.Type == "":
		return "it has no type"
	}
	return ""
}

func orNone(s string) string {
	if s == "" {
		return "missing"
	}
	return s
}

// Invoke is the payload of capability:invoke (reading: the capability, a
// method of it and its arguments).
type Invoke struct {
	Capability string          `json:"capability"`
	Method     string          `json:"method"`
	Args       json.RawMessage `json:"args,omitempty"`
}

// ErrorPayload is the payload of host:error: a stable code and a message a
// user can read.
type ErrorPayload struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ErrorOf returns a host:error's code and message, from the payload or, as
// a host may put them, the envelope.
func ErrorOf(m Message) ErrorPayload {
	var p ErrorPayload
	if len(m.Payload) > 0 {
		_ = json.Unmarshal(m.Payload, &p)
	}
	if p.Code == "" {
		p.Code = m.Code
	}
	if p.Message == "" {
		p.Message = m.Message
	}
	return p
}

// Snapshot is host:snapshot's payload as the harness reads it: the fields
// spec 001 says the first snapshot should include at least, and the
// readiness spec 002 lets it carry. Unknown members are kept by the
// suites, which read the raw payload for leaks.
type Snapshot struct {
	AppID         string            `json:"appId"`
	EntryKey      string            `json:"entryKey"`
	Route         string            `json:"route"`
	RuntimeOrigin string            `json:"runtimeOrigin"`
	Theme         *SnapshotTheme    `json:"theme"`
	Locale        string            `json:"locale"`
	Timezone      string            `json:"timezone"`
	WorkspaceID   string            `json:"workspaceId"`
	TenantID      string            `json:"tenantId"`
	Capabilities  []CapabilityState `json:"capabilities"`
	Readiness     *struct {
		Status string `json:"status"`
	} `json:"readiness,omitempty"`
}

// SnapshotTheme is the theme part of a snapshot and of theme:update.
type SnapshotTheme struct {
	ThemeMode          string            `json:"themeMode"`
	EffectiveThemeMode string            `json:"effectiveThemeMode"`
	ColorSchemeID      string            `json:"colorSchemeId"`
	Variables          map[string]string `json:"variables"`
}

// CapabilityState is one row of the snapshot's capability summary.
type CapabilityState struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Visibility is host:visibility's payload.
type Visibility struct {
	Visible bool `json:"visible"`
}

// Stable host:error codes mockhost answers with. The standard asks for a
// stable code and names none for the bridge, so the suites never require
// these strings: they require a non-empty code that stays the same for the
// same gate (docs/decisions.md, "Host Bridge payloads").
const (
	CodeNotDeclared      = "CAPABILITY_NOT_DECLARED"
	CodeNotReady         = "APP_NOT_READY"
	CodePolicyDenied     = "POLICY_DENIED"
	CodeApprovalRequired = "APPROVAL_REQUIRED"
	CodePermissionDenied = "PERMISSION_DENIED"
	CodeInvalidRequest   = "INVALID_REQUEST"
	CodeUnsupported      = "CAPABILITY_NOT_AVAILABLE"
	CodeURLRefused       = "URL_REFUSED"
	// CodeRuntimeUnavailable: the agent runtime (App Server) cannot be
	// reached, so the task was not started (spec 002: "When App Server is
	// unavailable, the host returns blocked / host:error").
	CodeRuntimeUnavailable = "AGENT_RUNTIME_UNAVAILABLE"
)

// TaskEventSchema is the schemaVersion of an agent task event.
const TaskEventSchema = "lime.agent-task-event.v1"

// TaskEvent is the agent task event envelope (spec 000, Agent task event
// envelope).
type TaskEvent struct {
	SchemaVersion string          `json:"schemaVersion"`
	EventID       string          `json:"eventId"`
	Sequence      int             `json:"sequence"`
	Type          string          `json:"type"`
	Subtype       string          `json:"subtype,omitempty"`
	AppID         string          `json:"appId"`
	TaskID        string          `json:"taskId"`
	TraceID       string          `json:"traceId"`
	SessionID     string          `json:"sessionId"`
	TurnID        string          `json:"turnId,omitempty"`
	At            string          `json:"at"`
	Payload       json.RawMessage `json:"payload,omitempty"`
}
