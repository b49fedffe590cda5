package harness

import (
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
	. "github.com/onsi/ginkgo/v2"
)

// ReadyWithMigrations is the positive control of the readiness specs: the
// app installed with its migrations approved is ready (a host may want
// app/migrate even after an approving install).
func (tc *TestContext) ReadyWithMigrations(appID string) {
	GinkgoHelper()
	if r := tc.AppReadiness(appID); r.Status != protocol.StatusReady {
		tc.Migrated(appID)
	}
	tc.ExpectAppReady(appID)
}

// IsLaunchable reports whether a readiness status lets the entry launch
// (any status the standard does not call not-ready).
func IsLaunchable(status string) bool {
	for _, s := range NotReady() {
		if status == s {
			return false
		}
	}
	return status != "" && status != protocol.StatusDisabled && status != protocol.StatusUnknown
}

// NotReady lists the statuses that keep launch blocked (spec 000 Readiness
// self-check model: required -> needs-setup or blocked; `failed` is the
// pre-0.5 spelling of blocked, see docs/decisions.md).
func NotReady() []string {
	return []string{protocol.StatusNeedsSetup, protocol.StatusBlocked, protocol.StatusFailed}
}

// Launchable lists the statuses that let launch go ahead.
func Launchable() []string { return []string{protocol.StatusReady, protocol.StatusReadyDegraded} }

// NamesFailingCheck reports whether a not-ready answer names what the spec
// planted where a failure is stated: a failing (error-severity, blocking or
// required) check, a blocker, or a setup action. A name that appears only in
// passing checks does not count.
func NamesFailingCheck(r protocol.ReadinessResult, name string) bool {
	has := func(s string) bool { return strings.Contains(s, name) }
	for _, c := range r.Checks {
		if (c.Severity == "error" || c.Blocking) && (has(c.Key) || has(c.Message) || has(c.Code)) {
			return true
		}
	}
	for _, checks := range r.Tiers {
		for _, c := range checks {
			if (c.Severity == "error" || c.Blocking) && (has(c.Key) || has(c.Message)) {
				return true
			}
		}
	}
	for _, b := range r.Blockers {
		if has(b) {
			return true
		}
	}
	for _, e := range r.Entries {
		for _, b := range e.Blockers {
			if has(b) {
				return true
			}
		}
	}
	return false
}

// ReadyStatus reports whether status lets the app run.
func ReadyStatus(status string) bool {
	return status == protocol.StatusReady || status == protocol.StatusReadyDegraded
}
