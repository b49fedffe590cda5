package mockhost

import (
	"fmt"
	"maps"
	"slices"
	"strings"

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
	// fault: state-change-id-case-folded — app/disable and app/enable look an id they do not find up again case-insensitively: disabling TINY-APP disables tiny-app.
	if !ok && h.faults.Has("state-change-id-case-folded") {
		for id, other := range h.apps {
			if strings.EqualFold(id, appID) {
				a, ok, appID = other, true, id
				break
			}
		}
	}
	state := protocol.StateInstalled
	if disabled {
		state = protocol.StateDisabled
	}
	// fault: state-change-retained-app — app/disable and app/enable of an app uninstalled with its data kept answer ok, as if it were still installed.
	if _, kept := h.retained[appID]; !ok && kept && h.faults.Has("state-change-retained-app") {
		return protocol.AppStateResult{OK: true, AppID: appID, State: state}, nil
	}
	if !ok {
		return protocol.AppStateResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", appID), nil)
	}
	// fault: state-change-repeat-refused — app/disable of a disabled app, or app/enable of an enabled one, is refused with -32602 naming appId.
	if a.row.State == state && h.faults.Has("state-change-repeat-refused") {
		return protocol.AppStateResult{}, invalidParams(map[bool]string{true: protocol.MethodDisable, false: protocol.MethodEnable}[disabled], "appId", fmt.Sprintf("names %s, which is already %s", appID, state))
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
	// fault: disable-drops-secret-bindings — app/disable forgets the secrets the user bound to the app: enabled again, it needs setup (held-out l02).
	if disabled && h.faults.Has("disable-drops-secret-bindings") {
		delete(h.bindings, appID)
	}
	// fault: disable-by-prefix — disabling an app disables every app whose id begins with its id too (the host matches the state by prefix).
	if disabled && h.faults.Has("disable-by-prefix") {
		for id, other := range h.apps {
			if strings.HasPrefix(id, appID) {
				other.row.State = state
			}
		}
	}
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

// isInstalled reports whether appID is installed.
func (h *Host) isInstalled(appID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.apps[appID]
	return ok
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

// update answers app/update: the newer release is verified and installed
// as app/install would, in place of the installed one, which is kept as the
// rollback target (spec 003, Rollback: "Rollback target is known"). The
// app's data, state and storage stay (spec 003, What must not be
// overwritten: "app storage records").
func (h *Host) update(params protocol.UpdateParams) (protocol.UpdateResult, *jsonrpc2.Error) {
	h.mu.Lock()
	installed, ok := h.apps[params.AppID]
	var before installedApp
	if ok {
		// The releases before it stay reachable: a release may name one of
		// them as its rollback target.
		before = *installed
	}
	h.mu.Unlock()
	if !ok {
		return protocol.UpdateResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", params.AppID), nil)
	}
	if p, _, err := h.load(params.Path); err == nil && p != nil {
		name, _ := identity(p)
		// fault: update-identity-by-prefix — app/update takes a package whose app id begins with the one named as a release of it: tiny-app is updated with tiny-app-pro.
		if name != params.AppID && !(h.faults.Has("update-identity-by-prefix") && strings.HasPrefix(name, params.AppID)) {
			return protocol.UpdateResult{}, invalidParams(protocol.MethodUpdate, "path", fmt.Sprintf("holds app %q, not %q", name, params.AppID))
		}
	}
	install := protocol.InstallParams{Path: params.Path, Release: params.Release, Consent: params.Consent}
	// fault: update-without-consent — app/update reuses the consent of the first install: the newer release is installed without consent.
	if h.faults.Has("update-without-consent") {
		install.Consent.Granted = true
	}
	// fault: update-skips-verification — an update is installed without checking it is the release it claims to be.
	if h.faults.Has("update-skips-verification") {
		install.Release = nil
	}
	fresh, e := h.install(install)
	if e != nil {
		return protocol.UpdateResult{}, e
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.apps[params.AppID]
	// fault: rollback-restores-old-overlays — app/update keeps the app's overlays with the release it replaces, and app/rollback brings that copy back: an overlay set, changed or cleared after the update is undone by the rollback.
	if h.faults.Has("rollback-restores-old-overlays") {
		before.overlays = maps.Clone(h.overlays[params.AppID])
	}
	a.previous = &before
	// fault: update-keeps-localized-names — an update keeps the displayNameI18n of the release it replaced.
	if h.faults.Has("update-keeps-localized-names") {
		a.displayNames = before.displayNames
	}
	// fault: rollback-target-carried-over — a release that names no rollbackTarget keeps the one an earlier release named: the rollback goes two releases back.
	if a.rollbackTarget == "" && h.faults.Has("rollback-target-carried-over") {
		a.rollbackTarget = before.rollbackTarget
	}
	// fault: update-keeps-old-registrations — app/update keeps the catalog registrations of the first install: entries the newer release adds are never registered.
	if h.faults.Has("update-keeps-old-registrations") {
		a.row.Registered = before.row.Registered
	}
	// fault: update-reenables-disabled-app — app/update of a disabled app installs the newer release enabled.
	if !h.faults.Has("update-reenables-disabled-app") {
		a.row.State = before.row.State
	}
	// fault: update-drops-evidence — the evidence the app recorded before the update is gone.
	if h.faults.Has("update-drops-evidence") {
		h.surf.dropEvidence(params.AppID)
	}
	// fault: update-drops-artifacts — the artifacts the app's runs made before the update are gone.
	if h.faults.Has("update-drops-artifacts") {
		h.workflows.uninstalled(params.AppID, true)
	}
	// fault: update-drops-secret-bindings — the secrets the user bound to the app are gone after an update.
	if h.faults.Has("update-drops-secret-bindings") {
		delete(h.bindings, params.AppID)
	}
	// fault: update-resets-overlays — the newer release starts from its package defaults: the tenant, user and workspace overlays set before are gone.
	if h.faults.Has("update-resets-overlays") {
		delete(h.overlays, params.AppID)
	}
	// fault: update-resets-knowledge-bindings — the newer release's knowledge templates start unbound: the packs the user bound are gone.
	if h.faults.Has("update-resets-knowledge-bindings") {
		delete(h.knowledge, params.AppID)
	}
	// fault: update-replaces-workspace — an update replaces the app's workspace with the newer release's sample workspace: every file the user wrote is gone or overwritten.
	if h.faults.Has("update-replaces-workspace") {
		if err := h.replaceWorkspace(a.path, a.dataDir); err != nil {
			return protocol.UpdateResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
		}
	}
	// fault: update-overwrites-workspace-files — the newer release's sample workspace is copied over the app's workspace, replacing the files the user wrote under the same names.
	if h.faults.Has("update-overwrites-workspace-files") {
		if err := h.seedWorkspace(a.path, a.dataDir, true); err != nil {
			return protocol.UpdateResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
		}
	}
	// fault: update-drops-data — the newer release starts with empty storage.
	if h.faults.Has("update-drops-data") {
		h.surf.dropStorage(params.AppID)
	}
	// fault: update-disables-others — updating one app leaves every other installed app disabled.
	if h.faults.Has("update-disables-others") {
		for id, other := range h.apps {
			if id != params.AppID {
				other.row.State = protocol.StateDisabled
			}
		}
	}
	// fault: update-answers-install-row — app/update answers the row of the install it runs inside, before the app's state is restored: a disabled app is answered installed.
	if h.faults.Has("update-answers-install-row") {
		return protocol.UpdateResult{OK: true, App: fresh.App, PreviousVersion: before.row.Version}, nil
	}
	return protocol.UpdateResult{OK: true, App: a.row, PreviousVersion: before.row.Version}, nil
}

// rollback answers app/rollback: the release before the last update comes
// back with the data as it is now (spec 003, Rollback: "keep user data by
// default", "avoid running downgrade migrations automatically"); asked
// with downMigrations, the downgrade runs, after the export exportTo asks
// for (rollbackDowngrade).
func (h *Host) rollback(params protocol.RollbackParams) (protocol.RollbackResult, *jsonrpc2.Error) {
	appID := params.AppID
	// fault: rollback-runs-down-migrations — app/rollback runs the downgrade migrations the release it leaves ships (the .sql files of its migrations folder's down/), unasked.
	if h.faults.Has("rollback-runs-down-migrations") && !params.DownMigrations {
		if e := h.runDownMigrations(appID); e != nil {
			return protocol.RollbackResult{}, e
		}
	}
	exported, e := h.rollbackDowngrade(params)
	if e != nil {
		return protocol.RollbackResult{}, e
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.apps[appID]
	if !ok {
		return protocol.RollbackResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", appID), nil)
	}
	// fault: rollback-noop-ok — a rollback with no earlier release is taken as done: ok, the app on the release it runs.
	if a.previous == nil && h.faults.Has("rollback-noop-ok") {
		return protocol.RollbackResult{OK: true, App: a.row, RolledBackFrom: a.row.Version}, nil
	}
	if a.previous == nil {
		return protocol.RollbackResult{}, invalidParams(protocol.MethodRollback, "appId", fmt.Sprintf("names %s, which has no earlier release to roll back to", appID))
	}
	prev := a.previous
	// The release names its known safe previous release (spec 003, Release
	// object: rollbackTarget): the rollback goes there when the host had it.
	// fault: rollback-ignores-target — app/rollback goes to the release the last update replaced, whatever rollbackTarget the release names.
	if a.rollbackTarget != "" && !h.faults.Has("rollback-ignores-target") {
		for r := a.previous; r != nil; r = r.previous {
			// fault: rollback-to-first-release — a release that names a rollbackTarget sends app/rollback to the first release the app had on this host, whichever it names.
			if h.faults.Has("rollback-to-first-release") {
				prev = r
				continue
			}
			// fault: rollback-target-by-prefix — the rollback takes the first earlier release whose version begins with the rollbackTarget named: 1.0.1 sends the app to 1.0.10.
			if r.row.Version == a.rollbackTarget || h.faults.Has("rollback-target-by-prefix") && strings.HasPrefix(r.row.Version, a.rollbackTarget) {
				prev = r
				break
			}
		}
	}
	back := &installedApp{row: prev.row, path: prev.path, source: prev.source, files: prev.files, dataDir: a.dataDir, carried: a.carried,
		displayNames: prev.displayNames, leftPath: a.path, rollbackTarget: prev.rollbackTarget}
	// fault: rollback-keeps-newer-display-names — the app rolled back keeps the localized names of the release it left.
	if h.faults.Has("rollback-keeps-newer-display-names") {
		back.displayNames = a.displayNames
	}
	back.row.State, back.row.HasData = a.row.State, a.row.HasData
	// Under the variant retired-entry-disabled (marked in launch.go) the
	// entries only the release left had stay registered, disabled.
	if h.variants.Has("retired-entry-disabled") {
		back.row.Registered = maps.Clone(back.row.Registered)
		if back.row.Registered == nil {
			back.row.Registered = map[string][]string{}
		}
		entries := slices.Clone(back.row.Registered["entries"])
		for _, k := range a.row.Registered["entries"] {
			if !slices.Contains(entries, k) {
				entries = append(entries, k)
			}
		}
		if entries != nil { // no entries either side: nothing registered, not null
			back.row.Registered["entries"] = entries
		}
	}
	// fault: rollback-keeps-newer-registrations — the rolled-back app keeps the catalog registrations of the release it left: app/list shows the older release registering entries its package does not have.
	if h.faults.Has("rollback-keeps-newer-registrations") {
		back.row.Registered = a.row.Registered
	}
	// fault: rollback-reenables-disabled — app/rollback rebuilds the app's row from the release it restores, recorded installed: a disabled app comes back enabled.
	if h.faults.Has("rollback-reenables-disabled") {
		back.row.State = prev.row.State
	}
	// fault: second-rollback-rolls-forward — the release rolled back from stays the rollback target, so a second app/rollback goes forward to it again.
	if h.faults.Has("second-rollback-rolls-forward") {
		left := *a
		left.previous = nil
		left.rollbackTarget = ""
		back.previous = &left
	}
	// fault: rollback-drops-data — rollback reinstalls the older release from scratch: what the app stored is gone.
	if h.faults.Has("rollback-drops-data") {
		h.surf.dropStorage(appID)
	}
	// fault: rollback-keeps-newer — rollback answers with the older release, but the newer one stays installed.
	if h.faults.Has("rollback-keeps-newer") {
		return protocol.RollbackResult{OK: true, App: back.row, RolledBackFrom: a.row.Version}, nil
	}
	h.apps[appID] = back
	h.paths[appID] = prev.source
	// The rollback-restores-old-overlays fault brings back the overlays
	// app/update kept with the release.
	if h.faults.Has("rollback-restores-old-overlays") {
		h.overlays[appID] = prev.overlays
	}
	from := a.row.Version
	// fault: rolled-back-from-target — app/rollback answers rolledBackFrom with the release it went to, not the one it left.
	if h.faults.Has("rolled-back-from-target") {
		from = back.row.Version
	}
	return protocol.RollbackResult{OK: true, App: back.row, RolledBackFrom: from, Exported: exported}, nil
}
