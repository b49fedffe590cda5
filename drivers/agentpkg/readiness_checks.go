package agentpkg

import (
	"fmt"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/agentapp/conformance/drivers/protocol"
)

func (r readiness) supersededBy() string {
	sw, _ := r.p.Manifest["supportWindow"].(map[string]any)
	s, _ := sw["supersededBy"].(string)
	return s
}

// lifecycle applies Metadata lifecycle: endOfLifeAt < now blocks and names
// supersededBy; deprecatedAt < now warns.
func (r readiness) lifecycle() []rcheck {
	var out []rcheck
	next := r.supersededBy()
	successor := ""
	if next != "" {
		successor = "; superseded by " + next
	}
	if eol, ok := r.date("endOfLifeAt"); ok {
		c := rcheck{check: protocol.ReadinessCheck{Severity: SeverityInfo, Kind: "lifecycle", Key: "endOfLifeAt",
			Required: true, Message: "end of life " + eol.Format(time.RFC3339) + " is not reached"}}
		if eol.Before(r.env.Now) {
			c.effect = hard
			c.check.Severity, c.check.Blocking, c.check.Code = SeverityError, true, "end-of-life"
			c.check.Message = "the app reached its end of life on " + eol.Format(time.RFC3339) + successor
			title := "Install a supported version of the app"
			if next != "" {
				title = "Install version " + next + ", which supersedes this one"
			}
			c.action = &protocol.SetupAction{Key: "upgrade", Kind: "external", Target: next, Title: title}
		}
		out = append(out, c)
	}
	if dep, ok := r.date("deprecatedAt"); ok && dep.Before(r.env.Now) {
		out = append(out, rcheck{effect: warn, check: protocol.ReadinessCheck{Severity: SeverityWarning,
			Kind: "lifecycle", Key: "deprecatedAt", Code: "deprecated",
			Message: "the app is deprecated since " + dep.Format(time.RFC3339) + successor}})
	}
	return out
}

