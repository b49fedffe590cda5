package mockhost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/Masterminds/semver/v3"
	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// The shared platform capabilities of Desktop P3 (spec 002, Shared
// platform capabilities): the host projects model settings, the OEM
// brand, the tenant's billing state and app updates; the app reads them
// and never owns them. What the harness plays as Lime Cloud arrives in
// host/configure (modelSettings, branding, billing) and from the registry.

// defaultBrand is the reference host's own brand, when Cloud sets none.
const defaultBrand = "Lime"

// billingCapability gates the entries that need the tenant's billing.
const billingCapability = "lime.billing"

// modelSettingsGet answers lime.modelSettings get: the effective profile
// and its limits, or a setup action when the host has none (spec 001,
// Shared projection: "Effective model profile, limits, setup action";
// never "Provider API keys or host-private routing tables").
func (h *Host) modelSettingsGet() (any, *denial) {
	cfg, _ := h.config()
	ms := cfg.ModelSettings
	if ms == nil || ms.Profile == "" {
		return map[string]any{"configured": false,
			"setupAction": protocol.SetupAction{Key: "model-settings", Title: "Set up a model in the host's settings", Kind: "configure-model", Target: "modelSettings"}}, nil
	}
	out := map[string]any{"configured": true, "profile": ms.Profile, "limits": ms.Limits}
	// fault: model-settings-expose-provider-key — lime.modelSettings get answers the provider key and the routing table with the profile.
	if h.faults.Has("model-settings-expose-provider-key") {
		out["providerKey"], out["routing"] = ms.ProviderKey, ms.Routing
	}
	return out, nil
}

// modelSettingsSet answers lime.modelSettings set: apps do not persist
// global model settings (spec 002), so the host refuses it and points at
// setup; the host's settings stay as they were.
func (h *Host) modelSettingsSet(args json.RawMessage) (any, *denial) {
	// fault: model-settings-app-writable — lime.modelSettings set overwrites the host's global model profile with the app's.
	if h.faults.Has("model-settings-app-writable") {
		var a struct {
			Profile string `json:"profile"`
		}
		if decodePayload(args, &a) && a.Profile != "" {
			h.mu.Lock()
			if h.cfg != nil {
				ms := protocol.ModelSettings{}
				if h.cfg.ModelSettings != nil {
					ms = *h.cfg.ModelSettings
				}
				ms.Profile = a.Profile
				h.cfg.ModelSettings = &ms
			}
			h.mu.Unlock()
			return map[string]any{"ok": true}, nil
		}
	}
	return nil, &denial{protocol.GateValidation, hostbridge.CodeUnsupported,
		"Model settings belong to the host: an app cannot change them. Ask the user to open model setup instead."}
}

// heldCredentials is host/observe's holds: for each platform credential
// host/configure planted that the host keeps, by its member path, the
// SHA-256 of the value, so the harness sees what the host holds without
// the value coming back.
func heldCredentials(cfg protocol.ConfigureParams) map[string]string {
	held := map[string]string{}
	put := func(path, v string) {
		if v != "" {
			sum := sha256.Sum256([]byte(v))
			held[path] = "sha256:" + hex.EncodeToString(sum[:])
		}
	}
	if ms := cfg.ModelSettings; ms != nil {
		put("modelSettings.providerKey", ms.ProviderKey)
		put("modelSettings.routing", ms.Routing)
	}
	if b := cfg.Billing; b != nil {
		put("billing.ledger", b.Ledger)
		put("billing.paymentCredential", b.PaymentCredential)
	}
	for name, v := range cfg.SessionTokens {
		put("sessionTokens."+name, v)
	}
	if len(held) == 0 {
		return nil
	}
	return held
}

// dropPlatformCredentials is a host with no place for the platform's
// credentials: it keeps the profile, plan and session presence host/configure
// names, never the provider key, routing table, ledger, payment credential
// or session tokens.
func dropPlatformCredentials(p *protocol.ConfigureParams) {
	if p.ModelSettings != nil {
		ms := *p.ModelSettings
		ms.ProviderKey, ms.Routing = "", ""
		p.ModelSettings = &ms
	}
	if p.Billing != nil {
		b := *p.Billing
		b.Ledger, b.PaymentCredential = "", ""
		p.Billing = &b
	}
	p.SessionTokens = nil
}

