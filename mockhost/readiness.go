package mockhost

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// readiness answers app/readiness (spec 000, Readiness, Readiness self-check
// model, Metadata lifecycle; spec 002, Readiness state rules) for an
// installed app or a package folder, judged against the configured profile,
// secrets and clock. It never runs package code.
func (h *Host) readiness(params protocol.ReadinessParams) (protocol.ReadinessResult, *jsonrpc2.Error) {
	// A package installed in this session and asked for by path is judged
	// as it is by appId (docs/host-control-protocol.md, "A package that is
	// not installed"): its migrations, its disabled state, its own copy.
	// fault: readiness-by-path-ignores-install — a package asked for by path is judged as a folder, whatever its install left waiting or disabled.
	if params.AppID == "" && !h.faults.Has("readiness-by-path-ignores-install") {
		if id, ok := h.installedFrom(params.Path); ok {
			params.AppID, params.Path = id, ""
		}
	}
	path := params.Path
	var res protocol.ReadinessResult
	if params.AppID != "" {
		h.mu.Lock()
		a, ok := h.apps[params.AppID]
		var installed installedApp
		if ok {
			installed = *a
		}
		gone, wasInstalled := h.paths[params.AppID]
		h.mu.Unlock()
		switch {
		case ok:
			// The host's own copy, hashed again: never the folder the
			// package came from.
			path = installed.path
			changes, err := h.installedChanges(installed.path, installed.files)
			if err != nil {
				return protocol.ReadinessResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
			}
			// fault: entry-readiness-skips-integrity — only the app's own readiness hashes the installed copy again; an entry's (what launch and the bridge ask) does not.
			if params.Entry != "" && h.faults.Has("entry-readiness-skips-integrity") {
				changes = nil
			}
			if len(changes) > 0 {
				res = integrityBlocked(params.AppID, params.Entry, installed.row.PackageHash, changes)
				return h.finishReadiness(params, res), nil
			}
		// fault: readiness-after-uninstall — readiness of an uninstalled app is still answered from the package it was installed from.
		case wasInstalled && h.faults.Has("readiness-after-uninstall"):
			path = gone
		default:
			return protocol.ReadinessResult{}, rpcError(protocol.CodeAppNotFound,
				fmt.Sprintf("no installed app with appId %q", params.AppID), nil)
		}
	}
	p, loadFindings, err := h.load(path)
	if err != nil {
		return protocol.ReadinessResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if p == nil {
		return protocol.ReadinessResult{}, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("package %s cannot be read: %s", path, firstError(loadFindings)), protocol.ErrorData{Findings: loadFindings})
	}
	// fault: exec-worker-on-readiness — the package's worker is run as a health probe.
	if h.faults.Has("exec-worker-on-readiness") {
		runWorker(p)
	}
	// fault: skill-scripts-run-on-readiness — readiness runs each bundled Skill's setup scripts to tell whether the Skill is available.
	if h.faults.Has("skill-scripts-run-on-readiness") {
		runSkillScripts(p)
	}
	// fault: render-ui-on-readiness — the package's UI entry page is loaded, as a renderer would, for a preview.
	if h.faults.Has("render-ui-on-readiness") {
		previewUI(p)
	}
	// fault: ignore-end-of-life — endOfLifeAt is never looked at.
	if h.faults.Has("ignore-end-of-life") {
		q := *p
		q.Manifest = maps.Clone(p.Manifest)
		delete(q.Manifest, "endOfLifeAt")
		p = &q
	}
	env := h.readinessEnv(p, params.Entry)
	// fault: installed-readiness-ignores-entry — an installed app (by appId) is judged as a whole: the entry asked for is not looked at.
	if params.AppID != "" && h.faults.Has("installed-readiness-ignores-entry") {
		env.Entry = ""
	}
	// fault: entry-readiness-copies-app — every entry, and an entry-scoped answer, gets the app's overall status.
	if h.faults.Has("entry-readiness-copies-app") {
		env.Entry = ""
		res = agentpkg.Readiness(p, env)
		for i := range res.Entries {
			res.Entries[i].Status, res.Entries[i].Blockers = res.Status, res.Blockers
		}
		res.Entry = params.Entry
	} else {
		res = agentpkg.Readiness(p, env)
	}
	if params.AppID != "" {
		// fault: installed-readiness-trusts-review — an installed app's failing required-tier and secret checks count as warnings (the install review accepted them once): it is ready-degraded.
		if h.faults.Has("installed-readiness-trusts-review") {
			demote(&res, func(c protocol.ReadinessCheck) bool { return c.Tier == "required" || c.Kind == "secret_configured" })
		}
		// fault: installed-readiness-tiers-block — an installed app's failing recommended- and performance-tier checks block like required ones.
		if h.faults.Has("installed-readiness-tiers-block") {
			promote(&res, func(c protocol.ReadinessCheck) bool { return c.Tier == "recommended" || c.Tier == "performance" }, protocol.StatusNeedsSetup)
		}
	}
	// fault: setup-actions-skip-capabilities — a capability switched off has no fix flow: setupActions name only secrets, knowledge and the package.
	if h.faults.Has("setup-actions-skip-capabilities") {
		res.SetupActions = slices.DeleteFunc(res.SetupActions, func(a protocol.SetupAction) bool { return a.Kind == "open-settings" })
	}
	h.billingReadiness(p, &res)
	h.modelSettingsReadiness(p, &res)
	h.healthReadiness(p, &res)
	// fault: overlay-skips-readiness — an overlay in effect that sets skipReadiness makes the installed app and its entries ready, whatever fails.
	if params.AppID != "" && h.faults.Has("overlay-skips-readiness") && h.overlaySkipsReadiness(params.AppID) {
		res.Status, res.OK, res.Blockers = protocol.StatusReady, true, nil
		for i := range res.Entries {
			res.Entries[i].Status, res.Entries[i].Blockers = protocol.StatusReady, nil
		}
	}
	if params.AppID != "" && h.isInstalled(params.AppID) {
		if err := h.migrationReadiness(params.AppID, p, &res); err != nil {
			return protocol.ReadinessResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
		}
	}
	return h.finishReadiness(params, res), nil
}

