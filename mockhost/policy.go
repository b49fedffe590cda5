package mockhost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// Tenant policy and permission grants, as host/configure states them
// (docs/host-control-protocol.md, "Tenant policy and permission grants").

// applyPolicy adds what tenant policy and the grants say of app name to a
// readiness environment (spec 000, Readiness: "required permissions are
// granted", "policy allows the requested entry").
func (h *Host) applyPolicy(env *agentpkg.Env, cfg protocol.ConfigureParams, name string) {
	_, named := cfg.Grants[name]
	// fault: grants-unnamed-app-all-granted — an app the stated grants do not name is judged as if no grants were stated: its required permissions pass.
	if cfg.Grants != nil && (named || !h.faults.Has("grants-unnamed-app-all-granted")) {
		env.Granted = map[string]bool{}
		for _, k := range cfg.Grants[name] {
			env.Granted[k] = true
		}
	}
	if cfg.Available != nil {
		env.Available = map[string]map[string]bool{}
		for kind, keys := range cfg.Available {
			// fault: available-empty-list-ignored — a kind listed empty (the host has none) is taken as a kind left unstated.
			if len(keys) == 0 && h.faults.Has("available-empty-list-ignored") {
				continue
			}
			env.Available[kind] = map[string]bool{}
			for _, k := range keys {
				env.Available[kind][k] = true
			}
		}
	}
	// fault: ignore-availability — required tools, skills and evals count as available whatever the host has.
	if h.faults.Has("ignore-availability") {
		env.Available = nil
	}
	// fault: ignore-permission-grants — required permissions count as granted whatever the grants say.
	if h.faults.Has("ignore-permission-grants") {
		env.Granted = nil
	}
	// fault: overlay-grants-permissions — the permission keys an overlay in effect lists under grants count as granted.
	if env.Granted != nil && h.faults.Has("overlay-grants-permissions") {
		for _, k := range h.overlayList(name, "grants") {
			env.Granted[k] = true
		}
	}
	// fault: ignore-tenant-policy — tenant policy is never read, at install or in readiness.
	if cfg.Policy == nil || h.faults.Has("ignore-tenant-policy") {
		return
	}
	env.AppDenied = slices.Contains(cfg.Policy.DeniedApps, name)
	env.DeniedEntries = map[string]bool{}
	for _, k := range cfg.Policy.DeniedEntries[name] {
		env.DeniedEntries[k] = true
		// fault: denied-entries-first-only — only the first entry key of an app's deniedEntries list is read.
		if h.faults.Has("denied-entries-first-only") {
			break
		}
	}
	// fault: overlay-enables-denied-entry — an entry an overlay in effect lists under enabledEntries is no longer denied by tenant policy.
	if h.faults.Has("overlay-enables-denied-entry") {
		for _, k := range h.overlayList(name, "enabledEntries") {
			delete(env.DeniedEntries, k)
		}
	}
	// fault: policy-denies-whole-app — an app with one denied entry is denied as a whole.
	if len(env.DeniedEntries) > 0 && h.faults.Has("policy-denies-whole-app") {
		env.AppDenied = true
	}
}

// policyRefusal is app/install's answer for an app tenant policy denies
// (spec 003, Distribution flow: install only after consent and policy pass).
func (h *Host) policyRefusal(name string) *jsonrpc2.Error {
	cfg, _ := h.config()
	if cfg.Policy == nil {
		return nil
	}
	denied := slices.Contains(cfg.Policy.DeniedApps, name)
	// fault: policy-denies-by-prefix — a denied app name is read as a pattern: every app whose name begins with it is denied too.
	if h.faults.Has("policy-denies-by-prefix") {
		denied = denied || slices.ContainsFunc(cfg.Policy.DeniedApps, func(d string) bool { return d != "" && strings.HasPrefix(name, d) })
	}
	if !denied || h.faults.Has("ignore-tenant-policy") {
		return nil
	}
	return rpcError(protocol.CodePolicyDenied, fmt.Sprintf("tenant policy does not allow app %q; nothing was installed", name),
		protocol.ErrorData{Findings: []protocol.Finding{{Code: "policy-denied", Severity: agentpkg.SeverityError,
			File: agentpkg.ManifestFile, Field: "name", Message: fmt.Sprintf("tenant policy denies app %q", name)}}})
}
