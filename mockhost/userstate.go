package mockhost

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// What a release upgrade must not overwrite beside app storage (spec 003,
// What must not be overwritten: "user Knowledge bindings", "workspace
// files"). A knowledge binding is the pack the user bound to one of the
// app's knowledgeTemplates (app/knowledge); it counts for readiness's
// knowledge_bound checks. The app's workspace is a folder in its data
// namespace (app/file): the package's sample workspace (examples/workspace/,
// spec 000 Package shape: "examples/ ... sample workspaces") seeds the files
// it does not hold yet, at install and at update, and never replaces a
// file that is there. Both are the app's data: an update and a rollback
// keep them, an uninstall keeping data keeps them, one deleting data
// deletes them.

// sampleWorkspace is the folder of a package whose files seed the app's
// workspace.
const sampleWorkspace = "examples/workspace"

// bindKnowledge answers app/knowledge.
func (h *Host) bindKnowledge(p protocol.KnowledgeParams) (protocol.KnowledgeResult, *jsonrpc2.Error) {
	pk, e := h.installedPackage(p.AppID)
	if e != nil {
		return protocol.KnowledgeResult{}, e
	}
	if !hasKnowledgeTemplate(pk, p.Template) {
		return protocol.KnowledgeResult{}, invalidParams(protocol.MethodKnowledge, "template", fmt.Sprintf("names no knowledgeTemplate of app %q: %q", p.AppID, p.Template))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.Pack != "" {
		if h.knowledge[p.AppID] == nil {
			h.knowledge[p.AppID] = map[string]string{}
		}
		h.knowledge[p.AppID][p.Template] = p.Pack
	}
	res := protocol.KnowledgeResult{OK: true, Template: p.Template}
	if pack, ok := h.knowledge[p.AppID][p.Template]; ok {
		res.Pack = &pack
	}
	return res, nil
}

// hasKnowledgeTemplate reports whether the package declares template in
// knowledgeTemplates or names it in a knowledge_bound readiness check.
func hasKnowledgeTemplate(p *agentpkg.Package, template string) bool {
	list, _ := p.Manifest["knowledgeTemplates"].([]any)
	for _, t := range list {
		if m, ok := t.(map[string]any); ok && m["key"] == template {
			return true
		}
	}
	for _, tier := range agentpkg.ReadinessTiers() {
		checks, _ := p.Readiness[tier].([]any)
		for _, c := range checks {
			if m, ok := c.(map[string]any); ok && m["check"] == "knowledge_bound" && (m["template"] == template || m["key"] == template) {
				return true
			}
		}
	}
	return false
}

// boundKnowledge lists the templates of appID with a pack bound.
func (h *Host) boundKnowledge(appID string) map[string]bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]bool{}
	for t := range h.knowledge[appID] {
		out[t] = true
	}
	// fault: knowledge-bound-across-apps — a template bound for any app counts as bound for every app asking for one of that key (the packs taken as the user's library; held-out m04).
	if h.faults.Has("knowledge-bound-across-apps") {
		for _, bound := range h.knowledge {
			for t := range bound {
				out[t] = true
			}
		}
	}
	return out
}