// installedFrom returns the app installed from the package folder dir, if
// one is.
func (h *Host) installedFrom(dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	dir = filepath.Clean(dir)
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, a := range h.apps {
		if filepath.Clean(a.source) == dir {
			return id, true
		}
		// fault: readiness-path-by-folder-name — app/readiness of a path takes the installed app whose folder has the same name as that package.
		if h.faults.Has("readiness-path-by-folder-name") && filepath.Base(filepath.Clean(a.source)) == filepath.Base(dir) {
			return id, true
		}
		// fault: readiness-path-by-prefix — app/readiness of a path takes the installed app whose folder's path that path begins with (tiny-app-next for tiny-app).
		if h.faults.Has("readiness-path-by-prefix") && strings.HasPrefix(dir, filepath.Clean(a.source)) {
			return id, true
		}
	}
	return "", false
}

// finishReadiness gives a readiness answer what follows from the app's
// state (disabled), and the faults that rewrite answers.
func (h *Host) finishReadiness(params protocol.ReadinessParams, res protocol.ReadinessResult) protocol.ReadinessResult {
	if params.AppID != "" && h.isDisabled(params.AppID) {
		// fault: disabled-entries-keep-status — a disabled app's answer lists each entry with its own status (ready), the disabled blocker added; the app's status and an entry asked for by name still say disabled.
		keep := params.Entry == "" && h.faults.Has("disabled-entries-keep-status")
		statuses := make([]string, len(res.Entries))
		for i, e := range res.Entries {
			statuses[i] = e.Status
		}
		markDisabled(&res)
		if keep {
			for i := range res.Entries {
				res.Entries[i].Status = statuses[i]
			}
		}
	}
	// fault: installed-readiness-drops-ok — an installed app's answer is built apart from a folder's and leaves ok false, even when ready.
	if params.AppID != "" && h.faults.Has("installed-readiness-drops-ok") {
		res.OK = false
	}
	// fault: installed-readiness-echoes-secret — an installed app's secret checks quote the configured value (folders are judged by another code path that does not).
	if params.AppID != "" && h.faults.Has("installed-readiness-echoes-secret") {
		cfg, _ := h.config()
		echoSecret(&res, firstSecretValue(cfg.Secrets))
	}
	h.judgedReadiness(params, &res)
	h.distortReadiness(&res)
	h.readinessReadings(&res)
	return res
}

// readinessEnv is the host state readiness is judged against.
func (h *Host) readinessEnv(p *agentpkg.Package, entry string) agentpkg.Env {
	cfg, clock := h.config()
	env := agentpkg.Env{Now: clock, Capabilities: h.profile(), Secrets: map[string]bool{}, Entry: entry}
	if cfg.SystemRuntime != nil && !h.faults.Has("ignore-runtime-range") && !h.takesNoRuntimeBacked() {
		env.SystemRuntime = cfg.SystemRuntime.Version
	}
	if env.Now.IsZero() {
		env.Now = time.Now()
	}
	// fault: ignore-clock-override — lifecycle dates are compared with the wall clock.
	if h.faults.Has("ignore-clock-override") {
		env.Now = time.Now()
	}
	// fault: lifecycle-by-day — lifecycle dates are compared by calendar day, so a date takes effect a day late.
	if h.faults.Has("lifecycle-by-day") {
		env.Now = env.Now.UTC().Truncate(24 * time.Hour)
	}
	// fault: ignore-capability-profile — readiness judges against the full reference profile.
	if h.faults.Has("ignore-capability-profile") {
		env.Capabilities = DefaultProfile()
	}
	// An empty value is no credential: the slot stays unconfigured, and
	// readiness fails closed (docs/decisions.md, "A secret configured empty").
	for k, v := range cfg.Secrets {
		if v != "" {
			env.Secrets[k] = true
		}
	}
	name, _ := identity(p)
	for _, k := range h.boundSecrets(name) {
		env.Secrets[k] = true
	}
	env.Knowledge = h.boundKnowledge(name)
	// fault: ignore-missing-secrets — every secret the package names counts as configured.
	if h.faults.Has("ignore-missing-secrets") {
		for _, k := range secretKeys(p) {
			env.Secrets[k] = true
		}
	}
	h.applyPolicy(&env, cfg, name)
	return env
}

// secretKeys lists every secret key a package names: its secret slots and
// the secrets its readiness checks ask for.
func secretKeys(p *agentpkg.Package) []string {
	keys := manifestSecretKeys(p)
	for _, tier := range agentpkg.ReadinessTiers() {
		checks, _ := p.Readiness[tier].([]any)
		for _, item := range checks {
			c, _ := item.(map[string]any)
			for _, f := range []string{"secret", "key"} {
				if k, ok := c[f].(string); ok {
					keys = append(keys, k)
				}
			}
		}
	}
	return keys
}

// manifestSecretKeys are the keys of the manifest's secrets list.
func manifestSecretKeys(p *agentpkg.Package) []string {
	var keys []string
	list, _ := p.Manifest["secrets"].([]any)
	for _, item := range list {
		if s, ok := item.(map[string]any); ok {
			if k, ok := s["key"].(string); ok {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// firstSecretValue is the value of the configured secret whose key sorts
// first ("" when none is configured).
func firstSecretValue(secrets map[string]string) string {
	keys := make([]string, 0, len(secrets))
	for k := range secrets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return secrets[keys[0]]
}
