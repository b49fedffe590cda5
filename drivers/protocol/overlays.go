package protocol

import "encoding/json"

// Overlays (docs/host-control-protocol.md, "app/overlay"): spec 000
// Overlay precedence, "Workspace Override > User Overlay > Tenant Overlay >
// App Default > Host Default", and Overlay package, "Overlays must not
// modify the official package hash"; spec 003 What must not be overwritten,
// "tenant overlays, user overrides".

// MethodOverlay sets the overlay of one of an installed app's
// overlayTemplates, as the tenant admin, the user or the workspace would.
const MethodOverlay = "app/overlay"

// Overlay scopes: the overlayTemplates scopes the precedence names, highest
// last.
const (
	ScopeTenant    = "tenant"
	ScopeUser      = "user"
	ScopeWorkspace = "workspace"
)

// OverlayParams sets the values of the overlay an app's overlayTemplate
// key (of scope) describes; they replace the values set before for it.
type OverlayParams struct {
	AppID  string                     `json:"appId"`
	Key    string                     `json:"key"`
	Scope  string                     `json:"scope"`
	Values map[string]json.RawMessage `json:"values"`
}

// OverlayValue is the value in effect for one overlaid name and the scope
// it comes from (host/observe's overlay).
type OverlayValue struct {
	Value json.RawMessage `json:"value"`
	Scope string          `json:"scope"`
}
