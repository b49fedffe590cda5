package agentpkg

import (
	"slices"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Env is the host state readiness is judged against.
type Env struct {
	Now          time.Time                      // "now" for lifecycle dates; zero means the wall clock
	Capabilities map[string]protocol.Capability // host capability profile
	Secrets      map[string]bool                // configured secret keys (never values)
	// Knowledge holds the knowledgeTemplates a pack is bound to.
	Knowledge map[string]bool
	Entry     string // judge this entry only
	// Granted holds the permission keys granted to the app; nil means the
	// host grants every permission (nothing to check).
	Granted map[string]bool
	// AppDenied and DeniedEntries are what tenant policy does not allow.
	AppDenied     bool
	DeniedEntries map[string]bool
	// Available holds, per kind (tools, skills, evals), the keys the host
	// has; a kind not in the map is not checked.
	Available map[string]map[string]bool
	// SystemRuntime is the system lime-runtime version a runtime-backed
	// release runs on; "" means not judged.
	SystemRuntime string
}

// effect is what a check does to the readiness status.
type effect int

const (
	pass    effect = iota
	warn           // reported, no status change
	degrade        // ready-degraded
	fixable        // needs-setup: a setup action can fix it
	hard           // blocked: no setup action can fix it
)

type rcheck struct {
	check  protocol.ReadinessCheck
	effect effect
	action *protocol.SetupAction
}

// Readiness judges whether p can run in env (spec 000, Readiness, Readiness
// self-check model, Metadata lifecycle; spec 002, Readiness state rules). It
// never runs package code. Failures of required checks give needs-setup when
// a setup action fixes them (secret, knowledge binding, capability disabled
// by the profile) and blocked when none can (end of life, incompatible host
// version, invalid manifest); recommended and performance failures give
// ready-degraded; an unknown check kind is a non-blocking warning. A past
// deprecatedAt warns without blocking; a past endOfLifeAt blocks and names
// supportWindow.supersededBy. With env.Entry set the answer is for that
// entry, whose requiredCapabilities must be available besides the app-wide
// requires.capabilities; without it, Entries lists every entry's status.
func Readiness(p *Package, env Env) protocol.ReadinessResult {
	if env.Now.IsZero() {
		env.Now = time.Now()
	}
	r := readiness{p: p, env: env}
	common := r.lifecycle()
	common = append(common, r.manifestErrors()...)
	common = append(common, r.hostVersions()...)
	common = append(common, r.systemRuntime()...)
	common = append(common, r.policy()...)
	common = append(common, r.permissions()...)
	common = append(common, r.availability()...)
	secrets := r.secrets()
	tiers := r.tiers()
	shared := func(caps []rcheck) []rcheck {
		out := append(append([]rcheck{}, common...), caps...)
		out = append(out, secrets...)
		for _, t := range ReadinessTiers() {
			out = append(out, tiers[t]...)
		}
		return out
	}
	var res protocol.ReadinessResult
	if env.Entry != "" {
		e, ok := findEntry(p.Manifest, env.Entry)
		if !ok {
			res = protocol.ReadinessResult{Status: protocol.StatusUnknown, Checks: []protocol.ReadinessCheck{{
				Severity: SeverityError, Kind: "entry", Key: env.Entry, Required: true,
				Message: "the app has no entry " + quote(env.Entry),
			}}}
		} else {
			res = summarize(shared(r.entryChecks(e)))
		}
		res.Entry = env.Entry
	} else {
		res = summarize(shared(r.capabilities(RequiredCapabilities(p.Manifest))))
		res.Entries = r.entries(common, secrets, tiers)
	}
	res.App, _ = p.Manifest["name"].(string)
	res.SupersededBy = r.supersededBy()
	if p.Readiness != nil {
		res.Tiers = map[string][]protocol.ReadinessCheck{}
		for _, t := range ReadinessTiers() {
			res.Tiers[t] = []protocol.ReadinessCheck{}
			for _, c := range tiers[t] {
				res.Tiers[t] = append(res.Tiers[t], c.check)
			}
		}
	}
	return res
}

type readiness struct {
	p   *Package
	env Env
}

// summarize derives status, blockers, warnings and setup actions from checks.
func summarize(checks []rcheck) protocol.ReadinessResult {
	res := protocol.ReadinessResult{Checks: []protocol.ReadinessCheck{}}
	worst := pass
	seen := map[string]bool{}
	for _, c := range checks {
		res.Checks = append(res.Checks, c.check)
		worst = max(worst, c.effect)
		switch c.effect {
		case fixable, hard:
			if b := c.check.Kind + ":" + c.check.Key; !seen["blocker "+b] {
				seen["blocker "+b] = true
				res.Blockers = append(res.Blockers, b)
			}
		case degrade, warn:
			res.Warnings = append(res.Warnings, c.check.Message)
		}
		if c.action != nil && c.effect != pass && !seen["action "+c.action.Key] {
			seen["action "+c.action.Key] = true
			res.SetupActions = append(res.SetupActions, *c.action)
		}
	}
	res.Status = statusOf(worst)
	res.OK = res.Status == protocol.StatusReady || res.Status == protocol.StatusReadyDegraded
	return res
}

func statusOf(e effect) string {
	switch e {
	case hard:
		return protocol.StatusBlocked
	case fixable:
		return protocol.StatusNeedsSetup
	case degrade:
		return protocol.StatusReadyDegraded
	default:
		return protocol.StatusReady
	}
}

// entries lists every entry's status.
func (r readiness) entries(common, secrets []rcheck, tiers map[string][]rcheck) []protocol.EntryReadiness {
	list, _ := r.p.Manifest["entries"].([]any)
	out := []protocol.EntryReadiness{}
	for _, item := range list {
		e, _ := item.(map[string]any)
		key, _ := e["key"].(string)
		if key == "" {
			continue
		}
		checks := append(append([]rcheck{}, common...), r.entryChecks(e)...)
		checks = append(checks, secrets...)
		for _, t := range ReadinessTiers() {
			checks = append(checks, tiers[t]...)
		}
		s := summarize(checks)
		out = append(out, protocol.EntryReadiness{Key: key, Status: s.Status, Blockers: s.Blockers})
	}
	return out
}

// entryChecks are the checks of one entry of its own: its capabilities,
// its permissions and the policy on it.
func (r readiness) entryChecks(e map[string]any) []rcheck {
	key, _ := e["key"].(string)
	out := r.capabilities(entryRequirements(r.p.Manifest, e))
	out = append(out, r.entryPermissions(e)...)
	return append(out, r.entryPolicy(key)...)
}

func findEntry(m map[string]any, key string) (map[string]any, bool) {
	list, _ := m["entries"].([]any)
	for _, item := range list {
		if e, ok := item.(map[string]any); ok && e["key"] == key {
			return e, true
		}
	}
	return nil, false
}

// entryRequirements are an entry's requiredCapabilities, with the app's
// ranges for them; an entry that declares none inherits the app's list.
func entryRequirements(m map[string]any, e map[string]any) []CapabilityRequirement {
	out := RequiredCapabilities(m)
	names, _ := e["requiredCapabilities"].([]any)
	for _, n := range names {
		s, ok := n.(string)
		if !ok || slices.ContainsFunc(out, func(r CapabilityRequirement) bool { return r.Name == s }) {
			continue
		}
		out = append(out, CapabilityRequirement{Name: s, Range: "current"})
	}
	return out
}

func quote(s string) string { return "\"" + s + "\"" }
