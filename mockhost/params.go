package mockhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// decodeParams checks a request's params against the method's schema
// (drivers/protocol/schemas) and decodes them into v; anything wrong is
// -32602 naming the member (docs/host-control-protocol.md, Errors). Absent
// or null params decode as {} when optional. Without schemas the decoding
// itself is strict.
func (h *Host) decodeParams(method string, raw *json.RawMessage, v any, optional bool) *jsonrpc2.Error {
	// fault: lenient-params — params are decoded as they come: missing members stay empty, unknown ones are ignored.
	if h.faults.Has("lenient-params") {
		if raw != nil {
			_ = json.Unmarshal(*raw, v)
		}
		return nil
	}
	if h.schemas == nil {
		return decodeStrict(method, raw, v, optional)
	}
	var body json.RawMessage
	if raw != nil {
		body = *raw
	}
	if err := h.schemas.ValidateParams(method, body); err != nil {
		var se *protocol.SchemaError
		if errors.As(err, &se) {
			return invalidParams(method, pointerField(se.Pointer), se.Message)
		}
		return invalidParams(method, "", err.Error())
	}
	if len(bytes.TrimSpace(body)) == 0 || string(bytes.TrimSpace(body)) == "null" {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return typeError(method, err)
	}
	// variant: app-id-syntax-checked — an appId no manifest name could be (capitals, spaces) is refused as malformed, -32602 naming appId, before any app is looked up.
	if h.variants.Has("app-id-syntax-checked") {
		var p struct {
			AppID *string `json:"appId"`
		}
		if json.Unmarshal(body, &p) == nil && p.AppID != nil && *p.AppID != "" && !appNamePattern.MatchString(*p.AppID) {
			return invalidParams(method, "appId", fmt.Sprintf("%q is no app name (lower-case letters, digits, - _ .)", *p.AppID))
		}
	}
	return nil
}

// appNamePattern is the manifest schema's pattern of an app's name.
var appNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-_.]*$`)

// pointerField turns a JSON pointer (/consent/granted) into a member path
// (consent.granted).
func pointerField(ptr string) string {
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return strings.Join(parts, ".")
}

// typeError names the member of a decoding error.
func typeError(method string, err error) *jsonrpc2.Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return invalidParams(method, te.Field, fmt.Sprintf("must be %s, not %s", jsonKind(te.Type.Kind().String()), te.Value))
	}
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return invalidParams(method, strings.Trim(field, `"`), "is not a member of these params")
	}
	return invalidParams(method, "", err.Error())
}

// decodeStrict decodes params into v, refusing unknown members.
func decodeStrict(method string, raw *json.RawMessage, v any, optional bool) *jsonrpc2.Error {
	body := []byte("{}")
	if raw != nil && string(bytes.TrimSpace(*raw)) != "null" {
		body = *raw
	} else if !optional {
		return invalidParams(method, "", "params are required")
	}
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return invalidParams(method, "", "params must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return typeError(method, err)
	}
	return nil
}

// invalidParams is the -32602 error naming the member at fault.
func invalidParams(method, field, msg string) *jsonrpc2.Error {
	where := "params"
	if field != "" {
		where = "params." + field
	}
	return rpcError(protocol.CodeInvalidParams, fmt.Sprintf("%s: %s %s", method, where, msg), nil)
}

// jsonKind names a Go kind the way JSON calls it.
func jsonKind(k string) string {
	switch k {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	default:
		return "a number"
	}
}

// requireString is -32602 when a required string member is empty (not
// checked at all under lenient-params, see decodeParams).
func (h *Host) requireString(method, field, value string) *jsonrpc2.Error {
	if strings.TrimSpace(value) == "" && !h.faults.Has("lenient-params") {
		return invalidParams(method, field, "is required")
	}
	return nil
}

// parseClock reads host/configure's clock: an RFC 3339 instant or empty.
func parseClock(method, s string) (time.Time, *jsonrpc2.Error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, invalidParams(method, "clock", fmt.Sprintf("is not an RFC 3339 instant: %q", s))
	}
	return t, nil
}

// requireMembers is requireString of each member in turn: -32602 naming
// the first that is empty.
func (h *Host) requireMembers(method string, ms ...member) *jsonrpc2.Error {
	for _, m := range ms {
		if e := h.requireString(method, m.name, m.value); e != nil {
			return e
		}
	}
	return nil
}
