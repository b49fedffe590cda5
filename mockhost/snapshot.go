package mockhost

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/text/language"
)

// Defaults of the host UI state a snapshot carries.
const (
	defaultLocale   = "en-US"
	defaultTimezone = "UTC"
)

// snapshotPayload is host:snapshot's payload: the fields spec 001 asks the
// first snapshot to include at least, and the cloud session presence spec
// 002 allows (Minimum host snapshot fields). It never carries tokens,
// secrets, the user id or host paths.
type snapshotPayload struct {
	hostbridge.Snapshot
	CloudSession cloudSession `json:"cloudSession"`
	// User is only ever set by a fault.
	User *userPreferences `json:"user,omitempty"`
	// Billing is only ever set by a fault.
	Billing *protocol.Billing `json:"billing,omitempty"`
}

// userPreferences are what the user chose (only the
// snapshot-default-locale-on-top fault sends them, apart from the locale
// and timezone the host applies).
type userPreferences struct {
	Locale   string `json:"locale"`
	Timezone string `json:"timezone"`
}

// cloudSession is the cloud session as an app may see it: presence and
// tenant, never a token (spec 001, shared user state: "Bearer tokens,
// refresh tokens" must not be exposed).
type cloudSession struct {
	SignedIn bool   `json:"signedIn"`
	TenantID string `json:"tenantId,omitempty"`
	Token    string `json:"token,omitempty"` // only ever set by a fault
}

// snapshot builds the host snapshot of surface l (spec 001, UI runtime:
// "The first host snapshot should include at least ...").
func (h *Host) snapshot(l *launch) snapshotPayload {
	cfg, _ := h.config()
	theme := h.theme()
	s := hostbridge.Snapshot{
		AppID: l.appID, EntryKey: l.entryKey, Route: l.route, RuntimeOrigin: l.frameOrigin,
		Theme: &theme, Locale: h.uiLocale(), Timezone: cfg.Timezone,
		WorkspaceID: cfg.WorkspaceID, TenantID: cfg.TenantID,
		Capabilities: h.capabilitySummary(l),
	}
	if s.Timezone == "" {
		s.Timezone = defaultTimezone
	}
	// fault: snapshot-locale-from-configure — the snapshot builder reads the locale host/configure gave, not the user's change (host/set): after the change getLocale and the snapshot disagree.
	if cfg.Locale != "" && h.faults.Has("snapshot-locale-from-configure") {
		s.Locale = cfg.Locale
	}
	status := protocol.StatusUnknown
	if r, e := h.readiness(protocol.ReadinessParams{AppID: l.appID, Entry: l.entryKey}); e == nil {
		status = r.Status
	}
	s.Readiness = &struct {
		Status string `json:"status"`
	}{status}
	// fault: snapshot-without-theme — the snapshot carries no theme and no timezone.
	if h.faults.Has("snapshot-without-theme") {
		s.Theme, s.Timezone = nil, ""
	}
	p := snapshotPayload{Snapshot: s, CloudSession: h.cloudSession()}
	// fault: snapshot-carries-billing-record — the snapshot carries the tenant's billing record as Lime Cloud (host/configure) gave it, ledger and payment credential included.
	if cfg.Billing != nil && h.faults.Has("snapshot-carries-billing-record") {
		b := *cfg.Billing
		p.Billing = &b
	}
	// fault: snapshot-default-locale-on-top — the snapshot's locale and timezone stay the host's defaults; what the user configured only rides along in a nested user object.
	if h.faults.Has("snapshot-default-locale-on-top") {
		p.User = &userPreferences{Locale: p.Locale, Timezone: p.Timezone}
		p.Locale, p.Timezone = defaultLocale, defaultTimezone
	}
	return p
}

