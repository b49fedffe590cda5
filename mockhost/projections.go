package mockhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// The app's capability, artifact and evidence projections come from the
// App Server (spec 000 app.runtime.yaml fixed rules: "capability/list,
// artifact/read, and evidence/export are current entries for capability,
// artifact, and evidence projection"; spec 002 checklist: they "derive from
// RuntimeCore / services facts, not app UI synthesis").
const (
	appServerCapabilities = "capability/list"
	appServerArtifactRead = "artifact/read"
	appServerEvidence     = "evidence/export"
)

// listCapabilities answers lime.agent listCapabilities from capability/list.
func (h *Host) listCapabilities(l *launch) (any, *denial) {
	// fault: capabilities-from-manifest — listCapabilities answers from the app's own manifest instead of asking the App Server.
	if h.faults.Has("capabilities-from-manifest") {
		caps := []any{}
		for _, c := range l.declared {
			caps = append(caps, map[string]any{"capabilityId": c})
		}
		return map[string]any{"capabilities": caps}, nil
	}
	return h.fromAppServer(l, appServerCapabilities, map[string]any{})
}

// readArtifact answers lime.artifacts read {artifactId} from artifact/read.
func (h *Host) readArtifact(l *launch, args json.RawMessage) (any, *denial) {
	var a struct {
		ArtifactID     string `json:"artifactId"`
		CaptureContent bool   `json:"captureContent"`
	}
	if !decodePayload(args, &a) || a.ArtifactID == "" {
		return nil, invalidArgs("Reading an artifact needs its artifactId.")
	}
	// fault: artifact-read-local — lime.artifacts read answers from a record of the host's own, the App Server never asked.
	if h.faults.Has("artifact-read-local") {
		return map[string]any{"artifactId": a.ArtifactID, "kind": "document", "content": ""}, nil
	}
	if posted, ok := h.postedArtifact(l.appID, a.ArtifactID); ok {
		return posted, nil
	}
	res, d := h.fromAppServer(l, appServerArtifactRead, map[string]any{"artifactId": a.ArtifactID})
	// fault: artifact-mock-when-down — with the App Server unreachable, lime.artifacts read answers with a placeholder artifact.
	if d != nil && d.code == hostbridge.CodeRuntimeUnavailable && h.faults.Has("artifact-mock-when-down") {
		return map[string]any{"artifactId": a.ArtifactID, "kind": "document", "content": "", "mock": true}, nil
	}
	if d == nil {
		attrs, content := map[string]string{"lime.artifact.id": a.ArtifactID}, artifactContent(res)
		// fault: telemetry-app-asks-content — an app's read asking captureContent puts the artifact body in the span, without the user's opt-in (held-out m12).
		if a.CaptureContent && h.faults.Has("telemetry-app-asks-content") {
			for _, c := range content {
				attrs[c.key] = c.value
			}
		}
		h.exportSpan(l, "artifact.materialize", attrs, content...)
	}
	return res, d
}

// exportEvidence answers lime.evidence export from evidence/export.
func (h *Host) exportEvidence(l *launch, args json.RawMessage) (any, *denial) {
	params := map[string]any{}
	_ = json.Unmarshal(args, &params)
	if params == nil {
		params = map[string]any{}
	}
	// fault: evidence-export-synthesized — lime.evidence export builds the pack from the host's local records instead of evidence/export.
	if h.faults.Has("evidence-export-synthesized") {
		return map[string]any{"items": h.surf.observe(l.appID).Evidence}, nil
	}
	res, d := h.fromAppServer(l, appServerEvidence, params)
	if posted := h.postedEvidence(l.appID); d == nil && len(posted) > 0 {
		return map[string]any{"pack": res, "recorded": posted}, nil
	}
	return res, d
}

// fromAppServer carries one projection call of the app to the App Server,
// bound to the app and workspace, and answers with what the App Server
// returned. Without a reachable App Server, or with no usable answer, the
// call is refused with a stable code, never mocked (spec 001 forbidden
// paths: "Product paths falling back to mock success when App Server is
// unavailable").
func (h *Host) fromAppServer(l *launch, method string, params map[string]any) (any, *denial) {
	cfg, _ := h.config()
	appID := l.appID
	// fault: projection-app-from-args — a projection call whose args name an appId asks the App Server for that app's records, not the calling app's.
	if named, _ := params["appId"].(string); named != "" && h.faults.Has("projection-app-from-args") {
		appID = named
	}
	params["appId"] = appID
	params["workspaceId"] = cfg.WorkspaceID
	unavailable := &denial{protocol.GateReadiness, hostbridge.CodeRuntimeUnavailable,
		"The agent runtime is not available, so this could not be read. Try again later."}
	ctx := context.Background()
	conn, err := h.agent.connection(ctx)
	if err != nil {
		return nil, unavailable
	}
	var out json.RawMessage
	if err := call(ctx, h.agent.callTimeout(), conn, method, params, &out); err != nil {
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			text := fmt.Sprintf("The agent runtime could not answer: %s", clip(h.forApp(rpcErr.Message), 200))
			// fault: appserver-error-data-forwarded — the host:error the app gets quotes the App Server error's data as it is, after the redacted message.
			if rpcErr.Data != nil && h.faults.Has("appserver-error-data-forwarded") {
				text += " (" + string(*rpcErr.Data) + ")"
			}
			return nil, &denial{protocol.GateValidation, hostbridge.CodeInvalidRequest, text}
		}
		return nil, unavailable
	}
	// fault: appserver-null-as-empty-success — an App Server answering a projection read with null gives the app an empty object as success.
	if (len(out) == 0 || string(out) == "null") && h.faults.Has("appserver-null-as-empty-success") {
		out = json.RawMessage(`{}`)
	}
	if !json.Valid(out) || len(out) == 0 || string(out) == "null" {
		return nil, unavailable
	}
	return redactJSON(out, h.projectionSecrets(), h.redactionGaps()), nil
}

// forApp keeps the host's credentials out of a text the App Server wrote
// that goes on to the app.
func (h *Host) forApp(s string) string {
	// fault: redaction-first-copy-only — an App Server message that quotes a credential twice reaches the app with the second copy in it.
	if h.faults.Has("redaction-first-copy-only") {
		return redactFirstText(s, h.projectionSecrets())
	}
	return redactText(s, h.projectionSecrets())
}

// redactionGaps are the places of a JSON document the faults leave
// unredacted (none on a healthy host).
func (h *Host) redactionGaps() redactionGaps {
	return redactionGaps{
		// fault: redaction-skips-lists — what the agent runtime says is redacted in its objects' members but not in its lists.
		lists: h.faults.Has("redaction-skips-lists"),
		// fault: redaction-skips-member-names — what the agent runtime says is redacted in its strings but not in its objects' member names: a credential quoted as a key reaches the app.
		names: h.faults.Has("redaction-skips-member-names"),
	}
}

// projectionSecrets are the credential values kept out of the App Server's
// answers and error messages on their way to the app.
func (h *Host) projectionSecrets() []string {
	// fault: agent-projections-unredacted — what the App Server answers, and its error messages, reach the app as they are, credentials they quote included.
	if h.faults.Has("agent-projections-unredacted") {
		return nil
	}
	return h.agent.heldSecrets()
}
