package mockhost

import (
	"fmt"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/protocol"
)

// rollbackDowngrade runs what app/rollback asks of the release it leaves
// before the older release comes back: with downMigrations, its downgrade
// migrations, after a complete export into exportTo when that is asked
// (spec 003, Rollback: "expose export before delete when data loss is
// possible"; docs/decisions.md, "Export before a downgrade"). It answers
// the files exported. exportTo without downMigrations deletes nothing and
// is refused naming exportTo.
func (h *Host) rollbackDowngrade(params protocol.RollbackParams) ([]string, *jsonrpc2.Error) {
	// fault: rollback-export-without-down-ignored — app/rollback takes exportTo without downMigrations as if it were not there: the rollback goes ahead and nothing is exported.
	if params.ExportTo != "" && !params.DownMigrations && !h.faults.Has("rollback-export-without-down-ignored") {
		return nil, invalidParams(protocol.MethodRollback, "exportTo",
			"asks for export before delete, but without downMigrations: true a rollback deletes nothing")
	}
	if !params.DownMigrations {
		return nil, nil
	}
	// variant: rollback-never-downgrades — the host never runs downgrade migrations: app/rollback with downMigrations is refused with -32602 naming downMigrations, so no rollback loses data.
	if h.variants.Has("rollback-never-downgrades") {
		return nil, invalidParams(protocol.MethodRollback, "downMigrations",
			"this host never runs downgrade migrations: a rollback keeps what the newer release's migrations made")
	}
	if !h.canRollBack(params.AppID) {
		return nil, nil // app/rollback refuses it, and nothing is run
	}
	var exported []string
	exportFirst := params.ExportTo != ""
	// fault: rollback-export-ignored — app/rollback with downMigrations ignores exportTo: the downgrade runs and nothing is exported.
	// fault: rollback-export-after-down — app/rollback writes the export asked with exportTo after the downgrade ran, so what it dropped is missing.
	if h.faults.Has("rollback-export-ignored") || h.faults.Has("rollback-export-after-down") {
		exportFirst = false
	}
	if exportFirst {
		var e *jsonrpc2.Error
		if exported, e = h.exportInstalled(params.AppID, params.ExportTo); e != nil {
			return nil, e
		}
	}
	if e := h.runDownMigrations(params.AppID); e != nil {
		return nil, e
	}
	if params.ExportTo != "" && h.faults.Has("rollback-export-after-down") {
		return h.exportInstalled(params.AppID, params.ExportTo)
	}
	return exported, nil
}

// canRollBack tells whether appID is installed with an earlier release.
func (h *Host) canRollBack(appID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.apps[appID]
	return ok && a.previous != nil
}

// exportInstalled writes the export of installed appID into dir (export).
func (h *Host) exportInstalled(appID, dir string) ([]string, *jsonrpc2.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.apps[appID]
	if !ok {
		return nil, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", appID), nil)
	}
	files, err := h.export(appID, a, dir)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, fmt.Sprintf("export before the downgrade: %v", err), nil)
	}
	return files, nil
}
