package mockhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// hostMessage is a host -> app message (spec 000, Host Bridge v1, standard
// message envelope). Version is a number (1); it is typed any only so the
// version-as-string fault can break it.
type hostMessage struct {
	Protocol  string `json:"protocol"`
	Version   any    `json:"version"`
	Type      string `json:"type"`
	RequestID string `json:"requestId,omitempty"`
	AppID     string `json:"appId"`
	EntryKey  string `json:"entryKey"`
	Payload   any    `json:"payload,omitempty"`
	// Code and Message carry a host:error's code and message on the
	// envelope (only under the errors-on-envelope variant).
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Reload, pushed to the host page alone, has it load the app's frame
	// at this address (variant locale-reloads-frame); such a message is
	// never posted to the frame.
	Reload string `json:"reload,omitempty"`
}

// pageAnswer is what the host page does with a message it forwarded: post
// each message to the frame, and show the toast if there is one.
type pageAnswer struct {
	Post  []hostMessage `json:"post"`
	Toast *toast        `json:"toast,omitempty"`
	// Reload, when set, is the address the page loads in the app frame
	// once it posted the messages (a navigation that reloads the frame).
	Reload string `json:"reload,omitempty"`
	// Log, when set, is written to the browser console (a fault only).
	Log string `json:"log,omitempty"`
}

// toast is a host notification the page shows as text.
type toast struct {
	Message string `json:"message"`
	Level   string `json:"level"`
	// HTML has the page insert the message as markup (a fault only).
	HTML bool `json:"html,omitempty"`
}

// maxToastRunes caps a toast's text, maxRequestID a requestId.
const (
	maxToastRunes = 300
	maxRequestID  = 200
)

// appMessage is an app -> host message whose envelope passed.
type appMessage struct {
	Type      string
	RequestID string
	EntryKey  string // the entry the envelope names (the host's record of the surface decides)
	Payload   json.RawMessage
}

// message builds a host -> app message of surface l.
func (h *Host) message(l *launch, typ, requestID string, payload any) hostMessage {
	// fault: requestid-clipped — a requestId comes back cut to 64 bytes, the width of a bridge log's id column: a longer one matches no request of the app.
	if len(requestID) > 64 && h.faults.Has("requestid-clipped") {
		requestID = requestID[:64]
	}
	m := hostMessage{Protocol: hostbridge.Protocol, Version: hostbridge.Version, Type: typ,
		RequestID: requestID, AppID: l.appID, EntryKey: l.entryKey, Payload: payload}
	// fault: version-as-string — host messages carry version "1", a string.
	if h.faults.Has("version-as-string") {
		m.Version = "1"
	}
	// variant: errors-on-envelope — host:error carries its code and message on the envelope, with no payload.
	if ep, ok := payload.(hostbridge.ErrorPayload); ok && typ == hostbridge.TypeError && h.variants.Has("errors-on-envelope") {
		m.Code, m.Message, m.Payload = ep.Code, ep.Message, nil
	}
	// fault: response-without-requestid — host:response and host:error carry no requestId.
	if (typ == hostbridge.TypeResponse || typ == hostbridge.TypeError) && h.faults.Has("response-without-requestid") {
		m.RequestID = ""
	}
	// fault: requestid-answer-by-prefix — an answer is matched to the earlier request whose requestId its own begins with (taken for a retry suffix) and carries that id.
	if (typ == hostbridge.TypeResponse || typ == hostbridge.TypeError) && requestID != "" && h.faults.Has("requestid-answer-by-prefix") {
		for _, c := range h.surf.observe(l.appID).Calls {
			if c.RequestID != "" && c.RequestID != requestID && strings.HasPrefix(requestID, c.RequestID) {
				m.RequestID = c.RequestID
				break
			}
		}
	}
	return m
}

// answer is a page answer posting msgs.
func answer(msgs ...hostMessage) pageAnswer { return pageAnswer{Post: msgs} }