// brandingGet answers lime.branding get: the OEM brand Cloud set for the
// host (name, shell copy, visual tokens), else the host's own; never what
// the app's package says about itself.
func (h *Host) brandingGet(l *launch) (any, *denial) {
	cfg, _ := h.config()
	b := protocol.Branding{Name: defaultBrand, Tokens: map[string]string{}}
	if cfg.Branding != nil {
		b = *cfg.Branding
	}
	tokens := maps.Clone(h.theme().Variables)
	maps.Copy(tokens, b.Tokens)
	// fault: branding-from-package — lime.branding get answers the brand the app's own package names (install.branding, else displayName).
	if h.faults.Has("branding-from-package") {
		if name := h.packageBrand(l.appID); name != "" {
			b.Name = name
		}
	}
	// fault: branding-without-shell-copy — lime.branding get projects the OEM name and tokens but not its shell copy.
	if h.faults.Has("branding-without-shell-copy") {
		b.ShellCopy = ""
	}
	return map[string]any{"name": b.Name, "shellCopy": b.ShellCopy, "tokens": tokens}, nil
}

// packageBrand is the brand an app's own manifest names.
func (h *Host) packageBrand(appID string) string {
	p, e := h.installedPackage(appID)
	if e != nil {
		return ""
	}
	install, _ := p.Manifest["install"].(map[string]any)
	branding, _ := install["branding"].(map[string]any)
	if n, ok := branding["name"].(string); ok && n != "" {
		return n
	}
	n, _ := p.Manifest["displayName"].(string)
	return n
}

// billingStatus answers lime.billing getStatus: plan summary, quota status
// and blocked reason (spec 001, Shared projection); never the ledger or a
// payment credential.
func (h *Host) billingStatus() (any, *denial) {
	cfg, _ := h.config()
	b := cfg.Billing
	if b == nil {
		return map[string]any{"plan": "local", "quota": protocol.QuotaOK, "blocked": false}, nil
	}
	out := map[string]any{"plan": b.Plan, "quota": b.Quota, "blocked": b.Quota == protocol.QuotaExhausted}
	if b.Quota == protocol.QuotaExhausted {
		out["blockedReason"] = h.billingReason(b)
	}
	// fault: billing-ledger-in-answer — lime.billing getStatus answers the raw ledger and the payment credential with the plan.
	if h.faults.Has("billing-ledger-in-answer") {
		out["ledger"], out["paymentCredential"] = b.Ledger, b.PaymentCredential
	}
	return out, nil
}

// billingReason says why billing blocks.
func (h *Host) billingReason(b *protocol.Billing) string {
	if b.BlockedReason != "" {
		return "billing: " + b.BlockedReason
	}
	// fault: billing-reason-quotes-ledger — with no blocked reason of the tenant's, the reason billing blocks quotes the raw ledger.
	if b.Ledger != "" && h.faults.Has("billing-reason-quotes-ledger") {
		return "billing: the tenant's quota is exhausted (ledger " + b.Ledger + ")"
	}
	return "billing: the tenant's quota is exhausted"
}

