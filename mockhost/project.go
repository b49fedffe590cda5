package mockhost

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// project answers package/project (spec 000, Projection contract): the
// deterministic projection of a valid package, computed without running
// any of its code.
func (h *Host) project(params protocol.PackageParams) (protocol.ProjectResult, *jsonrpc2.Error) {
	p, loadFindings, err := h.load(params.Path)
	if err != nil {
		return protocol.ProjectResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if p == nil {
		return protocol.ProjectResult{}, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("package %s cannot be read: %s", params.Path, firstError(loadFindings)), protocol.ErrorData{Findings: loadFindings})
	}
	if fs := h.judged(p, p.Findings); agentpkg.HasErrors(fs) {
		return protocol.ProjectResult{}, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("package %s is invalid: %s", params.Path, firstError(fs)), protocol.ErrorData{Findings: fs})
	}
	// variant: verify-before-project — the package is verified (compatibility, signature, revocation, publisher) before it is projected.
	if h.variants.Has("verify-before-project") {
		if fs := h.judged(p, h.filter(h.verified(p, params.Release), stageVerify)); agentpkg.HasErrors(fs) {
			return protocol.ProjectResult{}, rpcError(refusalCode(fs),
				fmt.Sprintf("package %s did not verify, so it is not projected: %s", params.Path, firstError(fs)), protocol.ErrorData{Findings: fs})
		}
	}
	// fault: exec-worker-on-project — the package's worker is run to discover its routes.
	if h.faults.Has("exec-worker-on-project") {
		runWorker(p)
	}
	// fault: skill-scripts-run-on-project — projection runs each bundled Skill's scripts to index what the Skill offers.
	if h.faults.Has("skill-scripts-run-on-project") {
		runSkillScripts(p)
	}
	// fault: provenance-from-release — with a release given, provenance names the release's packageHash, not the one the folder hashes to.
	if params.Release != nil && params.Release.PackageHash != "" && h.faults.Has("provenance-from-release") {
		q := *p
		q.PackageHash = params.Release.PackageHash
		p = &q
	}
	raw, err := agentpkg.Project(p, agentpkg.Profile{Capabilities: h.profile()})
	if err != nil {
		var pe *agentpkg.PackageError
		if errors.As(err, &pe) {
			return protocol.ProjectResult{}, rpcError(protocol.CodePackageInvalid,
				fmt.Sprintf("package %s cannot be projected: %s", params.Path, firstError(pe.Findings)), protocol.ErrorData{Findings: pe.Findings})
		}
		return protocol.ProjectResult{}, rpcError(protocol.CodeInternalError, fmt.Sprintf("projecting %s: %v", params.Path, err), nil)
	}
	// fault: projection-marks-configured-secrets — each projected secret slot says whether host/configure's secrets fill it: the projection loads secrets and changes with them.
	if h.faults.Has("projection-marks-configured-secrets") {
		raw = h.markConfiguredSecrets(raw)
	}
	// fault: projection-follows-locale — the projected app's displayName is the displayNameI18n name of host/configure's locale.
	if cfg, _ := h.config(); cfg.Locale != "" && h.faults.Has("projection-follows-locale") {
		raw = localizedProjection(raw, localeMap(p.Manifest["displayNameI18n"])[cfg.Locale])
	}
	if raw, err = h.distortProjection(raw, p.Dir); err != nil {
		return protocol.ProjectResult{}, rpcError(protocol.CodeInternalError, fmt.Sprintf("projecting %s: %v", params.Path, err), nil)
	}
	// fault: projection-cache-by-path — projections are kept by package path, so a package changed in place keeps its old hashes.
	if h.faults.Has("projection-cache-by-path") {
		if old, seen := h.projected.LoadOrStore(params.Path, raw); seen {
			raw = old.(json.RawMessage)
		}
	}
	return protocol.ProjectResult{OK: true, Projection: raw, Findings: p.Findings}, nil
}

// projectionFaults are the faults distortProjection applies.
func projectionFaults() []string {
	return []string{
		"projection-random-id", "projection-timestamp",
		"projection-absolute-path", "provenance-missing-on-entry", "projection-without-provenance", "projection-embeds-secrets",
		"projection-drops-permissions", "trust-self-declared-verified", "projection-services-carry-session",
	}
}

