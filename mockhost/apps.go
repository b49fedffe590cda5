package mockhost

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// dataScope names the storage scope a kept app's data lives in (spec 002,
// Storage boundary: App namespace).
const dataScope = "app-namespace"

// install answers app/install: consent first (spec 000, Runtime contract 3),
// then read and verify; any failure blocks the install (spec 000, Package
// signing and revocation: "Block install and alert on any failure").
func (h *Host) install(params protocol.InstallParams) (protocol.InstallResult, *jsonrpc2.Error) {
	// fault: consent-by-named-party — a consent naming the tenant or the workspace is taken as the admin's approval, whatever consent.granted says.
	adminNamed := h.faults.Has("consent-by-named-party") && (params.Consent.By == "tenant" || params.Consent.By == "workspace")
	// fault: install-without-consent — a missing consent does not stop the install.
	if !params.Consent.Granted && !adminNamed && !h.faults.Has("install-without-consent") && !h.faults.Has("accept-everything") {
		return protocol.InstallResult{}, rpcError(protocol.CodeConsentRequired,
			fmt.Sprintf("installing %s needs user, tenant or workspace consent (params.consent.granted is false)", params.Path), nil)
	}
	p, loadFindings, err := h.load(params.Path)
	if err != nil {
		return protocol.InstallResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if p == nil {
		loadFindings = h.judged(nil, loadFindings)
		return protocol.InstallResult{}, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("package %s cannot be read: %s", params.Path, firstError(loadFindings)), protocol.ErrorData{Findings: loadFindings})
	}
	if e := h.runtimeBackedRefusal(p); e != nil {
		return protocol.InstallResult{}, e
	}
	findings := h.installFindings(p, params.Release)
	if agentpkg.HasErrors(findings) {
		code := int64(protocol.CodeVerificationFailed)
		// variant: install-manifest-as-invalid — a package whose own manifest is at fault is refused with -32001, not -32002.
		if h.variants.Has("install-manifest-as-invalid") {
			code = refusalCode(findings)
		}
		return protocol.InstallResult{}, rpcError(code,
			fmt.Sprintf("package %s failed verification, nothing was installed: %s", params.Path, firstError(findings)),
			protocol.ErrorData{Findings: findings})
	}
	name, version := identity(p)
	if name == "" {
		return protocol.InstallResult{}, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("package %s: APP.md has no name to install it under", params.Path), nil)
	}
	// fault: update-skips-tenant-policy — tenant policy gates new apps only: a release of an app already installed (an update) is installed whatever the policy says now.
	if e := h.policyRefusal(name); e != nil && !(h.faults.Has("update-skips-tenant-policy") && h.isInstalled(name)) {
		return protocol.InstallResult{}, e
	}
	// variant: storage-namespace-exclusive — a package declaring the storage namespace another installed app declares is refused at install, naming it.
	if h.variants.Has("storage-namespace-exclusive") {
		ns := storageNamespace(p, name)
		if holder := h.namespaceHolder(name, ns); holder != "" {
			msg := fmt.Sprintf("declares storage namespace %q, which the installed app %s declares", ns, holder)
			return protocol.InstallResult{}, rpcError(protocol.CodePackageInvalid,
				fmt.Sprintf("package %s %s; nothing was installed", params.Path, msg), protocol.ErrorData{Findings: []protocol.Finding{{
					Code: "storage-namespace-taken", Severity: agentpkg.SeverityError, Field: "storage.namespace", Message: msg}}})
		}
	}
	row := protocol.InstalledApp{
		AppID:        name,
		Name:         name,
		Version:      version,
		DisplayName:  stringField(p.Manifest, "displayName"),
		Description:  stringField(p.Manifest, "description"),
		PackageHash:  p.PackageHash,
		ManifestHash: p.ManifestHash,
		State:        "installed",
	}
	if row.Registered, err = h.registrations(p); err != nil {
		return protocol.InstallResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	own, err := h.copyPackage(p, name)
	if errors.Is(err, errChangedWhileInstalling) {
		return protocol.InstallResult{}, rpcError(protocol.CodeVerificationFailed,
			fmt.Sprintf("package %s: %v; nothing was installed", params.Path, err), protocol.ErrorData{Findings: []protocol.Finding{{
				Code: "package-hash-mismatch", Severity: agentpkg.SeverityError, Field: "packageHash", Message: err.Error()}}})
	}
	if err != nil {
		return protocol.InstallResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	row.InstalledPath = own.dir
	dataDir, carried, err := h.dataDirFor(name)
	if err != nil {
		_ = os.RemoveAll(own.owner)
		return protocol.InstallResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	h.restoreStrayWorkspace(name, dataDir)
	if err := h.seedWorkspace(own.dir, dataDir, false); err != nil {
		_ = os.RemoveAll(own.owner)
		return protocol.InstallResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	a := &installedApp{row: row, path: own.dir, source: p.Dir, files: own.files, dataDir: dataDir, carried: carried,
		displayNames: localeMap(p.Manifest["displayNameI18n"])}
	if params.Release != nil {
		a.rollbackTarget = params.Release.RollbackTarget
	}
	a.row.HasData = a.hasData()
	h.mu.Lock()
	prev := h.apps[name]
	// A release history an uninstall kept (only under the fault
	// reinstall-keeps-release-history) comes back with the data.
	if kept := h.keptReleases[name]; prev == nil && carried && kept != nil {
		a.previous = kept
		delete(h.keptReleases, name)
	}
	h.apps[name] = a
	h.paths[name] = p.Dir
	h.copies[name] = append(h.copies[name], own.owner)
	h.mu.Unlock()
	// fault: migrations-without-consent — install runs the package's storage migrations although the user did not approve them.
	if params.Consent.Migrations || h.faults.Has("migrations-without-consent") {
		installed := *p
		installed.Dir = own.dir
		if _, e := h.applyMigrations(name, version, dataDir, &installed); e != nil {
			h.undoInstall(name, prev, carried, own.owner)
			return protocol.InstallResult{}, e
		}
	}
	// fault: backend-started-at-install — the app's backend services start as soon as it is installed, before any readiness gate.
	if h.faults.Has("backend-started-at-install") {
		installed := *p
		installed.Dir = own.dir
		_ = h.startBackends(name, &installed)
	}
	return protocol.InstallResult{OK: true, App: a.row}, nil
}

// undoInstall takes back an install whose approved migrations could not
// run: its copy of the package goes, the release installed before it (an
// update) comes back, and a new data folder goes.
func (h *Host) undoInstall(appID string, prev *installedApp, carried bool, copyDir string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.apps[appID]
	_ = os.RemoveAll(copyDir)
	h.copies[appID] = slices.DeleteFunc(h.copies[appID], func(d string) bool { return d == copyDir })
	if prev != nil {
		h.apps[appID] = prev
		h.paths[appID] = prev.source
		return
	}
	delete(h.apps, appID)
	if carried {
		h.retained[appID] = a.dataDir
		return
	}
	_ = os.RemoveAll(a.dataDir)
}

// dataDirFor returns the data folder an app installs with and whether it
// holds data from before this install: the folder of the installed version
// (an update), the one an uninstall kept, or a new one.
func (h *Host) dataDirFor(appID string) (dir string, carried bool, err error) {
	h.mu.Lock()
	if a, ok := h.apps[appID]; ok && dirExists(a.dataDir) {
		h.mu.Unlock()
		return a.dataDir, a.carried, nil
	}
	if d, ok := h.retained[appID]; ok && dirExists(d) {
		delete(h.retained, appID)
		h.mu.Unlock()
		return d, true, nil
	}
	// fault: retained-data-by-prefix — kept data is found by the app id it begins with: installing bridge-probe takes bridge-probe-b's.
	if h.faults.Has("retained-data-by-prefix") {
		for id, d := range h.retained {
			if strings.HasPrefix(id, appID) && dirExists(d) {
				delete(h.retained, id)
				h.mu.Unlock()
				return d, true, nil
			}
		}
	}
	h.mu.Unlock()
	dir, err = h.newDataDir(appID)
	return dir, false, err
}

// uninstall answers app/uninstall (spec 002, Cleanup: uninstall keep data,
// uninstall delete data; Conformance checklist: other apps unaffected).
func (h *Host) uninstall(params protocol.UninstallParams) (protocol.UninstallResult, *jsonrpc2.Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.apps[params.AppID]
	if !ok {
		return protocol.UninstallResult{}, rpcError(protocol.CodeAppNotFound,
			fmt.Sprintf("no installed app with appId %q", params.AppID), nil)
	}
	// fault: export-with-keep-data — app/uninstall with exportTo and keepData writes the export and keeps the data, answering ok.
	if params.ExportTo != "" && params.KeepData && !h.faults.Has("export-with-keep-data") {
		return protocol.UninstallResult{}, invalidParams(protocol.MethodUninstall, "exportTo",
			"asks for export then delete, which deletes the data: keepData must be false")
	}
	keep := params.KeepData
	// fault: uninstall-always-deletes — the data goes even when the caller asked to keep it.
	if h.faults.Has("uninstall-always-deletes") {
		keep = false
	}
	// fault: uninstall-never-deletes — the data stays even when the caller asked to delete it.
	if h.faults.Has("uninstall-never-deletes") {
		keep = true
	}
	targets := []string{params.AppID}
	// fault: uninstall-removes-all — every installed app goes, not only the one named.
	if h.faults.Has("uninstall-removes-all") {
		targets = targets[:0]
		for id := range h.apps {
			targets = append(targets, id)
		}
	}
	// fault: uninstall-by-prefix — the data of every app whose id starts with the one named goes too (the host deletes by prefix).
	if h.faults.Has("uninstall-by-prefix") {
		for id, other := range h.apps {
			if id != params.AppID && strings.HasPrefix(id, params.AppID) {
				_ = os.RemoveAll(other.dataDir)
				h.surf.dropStorage(id)
			}
		}
	}
	var exported []string
	if params.ExportTo != "" {
		var err error
		if exported, err = h.export(params.AppID, a, params.ExportTo); err != nil {
			return protocol.UninstallResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
		}
		// fault: export-keeps-data — export then delete writes the export and keeps the data.
		if h.faults.Has("export-keeps-data") {
			keep = true
		}
	}
	var firstErr error
	for _, id := range targets {
		gone := h.apps[id]
		d := gone.dataDir
		h.recordCleanup(id, gone.row.Version, params, keep)
		delete(h.apps, id)
		if err := h.removeCopies(id); err != nil && firstErr == nil {
			firstErr = err
		}
		dropStored := !keep
		// fault: uninstall-keep-drops-storage — uninstall keeping data keeps the data folder but not what the app stored.
		if keep && h.faults.Has("uninstall-keep-drops-storage") {
			dropStored = true
		}
		// fault: uninstall-delete-keeps-storage — uninstall deleting data removes the data folder, but what the app stored stays for the next install.
		if !keep && h.faults.Has("uninstall-delete-keeps-storage") {
			dropStored = false
		}
		if dropStored {
			h.surf.dropStorage(id)
		}
		// fault: uninstall-delete-keeps-browser-storage — uninstall deleting data keeps the app's browser partition: its next install's frame finds what the old one kept in localStorage and IndexedDB.
		if !keep && !h.faults.Has("uninstall-delete-keeps-browser-storage") {
			h.surf.dropPartition(id)
		}
		dropOutputs := !keep
		// fault: delete-data-keeps-outputs — uninstall deleting data leaves the app's artifacts and workflow runs for the next install.
		if !keep && h.faults.Has("delete-data-keeps-outputs") {
			dropOutputs = false
		}
		// fault: keep-data-drops-outputs — uninstall keeping data keeps storage but throws away the app's artifacts and workflow runs.
		if keep && h.faults.Has("keep-data-drops-outputs") {
			dropOutputs = true
		}
		h.workflows.uninstalled(id, dropOutputs)
		// fault: outputs-dropped-by-prefix — uninstall deleting data deletes the artifacts and workflow runs of every app whose id begins with the uninstalled one's too.
		if dropOutputs && h.faults.Has("outputs-dropped-by-prefix") {
			for other := range h.apps {
				if other != id && strings.HasPrefix(other, id) {
					h.workflows.uninstalled(other, true)
				}
			}
		}
		h.secretBindingsAtUninstallLocked(id, keep)
		h.knowledgeAtUninstallLocked(id, keep)
		h.workspaceAtUninstallLocked(id, d, keep)
		if keep {
			// fault: uninstall-keep-drops-database — uninstall keeping data keeps the data folder but deletes the app's database in it.
			if h.faults.Has("uninstall-keep-drops-database") {
				_ = os.Remove(filepath.Join(d, appDBFile))
			}
			h.retained[id] = d
			// fault: reinstall-keeps-release-history — an uninstall keeping data keeps the app's release history with its data, and a reinstall takes it back: app/rollback of the reinstalled release goes to a release the uninstall removed (held-out l13).
			if history := gone.previous; history != nil && h.faults.Has("reinstall-keeps-release-history") {
				if h.keptReleases == nil {
					h.keptReleases = map[string]*installedApp{}
				}
				h.keptReleases[id] = history
			}
			continue
		}
		delete(h.overlays, id)
		if err := os.RemoveAll(d); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("deleting the data of %s: %w", id, err)
		}
	}
	if firstErr != nil {
		return protocol.UninstallResult{}, rpcError(protocol.CodeInternalError, firstErr.Error(), nil)
	}
	return protocol.UninstallResult{OK: true, AppID: params.AppID, DataRemoved: !dirExists(a.dataDir), Exported: exported}, nil
}

// list answers app/list: installed apps sorted by appId, then the data kept
// by uninstalls, sorted too.
func (h *Host) list() protocol.ListResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := protocol.ListResult{Apps: []protocol.InstalledApp{}, Retained: []protocol.RetainedData{}}
	for _, a := range h.apps {
		row := a.row
		row.HasData = a.hasData()
		// fault: ignore-locale — catalog rows always show the default displayName.
		if name, ok := a.displayNames[h.locale()]; ok && name != "" && !h.faults.Has("ignore-locale") {
			row.DisplayName = name
		}
		// fault: displayname-language-fallback — a locale the map does not name takes the entry of another region of its language (zh-TW shows zh-CN's name).
		if _, exact := a.displayNames[h.locale()]; !exact && h.faults.Has("displayname-language-fallback") {
			if name, ok := sameLanguageName(a.displayNames, h.locale()); ok {
				row.DisplayName = name
			}
		}
		// fault: list-drops-hash — rows do not say which package was installed (empty hashes).
		if h.faults.Has("list-drops-hash") {
			row.PackageHash, row.ManifestHash = "", ""
		}
		r.Apps = append(r.Apps, row)
	}
	for id, d := range h.retained {
		if dirExists(d) {
			r.Retained = append(r.Retained, protocol.RetainedData{AppID: id, Scopes: []string{dataScope}})
		}
	}
	sort.Slice(r.Apps, func(i, j int) bool { return r.Apps[i].AppID < r.Apps[j].AppID })
	sort.Slice(r.Retained, func(i, j int) bool { return r.Retained[i].AppID < r.Retained[j].AppID })
	return r
}

// reset answers host/reset: no installed app, no retained data, no
// configuration, no open surface, observe log or app storage
// (docs/host-control-protocol.md, host/reset).
func (h *Host) reset() error {
	h.backends.stopAllAndForget()
	h.workflows.forget()
	// fault: reset-keeps-theme-and-locale — host/reset forgets launches, logs and app storage but keeps the theme and locale host/set changed: apps installed after it start in the session before's.
	h.surf.reset(h.faults.Has("reset-keeps-theme-and-locale"))
	h.agent.close()
	if h.runtime != nil {
		h.runtime.reset()
	}
	if h.webview != nil {
		h.webview.reset()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cfg = nil
	h.clock = time.Time{}
	h.jitGiven = map[string]string{}
	// fault: reset-keeps-apps — only the configuration is forgotten.
	if h.faults.Has("reset-keeps-apps") {
		return nil
	}
	h.overlays = map[string]map[overlaySlot]overlaySet{}
	// fault: reset-keeps-secret-bindings — host/reset forgets configured secrets but keeps the secrets bound to apps with app/secret.
	if !h.faults.Has("reset-keeps-secret-bindings") {
		h.bindings = map[string]map[string]string{}
	}
	// fault: reset-keeps-knowledge-bindings — host/reset keeps the knowledge packs bound with app/knowledge.
	if !h.faults.Has("reset-keeps-knowledge-bindings") {
		h.knowledge = map[string]map[string]string{}
	}
	var firstErr error
	remove := func(id, d string) {
		if err := os.RemoveAll(d); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("host/reset: deleting the data of %s: %w", id, err)
		}
	}
	for id, a := range h.apps {
		remove(id, a.dataDir)
	}
	for id, d := range h.retained {
		remove(id, d)
	}
	for id := range h.copies {
		if err := h.removeCopies(id); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("host/reset: %w", err)
		}
	}
	h.apps = map[string]*installedApp{}
	h.retained = map[string]string{}
	h.keptReleases = nil
	h.cleanups = nil
	h.refusedMigrations = map[string]map[string]string{}
	if err := h.dropCoreLocked(); err != nil && firstErr == nil {
		firstErr = err
	}
	h.paths = map[string]string{}
	// fault: reset-keeps-revocation-cache — host/reset keeps the revocation answers it cached.
	if !h.faults.Has("reset-keeps-revocation-cache") {
		h.revocations = map[string]revocationEntry{}
	}
	h.bootstraps = map[string][]registryRelease{}
	return firstErr
}

