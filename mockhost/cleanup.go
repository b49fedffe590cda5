package mockhost

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

// appExport is the file export then delete writes: everything the app
// stored through lime.storage, by tenant and workspace, and the names of the files in its data
// folder, which are copied beside it.
type appExport struct {
	AppID   string                                `json:"appId"`
	Version string                                `json:"version"`
	Storage map[string]map[string]json.RawMessage `json:"storage"`
	Files   []string                              `json:"files"`
	// Secrets is only ever set by a fault.
	Secrets map[string]string `json:"secrets,omitempty"`
}

// export writes a complete export of appID's data into dir before an
// uninstall deletes it (spec 002, Cleanup: "export then delete"; spec 003,
// Rollback: "expose export before delete when data loss is possible") and
// returns the files written. Called with h.mu held.
func (h *Host) export(appID string, a *installedApp, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export of %s: %w", appID, err)
	}
	exp := appExport{AppID: appID, Version: a.row.Version, Storage: map[string]map[string]json.RawMessage{}}
	owners := []string{appID}
	// fault: export-by-prefix — the export of an app holds what every app whose id begins with its id stored (the host collects by prefix).
	if h.faults.Has("export-by-prefix") {
		owners = owners[:0]
		for _, id := range h.surf.storageOwners() {
			if strings.HasPrefix(id, appID) {
				owners = append(owners, id)
			}
		}
	}
	// fault: export-every-app — the export of one app holds what every app stored.
	if h.faults.Has("export-every-app") {
		owners = h.surf.storageOwners()
	}
	for _, id := range owners {
		maps.Copy(exp.Storage, h.surf.storedBy(id))
	}
	// fault: export-current-workspace-only — the export holds what the app stored in the tenant and workspace configured now, and the rest is deleted unexported.
	if h.faults.Has("export-current-workspace-only") {
		var cfg protocol.ConfigureParams
		if h.cfg != nil {
			cfg = *h.cfg
		}
		current := storageBucket(appID, cfg.TenantID, cfg.WorkspaceID)
		exp.Storage = map[string]map[string]json.RawMessage{current: exp.Storage[current]}
	}
	// fault: export-includes-secret-bindings — the export holds the secrets the user bound to the app, in plain text, "so a re-import restores its settings".
	if len(h.bindings[appID]) > 0 && h.faults.Has("export-includes-secret-bindings") {
		exp.Secrets = maps.Clone(h.bindings[appID])
	}
	// fault: export-drops-non-text-values — the export is a table of text values: a number, an object or a list the app stored is left out, then deleted with the rest (held-out l14).
	if h.faults.Has("export-drops-non-text-values") {
		for bucket, kv := range exp.Storage {
			text := map[string]json.RawMessage{}
			for k, v := range kv {
				if len(v) > 0 && v[0] == '"' {
					text[k] = v
				}
			}
			exp.Storage[bucket] = text
		}
	}
	// fault: export-without-storage — the export holds the app's files but not what it stored.
	if h.faults.Has("export-without-storage") {
		exp.Storage = map[string]map[string]json.RawMessage{}
	}
	var written []string
	dataDir := filepath.Join(dir, appID+"-data")
	err := filepath.WalkDir(a.dataDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(a.dataDir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		to := filepath.Join(dataDir, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			return err
		}
		exp.Files = append(exp.Files, filepath.ToSlash(rel))
		written = append(written, to)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("export of %s: copying its data folder: %w", appID, err)
	}
	b, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export of %s: %w", appID, err)
	}
	manifest := filepath.Join(dir, appID+".export.json")
	if err := os.WriteFile(manifest, b, 0o644); err != nil {
		return nil, fmt.Errorf("export of %s: %w", appID, err)
	}
	files := append([]string{manifest}, written...)
	// variant: export-as-zip — the export is one zip archive of the files it would write.
	if h.variants.Has("export-as-zip") {
		return zipExport(dir, appID, files)
	}
	return files, nil
}

// zipExport packs the export's files (under dir) into dir/<appID>.export.zip,
// removes them, and returns the archive.
func zipExport(dir, appID string, files []string) ([]string, error) {
	out := filepath.Join(dir, appID+".export.zip")
	f, err := os.Create(out)
	if err != nil {
		return nil, fmt.Errorf("export of %s: %w", appID, err)
	}
	zw := zip.NewWriter(f)
	for _, name := range files {
		rel, err := filepath.Rel(dir, name)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("export of %s: %w", appID, err), f.Close())
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("export of %s: %w", appID, err), f.Close())
		}
		w, err := zw.Create(filepath.ToSlash(rel))
		if err == nil {
			_, err = w.Write(b)
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("export of %s: writing %s: %w", appID, rel, err), f.Close())
		}
	}
	if err := errors.Join(zw.Close(), f.Close()); err != nil {
		return nil, fmt.Errorf("export of %s: %w", appID, err)
	}
	for _, name := range files {
		if err := os.Remove(name); err != nil {
			return nil, fmt.Errorf("export of %s: %w", appID, err)
		}
	}
	_ = os.RemoveAll(filepath.Join(dir, appID+"-data"))
	return []string{out}, nil
}

// recordCleanup keeps the cleanup record of one uninstall (spec 001, Host
// responsibilities: "Record provenance, evidence, telemetry, eval results,
// and cleanup records"): the mode asked for, and what went (kept tells
// whether the data stayed). Called with h.mu held.
func (h *Host) recordCleanup(appID, version string, asked protocol.UninstallParams, kept bool) {
	// fault: no-cleanup-record — uninstalls leave no cleanup record.
	if h.faults.Has("no-cleanup-record") {
		return
	}
	rec := protocol.CleanupRecord{AppID: appID, Version: version, Removed: []string{"package", "projection"}}
	switch {
	case asked.KeepData:
		rec.Mode = protocol.ModeKeepData
	case asked.ExportTo != "":
		rec.Mode = protocol.ModeExportThenDelete
	default:
		rec.Mode = protocol.ModeDeleteData
	}
	if !kept {
		rec.Removed = append(rec.Removed, "storage", "data")
	}
	// fault: cleanup-record-says-deleted — every cleanup record says the data was deleted.
	if h.faults.Has("cleanup-record-says-deleted") {
		rec.Mode = protocol.ModeDeleteData
	}
	h.cleanups = append(h.cleanups, rec)
}

// observe answers host/observe: what the surfaces recorded of appID (its
// evidence with the release that made each record) and the cleanup records
// of its uninstalls.
func (h *Host) observe(appID string) protocol.ObserveResult {
	r := h.surf.observe(appID)
	cfg, _ := h.config()
	r.Holds = heldCredentials(cfg)
	h.mu.Lock()
	defer h.mu.Unlock()
	// fault: evidence-listed-by-app-prefix — an app's evidence is read back by app-id prefix: host/observe of tiny-app holds what tiny-app-pro recorded (held-out l19).
	if h.faults.Has("evidence-listed-by-app-prefix") {
		for id := range h.apps {
			if id != appID && strings.HasPrefix(id, appID) {
				r.Evidence = append(r.Evidence, h.surf.observe(id).Evidence...)
			}
		}
	}
	// fault: evidence-stamped-current — every evidence record names the release installed now, not the one that made it.
	if a, ok := h.apps[appID]; ok && h.faults.Has("evidence-stamped-current") {
		for i := range r.Evidence {
			r.Evidence[i].Version = a.row.Version
		}
	}
	for _, c := range h.cleanups {
		if c.AppID == appID {
			c.Removed = slices.Clone(c.Removed)
			r.Cleanup = append(r.Cleanup, c)
		}
	}
	return r
}
