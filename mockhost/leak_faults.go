package mockhost

import (
	"encoding/base64"
	"encoding/json"

	"github.com/sourcegraph/jsonrpc2"
)

// withDebugContext is where a host that dumps its request context into
// error answers does so. The context is what a developer wants when an
// install fails: the tenant, the workspace and the session the call ran
// under, base64-encoded so it survives log pipelines. It carries the
// session tokens, which no answer may (spec 000, Shared platform
// capabilities: the host must not expose bearer tokens to apps).
func (h *Host) withDebugContext(e *jsonrpc2.Error) *jsonrpc2.Error {
	// fault: error-data-carries-session — error answers carry the request context, session tokens included, base64-encoded.
	if e == nil || !h.faults.Has("error-data-carries-session") {
		return e
	}
	cfg, _ := h.config()
	ctx, err := json.Marshal(map[string]any{"tenantId": cfg.TenantID, "workspaceId": cfg.WorkspaceID, "sessionTokens": cfg.SessionTokens})
	if err != nil {
		return e
	}
	data := map[string]any{}
	if e.Data != nil {
		_ = json.Unmarshal(*e.Data, &data)
	}
	data["debugContext"] = base64.StdEncoding.EncodeToString(ctx)
	return rpcError(e.Code, e.Message, data)
}
