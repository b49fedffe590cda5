package mockhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Limits of lime.storage keys and values.
const (
	maxStorageKey   = 256
	maxStorageValue = 64 << 10
)

// denial is why a gate stopped a call.
type denial struct {
	gate, code, message string
}

// invoke answers capability:invoke (spec 001, UI runtime: "capability:invoke
// is only a transport envelope ... calls must still pass readiness,
// permission, policy, allowlists ... Blocked calls return host:error; mock
// results must not masquerade as success"). The gates run in order
// (allowlist, readiness, policy, approval); a call that passes them all is
// executed by the host.
func (h *Host) invoke(l *launch, m appMessage) pageAnswer {
	var in hostbridge.Invoke
	if !decodePayload(m.Payload, &in) || in.Capability == "" || in.Method == "" {
		return h.refuse(l, m, hostbridge.CodeInvalidRequest, "A capability call needs a capability and a method.")
	}
	c := protocol.BridgeCall{Capability: clip(in.Capability, 100), Method: clip(in.Method, 100)}
	gl := l
	// fault: call-gate-reads-envelope-entry — a call's gates judge the entry its envelope names when the app has that entry, not the entry the surface runs: the frame of an entry policy denies calls by naming another (held-out l08).
	if m.EntryKey != "" && m.EntryKey != l.entryKey && l.hasEntry(m.EntryKey) && h.faults.Has("call-gate-reads-envelope-entry") {
		gl = l.actingAs(l.appID)
		gl.entryKey = m.EntryKey
	}
	d := h.gates(gl, in.Capability, in.Method)
	// fault: capability-name-trimmed-after-policy — a padded capability name is trimmed for the allowlist, readiness and the call, but policy compares it as sent: " lime.storage" runs though policy denies lime.storage.
	if name := strings.TrimSpace(in.Capability); name != in.Capability && h.faults.Has("capability-name-trimmed-after-policy") {
		in.Capability = name
		if d = h.gates(l, name, in.Method); d != nil && (d.gate == protocol.GatePolicy || d.gate == protocol.GateApproval) {
			d = nil
		}
	}
	if d != nil {
		// fault: invoke-unready-mock-success — a call the readiness gate stops is answered host:response {ok: true, mock: true}.
		if d.gate == protocol.GateReadiness && h.faults.Has("invoke-unready-mock-success") {
			return h.allow(l, m, c, map[string]any{"ok": true, "mock": true})
		}
		// fault: storage-write-lands-when-permission-denied — a lime.storage set the permission gate stops is answered host:error, but its write-behind path stores the value all the same.
		if d.gate == protocol.GatePermission && in.Capability+"."+in.Method == "lime.storage.set" && h.faults.Has("storage-write-lands-when-permission-denied") {
			_, _ = h.storageSet(l, in.Args)
		}
		c.Gate = d.gate
		return h.deny(l, m, c, d.code, d.message)
	}
	result, d := h.execute(l, m, in)
	if d != nil {
		c.Gate = d.gate
		return h.deny(l, m, c, d.code, d.message)
	}
	a := h.allow(l, m, c, result)
	// fault: host-page-logs-secret — debug logging left on: the host page writes each configured lime.secrets status it forwards to the browser console with the value it resolved; the frame's answer is clean.
	if r, ok := result.(map[string]any); ok && in.Capability == "lime.secrets" && r["configured"] == true && h.faults.Has("host-page-logs-secret") {
		cfg, _ := h.config()
		key, _ := r["key"].(string)
		a.Log = fmt.Sprintf("host bridge: lime.secrets %s resolved to %s", key, cfg.Secrets[key])
	}
	return a
}