// bridge decides one message the host page accepted from the app frame
// (the page has checked event.source and event.origin): the envelope
// first, then the request (spec 000, Host Bridge v1: "The host remains the
// only decision maker").
func (h *Host) bridge(l *launch, body []byte) pageAnswer {
	// fault: frame-bare-facts-relayed — a bare task event envelope the app's frame posts for its running task is projected to the app as the task's fact.
	if h.faults.Has("frame-bare-facts-relayed") {
		if e, ok := postedTaskFact(body); ok {
			h.frameFact(l, e, true)
		}
	}
	m, reason, why := h.envelope(l, body)
	if reason != "" {
		h.surf.reject(l.appID, protocol.RejectedMessage{Type: clip(m.Type, 200), Reason: reason})
		// fault: silent-on-invalid — an invalid request from the app frame is dropped without a host:error.
		if h.faults.Has("silent-on-invalid") {
			return pageAnswer{}
		}
		return answer(h.message(l, hostbridge.TypeError, m.RequestID,
			hostbridge.ErrorPayload{Code: hostbridge.CodeInvalidRequest, Message: "The host did not accept this request: " + why + "."}))
	}
	// fault: bridge-acts-as-message-appid — a message naming another installed app's appId is run as that app's: in its storage, recorded under it.
	if h.faults.Has("bridge-acts-as-message-appid") {
		var f struct {
			AppID string `json:"appId"`
		}
		if json.Unmarshal(body, &f) == nil && f.AppID != l.appID && h.isInstalled(f.AppID) {
			l = l.actingAs(f.AppID)
		}
	}
	switch m.Type {
	case hostbridge.TypeReady, hostbridge.TypeGetSnapshot:
		// fault: no-snapshot-on-get — host:getSnapshot is ignored; only app:ready gets a snapshot.
		if m.Type == hostbridge.TypeGetSnapshot && h.faults.Has("no-snapshot-on-get") {
			return pageAnswer{}
		}
		// fault: snapshot-on-timer — app:ready and host:getSnapshot go unanswered; a snapshot without requestId is pushed every 250 ms instead (pushSnapshots).
		if h.faults.Has("snapshot-on-timer") {
			return pageAnswer{}
		}
		h.surf.record(l.appID, protocol.BridgeCall{Type: m.Type, RequestID: m.RequestID, Decision: protocol.DecisionAllowed})
		// fault: snapshot-of-envelope-entry — the snapshot describes the entry the message's envelope names, when the app has it, not the entry the host mounted (held-out m08).
		if m.EntryKey != "" && m.EntryKey != l.entryKey && l.hasEntry(m.EntryKey) && h.faults.Has("snapshot-of-envelope-entry") {
			shown := l.actingAs(l.appID)
			shown.entryKey, shown.route = m.EntryKey, l.routeOf(m.EntryKey)
			l = shown
		}
		return answer(h.message(l, hostbridge.TypeSnapshot, m.RequestID, h.snapshotAnswer(l)))
	case hostbridge.TypeInvoke:
		return h.invoke(l, m)
	case hostbridge.TypeNavigate:
		return h.bridgeNavigate(l, m)
	case hostbridge.TypeToast:
		return h.bridgeToast(l, m)
	case hostbridge.TypeOpenExternal:
		return h.bridgeOpenExternal(l, m)
	case hostbridge.TypeDownload:
		return h.bridgeDownload(l, m)
	case hostbridge.TypeEvent:
		// A task fact is the App Server's to give, never the app's: the
		// host takes nothing of it and refuses it (frameFact).
		if e, ok := postedTaskFact(m.Payload); ok {
			// fault: frame-facts-relayed — a host:event the app's frame posts for its running task is projected to the app as the task's fact.
			h.frameFact(l, e, h.faults.Has("frame-facts-relayed"))
		}
	}
	return h.deny(l, m, protocol.BridgeCall{Gate: protocol.GateValidation}, hostbridge.CodeInvalidRequest,
		fmt.Sprintf("The host does not know the request %q.", clip(m.Type, 100)))
}

