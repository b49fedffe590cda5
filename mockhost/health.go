package mockhost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// healthCheck is one check of evals/health.yaml's startup or runtime list.
type healthCheck struct {
	name     string
	critical bool
	// stated says the check names critical itself; unstated, it is
	// critical ("Failed startup checks regress readiness to blocked").
	stated bool
}

// healthChecks lists the checks of phase ("startup" or "runtime") the
// package's evals/health.yaml declares, in order.
func healthChecks(p *agentpkg.Package, phase string) []healthCheck {
	health, _ := p.Manifest["health"].(map[string]any)
	list, _ := health[phase].([]any)
	var out []healthCheck
	for _, item := range list {
		m, _ := item.(map[string]any)
		name, _ := m["check"].(string)
		if name == "" {
			continue
		}
		critical, ok := m["critical"].(bool)
		out = append(out, healthCheck{name: name, critical: critical || !ok, stated: ok})
	}
	return out
}

// healthReadiness applies the app's health checks to its readiness (spec
// 000, Health checks: "Failed startup checks regress readiness to
// blocked. Failed runtime checks trigger degradation or auto-recovery"),
// reading the signals host/configure's health names as failing: a failing
// critical startup check blocks the app and each entry, naming the check;
// a failing runtime check, or a startup check marked critical: false,
// degrades them (ready-degraded).
func (h *Host) healthReadiness(p *agentpkg.Package, res *protocol.ReadinessResult) {
	cfg, _ := h.config()
	// fault: health-ignored — evals/health.yaml is never read: a failing health signal changes no readiness.
	if cfg.Health == nil || h.faults.Has("health-ignored") {
		return
	}
	// fault: health-skipped-for-entry — health is applied to the app's readiness only: an answer for one entry leaves a failing startup check out, and the entry launches.
	if res.Entry != "" && h.faults.Has("health-skipped-for-entry") {
		return
	}
	failing := cfg.Health.Failing
	// fault: health-failure-sticks — a startup check once seen failing is remembered for the app: it stays blocked after the signal passes again.
	if h.faults.Has("health-failure-sticks") {
		name, _ := identity(p)
		h.mu.Lock()
		if h.healthFailed == nil {
			h.healthFailed = map[string][]string{}
		}
		for _, c := range healthChecks(p, "startup") {
			if slices.Contains(failing, c.name) && !slices.Contains(h.healthFailed[name], c.name) {
				h.healthFailed[name] = append(h.healthFailed[name], c.name)
			}
		}
		failing = append(slices.Clone(failing), h.healthFailed[name]...)
		h.mu.Unlock()
	}
	for _, phase := range []string{"startup", "runtime"} {
		for i, c := range healthChecks(p, phase) {
			// fault: health-first-check-only — only the first check of each phase is looked at.
			if i > 0 && h.faults.Has("health-first-check-only") {
				break
			}
			if !h.healthSignalFails(failing, c.name) {
				continue
			}
			// fault: health-critical-absent-read-as-false — a check that does not state critical is read as critical: false, so a failing startup check written without it only degrades the app.
			if !c.stated && h.faults.Has("health-critical-absent-read-as-false") {
				c.critical = false
			}
			// fault: health-runtime-blocks — a failing runtime check blocks the app like a startup one.
			blocks := c.critical && (phase == "startup" || h.faults.Has("health-runtime-blocks"))
			check := protocol.ReadinessCheck{Severity: agentpkg.SeverityWarning, Kind: "health", Key: c.name, Tier: "recommended",
				Message: fmt.Sprintf("The %s health check %s fails.", phase, c.name)}
			status := protocol.StatusReadyDegraded
			if blocks {
				check.Severity, check.Tier, check.Required, check.Blocking = agentpkg.SeverityError, "required", true, true
				status = protocol.StatusBlocked
				// fault: health-startup-needs-setup — a failing startup check asks for setup (needs-setup) instead of blocking the app.
				if h.faults.Has("health-startup-needs-setup") {
					status = protocol.StatusNeedsSetup
				}
			}
			res.Checks = append(res.Checks, check)
			res.Status = worse(res.Status, status)
			for i := range res.Entries {
				res.Entries[i].Status = worse(res.Entries[i].Status, status)
			}
			if blocks {
				res.OK = false
				res.Blockers = append(res.Blockers, ref(check))
				for i := range res.Entries {
					res.Entries[i].Blockers = append(res.Entries[i].Blockers, ref(check))
				}
			}
		}
	}
}

// healthSignalFails reports whether the signal of the check named name
// reads as failing.
func (h *Host) healthSignalFails(failing []string, name string) bool {
	// fault: health-signal-by-prefix — a failing signal fails every check whose name begins with it (storage fails storage_accessible).
	if h.faults.Has("health-signal-by-prefix") {
		return slices.ContainsFunc(failing, func(f string) bool { return f != "" && strings.HasPrefix(name, f) })
	}
	return slices.Contains(failing, name)
}