// gates returns the first gate that stops a call to capability's method,
// or nil. They run in spec 000's permission order ("app manifest allowlist
// -> readiness -> tenant / workspace policy -> deny rules -> risk policy ->
// runtime approval"): an ungranted permission is a deny rule, a capability
// policy marks as needing approval waits for runtime approval.
func (h *Host) gates(l *launch, capability, method string) *denial {
	// fault: invoke-policy-first — tenant policy is checked before the allowlist and readiness: a call policy denies is refused at the policy gate whatever stops it earlier.
	if h.faults.Has("invoke-policy-first") {
		if cfg, _ := h.config(); cfg.Policy != nil && slices.Contains(cfg.Policy.DeniedCapabilities, capability) {
			return policyDenial(capability)
		}
	}
	// fault: invoke-undeclared — the allowlist gate is skipped: undeclared capabilities are callable.
	if !slices.Contains(l.declared, capability) && !h.faults.Has("invoke-undeclared") {
		return &denial{protocol.GateAllowlist, hostbridge.CodeNotDeclared,
			fmt.Sprintf("This app does not declare %s, so it cannot use it.", capability)}
	}
	if why := h.unavailable(l, capability); why != "" {
		return &denial{protocol.GateReadiness, hostbridge.CodeNotReady, why}
	}
	var p protocol.Policy
	if cfg, _ := h.config(); cfg.Policy != nil {
		p = *cfg.Policy
	}
	approval := slices.Contains(p.ApprovalRequired, capability) && !h.faults.Has("invoke-ignores-approval")
	// fault: approval-last-member-only — only the last capability of policy.approvalRequired needs approval.
	if n := len(p.ApprovalRequired); n > 0 && h.faults.Has("approval-last-member-only") {
		approval = p.ApprovalRequired[n-1] == capability
	}
	// fault: invoke-approval-before-policy — the approval gate runs before tenant policy: a call both need is refused as waiting for approval.
	if approval && h.faults.Has("invoke-approval-before-policy") {
		return approvalDenial(capability)
	}
	permission := h.capabilityPermission(l, capability, method)
	// fault: invoke-ignores-policy — policy.deniedCapabilities is not applied to calls.
	denied := slices.Contains(p.DeniedCapabilities, capability) && !h.faults.Has("invoke-ignores-policy")
	// fault: policy-capability-lowercased — the called capability's name is lowercased before policy.deniedCapabilities is read: lime.cloudSession is never denied.
	if h.faults.Has("policy-capability-lowercased") {
		denied = slices.Contains(p.DeniedCapabilities, strings.ToLower(capability))
	}
	// fault: grant-overrides-policy-deny — a permission the user granted for the call lets it pass tenant policy's deny (allow beats deny).
	if denied && permission == nil && h.grantedFor(l, capability, method) && h.faults.Has("grant-overrides-policy-deny") {
		denied = false
	}
	if denied {
		return policyDenial(capability)
	}
	// fault: invoke-approval-before-permission — the approval gate runs before the grants: a call whose permission is not granted and that needs approval is refused as waiting for approval.
	if approval && h.faults.Has("invoke-approval-before-permission") {
		return approvalDenial(capability)
	}
	if permission != nil {
		return permission
	}
	// fault: invoke-ignores-approval — capabilities that need the user's approval run without it.
	if approval {
		return approvalDenial(capability)
	}
	return nil
}

// approvalDenial is the runtime approval gate's answer: mockhost has no
// user to ask.
func approvalDenial(capability string) *denial {
	return &denial{protocol.GateApproval, hostbridge.CodeApprovalRequired,
		fmt.Sprintf("Using %s needs your approval, and nobody can give it here.", capability)}
}

// unavailable says why the readiness gate stops a call ("" when it does
// not): the capability is not enabled in the host profile, or the launched
// entry is no longer ready.
func (h *Host) unavailable(l *launch, capability string) string {
	if c, ok := h.profile()[capability]; !ok || !c.Enabled {
		return fmt.Sprintf("%s is not available on this host.", capability)
	}
	// fault: surface-readiness-cached-at-mount — an open surface's calls skip the readiness gate: the launch gate judged the entry when it mounted.
	if h.faults.Has("surface-readiness-cached-at-mount") {
		return ""
	}
	entry := l.entryKey
	// fault: call-gate-app-readiness — a call's readiness gate asks the app's readiness, not its entry's: an entry policy denies after launch still runs calls.
	if h.faults.Has("call-gate-app-readiness") {
		entry = ""
	}
	r, e := h.readiness(protocol.ReadinessParams{AppID: l.appID, Entry: entry})
	// fault: call-gate-readiness-error-passes — a readiness the gate cannot have (the app is no longer installed) is taken as no objection: a surface left open across an uninstall still runs its calls.
	if e != nil && h.faults.Has("call-gate-readiness-error-passes") {
		return ""
	}
	// fault: call-gate-passes-needs-setup — the call's readiness gate stops only blocked and disabled entries: an entry that fell to needs-setup after it mounted still runs its calls.
	if e == nil && r.Status == protocol.StatusNeedsSetup && h.faults.Has("call-gate-passes-needs-setup") {
		return ""
	}
	if e != nil || !r.OK {
		return "This part of the app is not ready to run."
	}
	return ""
}