// envelope checks an app message (spec 001, UI runtime: "message protocol
// and version must match"; spec 000, Host Bridge v1, envelope): a JSON
// object with a type, the bridge protocol, version 1 (a number), the
// launched app's appId, and a non-empty string requestId on every request
// but app:ready. It returns the rejection reason and why ("" when valid);
// the message keeps what could be read, for the error answer.
func (h *Host) envelope(l *launch, body []byte) (m appMessage, reason, why string) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(body, &f); err != nil || f == nil {
		return m, protocol.RejectMalformed, "the message is not an object"
	}
	m.Payload = f["payload"]
	rid, ridIsString := jsonString(f["requestId"])
	ridIsString = ridIsString && len(rid) <= maxRequestID
	if ridIsString {
		m.RequestID = rid
	}
	typ, _ := jsonString(f["type"])
	m.Type = typ
	m.EntryKey, _ = jsonString(f["entryKey"])
	if typ == "" {
		return m, protocol.RejectMalformed, "the message has no type"
	}
	// fault: bridge-ignores-version — the protocol and version of app messages are not checked.
	if !h.faults.Has("bridge-ignores-version") {
		p, _ := jsonString(f["protocol"])
		// fault: bridge-protocol-by-prefix — the envelope's protocol is matched by prefix: any name beginning with the bridge's is taken.
		if p != hostbridge.Protocol && !(h.faults.Has("bridge-protocol-by-prefix") && strings.HasPrefix(p, hostbridge.Protocol)) {
			return m, protocol.RejectProtocol, fmt.Sprintf("its protocol is not %q", hostbridge.Protocol)
		}
		version := f["version"]
		// fault: bridge-version-string-accepted — the envelope's version is read loosely: "1", a string, passes as version 1.
		if h.faults.Has("bridge-version-string-accepted") {
			version = bytes.Trim(bytes.TrimSpace(version), `"`)
		}
		if !isNumberOne(version) {
			return m, protocol.RejectVersion, "its version is not the number 1"
		}
	}
	// fault: bridge-ignores-appid — the envelope's appId is not compared with the launched app.
	appID, _ := jsonString(f["appId"])
	// fault: bridge-appid-case-folded — the envelope's appId is compared with the launched app case-insensitively: TINY-APP from tiny-app's frame is run as tiny-app's.
	sameApp := appID == l.appID || (h.faults.Has("bridge-appid-case-folded") && strings.EqualFold(appID, l.appID))
	// fault: handshake-appid-unchecked — app:ready and host:getSnapshot are answered whatever appId their envelope names.
	handshake := h.faults.Has("handshake-appid-unchecked") && (typ == hostbridge.TypeReady || typ == hostbridge.TypeGetSnapshot)
	if !sameApp && !handshake && !h.faults.Has("bridge-ignores-appid") && !h.faults.Has("bridge-acts-as-message-appid") {
		return m, protocol.RejectAppID, "its appId is not the app this surface runs"
	}
	hasRID := len(f["requestId"]) > 0 && string(f["requestId"]) != "null"
	if hasRID && !ridIsString || typ != hostbridge.TypeReady && m.RequestID == "" {
		return m, protocol.RejectMalformed, fmt.Sprintf("a request needs a requestId: a string of 1 to %d bytes", maxRequestID)
	}
	return m, "", ""
}

// jsonString reads a JSON string (false when raw is not one).
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// isNumberOne reports whether raw is the JSON number 1 (not "1").
func isNumberOne(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	var n float64
	return len(raw) > 0 && raw[0] != '"' && json.Unmarshal(raw, &n) == nil && n == 1
}

// deny answers a request with host:error and records the denial (spec 001,
// UI runtime: "Blocked calls return host:error").
func (h *Host) deny(l *launch, m appMessage, c protocol.BridgeCall, code, msg string) pageAnswer {
	c.Type, c.RequestID, c.Decision, c.Code = m.Type, m.RequestID, protocol.DecisionDenied, code
	h.surf.record(l.appID, c)
	return answer(h.message(l, hostbridge.TypeError, m.RequestID, hostbridge.ErrorPayload{Code: code, Message: msg}))
}

// allow answers a request with host:response and records it.
func (h *Host) allow(l *launch, m appMessage, c protocol.BridgeCall, result any) pageAnswer {
	c.Type, c.RequestID, c.Decision = m.Type, m.RequestID, protocol.DecisionAllowed
	h.surf.record(l.appID, c)
	return answer(h.message(l, hostbridge.TypeResponse, m.RequestID, result))
}

// refuse is deny at the validation gate.
func (h *Host) refuse(l *launch, m appMessage, code, msg string) pageAnswer {
	return h.deny(l, m, protocol.BridgeCall{Gate: protocol.GateValidation}, code, msg)
}

// refuseURL refuses host:openExternal or host:download of a URL its checks
// do not allow, at the validation gate.
func (h *Host) refuseURL(l *launch, m appMessage, msg string) pageAnswer {
	// fault: refused-url-still-carried-out — a URL the checks refuse is opened or downloaded all the same (recorded allowed); only the answer says host:error.
	if h.faults.Has("refused-url-still-carried-out") {
		h.surf.record(l.appID, protocol.BridgeCall{Type: m.Type, RequestID: m.RequestID, Decision: protocol.DecisionAllowed})
		return answer(h.message(l, hostbridge.TypeError, m.RequestID, hostbridge.ErrorPayload{Code: hostbridge.CodeURLRefused, Message: msg}))
	}
	return h.refuse(l, m, hostbridge.CodeURLRefused, msg)
}

// decodePayload decodes an object payload into v.
func decodePayload(raw json.RawMessage, v any) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, v) == nil
}

