package mockhost

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// cloudSessionName is the session whose token lime.cloudSession hands out:
// the host's own cloud session (host/configure's sessionTokens.cloud).
const cloudSessionName = "cloud"

// accessTokenMethod is the method of lime.cloudSession that fetches the
// just-in-time token, by mockhost's reading (the texts name requestLogin
// and getSnapshot, not this one; docs/decisions.md, "The just-in-time
// token").
func (h *Host) accessTokenMethod() string {
	// variant: jit-token-named-get-token — lime.cloudSession's just-in-time token is fetched with getToken, not getAccessToken.
	if h.variants.Has("jit-token-named-get-token") {
		return "getToken"
	}
	return "getAccessToken"
}

// accessToken answers the app's explicit request for a just-in-time token
// (spec 000, Capability SDK: "Apps that need to call a control plane may
// explicitly request a just-in-time token"; spec 003, Distribution flow:
// the host must not "persist the token into app config"): the current
// token of the host's cloud session, kept nowhere the app can read.
func (h *Host) accessToken(l *launch) (any, *denial) {
	cfg, _ := h.config()
	tok, ok := cfg.SessionTokens[cloudSessionName]
	// fault: jit-token-other-session — the just-in-time token is the first session token in name order, not the cloud session's: a session named cloud-admin beside it is handed out.
	if h.faults.Has("jit-token-other-session") {
		for _, name := range slices.Sorted(maps.Keys(cfg.SessionTokens)) {
			if name != cloudSessionName {
				tok, ok = cfg.SessionTokens[name], true
				break
			}
		}
	}
	if !ok || tok == "" {
		return nil, &denial{protocol.GateValidation, hostbridge.CodeUnsupported, "There is no cloud session: request a login first."}
	}
	h.mu.Lock()
	// fault: jit-token-cached — the first just-in-time token the host gave an app is given again, though the session's token changed since.
	if old, given := h.jitGiven[l.appID]; given && h.faults.Has("jit-token-cached") {
		tok = old
	} else {
		h.jitGiven[l.appID] = tok
	}
	// fault: jit-token-in-app-config — the host keeps the token it handed out in the app's user overlay (its config), where the app reads it back.
	if h.faults.Has("jit-token-in-app-config") {
		v, _ := json.Marshal(tok)
		slot := overlaySlot{scope: "user", key: "cloud-session"}
		if h.overlays[l.appID] == nil {
			h.overlays[l.appID] = map[overlaySlot]overlaySet{}
		}
		h.overlays[l.appID][slot] = overlaySet{values: map[string]json.RawMessage{"cloudSessionToken": v}}
	}
	h.mu.Unlock()
	// variant: jit-token-bare — the just-in-time token is answered as the bare string, not an object naming it.
	if h.variants.Has("jit-token-bare") {
		return tok, nil
	}
	return map[string]any{"accessToken": tok, "tokenType": "Bearer"}, nil
}

// givenToken is the token handed to the app l runs as a just-in-time token,
// which only a host under jit-token-in-snapshot-after shows again.
func (h *Host) givenToken(appID string) string {
	// fault: jit-token-in-snapshot-after — once the app fetched a just-in-time token, the host keeps it with the app's session and getSnapshot carries it.
	if !h.faults.Has("jit-token-in-snapshot-after") {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.jitGiven[appID]
}

// requestLogin answers lime.cloudSession requestLogin: it refreshes the
// host's generic session and nothing else (spec 000, Capability SDK: "hosts
// must only refresh the generic session ... and must not proxy the app's
// business operation"). mockhost's session is host/configure's, so the
// refresh finds it as it is.
func (h *Host) requestLogin(args json.RawMessage) (any, *denial) {
	var a struct {
		Force bool `json:"force"`
	}
	if len(args) > 0 && string(args) != "null" && !decodePayload(args, &a) {
		return nil, invalidArgs("requestLogin takes {force?: boolean}.")
	}
	// fault: forced-login-refused — requestLogin with force: true is refused: an app whose token was rejected cannot get a fresh session.
	if a.Force && h.faults.Has("forced-login-refused") {
		return nil, &denial{protocol.GateValidation, hostbridge.CodeUnsupported, "A forced login is not supported."}
	}
	s := h.cloudSession()
	out := map[string]any{"signedIn": s.SignedIn, "refreshed": a.Force}
	// fault: request-login-answers-token — a forced login answers the refreshed session with its bearer token, so the app need not ask for one.
	if cfg, _ := h.config(); a.Force && h.faults.Has("request-login-answers-token") {
		out["session"] = map[string]any{"tenantId": s.TenantID, "accessToken": cfg.SessionTokens[cloudSessionName]}
	}
	return out, nil
}