// execute runs a call that passed the gates. mockhost implements a few
// capabilities in memory; any other capability or method is
// CodeUnsupported at the validation gate.
func (h *Host) execute(l *launch, m appMessage, in hostbridge.Invoke) (any, *denial) {
	switch in.Capability + "." + in.Method {
	case "lime.ui.getLocale":
		return h.getLocale(), nil
	case "lime.ui.getTheme":
		return h.theme(), nil
	case "lime.storage.set":
		return h.storageSet(l, in.Args)
	case "lime.storage.get":
		key, d := storageKey(in.Args)
		if d != nil {
			return nil, d
		}
		v, ok := h.surf.load(h.storageNamespace(l), key)
		if !ok {
			v = json.RawMessage("null")
		}
		return map[string]any{"key": key, "value": v}, nil
	case "lime.storage.list":
		// fault: storage-list-by-prefix — lime.storage list scans every bucket of the app whose name begins with the current one's: a workspace whose id begins with this one's shows its keys here.
		if h.faults.Has("storage-list-by-prefix") {
			ns, keys := h.storageNamespace(l), []string{}
			for b, m := range h.surf.storedBy(l.appID) {
				if strings.HasPrefix(b, ns) {
					keys = append(keys, slices.Collect(maps.Keys(m))...)
				}
			}
			return map[string]any{"keys": keys}, nil
		}
		// fault: storage-list-every-app — lime.storage list names the keys of every app.
		return map[string]any{"keys": h.surf.keys(h.storageNamespace(l), h.faults.Has("storage-list-every-app"))}, nil
	case "lime.cloudSession.getSnapshot":
		s := h.cloudSession()
		if t := h.givenToken(l.appID); t != "" {
			s.Token = t
		}
		return s, nil
	case "lime.cloudSession.requestLogin":
		return h.requestLogin(in.Args)
	case "lime.cloudSession.getAccessToken", "lime.cloudSession.getToken":
		// The token method is one of the two (variant
		// jit-token-named-get-token); the other is unknown, as below.
		// fault: jit-token-absent — lime.cloudSession has no just-in-time token: its token method is unsupported, as any unknown method.
		if in.Method == h.accessTokenMethod() && !h.faults.Has("jit-token-absent") {
			return h.accessToken(l)
		}
	case "lime.modelSettings.get":
		return h.modelSettingsGet()
	case "lime.modelSettings.set":
		return h.modelSettingsSet(in.Args)
	case "lime.branding.get":
		return h.brandingGet(l)
	case "lime.billing.getStatus":
		return h.billingStatus()
	case "lime.appUpdates.check":
		return h.appUpdatesCheck(l, in.Args)
	case "lime.secrets.status":
		return h.secretStatus(l, in.Args)
	case "lime.agent.startTask":
		return h.startTask(l, in.Args)
	case "lime.agent.cancelTask":
		return h.cancelTask(l, in.Args)
	case "lime.agent.respondApproval":
		return h.respondApproval(l, in.Args)
	case "lime.agent.listCapabilities":
		return h.listCapabilities(l)
	case "lime.workflow.start", "lime.workflow.read", "lime.workflow.respond", "lime.workflow.signal",
		"lime.workflow.interrupt", "lime.workflow.resume":
		return h.workflowCall(l, in.Method, in.Args)
	case "lime.artifacts.read":
		return h.readArtifact(l, in.Args)
	case "lime.evidence.export":
		return h.exportEvidence(l, in.Args)
	case "lime.evidence.record":
		var a struct {
			Subject json.RawMessage `json:"subject"`
			Version string          `json:"version"`
		}
		if !decodePayload(in.Args, &a) || len(a.Subject) == 0 || string(a.Subject) == "null" {
			return nil, invalidArgs("Evidence needs a subject.")
		}
		version := l.version
		// fault: evidence-version-from-app — an evidence record names the release the app's arguments claim (version), not the one that made it.
		if a.Version != "" && h.faults.Has("evidence-version-from-app") {
			version = a.Version
		}
		h.keepEvidence(l, protocol.EvidenceRecord{Kind: "app-record", Capability: in.Capability, RequestID: m.RequestID, AppID: l.appID, Version: version})
		return map[string]any{"ok": true}, nil
	}
	return nil, &denial{protocol.GateValidation, hostbridge.CodeUnsupported,
		fmt.Sprintf("This host cannot run %s.%s.", clip(in.Capability, 100), clip(in.Method, 100))}
}

func invalidArgs(msg string) *denial {
	return &denial{protocol.GateValidation, hostbridge.CodeInvalidRequest, msg}
}

