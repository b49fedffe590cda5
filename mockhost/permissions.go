package mockhost

import (
	"fmt"
	"slices"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Permission interception at call time (spec 001, Host responsibilities:
// "Intercept file, network, secret, tool, agent, storage, and export
// permissions"; spec 000, Capability level: the host "intercepts
// permissions"). A call needs the permissions the app declares for what
// the call touches; with grants stated (host/configure `grants`), one of
// them must be granted, whether the permission is required or optional
// (spec 000, permissions: "Permission requests that the host must
// authorize before install or runtime"). docs/decisions.md, "Permissions
// at call time".

// capabilityScopes is the permission scope a capability's calls touch.
var capabilityScopes = map[string]string{
	"lime.storage":   "storage",
	"lime.secrets":   "secret",
	"lime.files":     "filesystem",
	"lime.tools":     "tool",
	"lime.agent":     "model",
	"lime.workflow":  "workflow",
	"lime.artifacts": "artifact",
}

// readMethods are the capability methods that only read.
var readMethods = []string{"get", "list", "read", "status", "search", "getSnapshot", "listCapabilities"}

// callAccess is the access a capability call asks for: read or write.
func callAccess(method string) string {
	if slices.Contains(readMethods, method) {
		return "read"
	}
	return "write"
}

// coversAccess reports whether a permission's declared access covers a
// call's: no access, read-write and admin cover both; execute covers a
// write (an action).
func coversAccess(declared, access string) bool {
	switch declared {
	case "", "read-write", "admin":
		return true
	case "execute":
		return access == "write"
	}
	return declared == access
}

// ungranted returns the permission that withholds a call, or nil: the
// permissions the launched app declares that cover the call (covers),
// when grants are stated and none of them is granted to the app.
func (h *Host) ungranted(l *launch, covers func(declaredPermission) bool) *declaredPermission {
	cfg, _ := h.config()
	// fault: permissions-checked-at-readiness-only — grants are read by readiness alone: a call needing a permission the user has not granted runs.
	if cfg.Grants == nil || h.faults.Has("permissions-checked-at-readiness-only") {
		return nil
	}
	granted := cfg.Grants[l.appID]
	var first *declaredPermission
	for i, p := range l.permissions {
		if !covers(p) {
			continue
		}
		if slices.Contains(granted, p.Key) {
			return nil
		}
		if first == nil {
			first = &l.permissions[i]
		}
	}
	return first
}

// permissionDenial is the permission gate's answer for a call p withholds.
func (h *Host) permissionDenial(p *declaredPermission) *denial {
	msg := fmt.Sprintf("This app's permission %q (%s) has not been granted.", p.Key, p.Scope)
	// variant: permission-denied-as-policy — an ungranted permission is refused at the policy gate, with the policy code.
	if h.variants.Has("permission-denied-as-policy") {
		return &denial{protocol.GatePolicy, hostbridge.CodePolicyDenied, msg}
	}
	return &denial{protocol.GatePermission, hostbridge.CodePermissionDenied, msg}
}

// capabilityPermission is the permission gate of a capability call.
func (h *Host) capabilityPermission(l *launch, capability, method string) *denial {
	scope, ok := capabilityScopes[capability]
	// fault: workflow-permission-unchecked — the call-time permission gate knows no scope for lime.workflow: its calls run whatever the grants say.
	if !ok || capability == "lime.workflow" && h.faults.Has("workflow-permission-unchecked") {
		return nil
	}
	access := callAccess(method)
	// fault: permission-scope-covers-access — any granted permission of the call's scope lets it through: a grant that reads covers a write.
	if h.faults.Has("permission-scope-covers-access") && slices.ContainsFunc(l.permissions, func(p declaredPermission) bool {
		return p.Scope == scope && h.granted(l, p.Key)
	}) {
		return nil
	}
	if p := h.ungranted(l, func(p declaredPermission) bool { return p.Scope == scope && coversAccess(p.Access, access) }); p != nil {
		return h.permissionDenial(p)
	}
	return nil
}

// downloadPermission is the permission gate of host:download: a
// permission of scope export, or filesystem with write access.
func (h *Host) downloadPermission(l *launch) *denial {
	if p := h.ungranted(l, declaredPermission.savesFiles); p != nil {
		return h.permissionDenial(p)
	}
	return nil
}

// openExternalPermission is the permission gate of host:openExternal of
// host: a network permission naming host or a domain above it.
func (h *Host) openExternalPermission(l *launch, host string) *denial {
	if p := h.ungranted(l, func(p declaredPermission) bool { return p.namesHost(host) }); p != nil {
		return h.permissionDenial(p)
	}
	return nil
}

// grantedFor reports whether the grants name a permission the launched app
// declares for a capability's call.
func (h *Host) grantedFor(l *launch, capability, method string) bool {
	cfg, _ := h.config()
	scope, access := capabilityScopes[capability], callAccess(method)
	return slices.ContainsFunc(l.permissions, func(p declaredPermission) bool {
		return p.Scope == scope && coversAccess(p.Access, access) && slices.Contains(cfg.Grants[l.appID], p.Key)
	})
}

// granted reports whether the grants name key for the launched app.
func (h *Host) granted(l *launch, key string) bool {
	cfg, _ := h.config()
	return slices.Contains(cfg.Grants[l.appID], key)
}