// workspaceFile answers app/file: it writes the file when content is
// given, and answers what the file holds now.
func (h *Host) workspaceFile(p protocol.FileParams) (protocol.FileResult, *jsonrpc2.Error) {
	asked := p.Path
	// fault: workspace-path-backslash — app/file takes a backslash as an ordinary file-name character: drafts\plan.md is written.
	if h.faults.Has("workspace-path-backslash") {
		asked = strings.ReplaceAll(asked, "\\", "_")
	}
	rel, ok := workspacePath(asked)
	// fault: file-read-path-unchecked — app/file without content (a read) takes the path as given: ../../x is read, not refused.
	if p.Content == nil && h.faults.Has("file-read-path-unchecked") {
		rel, ok = path.Clean(p.Path), true
	}
	if !ok {
		return protocol.FileResult{}, invalidParams(protocol.MethodFile, "path", fmt.Sprintf("is %q: a relative /-separated path inside the workspace is needed", p.Path))
	}
	h.mu.Lock()
	a, installed := h.apps[p.AppID]
	var dir string
	if installed {
		dir = filepath.Join(a.dataDir, "workspace")
	}
	h.mu.Unlock()
	if !installed {
		return protocol.FileResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", p.AppID), nil)
	}
	file := filepath.Join(dir, filepath.FromSlash(rel))
	if p.Content != nil {
		if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
			return protocol.FileResult{}, rpcError(protocol.CodeInternalError, fmt.Sprintf("writing workspace file %s of %s: %v", rel, p.AppID, err), nil)
		}
		if err := os.WriteFile(file, []byte(*p.Content), 0o600); err != nil {
			return protocol.FileResult{}, rpcError(protocol.CodeInternalError, fmt.Sprintf("writing workspace file %s of %s: %v", rel, p.AppID, err), nil)
		}
	}
	res := protocol.FileResult{OK: true, Path: p.Path}
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		s := string(data)
		res.Content = &s
	case !errors.Is(err, fs.ErrNotExist):
		return protocol.FileResult{}, rpcError(protocol.CodeInternalError, fmt.Sprintf("reading workspace file %s of %s: %v", rel, p.AppID, err), nil)
	}
	return res, nil
}