// billingReadiness blocks the entries that need lime.billing while the
// tenant's quota is exhausted, naming billing and a setup action (spec
// 002, Readiness: the host checks billing and must explain which billing
// state caused the failure). Other entries are left as they were.
func (h *Host) billingReadiness(p *agentpkg.Package, res *protocol.ReadinessResult) {
	cfg, _ := h.config()
	// fault: billing-ignores-quota — readiness never looks at the tenant's billing: an exhausted quota blocks nothing.
	if cfg.Billing == nil || cfg.Billing.Quota != protocol.QuotaExhausted || h.faults.Has("billing-ignores-quota") {
		return
	}
	c := protocol.ReadinessCheck{Severity: agentpkg.SeverityError, Kind: "billing", Key: "quota", Tier: "required",
		Required: true, Blocking: true, Message: h.billingReason(cfg.Billing)}
	action := protocol.SetupAction{Key: "billing", Title: "Restore the organisation's billing (" + cfg.Billing.Plan + ")", Kind: "billing", Target: "billing"}
	block := func(status *string, blockers *[]string) {
		*status = worse(*status, protocol.StatusNeedsSetup)
		*blockers = append(*blockers, ref(c))
	}
	if res.Entry != "" {
		if h.billingGates(p, res.Entry) {
			block(&res.Status, &res.Blockers)
			res.OK = false
			res.Checks = append(res.Checks, c)
			res.SetupActions = append(res.SetupActions, action)
		}
		return
	}
	// fault: billing-gate-per-entry-only — the whole app's readiness lists an entry that needs lime.billing as ready while the quota is exhausted; only readiness asked for the entry is gated (held-out m17).
	if h.faults.Has("billing-gate-per-entry-only") {
		return
	}
	gated := false
	for i := range res.Entries {
		if h.billingGates(p, res.Entries[i].Key) {
			block(&res.Entries[i].Status, &res.Entries[i].Blockers)
			gated = true
		}
	}
	if gated {
		res.Checks = append(res.Checks, c)
		res.SetupActions = append(res.SetupActions, action)
	}
	if gated && h.billingBlocksApp() {
		block(&res.Status, &res.Blockers)
		res.OK = false
	}
}

// billingGates reports whether an exhausted quota keeps entry from ready:
// the entries that name lime.billing, or every entry of an app that
// declares it anywhere when billing blocks the whole app.
func (h *Host) billingGates(p *agentpkg.Package, entry string) bool {
	if h.billingBlocksApp() && slices.ContainsFunc(manifestEntryKeys(p.Manifest), func(k string) bool { return billingGated(p, k) }) {
		return true
	}
	return billingGated(p, entry)
}

// modelSettingsReadiness, under the variant model-settings-in-readiness,
// keeps an app that requires lime.modelSettings from ready while Lime Cloud
// has told the host no model settings (spec 000, Readiness: "required
// capabilities are available"; spec 002, Desktop P3: the host provides the
// model settings), with a setup action to configure them.
func (h *Host) modelSettingsReadiness(p *agentpkg.Package, res *protocol.ReadinessResult) {
	// variant: model-settings-in-readiness — an app needing lime.modelSettings is needs-setup until model settings are configured.
	if !h.variants.Has("model-settings-in-readiness") {
		return
	}
	if cfg, _ := h.config(); cfg.ModelSettings != nil {
		return
	}
	if !slices.ContainsFunc(agentpkg.RequiredCapabilities(p.Manifest), func(r agentpkg.CapabilityRequirement) bool { return r.Name == "lime.modelSettings" }) {
		return
	}
	c := protocol.ReadinessCheck{Severity: agentpkg.SeverityError, Kind: "capability", Key: "lime.modelSettings", Tier: "required",
		Required: true, Blocking: true, Message: "no model settings are configured for the tenant"}
	res.Status = worse(res.Status, protocol.StatusNeedsSetup)
	res.OK = false
	res.Blockers = append(res.Blockers, ref(c))
	res.Checks = append(res.Checks, c)
	res.SetupActions = append(res.SetupActions, protocol.SetupAction{Key: "open-settings:lime.modelSettings", Title: "Choose a model profile", Kind: "open-settings", Target: "lime.modelSettings"})
	for i := range res.Entries {
		res.Entries[i].Status = worse(res.Entries[i].Status, protocol.StatusNeedsSetup)
		res.Entries[i].Blockers = append(res.Entries[i].Blockers, ref(c))
	}
}

// billingBlocksApp reports whether an exhausted quota blocks the whole app
// that needs billing, not only the entries that name it.
func (h *Host) billingBlocksApp() bool {
	// variant: billing-blocks-app — an exhausted quota blocks every entry of an app that needs lime.billing.
	return h.variants.Has("billing-blocks-app")
}

