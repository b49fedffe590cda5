package agentpkg

import "github.com/agentapp/conformance/drivers/protocol"

// Permission grants and tenant policy in readiness (spec 000, Readiness:
// "required permissions are granted", "policy allows the requested entry").

// permissions checks the app's required permissions against env.Granted;
// with no grants stated (nil) the host grants every permission and nothing
// is checked. Optional permissions (required: false) never hold an app back.
func (r readiness) permissions() []rcheck {
	if r.env.Granted == nil {
		return nil
	}
	var out []rcheck
	for _, key := range requiredKeys(r.p.Manifest["permissions"]) {
		out = append(out, r.permissionCheck(key))
	}
	return out
}

// entryPermissions checks the permissions an entry lists for itself.
func (r readiness) entryPermissions(e map[string]any) []rcheck {
	if r.env.Granted == nil {
		return nil
	}
	keys, _ := e["permissions"].([]any)
	var out []rcheck
	for _, k := range keys {
		if key, ok := k.(string); ok && key != "" {
			out = append(out, r.permissionCheck(key))
		}
	}
	return out
}

func (r readiness) permissionCheck(key string) rcheck {
	c := rcheck{check: protocol.ReadinessCheck{Severity: SeverityInfo, Kind: "permission_granted", Key: key,
		Required: true, Message: "permission " + key + " is granted"}}
	if !r.env.Granted[key] {
		c.effect = fixable
		c.check.Severity, c.check.Blocking = SeverityError, true
		c.check.Message = "permission " + key + " is not granted"
		c.action = &protocol.SetupAction{Key: "grant-permission:" + key, Kind: "grant-permission",
			Target: key, Title: "Grant permission " + key}
	}
	return c
}

// policy is the tenant policy check of the app as a whole: an app the
// policy denies cannot run here, and no setup action can change that.
func (r readiness) policy() []rcheck {
	if !r.env.AppDenied {
		return nil
	}
	name, _ := r.p.Manifest["name"].(string)
	return []rcheck{{effect: hard, check: protocol.ReadinessCheck{Severity: SeverityError, Kind: "policy", Key: name,
		Required: true, Blocking: true, Message: "tenant policy denies app " + quote(name)}}}
}

// entryPolicy is the tenant policy check of one entry.
func (r readiness) entryPolicy(key string) []rcheck {
	if !r.env.DeniedEntries[key] {
		return nil
	}
	return []rcheck{{effect: hard, check: protocol.ReadinessCheck{Severity: SeverityError, Kind: "policy", Key: key,
		Required: true, Blocking: true, Message: "tenant policy denies entry " + quote(key)}}}
}

// availabilityKinds maps what host/configure's available names to the
// manifest list whose required items need it (spec 000, Readiness:
// "required Skills, Tools, Artifact viewers, and Evals are available").
var availabilityKinds = []struct{ kind, list, check, action string }{
	{"tools", "toolRefs", "tool_available", "install-tool"},
	{"skills", "skillRefs", "skill_available", "install-skill"},
	{"evals", "evals", "eval_available", "install-eval"},
}

// availability checks the app's required tools, skills and evals against
// env.Available; a kind the host did not state is not checked.
func (r readiness) availability() []rcheck {
	var out []rcheck
	for _, k := range availabilityKinds {
		have, stated := r.env.Available[k.kind]
		if !stated {
			continue
		}
		for _, key := range requiredKeys(r.p.Manifest[k.list]) {
			c := rcheck{check: protocol.ReadinessCheck{Severity: SeverityInfo, Kind: k.check, Key: key,
				Required: true, Message: k.list + " " + key + " is available"}}
			if !have[key] {
				c.effect = fixable
				c.check.Severity, c.check.Blocking = SeverityError, true
				c.check.Message = k.list + " " + key + " is required and not available on this host"
				c.action = &protocol.SetupAction{Key: k.action + ":" + key, Kind: k.action, Target: key,
					Title: "Make " + key + " available"}
			}
			out = append(out, c)
		}
	}
	return out
}
