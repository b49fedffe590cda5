package mockhost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Overlays: the tenant, user and workspace values an app's overlayTemplates
// let them set (spec 000, Overlay package). They are host state of the app,
// kept apart from its package: an update or a rollback keeps them (spec
// 003, What must not be overwritten: "tenant overlays, user overrides"),
// and they never touch the installed package ("Overlays must not modify the
// official package hash").

// overlaySlot names one overlay: an overlayTemplate key and its scope.
type overlaySlot struct{ scope, key string }

// overlaySet is what was set for one slot, and when (a counter).
type overlaySet struct {
	values map[string]json.RawMessage
	seq    int
}

// overlayRank orders the scopes by spec 000's Overlay precedence,
// "Workspace Override > User Overlay > Tenant Overlay > App Default > Host
// Default": the higher rank wins. A customer overlay ranks with the
// tenant's (the precedence does not name it).
func (h *Host) overlayRank(scope string) int {
	ranks := map[string]int{protocol.ScopeTenant: 1, "customer": 1, protocol.ScopeUser: 2, protocol.ScopeWorkspace: 3}
	// fault: overlay-user-over-workspace — a user overlay beats the workspace override.
	if h.faults.Has("overlay-user-over-workspace") {
		ranks[protocol.ScopeUser], ranks[protocol.ScopeWorkspace] = 3, 2
	}
	return ranks[scope]
}

// setOverlay answers app/overlay: the values of one of the app's
// overlayTemplates, of the template's own scope, replacing those set before.
func (h *Host) setOverlay(p protocol.OverlayParams) (protocol.OK, *jsonrpc2.Error) {
	pk, e := h.installedPackage(p.AppID)
	if e != nil {
		return protocol.OK{}, e
	}
	scope, declared := "", false
	if list, isList := pk.Manifest["overlayTemplates"].([]any); isList {
		for _, t := range list {
			m, _ := t.(map[string]any)
			key := stringField(m, "key")
			// fault: overlay-key-case-folded — app/overlay finds the template by a case-insensitive key, and keeps the overlay under the caller's spelling.
			if key == p.Key || (h.faults.Has("overlay-key-case-folded") && strings.EqualFold(key, p.Key)) {
				scope, declared = stringField(m, "scope"), true
				break
			}
		}
	}
	if !declared {
		return protocol.OK{}, invalidParams(protocol.MethodOverlay, "key", fmt.Sprintf("names no overlayTemplate of app %q: %q", p.AppID, p.Key))
	}
	if scope != p.Scope {
		return protocol.OK{}, invalidParams(protocol.MethodOverlay, "scope", fmt.Sprintf("is %q; the overlayTemplate %q is of scope %q", p.Scope, p.Key, scope))
	}
	// fault: overlay-written-into-package — the overlay is saved into the installed package, next to its APP.md, which changes the package's hash.
	if h.faults.Has("overlay-written-into-package") {
		b, _ := json.Marshal(p.Values)
		_ = os.WriteFile(filepath.Join(pk.Dir, "overlay."+p.Scope+"."+p.Key+".json"), b, 0o644)
	}
	// fault: overlay-empty-values-kept — values {} is taken as nothing to set: the overlay set before stays in effect instead of being cleared.
	if len(p.Values) == 0 && h.faults.Has("overlay-empty-values-kept") {
		return protocol.OK{OK: true}, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.overlays[p.AppID] == nil {
		h.overlays[p.AppID] = map[overlaySlot]overlaySet{}
	}
	h.overlaySeq++
	h.overlays[p.AppID][overlaySlot{p.Scope, p.Key}] = overlaySet{values: p.Values, seq: h.overlaySeq}
	return protocol.OK{OK: true}, nil
}

// effectiveOverlay is the value in effect for each name the app's overlays
// set: the one of the highest-ranked scope, the later set among equals.
func (h *Host) effectiveOverlay(appID string) map[string]protocol.OverlayValue {
	h.mu.Lock()
	defer h.mu.Unlock()
	type pick struct {
		v         protocol.OverlayValue
		rank, seq int
	}
	won := map[string]pick{}
	for slot, set := range h.overlays[appID] {
		rank := h.overlayRank(slot.scope)
		// fault: overlay-last-write-wins — the value set last is in effect, whatever its scope.
		if h.faults.Has("overlay-last-write-wins") {
			rank = 0
		}
		for name, v := range set.values {
			cur, seen := won[name]
			if !seen || rank > cur.rank || (rank == cur.rank && set.seq > cur.seq) {
				won[name] = pick{protocol.OverlayValue{Value: v, Scope: slot.scope}, rank, set.seq}
			}
		}
	}
	if len(won) == 0 {
		return nil
	}
	out := make(map[string]protocol.OverlayValue, len(won))
	for name, p := range won {
		out[name] = p.v
	}
	return out
}

// overlayList is the list of strings the overlay in effect for appID sets
// under name (read only by the faults that let an overlay lift a gate).
func (h *Host) overlayList(appID, name string) []string {
	v, ok := h.effectiveOverlay(appID)[name]
	if !ok {
		return nil
	}
	var keys []string
	_ = json.Unmarshal(v.Value, &keys)
	return keys
}

// overlaySkipsReadiness reports whether the overlay in effect for appID
// sets skipReadiness true (read only by the overlay-skips-readiness fault).
func (h *Host) overlaySkipsReadiness(appID string) bool {
	v, ok := h.effectiveOverlay(appID)["skipReadiness"]
	var skip bool
	return ok && json.Unmarshal(v.Value, &skip) == nil && skip
}