func (r readiness) date(key string) (time.Time, bool) {
	s, _ := r.p.Manifest[key].(string)
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

// manifestErrors blocks an invalid package.
func (r readiness) manifestErrors() []rcheck {
	var out []rcheck
	for _, f := range r.p.Errors() {
		key := f.Field
		if key == "" {
			key = f.File
		}
		out = append(out, rcheck{effect: hard, check: protocol.ReadinessCheck{Severity: SeverityError,
			Kind: "manifest", Key: key, Required: true, Blocking: true, Code: f.Code, Message: f.Message},
			action: &protocol.SetupAction{Key: "fix-package", Kind: "external", Target: f.File,
				Title: "Install a corrected package"}})
	}
	return out
}

// capabilities checks capability requirements against the host profile.
func (r readiness) capabilities(reqs []CapabilityRequirement) []rcheck {
	var out []rcheck
	for _, req := range reqs {
		c := rcheck{check: protocol.ReadinessCheck{Severity: SeverityInfo, Kind: "capability_available",
			Key: req.Name, Required: true, Message: "capability " + req.Name + " is available"}}
		problem, unavailable := capabilityProblem(req, r.env.Capabilities)
		switch {
		case problem == "":
		case unavailable:
			c.effect = fixable
			c.action = &protocol.SetupAction{Key: "open-settings:" + req.Name, Kind: "open-settings",
				Target: req.Name, Title: "Enable capability " + req.Name}
		default:
			c.effect = hard
			c.check.Code = CodeIncompatibleCapability
			c.action = &protocol.SetupAction{Key: "host-version:" + req.Name, Kind: "external",
				Target: req.Name, Title: "Use a host whose " + req.Name + " satisfies " + req.Range}
		}
		if problem != "" {
			c.check.Severity, c.check.Blocking, c.check.Message = SeverityError, true, problem
		}
		out = append(out, c)
	}
	return out
}

// hostVersions checks requires.lime ranges (the host's app runtime version):
// an incompatible host is blocked, since no setup action fixes it (spec 002,
// Readiness state rules: blocked "is incompatible").
func (r readiness) hostVersions() []rcheck {
	var out []rcheck
	for _, req := range RequiredHostVersions(r.p.Manifest) {
		problem := hostVersionProblem(req, r.env.Capabilities)
		if problem == "" {
			continue
		}
		out = append(out, rcheck{effect: hard, check: protocol.ReadinessCheck{Severity: SeverityError,
			Kind: "host_version", Key: req.Name, Required: true, Blocking: true, Code: CodeIncompatibleHostVersion,
			Message: problem}, action: &protocol.SetupAction{Key: "host-version:" + req.Name, Kind: "external",
			Target: req.Name, Title: "Use a host whose " + req.Name + " satisfies " + req.Range}})
	}
	return out
}

// systemRuntime checks a runtime-backed release's lime-runtime bounds
// against the system's (spec 003, Distribution flow): an unmet bound is
// blocked, since no setup action in the app fixes it.
func (r readiness) systemRuntime() []rcheck {
	if r.env.SystemRuntime == "" {
		return nil
	}
	var out []rcheck
	for _, f := range VerifyRuntime(r.p, r.env.SystemRuntime) {
		out = append(out, rcheck{effect: hard, check: protocol.ReadinessCheck{Severity: SeverityError,
			Kind: "runtime_version", Key: "lime-runtime", Required: true, Blocking: true, Code: CodeIncompatibleRuntime,
			Message: f.Message}, action: &protocol.SetupAction{Key: "runtime-version:" + f.Field, Kind: "external",
			Target: "lime-runtime", Title: "Install a lime-runtime that satisfies " + f.Field}})
	}
	return out
}

// secrets checks every required secret slot is configured.
func (r readiness) secrets() []rcheck {
	var out []rcheck
	for _, key := range requiredKeys(r.p.Manifest["secrets"]) {
		out = append(out, r.secretCheck(key, "", true, true))
	}
	return out
}

// requiredKeys lists the keys of the items of a manifest list (secrets,
// permissions, toolRefs, skillRefs, evals) marked required: true.
func requiredKeys(v any) []string {
	list, _ := v.([]any)
	var keys []string
	for _, item := range list {
		m, _ := item.(map[string]any)
		if req, _ := m["required"].(bool); req && ItemKey(m) != "" {
			keys = append(keys, ItemKey(m))
		}
	}
	return keys
}

func (r readiness) secretCheck(key, tier string, required, blocker bool) rcheck {
	c := rcheck{check: protocol.ReadinessCheck{Severity: SeverityInfo, Kind: "secret_configured", Key: key,
		Required: required, Tier: tier, Message: "secret " + key + " is configured"}}
	if !r.env.Secrets[key] {
		c.effect = failEffect(tier, blocker, fixable)
		c.check.Severity, c.check.Blocking = failSeverity(c.effect), c.effect >= fixable
		c.check.Message = "secret " + key + " is not configured"
		c.action = &protocol.SetupAction{Key: "configure-secret:" + key, Kind: "configure-secret",
			Target: key, Title: "Configure secret " + key}
	}
	return c
}

// failEffect maps a failing check to its effect by tier (spec 000, Readiness
// self-check model: required blocks, recommended warns, performance informs).
func failEffect(tier string, blocker bool, blocking effect) effect {
	if tier == "" || (tier == "required" && blocker) {
		return blocking
	}
	return degrade
}

func failSeverity(e effect) string {
	if e >= fixable {
		return SeverityError
	}
	return SeverityWarning
}

// tiers evaluates evals/readiness.yaml.
func (r readiness) tiers() map[string][]rcheck {
	out := map[string][]rcheck{}
	for _, tier := range ReadinessTiers() {
		list, _ := r.p.Readiness[tier].([]any)
		for _, item := range list {
			if obj, ok := item.(map[string]any); ok {
				out[tier] = append(out[tier], r.tierCheck(tier, obj))
			}
		}
	}
	return out
}

func (r readiness) tierCheck(tier string, item map[string]any) rcheck {
	kind, _ := item["check"].(string)
	blocker, set := item["blocker"].(bool)
	if !set {
		blocker = tier == "required"
	}
	str := func(k string) string { s, _ := item[k].(string); return s }
	var c rcheck
	switch kind {
	case "secret_configured":
		c = r.secretCheck(firstNonEmpty(str("secret"), str("key")), tier, tier == "required", blocker)
	case "capability_available":
		name := firstNonEmpty(str("capability"), str("key"))
		c = r.tierResult(tier, kind, name, blocker, r.env.Capabilities[name].Enabled, fixable,
			"capability "+name+" is enabled", "capability "+name+" is not enabled in the host profile",
			&protocol.SetupAction{Key: "open-settings:" + name, Kind: "open-settings", Target: name, Title: "Enable capability " + name})
	case "knowledge_bound":
		name := firstNonEmpty(str("template"), str("key"))
		c = r.tierResult(tier, kind, name, blocker, r.env.Knowledge[name], fixable, "knowledge template "+name+" is bound",
			"knowledge template "+name+" is not bound to a knowledge pack",
			&protocol.SetupAction{Key: "bind-knowledge:" + name, Kind: "bind-knowledge", Target: name, Title: "Bind knowledge template " + name})
	case "sdk_version":
		ok, why := sdkSatisfies(str("expect"))
		c = r.tierResult(tier, kind, "sdk_version", blocker, ok, hard, "SDK "+StandardVersion+" is current", why,
			&protocol.SetupAction{Key: "host-version:sdk", Kind: "external", Target: "sdk", Title: "Use a host with a compatible SDK"})
	case "storage_quota":
		c = r.tierResult(tier, kind, "storage_quota", blocker, true, fixable, "storage quota is sufficient", "", nil)
	default:
		key := firstNonEmpty(str("key"), kind)
		c = rcheck{effect: warn, check: protocol.ReadinessCheck{Severity: SeverityWarning, Kind: kind, Key: key,
			Required: tier == "required", Tier: tier, Message: fmt.Sprintf("unknown check kind %q is not evaluated", kind)}}
		return c
	}
	if msg := str("message"); msg != "" && c.effect != pass {
		c.check.Message = msg + " (" + c.check.Message + ")"
	}
	return c
}

func (r readiness) tierResult(tier, kind, key string, blocker, ok bool, blocking effect, okMsg, failMsg string, action *protocol.SetupAction) rcheck {
	c := rcheck{check: protocol.ReadinessCheck{Severity: SeverityInfo, Kind: kind, Key: key,
		Required: tier == "required", Tier: tier, Message: okMsg}}
	if !ok {
		c.effect = failEffect(tier, blocker, blocking)
		c.check.Severity, c.check.Blocking, c.check.Message = failSeverity(c.effect), c.effect >= fixable, failMsg
		c.action = action
	}
	return c
}

// sdkSatisfies checks an sdk_version expectation against StandardVersion.
func sdkSatisfies(expect string) (bool, string) {
	if anyVersion(expect) {
		return true, ""
	}
	con, err := semver.NewConstraint(expect)
	if err != nil {
		return false, fmt.Sprintf("sdk_version expectation %q is not a SemVer range", expect)
	}
	if !con.Check(semver.MustParse(StandardVersion)) {
		return false, fmt.Sprintf("SDK %s does not satisfy %s", StandardVersion, expect)
	}
	return true, ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// ItemKey is what names an item of a manifest list: its key, or its id
// (skillRefs are named by id).
func ItemKey(m map[string]any) string {
	if k, ok := m["key"].(string); ok && k != "" {
		return k
	}
	id, _ := m["id"].(string)
	return id
}