// bridgeNavigate answers host:navigate: to an entry of this app or an app-local
// route, nothing else (spec 000, Host Bridge v1: "navigation to an Agent
// App entry or app-local route").
func (h *Host) bridgeNavigate(l *launch, m appMessage) pageAnswer {
	var p struct {
		EntryKey string `json:"entryKey"`
		Route    string `json:"route"`
	}
	if !decodePayload(m.Payload, &p) || p.EntryKey == "" && p.Route == "" {
		return h.refuse(l, m, hostbridge.CodeInvalidRequest, "Navigation needs an entry of this app or an app-local route.")
	}
	// fault: navigate-anywhere — host:navigate accepts any entry key and any route, URLs of other origins and schemes too.
	if h.faults.Has("navigate-anywhere") {
		return h.allow(l, m, protocol.BridgeCall{}, map[string]any{"ok": true})
	}
	if p.EntryKey != "" && !l.hasEntry(p.EntryKey) {
		return h.refuse(l, m, hostbridge.CodeInvalidRequest, fmt.Sprintf("This app has no entry %q.", clip(p.EntryKey, 100)))
	}
	local := appLocalRoute(p.Route)
	// fault: navigate-backslash-route — a route's backslashes are not looked at: "/\evil.example/x" passes as app-local.
	if !local && h.faults.Has("navigate-backslash-route") {
		local = appLocalRoute(strings.ReplaceAll(p.Route, "\\", "_"))
	}
	// fault: navigate-route-controls-kept — a route's tabs and newlines are not looked at: "/\t/evil.example/x" passes as app-local.
	if !local && h.faults.Has("navigate-route-controls-kept") {
		local = appLocalRoute(strings.NewReplacer("\t", "_", "\n", "_", "\r", "_").Replace(p.Route))
	}
	// fault: navigate-route-unchecked-with-entry — with an entry of the app named, the route is taken as that entry's own, unchecked.
	if p.Route != "" && !local && !(p.EntryKey != "" && h.faults.Has("navigate-route-unchecked-with-entry")) {
		return h.refuse(l, m, hostbridge.CodeInvalidRequest, "A route must be a path of this app, starting with one /.")
	}
	a := h.allow(l, m, protocol.BridgeCall{}, map[string]any{"ok": true})
	// variant: navigate-reloads-frame — after answering, the host page loads the entry or route in the app frame: a new document.
	if h.variants.Has("navigate-reloads-frame") {
		a.Reload = l.frameURL() + "?route=" + url.QueryEscape(firstNonEmptyString(p.Route, l.routeOf(p.EntryKey)))
	}
	return a
}

// bridgeToast answers host:toast: the page shows the message as text, cut to
// maxToastRunes (spec 000, Host Bridge v1: "a non-technical host
// notification").
func (h *Host) bridgeToast(l *launch, m appMessage) pageAnswer {
	var p struct {
		Message string `json:"message"`
		Level   string `json:"level"`
	}
	if !decodePayload(m.Payload, &p) || strings.TrimSpace(p.Message) == "" {
		return h.refuse(l, m, hostbridge.CodeInvalidRequest, "A toast needs a message.")
	}
	switch p.Level {
	case "info", "success", "warning", "error":
	default:
		p.Level = "info"
	}
	a := h.allow(l, m, protocol.BridgeCall{}, map[string]any{"ok": true})
	a.Toast = &toast{Message: clip(p.Message, maxToastRunes), Level: p.Level}
	// fault: toast-error-level-html — an error-level toast is shown as markup (innerHTML); the other levels stay text.
	a.Toast.HTML = p.Level == "error" && h.faults.Has("toast-error-level-html")
	return a
}

// bridgeOpenExternal answers host:openExternal: only http(s) URLs at an origin
// the manifest names (spec 000, Host Bridge v1: "the host must validate
// protocol and origin"). mockhost never opens anything.
func (h *Host) bridgeOpenExternal(l *launch, m appMessage) pageAnswer {
	var p struct {
		URL string `json:"url"`
	}
	ok := decodePayload(m.Payload, &p)
	origin, web := webOrigin(p.URL)
	allowed := ok && web && l.declaresOrigin(origin)
	// fault: open-external-scheme-blocklist — schemes are checked against a list of bad ones (javascript:, file:, data:, as spelled), not allowed ones: any other scheme, or one in capitals, is opened.
	if ok && !web && strings.TrimSpace(p.URL) != "" && h.faults.Has("open-external-scheme-blocklist") {
		allowed = !slices.ContainsFunc([]string{"javascript:", "file:", "data:"}, func(bad string) bool { return strings.HasPrefix(strings.TrimSpace(p.URL), bad) })
	}
	// fault: open-external-suffix-origin — a declared site covers every host that ends with its name, no dot boundary: https://evilprobe.example.org passes for https://probe.example.org.
	if ok && web && !allowed && h.faults.Has("open-external-suffix-origin") {
		allowed = l.declaresOriginSuffix(origin)
	}
	// fault: open-external-any-url — any URL is opened (javascript:, file:, data:, other origins).
	if !allowed && !h.faults.Has("open-external-any-url") {
		return h.refuseURL(l, m, "The host opens only http(s) links to sites this app declares.")
	}
	if h.refusesUnpermitted(l, false, p.URL) {
		return h.deny(l, m, protocol.BridgeCall{Gate: protocol.GatePolicy}, hostbridge.CodePolicyDenied, "This app has no network permission for that site.")
	}
	if u, err := url.Parse(p.URL); err == nil {
		if d := h.openExternalPermission(l, u.Hostname()); d != nil {
			return h.deny(l, m, protocol.BridgeCall{Gate: d.gate}, d.code, d.message)
		}
	}
	return h.allow(l, m, protocol.BridgeCall{}, map[string]any{"ok": true})
}