// registrations are the projected objects install registers into the
// host's catalogs (spec 000, Runtime contract 4), by catalog.
func (h *Host) registrations(p *agentpkg.Package) (map[string][]string, error) {
	raw, err := agentpkg.Project(p, agentpkg.Profile{Capabilities: h.profile()})
	if err != nil {
		return nil, fmt.Errorf("projecting %s to register it: %w", p.Dir, err)
	}
	var proj map[string]any
	if err := json.Unmarshal(raw, &proj); err != nil {
		return nil, fmt.Errorf("reading the projection of %s: %w", p.Dir, err)
	}
	reg := agentpkg.CatalogKeys(proj)
	// fault: register-entries-only — install registers the app's entries and nothing else (no permissions, tools, knowledge ...).
	if h.faults.Has("register-entries-only") {
		entries, ok := reg["entries"]
		reg = map[string][]string{}
		if ok {
			reg["entries"] = entries
		}
	}
	return reg, nil
}

// sameLanguageName is the first (by tag) non-empty entry of texts whose
// language is locale's: what a host that takes two regions of one language
// for one locale would show.
func sameLanguageName(texts map[string]string, locale string) (string, bool) {
	lang, _, _ := strings.Cut(locale, "-")
	keys := slices.Sorted(maps.Keys(texts))
	for _, k := range keys {
		if l, _, _ := strings.Cut(k, "-"); lang != "" && strings.EqualFold(l, lang) && texts[k] != "" {
			return texts[k], true
		}
	}
	return "", false
}

// localeMap reads a locale -> text map of the manifest (displayNameI18n).
func localeMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := map[string]string{}
	for k, t := range m {
		if s, ok := t.(string); ok {
			out[k] = s
		}
	}
	return out
}

// locale is the configured locale (h.mu held).
func (h *Host) locale() string {
	if h.cfg == nil {
		return ""
	}
	return h.cfg.Locale
}

// namespaceHolder is the installed app other than name that declares
// storage namespace ns ("" for none): read only by the variant
// storage-namespace-exclusive.
func (h *Host) namespaceHolder(name, ns string) string {
	h.mu.Lock()
	ids := make([]string, 0, len(h.apps))
	for id := range h.apps {
		if id != name {
			ids = append(ids, id)
		}
	}
	h.mu.Unlock()
	slices.Sort(ids)
	for _, id := range ids {
		if pk, err := h.installedPackage(id); err == nil && storageNamespace(pk, id) == ns {
			return id
		}
	}
	return ""
}