// storageNamespace is where the app l runs keeps its lime.storage keys:
// its own namespace (spec 000, Storage and data boundary 1: "Apps can
// access only their namespace"), in the tenant and workspace the host runs
// in (spec 002: "Namespace app data ... by app, workspace, and tenant").
func (h *Host) storageNamespace(l *launch) string {
	// fault: storage-shared-namespace — every app's lime.storage keys live in one namespace.
	if h.faults.Has("storage-shared-namespace") {
		return "shared"
	}
	// fault: storage-ignores-workspace — an app's lime.storage keys are the same in every tenant and workspace.
	if h.faults.Has("storage-ignores-workspace") {
		return l.appID
	}
	cfg, _ := h.config()
	// fault: storage-scope-unescaped — the tenant and workspace ids are joined into the bucket as they are: tenant "T/x" with workspace "W" shares "T" with "x/W"'s keys.
	if h.faults.Has("storage-scope-unescaped") {
		return url.QueryEscape(l.appID) + "@" + cfg.TenantID + "/" + cfg.WorkspaceID
	}
	// fault: storage-bucket-by-declared-namespace — an app's lime.storage keys live under the storage namespace its manifest declares: two apps declaring one share their keys.
	if h.faults.Has("storage-bucket-by-declared-namespace") {
		if pk, err := h.installedPackage(l.appID); err == nil {
			return storageBucket(storageNamespace(pk, l.appID), cfg.TenantID, cfg.WorkspaceID)
		}
	}
	return storageBucket(l.appID, cfg.TenantID, cfg.WorkspaceID)
}

// storageKey reads args {key}: a non-empty string of at most maxStorageKey.
func storageKey(args json.RawMessage) (string, *denial) {
	var a struct {
		Key string `json:"key"`
	}
	if !decodePayload(args, &a) || a.Key == "" || len(a.Key) > maxStorageKey {
		return "", invalidArgs(fmt.Sprintf("Storage needs a key of 1 to %d bytes.", maxStorageKey))
	}
	return a.Key, nil
}

// storageSet stores args {key, value} in the app's own namespace.
func (h *Host) storageSet(l *launch, args json.RawMessage) (any, *denial) {
	key, d := storageKey(args)
	if d != nil {
		return nil, d
	}
	var a struct {
		Value json.RawMessage `json:"value"`
	}
	_ = json.Unmarshal(args, &a)
	v := bytes.TrimSpace(a.Value)
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	if len(v) > maxStorageValue {
		return nil, invalidArgs(fmt.Sprintf("A stored value may have at most %d bytes.", maxStorageValue))
	}
	if err := h.surf.store(h.storageNamespace(l), key, append(json.RawMessage{}, v...)); err != nil {
		return nil, invalidArgs("Storage is full: " + err.Error() + ".")
	}
	// fault: storage-answer-names-path — lime.storage set answers where the value lives on the host's disk.
	if h.faults.Has("storage-answer-names-path") {
		if root, err := h.dataRoot(); err == nil {
			return map[string]any{"ok": true, "location": filepath.Join(root, "apps", l.appID, "storage.json")}, nil
		}
	}
	return map[string]any{"ok": true}, nil
}

// secretStatus answers lime.secrets status {key}: whether the secret is
// configured, never its value (spec 002, Minimum host snapshot fields: a
// snapshot "must not contain plaintext secrets").
func (h *Host) secretStatus(l *launch, args json.RawMessage) (any, *denial) {
	var a struct {
		Key string `json:"key"`
	}
	if !decodePayload(args, &a) || strings.TrimSpace(a.Key) == "" {
		return nil, invalidArgs("A secret status needs a key.")
	}
	cfg, _ := h.config()
	value := cfg.Secrets[a.Key]
	h.mu.Lock()
	// fault: secret-status-ignores-binding — lime.secrets status reads host/configure's secrets only: a slot bound with app/secret is not configured.
	if bound := h.bindings[l.appID][a.Key]; bound != "" && !h.faults.Has("secret-status-ignores-binding") {
		value = bound
	}
	h.mu.Unlock()
	// fault: secret-status-cached-per-surface — lime.secrets status keeps its first answer for the life of the surface: a slot bound or configured later still reads as before.
	if h.faults.Has("secret-status-cached-per-surface") {
		l.mu.Lock()
		if first, seen := l.secretStatuses[a.Key]; seen {
			value = first
		} else {
			if l.secretStatuses == nil {
				l.secretStatuses = map[string]string{}
			}
			l.secretStatuses[a.Key] = value
		}
		l.mu.Unlock()
	}
	msg := fmt.Sprintf("The secret %q is not configured.", a.Key)
	if value != "" {
		msg = fmt.Sprintf("The secret %q is configured.", a.Key)
		// fault: error-echoes-secret — the answer about a configured secret quotes its value.
		if h.faults.Has("error-echoes-secret") {
			msg = fmt.Sprintf("The secret %q is configured (value %s).", a.Key, value)
		}
	}
	return map[string]any{"key": a.Key, "configured": value != "", "message": msg}, nil
}

// policyDenial is the refusal of a call to capability at the policy gate:
// tenant policy denies it.
func policyDenial(capability string) *denial {
	return &denial{protocol.GatePolicy, hostbridge.CodePolicyDenied,
		fmt.Sprintf("Your organisation's policy does not allow apps to use %s.", capability)}
}