// workspacePath cleans a workspace path; ok is false for one that is
// absolute, climbs out or uses backslashes.
func workspacePath(p string) (string, bool) {
	if p == "" || strings.ContainsAny(p, "\\\x00") || path.IsAbs(p) {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// seedWorkspace copies the package's sample workspace (pkgDir's
// examples/workspace/) into the app's workspace under dataDir; a file
// already there is kept unless overwrite.
func (h *Host) seedWorkspace(pkgDir, dataDir string, overwrite bool) error {
	// variant: workspace-not-seeded — a package's sample workspace is never copied into the app's workspace.
	if h.variants.Has("workspace-not-seeded") {
		return nil
	}
	src := filepath.Join(pkgDir, filepath.FromSlash(sampleWorkspace))
	if !dirExists(src) {
		return nil
	}
	dst := filepath.Join(dataDir, "workspace")
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if _, err := os.Stat(to); err == nil && !overwrite {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("seeding the workspace from %s: %w", p, err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return fmt.Errorf("seeding the workspace: %w", err)
		}
		return os.WriteFile(to, data, 0o600)
	})
}

// replaceWorkspace empties the app's workspace under dataDir and seeds it
// from the package in pkgDir (used only by the update-replaces-workspace
// fault).
func (h *Host) replaceWorkspace(pkgDir, dataDir string) error {
	if err := os.RemoveAll(filepath.Join(dataDir, "workspace")); err != nil {
		return fmt.Errorf("replacing the workspace: %w", err)
	}
	return h.seedWorkspace(pkgDir, dataDir, true)
}

// knowledgeAtUninstallLocked drops appID's knowledge bindings with its
// data, or keeps them with it (under h.mu).
func (h *Host) knowledgeAtUninstallLocked(appID string, keep bool) {
	drop := !keep
	// fault: uninstall-delete-keeps-knowledge — uninstall deleting data keeps the knowledge packs bound to the app, as the user's library: a reinstall finds them bound.
	if !keep && h.faults.Has("uninstall-delete-keeps-knowledge") {
		drop = false
	}
	// fault: uninstall-keep-drops-knowledge — uninstall keeping data keeps the data folder but forgets the knowledge packs bound to the app.
	if keep && h.faults.Has("uninstall-keep-drops-knowledge") {
		drop = true
	}
	if drop {
		delete(h.knowledge, appID)
	}
}

// workspaceAtUninstallLocked lets the workspace folder of appID's data
// folder d go with the data, as it should, or, under a fault, takes it out
// of the data before uninstall deletes it (to give it back to the next
// install) or deletes it from data an uninstall keeps (under h.mu).
func (h *Host) workspaceAtUninstallLocked(appID, d string, keep bool) {
	ws := filepath.Join(d, "workspace")
	switch {
	// fault: uninstall-keep-drops-workspace — uninstall keeping data keeps the data folder but empties the app's workspace.
	case keep && h.faults.Has("uninstall-keep-drops-workspace"):
		_ = os.RemoveAll(ws)
	// fault: uninstall-delete-keeps-workspace — uninstall deleting data keeps the app's workspace files in a documents folder of the host's, and the next install of the app finds them there.
	case !keep && h.faults.Has("uninstall-delete-keeps-workspace"):
		if stray := h.strayWorkspaceLocked(appID); stray != "" && os.MkdirAll(filepath.Dir(stray), 0o700) == nil {
			_ = os.RemoveAll(stray)
			_ = os.Rename(ws, stray)
		}
	}
}

// strayWorkspaceLocked is where the uninstall-delete-keeps-workspace fault
// keeps an app's workspace ("" when the host has no data folder; under
// h.mu).
func (h *Host) strayWorkspaceLocked(appID string) string {
	root, err := h.dataRootLocked()
	if err != nil {
		return ""
	}
	return filepath.Join(root, "documents", url.PathEscape(appID))
}

// restoreStrayWorkspace gives a new install of appID the workspace the
// uninstall-delete-keeps-workspace fault kept.
func (h *Host) restoreStrayWorkspace(appID, dataDir string) {
	if !h.faults.Has("uninstall-delete-keeps-workspace") {
		return
	}
	h.mu.Lock()
	stray := h.strayWorkspaceLocked(appID)
	h.mu.Unlock()
	if dirExists(stray) {
		ws := filepath.Join(dataDir, "workspace")
		_ = os.RemoveAll(ws)
		_ = os.Rename(stray, ws)
	}
}

// downMigrations is the folder, inside a package's migrations folder, of
// the downgrade migrations a release ships (the harness's reading of spec
// 003, Rollback: "avoid running downgrade migrations automatically").
const downMigrations = "down"

// runDownMigrations runs, on appID's own database, the downgrade
// migrations its installed release ships, in file-name order: what a
// rollback must not do unasked (the rollback-runs-down-migrations fault),
// and does when app/rollback asks with downMigrations.
func (h *Host) runDownMigrations(appID string) *jsonrpc2.Error {
	h.mu.Lock()
	a, ok := h.apps[appID]
	var pkgDir, dataDir string
	if ok {
		pkgDir, dataDir = a.path, a.dataDir
	}
	h.mu.Unlock()
	if !ok {
		return nil
	}
	p, _, err := h.load(pkgDir)
	if err != nil || p == nil || migrationsDir(p) == "" {
		return nil
	}
	dir := filepath.Join(pkgDir, filepath.FromSlash(migrationsDir(p)), downMigrations)
	names, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil || len(names) == 0 {
		return nil
	}
	db, closeDB, err := h.migrationTarget(dataDir)
	if err != nil {
		return rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	defer closeDB()
	// What a downgrade drops is gone from the file too, not left in its
	// free pages: an export written after it cannot hold it.
	if _, err := db.Exec("PRAGMA secure_delete = ON"); err != nil {
		return rpcError(protocol.CodeInternalError, fmt.Sprintf("downgrade migrations of %s: %v", appID, err), nil)
	}
	for _, name := range names { // Glob sorts by name
		script, err := os.ReadFile(name)
		if err != nil {
			return rpcError(protocol.CodeInternalError, fmt.Sprintf("reading downgrade migration %s: %v", name, err), nil)
		}
		if err := runInTx(db, string(script)); err != nil {
			return rpcError(protocol.CodeInternalError, fmt.Sprintf("downgrade migration %s: %v", filepath.Base(name), err), nil)
		}
	}
	return nil
}