// bridgeDownload answers host:download: only a file of this launch's own UI
// folder, at the runtime origin (spec 000, Host Bridge v1: "a same-origin
// runtime artifact; the host must validate URL and permission").
func (h *Host) bridgeDownload(l *launch, m appMessage) pageAnswer {
	var p struct {
		URL string `json:"url"`
	}
	ok := decodePayload(m.Payload, &p)
	file, inUI := l.runtimeFile(p.URL)
	// fault: download-checks-origin-only — any URL at the runtime origin is downloaded, outside this launch's own files too (another app's folder, the origin's root).
	if u, err := url.Parse(p.URL); ok && !inUI && err == nil && u.User == nil && u.Scheme+"://"+u.Host == l.frameOrigin && h.faults.Has("download-checks-origin-only") {
		file, inUI = u.Path, true
	}
	// fault: download-any-url — any URL is downloaded.
	if !(ok && inUI) && !h.faults.Has("download-any-url") {
		return h.refuseURL(l, m, "The host downloads only files of this app, from its own origin.")
	}
	if h.refusesUnpermitted(l, true, p.URL) {
		return h.deny(l, m, protocol.BridgeCall{Gate: protocol.GatePolicy}, hostbridge.CodePolicyDenied, "This app has no permission to save files.")
	}
	if d := h.downloadPermission(l); d != nil {
		return h.deny(l, m, protocol.BridgeCall{Gate: d.gate}, d.code, d.message)
	}
	return h.allow(l, m, protocol.BridgeCall{}, map[string]any{"ok": true, "file": file})
}

// routeOf is the route of entry key of the launched app.
func (l *launch) routeOf(key string) string { return firstNonEmptyString(l.routes[key], "/") }

// hasEntry reports whether the launched app has an entry key.
func (l *launch) hasEntry(key string) bool { return slices.Contains(l.entries, key) }

// declaresOrigin reports whether the manifest names a URL at origin.
func (l *launch) declaresOrigin(origin string) bool { return slices.Contains(l.origins, origin) }

// declaresOriginSuffix reports whether origin has the scheme of a declared
// origin and ends with its host: the look-alike match of a host that takes
// a declared site to cover its subdomains without a dot boundary.
func (l *launch) declaresOriginSuffix(origin string) bool {
	for _, o := range l.origins {
		scheme, host, _ := strings.Cut(o, "://")
		if strings.HasPrefix(origin, scheme+"://") && strings.HasSuffix(origin, host) {
			return true
		}
	}
	return false
}

// runtimeFile resolves a download URL (relative ones against the entry
// file's URL) and returns the UI file it names: true only for a file that
// exists under this launch's /app/<frameToken>/ at the runtime origin.
func (l *launch) runtimeFile(raw string) (string, bool) {
	base, err := url.Parse(l.frameURL())
	if err != nil || strings.TrimSpace(raw) == "" {
		return "", false
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	u := base.ResolveReference(ref)
	if u.Scheme+"://"+u.Host != l.frameOrigin || u.User != nil {
		return "", false
	}
	rel, ok := strings.CutPrefix(u.Path, "/app/"+l.frameToken+"/")
	if !ok || rel == "" {
		return "", false
	}
	f, err := l.ui.open(rel)
	if err != nil {
		return "", false
	}
	_ = f.Close()
	return rel, true
}

// pushSnapshots pushes a snapshot of l every 250 ms until it closes (only
// under the snapshot-on-timer fault).
func (h *Host) pushSnapshots(l *launch) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
			l.push(h.message(l, hostbridge.TypeSnapshot, "", h.snapshotAnswer(l)))
		}
	}
}