// distortProjection applies the projection faults to a correct projection;
// without them the bytes pass through untouched.
func (h *Host) distortProjection(raw json.RawMessage, dir string) (json.RawMessage, error) {
	active := h.variants.Has("legacy-kinds-marked")
	for _, f := range projectionFaults() {
		active = active || h.faults.Has(f)
	}
	if !active {
		return raw, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var proj map[string]any
	if err := dec.Decode(&proj); err != nil {
		return nil, fmt.Errorf("decoding the projection: %w", err)
	}
	app, _ := proj["app"].(map[string]any)
	entries, _ := proj["entries"].([]any)

	// variant: legacy-kinds-marked — home and scene entries of a 0.10.0 manifest are projected as compatibility entries, marked legacy.
	if h.variants.Has("legacy-kinds-marked") {
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok && (m["kind"] == "home" || m["kind"] == "scene") {
				m["legacy"], m["compatibility"] = true, "legacy"
			}
		}
	}
	// fault: projection-random-id — every entry gets a fresh random instanceId.
	if h.faults.Has("projection-random-id") {
		for _, e := range entries {
			if m, ok := e.(map[string]any); ok {
				m["instanceId"] = randomHex()
			}
		}
	}
	// fault: projection-timestamp — the projection records when it was generated.
	if h.faults.Has("projection-timestamp") {
		proj["generatedAt"] = time.Now().UTC().Format(time.RFC3339Nano)
	}
	// fault: projection-absolute-path — the app summary carries the package's absolute path.
	if h.faults.Has("projection-absolute-path") && app != nil {
		app["packagePath"] = dir
	}
	// fault: provenance-missing-on-entry — the last entry carries no provenance.
	if h.faults.Has("provenance-missing-on-entry") && len(entries) > 0 {
		if m, ok := entries[len(entries)-1].(map[string]any); ok {
			delete(m, "provenance")
		}
	}
	// fault: projection-without-provenance — the projection itself carries no provenance, though its schema requires it.
	if h.faults.Has("projection-without-provenance") {
		delete(proj, "provenance")
	}
	// fault: projection-embeds-secrets — configured secret values land in the secret slots.
	if h.faults.Has("projection-embeds-secrets") {
		cfg, _ := h.config()
		embedSecrets(proj, cfg.Secrets)
	}
	// fault: projection-services-carry-session — each projected service carries the host's cloud session token, as the bearer it would be called with.
	if h.faults.Has("projection-services-carry-session") {
		cfg, _ := h.config()
		services, _ := proj["services"].([]any)
		for _, s := range services {
			if m, ok := s.(map[string]any); ok && cfg.SessionTokens["cloud"] != "" {
				m["authorization"] = "Bearer " + cfg.SessionTokens["cloud"]
			}
		}
	}
	// fault: trust-self-declared-verified — the manifest's own publisher.verified is shown as the registry's word.
	if h.faults.Has("trust-self-declared-verified") {
		if pub, ok := proj["publisher"].(map[string]any); ok {
			pub["verified"] = true
		}
	}
	// fault: projection-drops-permissions — permissions and policy prompts are left out.
	if h.faults.Has("projection-drops-permissions") {
		delete(proj, "permissions")
	}
	out, err := json.Marshal(proj)
	if err != nil {
		return nil, fmt.Errorf("encoding the projection: %w", err)
	}
	return out, nil
}

// embedSecrets writes each configured secret's value into the projected
// slot with its key, or, when no slot matches, lists them all under
// "configured".
func embedSecrets(proj map[string]any, secrets map[string]string) {
	if len(secrets) == 0 {
		return
	}
	matched := false
	slots, _ := proj["secrets"].([]any)
	for _, s := range slots {
		m, ok := s.(map[string]any)
		if !ok {
			continue
		}
		key, _ := m["key"].(string)
		if v, ok := secrets[key]; ok {
			m["value"] = v
			matched = true
		}
	}
	if matched {
		return
	}
	keys := make([]string, 0, len(secrets))
	for k := range secrets {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	list := make([]any, 0, len(keys))
	for _, k := range keys {
		list = append(list, map[string]any{"key": k, "value": secrets[k]})
	}
	proj["configured"] = list
}

// randomHex is a fresh 128-bit random id.
func randomHex() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