// capabilitySummary lists the capabilities the app declares, each with
// whether the host offers it and, when not, why (spec 001, UI runtime:
// "Capability summary for the current entry and reasons for blocked
// capabilities").
func (h *Host) capabilitySummary(l *launch) []hostbridge.CapabilityState {
	// fault: snapshot-capabilities-cached — the capability summary is kept from the surface's first snapshot: a capability host/configure switches off later still shows available.
	if !h.faults.Has("snapshot-capabilities-cached") {
		return h.currentCapabilities(l)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.firstCapabilities == nil {
		l.firstCapabilities = h.currentCapabilities(l)
	}
	return l.firstCapabilities
}

// currentCapabilities is the capability summary of l under the host's
// profile now.
func (h *Host) currentCapabilities(l *launch) []hostbridge.CapabilityState {
	profile := h.profile()
	names := l.declared
	// fault: snapshot-offers-profile — the summary lists the whole host profile, not what the app declares.
	if h.faults.Has("snapshot-offers-profile") {
		names = make([]string, 0, len(profile))
		for n := range profile {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	out := []hostbridge.CapabilityState{}
	for _, n := range names {
		c, offered := profile[n]
		st := hostbridge.CapabilityState{Name: n, Available: offered && c.Enabled}
		switch {
		case !offered:
			st.Reason = fmt.Sprintf("This host does not offer %s.", n)
		case !c.Enabled:
			st.Reason = fmt.Sprintf("%s is turned off on this host.", n)
		}
		out = append(out, st)
	}
	return out
}

// cloudSession is the session part of snapshots and of
// lime.cloudSession getSnapshot.
func (h *Host) cloudSession() cloudSession {
	cfg, _ := h.config()
	s := cloudSession{SignedIn: cfg.TenantID != "" || len(cfg.SessionTokens) > 0, TenantID: cfg.TenantID}
	// fault: cloud-session-carries-other-token — the cloud session part leaves out the token of the session named cloud but carries another session's.
	if h.faults.Has("cloud-session-carries-other-token") {
		for name, v := range cfg.SessionTokens {
			if name != "cloud" {
				s.Token = v
			}
		}
	}
	// fault: snapshot-carries-session-token — the cloud session part carries the configured session token.
	if h.faults.Has("snapshot-carries-session-token") {
		s.Token = firstSecretValue(cfg.SessionTokens)
	}
	return s
}

// getLocale answers lime.ui getLocale: the active locale (000 i18n
// configuration: "Hosts surface the active locale through
// lime.ui.getLocale()").
func (h *Host) getLocale() any {
	loc := h.uiLocale()
	switch {
	// fault: locale-fixed — lime.ui getLocale always answers the host's default locale.
	case h.faults.Has("locale-fixed"):
		loc = defaultLocale
	// fault: locale-read-once — lime.ui getLocale answers the configured locale; a later host/set never reaches it.
	case h.faults.Has("locale-read-once"):
		if cfg, _ := h.config(); cfg.Locale != "" {
			loc = cfg.Locale
		}
	}
	// variant: locale-as-string — lime.ui getLocale answers the bare locale tag, not an object naming it.
	if h.variants.Has("locale-as-string") {
		return loc
	}
	return map[string]string{"locale": loc}
}

// uiLocale is the host's locale: host/set's, else host/configure's, else
// en-US.
func (h *Host) uiLocale() string {
	_, loc := h.surf.uiState()
	if loc != "" {
		return loc
	}
	if cfg, _ := h.config(); cfg.Locale != "" {
		return cfg.Locale
	}
	return defaultLocale
}

// theme is the host's theme as tokens (spec 000, Host Bridge v1: "The host
// reads effective Lime CSS variables and sends them through host:snapshot
// and theme:update"). The reference host's system preference is light.
func (h *Host) theme() hostbridge.SnapshotTheme {
	t := protocol.Theme{Mode: "light"}
	if set, _ := h.surf.uiState(); set != nil {
		t = *set
	}
	effective := t.Mode
	if effective == "system" {
		effective = "light"
	}
	vars := themeVariables(effective)
	maps.Copy(vars, t.Tokens)
	scheme := t.ColorSchemeID
	if scheme == "" {
		scheme = "default"
	}
	return hostbridge.SnapshotTheme{ThemeMode: t.Mode, EffectiveThemeMode: effective, ColorSchemeID: scheme, Variables: vars}
}

// themeVariables are the reference host's Lime CSS variables for a mode.
func themeVariables(mode string) map[string]string {
	if mode == "dark" {
		return map[string]string{
			"--lime-color-background": "#0d1117", "--lime-color-foreground": "#e6edf3",
			"--lime-color-accent": "#4493f8", "--lime-color-border": "#30363d",
			"--lime-radius": "6px", "--lime-font-family": "system-ui, sans-serif",
		}
	}
	return map[string]string{
		"--lime-color-background": "#ffffff", "--lime-color-foreground": "#1f2328",
		"--lime-color-accent": "#0969da", "--lime-color-border": "#d0d7de",
		"--lime-radius": "6px", "--lime-font-family": "system-ui, sans-serif",
	}
}

// set answers host/set: it changes what a user would (theme, visibility,
// locale) and the bridge pushes each change to every open surface: theme
// as theme:update, visibility as host:visibility, locale as a fresh
// host:snapshot (spec 000, Host Bridge v1, Host -> App events).
func (h *Host) set(p protocol.SetParams) *jsonrpc2.Error {
	if e := checkSet(p); e != nil {
		return e
	}
	before := h.theme()
	h.surf.setUI(p.Theme, p.Locale)
	theme := h.theme()
	// fault: theme-update-previous-mode — theme:update carries the new tokens under the mode of the theme before the change.
	if h.faults.Has("theme-update-previous-mode") {
		theme.ThemeMode, theme.EffectiveThemeMode = before.ThemeMode, before.EffectiveThemeMode
	}
	push := func(l *launch, m hostMessage) {
		// fault: push-without-version — the messages host/set pushes (theme:update, host:visibility, host:snapshot) carry no version: the push path builds its own envelope.
		if h.faults.Has("push-without-version") {
			m.Version = nil
		}
		l.push(m)
	}
	for _, l := range h.surf.open() {
		// fault: set-pushes-visibility-only — of a host/set changing the visibility and the theme at once, only host:visibility is pushed (held-out m07).
		// fault: no-theme-update — a theme change is not pushed to mounted apps.
		if p.Theme != nil && !h.faults.Has("no-theme-update") && !(p.Visibility != "" && h.faults.Has("set-pushes-visibility-only")) {
			push(l, h.message(l, hostbridge.TypeThemeUpdate, "", theme))
		}
		// fault: set-pushes-theme-only — of a host/set changing the theme and the visibility at once, only theme:update is pushed (held-out m07).
		// fault: no-visibility-event — a visibility change is not pushed to mounted apps.
		if p.Visibility != "" && !h.faults.Has("no-visibility-event") && !(p.Theme != nil && h.faults.Has("set-pushes-theme-only")) {
			push(l, h.message(l, hostbridge.TypeVisibility, "", h.visibilityPayload(p.Visibility)))
		}
		// variant: locale-reloads-frame — a locale change loads the app's frame afresh (the new document starts in the new locale) instead of pushing a snapshot.
		if p.Locale != "" && h.variants.Has("locale-reloads-frame") {
			l.push(hostMessage{Reload: l.frameURL()})
		} else if p.Locale != "" {
			push(l, h.message(l, hostbridge.TypeSnapshot, "", h.snapshotAnswer(l)))
		}
	}
	return nil
}

// checkSet checks host/set params beyond their schema.
func checkSet(p protocol.SetParams) *jsonrpc2.Error {
	if p.Theme != nil {
		switch p.Theme.Mode {
		case "light", "dark", "system":
		default:
			return invalidParams(protocol.MethodSet, "theme.mode", fmt.Sprintf("must be light, dark or system, not %q", p.Theme.Mode))
		}
		for name := range p.Theme.Tokens {
			if !strings.HasPrefix(name, "--") {
				return invalidParams(protocol.MethodSet, "theme.tokens", fmt.Sprintf("names %q, which is not a CSS custom property (--name)", name))
			}
		}
	}
	switch p.Visibility {
	case "", "visible", "hidden":
	default:
		return invalidParams(protocol.MethodSet, "visibility", fmt.Sprintf("must be visible or hidden, not %q", p.Visibility))
	}
	if p.Locale != "" {
		if _, err := language.Parse(p.Locale); err != nil {
			return invalidParams(protocol.MethodSet, "locale", fmt.Sprintf("is not a BCP 47 language tag: %q", p.Locale))
		}
	}
	return nil
}
