package mockhost

import (
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// disabledCheck is the readiness check a disabled app fails: spec 002,
// Readiness state rules, "disabled: An admin or policy hides the entry".
var disabledCheck = protocol.ReadinessCheck{Severity: agentpkg.SeverityError, Kind: "app_state", Key: "disabled", Blocking: true,
	Message: "An administrator disabled this app. Enable it to use it again; its data is kept."}

// setState answers app/disable and app/enable (spec 002, Cleanup: "Support
// disable, uninstall keep data, ..."): a disabled app keeps its package and
// its data, and none of its entries launches until it is enabled again.
func (h *Host) setState(appID string, disabled bool) (protocol.AppStateResult, *jsonrpc2.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.apps[appID]
	if !ok {
		return protocol.AppStateResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", appID), nil)
	}
	state := protocol.StateInstalled
	if disabled {
		state = protocol.StateDisabled
	}
	// fault: disable-drops-data — disabling an app deletes what it stored.
	if disabled && h.faults.Has("disable-drops-data") {
		h.surf.dropStorage(appID)
	}
	// fault: enable-stays-disabled — app/enable is acknowledged, but the app stays disabled.
	if !disabled && h.faults.Has("enable-stays-disabled") {
		return protocol.AppStateResult{OK: true, AppID: appID, State: state}, nil
	}
	a.row.State = state
	// fault: disable-affects-all — disabling one app disables every installed app.
	if disabled && h.faults.Has("disable-affects-all") {
		for _, other := range h.apps {
			other.row.State = state
		}
	}
	return protocol.AppStateResult{OK: true, AppID: appID, State: state}, nil
}

// isDisabled reports whether the installed app appID is disabled.
func (h *Host) isDisabled(appID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.apps[appID]
	return ok && a.row.State == protocol.StateDisabled
}

// markDisabled makes res the readiness of a disabled app: every entry is
// disabled, and the blocker names the app's state.
func markDisabled(res *protocol.ReadinessResult) {
	res.OK, res.Status = false, protocol.StatusDisabled
	res.Checks = append(res.Checks, disabledCheck)
	res.Blockers = append([]string{ref(disabledCheck)}, res.Blockers...)
	for i := range res.Entries {
		res.Entries[i].Status = protocol.StatusDisabled
		res.Entries[i].Blockers = append([]string{ref(disabledCheck)}, res.Entries[i].Blockers...)
	}
}