// billingGated reports whether the entry's requiredCapabilities name
// lime.billing.
func billingGated(p *agentpkg.Package, entry string) bool {
	list, _ := p.Manifest["entries"].([]any)
	for _, item := range list {
		e, _ := item.(map[string]any)
		if k, _ := e["key"].(string); k != entry {
			continue
		}
		caps, _ := e["requiredCapabilities"].([]any)
		return slices.ContainsFunc(caps, func(c any) bool { return c == billingCapability })
	}
	return false
}

// appUpdatesCheck answers lime.appUpdates check: the host asks its
// registry for the releases enabled for the tenant and names the newest
// active one of the app above the installed version (spec 002: "The host
// checks releases"). A registry the host cannot ask is a stable error,
// never an answer it made up.
func (h *Host) appUpdatesCheck(l *launch, args json.RawMessage) (any, *denial) {
	h.mu.Lock()
	a, ok := h.apps[l.appID]
	current := l.version
	if ok {
		current = a.row.Version
	}
	h.mu.Unlock()
	// fault: app-updates-version-from-app — lime.appUpdates check takes the current version from the app's arguments when they give one.
	var claimed struct {
		CurrentVersion string `json:"currentVersion"`
	}
	if h.faults.Has("app-updates-version-from-app") && decodePayload(args, &claimed) && claimed.CurrentVersion != "" {
		current = claimed.CurrentVersion
	}
	out := map[string]any{"appId": l.appID, "currentVersion": current, "updateAvailable": false}
	// fault: app-updates-ignores-registry — lime.appUpdates check never asks the registry and always answers that the installed version is the latest.
	if h.faults.Has("app-updates-ignores-registry") {
		out["latestVersion"] = current
		return out, nil
	}
	rels, e := h.bootstrap()
	if e != nil {
		// fault: app-updates-fabricated — with the registry unreachable, lime.appUpdates check answers that the app is up to date.
		if h.faults.Has("app-updates-fabricated") {
			out["latestVersion"] = current
			return out, nil
		}
		return nil, &denial{protocol.GateValidation, hostbridge.CodeUnsupported,
			"The host cannot check for updates now: its registry did not answer."}
	}
	// fault: app-updates-from-catalogue — lime.appUpdates check also offers the newest release of the registry's public catalogue, which the tenant's bootstrap never enabled.
	if h.faults.Has("app-updates-from-catalogue") {
		if r, ok := h.fromCatalogue(protocol.Source{AppID: l.appID}); ok {
			rels = append(rels, r)
		}
	}
	cur, err := semver.NewVersion(current)
	if err != nil {
		return nil, &denial{protocol.GateValidation, hostbridge.CodeUnsupported,
			fmt.Sprintf("The installed version %q is not a version the host can compare.", current)}
	}
	latest := cur
	// fault: app-updates-version-as-text — lime.appUpdates check orders release versions as text ("1.10.0" < "1.9.0"), not by SemVer.
	asText := h.faults.Has("app-updates-version-as-text")
	for _, r := range rels {
		v, err := semver.NewVersion(r.Version)
		// fault: app-updates-offers-withdrawn — lime.appUpdates check offers any release of the app newer than the installed one, a withdrawn one too.
		if r.AppID != l.appID || (r.Status != "active" && !h.faults.Has("app-updates-offers-withdrawn")) || err != nil {
			continue
		}
		if asText && r.Version > latest.Original() || !asText && v.GreaterThan(latest) {
			latest = v
		}
	}
	out["latestVersion"] = latest.Original()
	out["updateAvailable"] = latest.GreaterThan(cur)
	return out, nil
}

// keepEvidence keeps an evidence record the app made (lime.evidence
// record) in the host's local evidence, bound to the app and the release
// that made it (spec 002, Shared platform capabilities: "Important runs and
// external side effects keep provenance").
func (h *Host) keepEvidence(l *launch, e protocol.EvidenceRecord) {
	// fault: evidence-record-dropped — lime.evidence record is answered ok but the host keeps no record of it.
	if h.faults.Has("evidence-record-dropped") {
		return
	}
	h.surf.addEvidence(l.appID, e)
}
