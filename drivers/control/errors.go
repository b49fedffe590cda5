package control

import (
	"encoding/json"
	"fmt"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Kinds of TransportError (docs/host-control-protocol.md, "Timeouts and limits").
const (
	KindTimeout   = "timeout"   // no answer within the call timeout; the client is dead
	KindClosed    = "closed"    // the connection or the host process ended; the client is dead
	KindMalformed = "malformed" // bytes that are no Content-Length frame of JSON-RPC 2.0; the client is dead
	KindOversize  = "oversize"  // a frame over the size limit; the client is dead
	KindSchema    = "schema"    // a result that does not match its schema; the client stays alive
)

// HostError is a JSON-RPC error answer of the host.
type HostError struct {
	Method  string
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *HostError) Error() string {
	name := codeName(e.Code)
	if name != "" {
		name = " (" + name + ")"
	}
	return fmt.Sprintf("host answered %s with error %d%s: %s", e.Method, e.Code, name, e.Message)
}

// codeName names the protocol's stable error codes.
func codeName(code int64) string {
	switch code {
	case protocol.CodeParseError:
		return "parse error"
	case protocol.CodeInvalidRequest:
		return "invalid request"
	case protocol.CodeMethodNotFound:
		return "method not found"
	case protocol.CodeInvalidParams:
		return "invalid params"
	case protocol.CodeInternalError:
		return "internal error"
	case protocol.CodePackageInvalid:
		return "package invalid"
	case protocol.CodeVerificationFailed:
		return "verification failed"
	case protocol.CodeConsentRequired:
		return "consent required"
	case protocol.CodeAppNotFound:
		return "app not found"
	case protocol.CodeNotConfigured:
		return "not configured"
	case protocol.CodeUnsupported:
		return "unsupported"
	}
	return ""
}

// TransportError is every failure that is not a JSON-RPC error answer: the
// host was silent, went away, sent bytes that are no frame, sent too much, or
// answered with a result its schema rejects.
type TransportError struct {
	Method string
	Kind   string // KindTimeout, KindClosed, KindMalformed, KindOversize or KindSchema
	Detail string // the specific cause, e.g. "invalid character 'x' looking for beginning of value"

	msg   string // the full sentence; composed from the fields when empty
	cause error
}

func (e *TransportError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("%s failure during %s: %s", e.Kind, e.Method, e.Detail)
}

// Unwrap returns the underlying cause, if any (a *protocol.SchemaError for
// KindSchema, a context error for a cancelled call).
func (e *TransportError) Unwrap() error { return e.cause }

func newTransportError(method, kind, detail, msg string, cause error) *TransportError {
	return &TransportError{Method: method, Kind: kind, Detail: detail, msg: msg, cause: cause}
}
