package mockhost

import (
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// distortReadiness applies the readiness faults that rewrite a correct
// readiness answer the way a buggy host would report it.
func (h *Host) distortReadiness(res *protocol.ReadinessResult) {
	// fault: required-tier-ignored — failing required checks become warnings; the app is ready-degraded.
	if h.faults.Has("required-tier-ignored") {
		demote(res, func(c protocol.ReadinessCheck) bool { return c.Tier == "required" })
	}
	// fault: recommended-tier-blocks — failing recommended checks block like required ones.
	if h.faults.Has("recommended-tier-blocks") {
		promote(res, func(c protocol.ReadinessCheck) bool { return c.Tier == "recommended" }, protocol.StatusNeedsSetup)
	}
	// fault: performance-tier-blocks — failing performance checks block like required ones.
	if h.faults.Has("performance-tier-blocks") {
		promote(res, func(c protocol.ReadinessCheck) bool { return c.Tier == "performance" }, protocol.StatusNeedsSetup)
	}
	// fault: deprecated-blocks — a past deprecatedAt blocks the app instead of warning.
	if h.faults.Has("deprecated-blocks") {
		promote(res, func(c protocol.ReadinessCheck) bool {
			return c.Kind == "lifecycle" && c.Key == "deprecatedAt"
		}, protocol.StatusBlocked)
	}
	// fault: hide-superseded-by — an end-of-life app is blocked without naming its successor.
	if h.faults.Has("hide-superseded-by") {
		hideSuccessor(res)
	}
	// fault: omit-setup-actions — failures are listed with no setupActions.
	if h.faults.Has("omit-setup-actions") {
		res.SetupActions = nil
	}
	// fault: readiness-echoes-secret — messages about secrets quote the first configured secret's value.
	if h.faults.Has("readiness-echoes-secret") {
		cfg, _ := h.config()
		echoSecret(res, firstSecretValue(cfg.Secrets))
	}
	// fault: readiness-nonstandard-status — a ready app is reported as "ok".
	if h.faults.Has("readiness-nonstandard-status") && res.Status == protocol.StatusReady {
		res.Status = "ok"
	}
}

// eachCheck calls fn on every check of res: Checks and every tier list.
func eachCheck(res *protocol.ReadinessResult, fn func(c *protocol.ReadinessCheck)) {
	for i := range res.Checks {
		fn(&res.Checks[i])
	}
	for _, list := range res.Tiers {
		for i := range list {
			fn(&list[i])
		}
	}
}

// ref is how blockers name a check.
func ref(c protocol.ReadinessCheck) string { return c.Kind + ":" + c.Key }

// rebuildBlockers lists the blocking checks the way summarize does.
func rebuildBlockers(res *protocol.ReadinessResult) {
	res.Blockers = nil
	for _, c := range res.Checks {
		if c.Blocking {
			res.Blockers = append(res.Blockers, ref(c))
		}
	}
}

// demote turns the blocking checks pred selects into warnings; with no
// blocker left the app (and each entry) is ready-degraded.
func demote(res *protocol.ReadinessResult, pred func(protocol.ReadinessCheck) bool) {
	demoted := map[string]bool{}
	for i := range res.Checks {
		if c := &res.Checks[i]; pred(*c) && c.Blocking {
			res.Warnings = append(res.Warnings, c.Message)
			demoted[ref(*c)] = true
		}
	}
	if len(demoted) == 0 {
		return
	}
	eachCheck(res, func(c *protocol.ReadinessCheck) {
		if pred(*c) && c.Blocking {
			c.Severity, c.Blocking = agentpkg.SeverityWarning, false
		}
	})
	rebuildBlockers(res)
	if len(res.Blockers) == 0 {
		res.Status, res.OK = protocol.StatusReadyDegraded, true
	}
	for i := range res.Entries {
		e := &res.Entries[i]
		e.Blockers = slices.DeleteFunc(e.Blockers, func(b string) bool {
			return demoted[b] && !slices.Contains(res.Blockers, b)
		})
		if len(e.Blockers) == 0 && (e.Status == protocol.StatusNeedsSetup || e.Status == protocol.StatusBlocked) {
			e.Status = protocol.StatusReadyDegraded
		}
	}
}

// promote makes the failing non-blocking checks pred selects block, raising
// the app's (and each entry's) status to at least status.
func promote(res *protocol.ReadinessResult, pred func(protocol.ReadinessCheck) bool, status string) {
	promoted := map[string]bool{}
	var msgs []string
	for _, c := range res.Checks {
		if pred(c) && !c.Blocking && c.Severity != agentpkg.SeverityInfo {
			promoted[ref(c)] = true
			msgs = append(msgs, c.Message)
		}
	}
	if len(promoted) == 0 {
		return
	}
	eachCheck(res, func(c *protocol.ReadinessCheck) {
		if pred(*c) && !c.Blocking && c.Severity != agentpkg.SeverityInfo {
			c.Severity, c.Blocking, c.Required = agentpkg.SeverityError, true, true
		}
	})
	res.Warnings = slices.DeleteFunc(res.Warnings, func(w string) bool { return slices.Contains(msgs, w) })
	rebuildBlockers(res)
	res.Status = worse(res.Status, status)
	res.OK = res.Status == protocol.StatusReady || res.Status == protocol.StatusReadyDegraded
	for i := range res.Entries {
		e := &res.Entries[i]
		for b := range promoted {
			e.Blockers = append(e.Blockers, b)
		}
		slices.Sort(e.Blockers)
		e.Status = worse(e.Status, status)
	}
}

// worse returns the more severe of two statuses in the order ready,
// ready-degraded, needs-setup, blocked; other statuses stay.
func worse(cur, to string) string {
	rank := map[string]int{protocol.StatusReady: 1, protocol.StatusReadyDegraded: 2,
		protocol.StatusNeedsSetup: 3, protocol.StatusBlocked: 4}
	rc, known := rank[cur]
	if known && rank[to] > rc {
		return to
	}
	return cur
}

// hideSuccessor drops supersededBy and every mention of the successor.
func hideSuccessor(res *protocol.ReadinessResult) {
	next := res.SupersededBy
	res.SupersededBy = ""
	if next == "" {
		return
	}
	scrub := func(s string) string {
		s = strings.ReplaceAll(s, "; superseded by "+next, "")
		return strings.ReplaceAll(s, next, "a newer version")
	}
	eachCheck(res, func(c *protocol.ReadinessCheck) { c.Message = scrub(c.Message) })
	for i := range res.Warnings {
		res.Warnings[i] = scrub(res.Warnings[i])
	}
	for i := range res.SetupActions {
		a := &res.SetupActions[i]
		if a.Target == next {
			a.Target = ""
		}
		if strings.Contains(a.Title, next) {
			a.Title = "Install a supported version of the app"
		}
	}
}

// echoSecret appends a configured secret's value to every check message
// about a secret, or else to the first warning (or first check).
func echoSecret(res *protocol.ReadinessResult, value string) {
	if value == "" {
		return
	}
	suffix := " (configured value: " + value + ")"
	n := 0
	eachCheck(res, func(c *protocol.ReadinessCheck) {
		if c.Kind == "secret_configured" {
			c.Message += suffix
			n++
		}
	})
	switch {
	case n > 0:
	case len(res.Warnings) > 0:
		res.Warnings[0] += suffix
	case len(res.Checks) > 0:
		res.Checks[0].Message += suffix
	}
}

// readinessFaults are the faults of app/readiness (readiness.go,
// installed.go, policy.go, and distortReadiness): tiers, lifecycle
// dates, policy, secrets, capabilities, the installed copy.
func readinessFaults() []Fault {
	return []Fault{
		{Name: "readiness-by-path-ignores-install", Breaks: []string{"READY-MIGRATIONS"},
			Description: "app/readiness by the path of an installed package judges the folder alone: migrations waiting for approval (and a disabled app) read as ready"},
		{Name: "skill-scripts-run-on-readiness", Breaks: []string{"SKILL-SCRIPTS-NOT-RUN"},
			Description: "readiness runs each bundled Skill's setup scripts to tell whether the Skill is available"},
		{Name: "exec-worker-on-readiness", Breaks: []string{"P0-NO-APP-CODE"},
			Description: "readiness runs the package's worker as a health probe"},
		{Name: "render-ui-on-readiness", Breaks: []string{"P0-NO-APP-CODE"},
			Description: "readiness loads the package's UI entry page for a preview, as a renderer would, asking for what it links"},
		{Name: "readiness-nonstandard-status",
			Breaks:      []string{"READY-STATUS", "PROTO-RESULT-SCHEMA"},
			Description: "a ready app is reported as status \"ok\", outside the standard's vocabulary (every answer that would say ready fails its schema)"},
		{Name: "required-tier-ignored", Breaks: []string{"READY-REQUIRED-TIER"},
			Description: "failing required checks are reported as warnings and the app as ready-degraded"},
		{Name: "recommended-tier-blocks", Breaks: []string{"READY-RECOMMENDED-TIER"},
			Description: "failing recommended checks block like required ones"},
		{Name: "performance-tier-blocks", Breaks: []string{"READY-PERFORMANCE-TIER"},
			Description: "failing performance checks block like required ones"},
		{Name: "omit-setup-actions", Breaks: []string{"READY-SETUP-ACTIONS"},
			Description: "readiness lists blockers but no setupActions"},
		{Name: "ignore-end-of-life", Breaks: []string{"READY-END-OF-LIFE"},
			Description: "endOfLifeAt is not checked"},
		{Name: "hide-superseded-by", Breaks: []string{"READY-END-OF-LIFE"},
			Description: "an end-of-life app is blocked without naming supersededBy"},
		{Name: "ignore-tenant-policy", Breaks: []string{"POLICY-INSTALL", "READY-POLICY"},
			Description: "tenant policy is never read, at install or in readiness"},
		{Name: "policy-denies-whole-app", Breaks: []string{"READY-POLICY"},
			Description: "an app with one entry denied by policy is denied as a whole"},
		{Name: "health-ignored", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "evals/health.yaml is never read: a failing startup health check leaves the app ready"},
		{Name: "health-first-check-only", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "only the first startup (and runtime) health check is looked at: a later one failing leaves the app ready"},
		{Name: "health-startup-needs-setup", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "a failing startup health check asks for setup (needs-setup) instead of regressing the app to blocked"},
		{Name: "health-runtime-blocks", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "a failing critical runtime health check blocks the app like a startup one, where it should only degrade it"},
		{Name: "health-failure-sticks", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "a startup health check once seen failing is remembered for the app: it stays blocked after the signal passes again"},
		{Name: "health-signal-by-prefix", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "a failing signal fails every health check whose name begins with it: a signal storage fails storage_accessible"},
		{Name: "ignore-availability", Breaks: []string{"READY-AVAILABILITY"},
			Description: "required tools, skills and evals count as available whatever the host has"},
		{Name: "ignore-permission-grants", Breaks: []string{"READY-PERMISSIONS"},
			Description: "required permissions count as granted whatever the grants say"},
		{Name: "ignore-clock-override", Breaks: []string{"READY-END-OF-LIFE", "READY-DEPRECATED"},
			Description: "lifecycle dates are compared with the wall clock, not the configured clock"},
		{Name: "lifecycle-by-day", Breaks: []string{"READY-END-OF-LIFE", "READY-DEPRECATED"},
			Description: "lifecycle dates are compared by calendar day: a date takes effect a day late"},
		{Name: "deprecated-blocks", Breaks: []string{"READY-DEPRECATED"},
			Description: "a deprecated app is blocked instead of warned about"},
		{Name: "holds-no-secrets", Breaks: []string{"PROJ-NO-SECRETS", "READY-NO-SECRET-LEAK", "HOST-NO-SECRET-LEAK"},
			Description: "the host has no place for secrets: those host/configure names are dropped, so nothing it answers could carry them (a must-not judged on it has no evidence and must not pass)"},
		{Name: "ignore-missing-secrets", Breaks: []string{"READY-SECRETS"},
			Description: "required secrets are not checked"},
		{Name: "ignore-capability-profile", Breaks: []string{"READY-CAPABILITIES"},
			Description: "readiness ignores capabilities disabled in the host profile"},
		{Name: "entry-readiness-copies-app", Breaks: []string{"READY-PER-ENTRY"},
			Description: "every entry gets the app's overall status"},
		{Name: "readiness-trusts-install", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "readiness of an installed app never hashes its installed copy again: files changed since install go unnoticed"},
		{Name: "installed-hash-by-size", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "readiness compares the installed copy's files by size only, so an edit that keeps a file's size passes"},
		{Name: "installed-hash-known-files", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "readiness checks only the files recorded at install, so a file added to the installed copy passes"},
		{Name: "readiness-echoes-secret", Breaks: []string{"READY-NO-SECRET-LEAK", "HOST-NO-SECRET-LEAK"},
			Description: "readiness messages quote the configured secret value"},
	}
}
