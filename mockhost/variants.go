package mockhost

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// Variant is the inverse of a Fault: a behaviour the standard's texts allow
// that mockhost does not show by default (docs/decisions.md: "accept every
// reading the texts allow"). Under a variant the harness must blame
// nothing: selftest runs each variant's requirements and fails on any
// `failed`, and on any `blocked` or `error` the variant does not declare.
type Variant struct {
	Name        string
	Description string
	// Clause is the text (or the docs/decisions.md row) that allows the
	// behaviour.
	Clause string
	// Touches lists the requirement ids whose specs read what the variant
	// changes (an id ending in * stands for every id with that prefix):
	// selftest runs their specs, and each must pass unless opted out.
	Touches []string
	// OptsOut lists the requirement ids (or prefixes ending in *) the
	// variant may leave blocked or error, because it opts out of what
	// they need (a host with no agent runtime cannot be judged on it).
	// It never excuses a `failed`.
	OptsOut []string
	// Claims, when set, are the levels the host claims in hello under the
	// variant (a host that is Desktop P0 only); nil: ClaimedLevels.
	Claims []string
	// Alone marks a variant that is not taken together with the others in
	// EveryReading: it changes what the host claims, opts out of what it
	// touches, or contradicts another variant's reading.
	Alone bool
}

// EveryReading is the variant that takes every variant's reading at once
// but those marked Alone: readings that each pass alone may still be
// blamed together (a readiness spelled in the older vocabulary and a host
// version judged in readiness), and a host takes many readings at once.
const EveryReading = "every-reading"

// Variants returns every variant, sorted by name.
func Variants() []Variant {
	vs := []Variant{
		// Package intake (Catalog, Installable, Desktop P0).
		{Name: "refusals-as-errors", Touches: refusalRequirements(levels.RefusesPackage),
			Clause:      "docs/decisions.md, Refusal form: a host may refuse with a verdict (ok: false and findings) or an error (-32001 / -32002)",
			Description: "package/verify answers a package it refuses with an error (-32001 for the manifest, -32002 for a hash, signature or compatibility check) carrying data.findings, never with a verdict ok: false"},
		{Name: "install-manifest-as-invalid", Touches: []string{"INSTALL-VERIFY-FIRST", "INSTALL-CONSENT", "UPDATE-VERIFIED"},
			Clause:      "docs/decisions.md, An unknown manifestVersion at install: -32001 (the manifest is invalid) and -32002 both describe it",
			Description: "app/install refuses a package whose own manifest is at fault (findings of APP.md or an app.*.yaml, not of a hash or signature check) with -32001, not -32002"},
		{Name: "verify-before-project", Touches: projectionRequirements(),
			Clause:      "spec 000, Runtime contract: 2 \"Verify package hash, signature, manifest, and capability versions\" comes before 4 \"Generate projection\"",
			Description: "package/project verifies the package first (compatibility, signature, revocation, publisher) and refuses one that fails with -32002 and its findings, projecting nothing"},
		// Typed SDK calls (Executable).
		{Name: "workflow-input-checked-in-run", Touches: []string{"SDK-TYPED-WORKFLOW-INPUT"},
			Clause:      "docs/decisions.md, Typed SDK calls: the texts say the SDK is a typed contract, not how a call that breaks the type ends; a refused start and a run that ends failed at once, naming the member, both keep the contract",
			Description: "lime.workflow start with an input that does not meet the workflow's declared inputs is answered with a run that ends failed at once, its reason naming the member, and runs no state"},
		{Name: "workflow-idempotent-start-refused", Touches: []string{"WORKFLOW-IDEMPOTENT-START"},
			Clause:      "docs/decisions.md, Workflow runtime: 001 names the idempotency key and not what a repeated start is answered; the first run, or a refusal naming the key, both start no second run",
			Description: "lime.workflow start repeating an idempotency key the app used is refused host:error naming the key and its run, instead of answered with that run"},
		{Name: "frame-facts-end-task", Touches: []string{"AGENT-NO-APP-FACTS"},
			Clause:      "docs/decisions.md, Facts the app fabricates: the texts forbid taking the app's facts as the task's, not what else the host does; ignoring them, refusing them or ending the tampered task closed all keep the rule",
			Description: "a task fact the app's frame posts for its running task ends that task: the app gets a result error_permission_denied of the host's own and no later fact of the App Server"},
		{Name: "workflow-branch-last-target", Touches: []string{"WORKFLOW-STATE-KINDS"},
			Clause:      "docs/decisions.md, Workflow runtime: a branch's next may list several targets (the manifest schema) and no text says which one a run takes",
			Description: "a branch state whose next lists several targets goes on at the last of them, not the first"},
		{Name: "legacy-kinds-marked", Touches: []string{"CAT-LEGACY-KINDS"},
			Clause:      "docs/decisions.md, Legacy entry kinds in a 0.10.0 manifest: rejecting the package, or projecting them marked legacy: true",
			Description: "home and scene entries of a 0.10.0 manifest are accepted and projected marked legacy: true, as compatibility entries, instead of refusing the package"},
		{Name: "host-version-at-readiness", Touches: []string{"VERIFY-HOST-VERSION", "INSTALL-REVIEW", "REGISTRY-METADATA-FIRST"},
			Clause:      "docs/decisions.md, An incompatible host version: refused at verification, or verified and blocked in readiness (002 Readiness state rules)",
			Description: "an app needing another app runtime version verifies and installs; readiness blocks it naming appRuntime"},
		{Name: "links-outside-intake-form", Alone: true, Touches: []string{"PKG-NO-ESCAPING-LINKS", "VERIFY-HASH-ALGORITHM", "INSTALL-VERIFY-FIRST"},
			OptsOut:     []string{"PKG-NO-ESCAPING-LINKS", "VERIFY-HASH-ALGORITHM", "INSTALL-VERIFY-FIRST"},
			Clause:      "docs/decisions.md, Packages the host cannot take in its own form: -32006 with data.findings naming each file",
			Description: "the host's intake form holds no symbolic links: a package with one is answered -32006, its data.findings naming each link, at verify, project, install and readiness"},

		// Readiness (Desktop P0 and up).
		{Name: "setup-as-blocked", Touches: readinessRequirements(),
			Clause:      "spec 000, Readiness self-check model: \"required → needs-setup or blocked\"; docs/decisions.md, A failing required readiness check",
			Description: "a failing required check a setup action could fix gives blocked, not needs-setup"},
		{Name: "readiness-old-vocabulary", Touches: readinessRequirements(),
			Clause:      "spec 000, Readiness: \"ready, needs-setup, or failed\"; SPEC-NOTES: failed is the older spelling of blocked",
			Description: "every not-ready status is spelled failed, end of life and an incompatible host version included"},
		{Name: "performance-stays-ready", Touches: []string{"READY-PERFORMANCE-TIER", "READY-STATUS"},
			Clause:      "spec 000: \"performance → Inform → ready or ready-degraded\"",
			Description: "failing performance checks are reported as warnings and leave the app ready, not ready-degraded"},
		{Name: "superseded-in-setup-action", Touches: []string{"READY-END-OF-LIFE"},
			Clause:      "spec 000, Metadata lifecycle: \"surface supersededBy\" (no field named)",
			Description: "an end-of-life app's readiness names its successor only in the upgrade setup action, with no supersededBy member"},
		{Name: "deprecation-check-only", Touches: []string{"READY-DEPRECATED"},
			Clause:      "docs/decisions.md, Deprecation warning: warnings[] or a check of severity warning",
			Description: "a deprecated app's warning is a check of severity warning only; warnings[] stays empty"},
		{Name: "setup-action-host-kinds", Touches: []string{"READY-SETUP-ACTIONS", "READY-SECRETS", "READY-END-OF-LIFE"},
			Clause:      "spec 000, app.integrations.yaml example (setupAction: open_host_connector); docs/decisions.md, Setup action kinds: an open list",
			Description: "setup actions carry the host's own kebab-case kinds (open-host-settings), outside the standard schema's list"},
		{Name: "runtime-range-at-readiness", Touches: []string{"INSTALL-RUNTIME-RANGE"},
			Clause:      "spec 003, Distribution flow: the host must verify the system lime-runtime satisfies the range, and says not when; docs/decisions.md, The system lime-runtime",
			Description: "a runtime-backed release whose lime-runtime bound the system does not meet installs; its readiness is blocked, a failing check naming lime-runtime"},
		{Name: "no-runtime-backed", Touches: []string{"INSTALL-RUNTIME-RANGE"},
			Clause:      "spec 000, Install modes (in_lime, standalone, runtime_backed, web_host); spec 003, Distribution flow: the range check binds runtime-backed releases; docs/decisions.md, Clauses that bind only some hosts",
			Description: "an in-Lime host with no system lime-runtime: a release offered only runtime_backed is refused with -32006 naming the mode, so the runtime range binds nothing on it (not-applicable)"},
		{Name: "no-agent-runtime-no-registry", Alone: true, Claims: []string{"catalog", "desktop-p0"},
			// Every requirement of the levels it claims: such a host is
			// judgeable at each, and what it lacks is refused, not mocked.
			Touches: append(levelRequirements("catalog", "desktop-p0"), append(agentMappingRequirements(), "REGISTRY-*", "APPSERVER-HANDSHAKE", "APP-UPDATES-CHECK")...),
			// What needs the App Server or the registry client: none of it
			// counts at the levels it claims
			// (TestVariantsJudgeableAtTheLevelsTheyClaim).
			OptsOut:     append(agentMappingRequirements(), "REGISTRY-*", "APPSERVER-HANDSHAKE", "APP-UPDATES-CHECK"),
			Clause:      "spec 002, Desktop levels: Desktop P0 reads, verifies, projects and runs readiness; an agent runtime (P5) and a registry client are later levels",
			Description: "a Desktop P0 host: it claims catalog and desktop-p0, answers -32006 to what it does not offer (registry/list, app/install from a registry, host/configure naming an App Server or a registry), and refuses at verification a package requiring a capability it offers switched off"},

		// The app surface (Desktop P1, P2; Capability).
		{Name: "activation-asks-consent", Touches: []string{"ACTIVATE-CONSENT"},
			Clause:      "spec 000, Runtime contract 3: \"Install or activate an app only after user, tenant, or workspace consent\"; docs/decisions.md, Consent at activation",
			Description: "app/launch of an app the tenant policy withdrew is refused with -32003 (consent required), not -32009"},
		{Name: "center-own-words", Touches: []string{"CENTER-BLOCKERS"},
			Clause:      "spec 002, Desktop P1: \"Show app center, install state, setup tasks, blocked / needs-setup\" (no wording named); docs/decisions.md, The app center's reasons",
			Description: "the app center names each reason an entry is not ready by the failing check's kind and key, in its own words, not readiness's message"},
		{Name: "visibility-as-word", Touches: []string{"BRIDGE-VISIBILITY"},
			Clause:      "spec 000, Host Bridge v1: host:visibility names no payload member",
			Description: "host:visibility carries {visibility: \"hidden\" | \"visible\"}"},
		{Name: "visibility-as-state", Alone: true, Touches: []string{"BRIDGE-VISIBILITY"},
			Clause:      "spec 000, Host Bridge v1: host:visibility names no payload member",
			Description: "host:visibility carries {state: \"hidden\" | \"visible\"}"},
		{Name: "capabilities-as-map", Touches: []string{"BRIDGE-CAPS-DECLARED", "BRIDGE-SNAPSHOT-FIELDS"},
			Clause:      "spec 001, UI runtime: \"Capability summary for the current entry and reasons for blocked capabilities\" (no shape named)",
			Description: "the snapshot's capability summary is a map from capability name to {available, reason}"},
		{Name: "locale-as-string", Touches: []string{"BRIDGE-LOCALE"},
			Clause:      "spec 000, i18n configuration: \"Hosts surface the active locale through lime.ui.getLocale()\", no answer shape named; docs/decisions.md, The active locale",
			Description: "lime.ui getLocale answers the bare locale tag (\"zh-CN\"), not {locale}"},
		{Name: "jit-token-named-get-token", Touches: []string{"CLOUD-SESSION-JIT-TOKEN", "CLOUD-SESSION-TOKEN-NOT-KEPT"},
			Clause:      "spec 000, Capability SDK: \"lime.cloudSession: Host session snapshot, login trigger, and just-in-time access token\" (no method named for the token); docs/decisions.md, The just-in-time token",
			Description: "lime.cloudSession's just-in-time token is fetched with getToken, not getAccessToken"},
		{Name: "jit-token-bare", Touches: []string{"CLOUD-SESSION-JIT-TOKEN", "CLOUD-SESSION-TOKEN-NOT-KEPT"},
			Clause:      "spec 000, Capability SDK: \"Apps that need to call a control plane may explicitly request a just-in-time token\" (no answer shape named); docs/decisions.md, The just-in-time token",
			Description: "the just-in-time token is answered as the bare string, not {accessToken, tokenType}"},
		{Name: "telemetry-none", Touches: []string{"TELEMETRY-NO-CONTENT"}, Alone: true,
			Clause:      "spec 000, Tool discovery and observability: \"Runtime profile events should map to OpenTelemetry spans\" (a should: a host may export none); docs/decisions.md, Telemetry content",
			Description: "the host exports no telemetry, whatever host/configure names: TELEMETRY-NO-CONTENT is not-applicable, never failed"},
		{Name: "telemetry-otlp-json", Touches: []string{"TELEMETRY-NO-CONTENT"},
			Clause:      "spec 000, Tool discovery and observability: \"Runtime profile events should map to OpenTelemetry spans\" (no encoding named; OTLP/HTTP has two); docs/decisions.md, Telemetry content",
			Description: "spans are exported in OTLP/HTTP's JSON encoding (hex ids), not protobuf"},
		{Name: "partition-per-launch", Touches: []string{"BRIDGE-STORAGE-PARTITIONED", "UNINSTALL-BROWSER-STORAGE"},
			Clause:      "spec 002, Required desktop host behavior: app data namespaced by app (no text promises an app its browser storage from one launch to the next); docs/decisions.md, Browser storage by app",
			Description: "each launch serves the app's frame from a fresh origin: nothing the frame keeps in the browser outlives its surface"},
		{Name: "locale-reloads-frame", Touches: []string{"BRIDGE-LOCALE"},
			Clause:      "spec 000, i18n configuration: \"Hosts surface the active locale through lime.ui.getLocale()\" (how a change reaches a mounted app is not said); docs/decisions.md, The active locale",
			Description: "a locale change loads the app's frame afresh instead of pushing a snapshot: the new document starts in the new locale"},
		{Name: "snapshot-grouped", Touches: []string{"BRIDGE-SNAPSHOT", "BRIDGE-SNAPSHOT-FIELDS", "BRIDGE-CAPS-DECLARED", "BRIDGE-THEME-UPDATE"},
			Clause:      "spec 001, UI runtime: the first snapshot \"should include at least\" its fields; spec 002, Minimum host snapshot fields: \"may contain\" (no layout named)",
			Description: "the snapshot groups its fields: app {appId, entryKey, route, runtimeOrigin}, theme, context {locale, timezone, workspaceId, tenantId}, entry {capabilities}"},
		{Name: "snapshots-pushed-unasked", Touches: []string{"BRIDGE-SNAPSHOT", "BRIDGE-SNAPSHOT-FIELDS", "BRIDGE-CAPS-DECLARED"},
			Clause:      "spec 000, Host Bridge v1: only host:response and host:error must carry a requestId; docs/decisions.md, Unasked snapshots",
			Description: "the host pushes a snapshot every 250 ms unasked, and answers app:ready and host:getSnapshot with a snapshot naming their requestId"},
		{Name: "errors-on-envelope", Touches: bridgeErrorRequirements(),
			Clause:      "spec 000, Host Bridge v1: host:error \"must include stable code, user-readable message, and requestId\" (not where); docs/decisions.md, Host Bridge payloads",
			Description: "host:error carries its code and message on the envelope, beside requestId, with no payload"},
		{Name: "navigate-reloads-frame", Touches: []string{"BRIDGE-NAVIGATE"},
			Clause:      "spec 000, Host Bridge v1: host:navigate \"Requests navigation to an Agent App entry or app-local route\" (how the host navigates is its own)",
			Description: "an accepted host:navigate is answered, then the host page reloads the app's frame at the entry or route (a new document)"},
		{Name: "download-needs-permission", Touches: []string{"BRIDGE-DOWNLOAD"},
			Clause:      "spec 000, Host Bridge v1: host:download \"the host must validate URL and permission\"",
			Description: "host:download is refused unless the app declares a permission of scope export or filesystem"},
		{Name: "open-external-needs-permission", Touches: []string{"BRIDGE-OPEN-EXTERNAL"},
			Clause:      "spec 000, Host Bridge v1: host:openExternal \"the host must validate protocol and origin\"; spec 000, permissions: requests \"the host must authorize before install or runtime\"",
			Description: "host:openExternal is refused unless the app also declares a network permission whose domains name the URL's host"},
		{Name: "permission-denied-as-policy", Touches: []string{"BRIDGE-PERMISSION-INTERCEPTED", "BRIDGE-PERMISSION-ORDER", "WORKFLOW-PERMISSION-INTERCEPTED"},
			Clause:      "spec 000, Runtime approval: \"app manifest allowlist -> readiness -> tenant / workspace policy -> deny rules -> risk policy -> runtime approval\" (no gate is named for a permission the user has not granted)",
			Description: "a call whose permission is not granted is refused at the policy gate, with the policy code, instead of a permission gate of its own"},

		// The agent runtime (Runtime, Desktop P5).
		{Name: "approval-policy-first", Touches: []string{"AGENT-APPROVAL"},
			Clause:      "spec 000, Runtime approval: \"Permission evaluation order must be: app manifest allowlist -> readiness -> tenant / workspace policy -> deny rules -> risk policy -> runtime approval\"",
			Description: "a runtime approval for a tool the tenant policy denies never reaches the app: the host answers the App Server deny itself (the policy gate comes before runtime approval)"},

		// Platform capabilities (Desktop P3).
		{Name: "model-settings-in-readiness", Touches: []string{"MODEL-SETTINGS-*", "CLOUD-SESSION-*", "BRANDING-*", "BILLING-*", "EVIDENCE-LOCAL-RECORD", "APP-UPDATES-CHECK"},
			Clause:      "spec 000, Readiness: \"Readiness should check: ... required capabilities are available\"; spec 002, Desktop P3: the host provides model settings",
			Description: "an app that requires lime.modelSettings is needs-setup, naming lime.modelSettings, until Lime Cloud (host/configure modelSettings) has given the host model settings"},
		{Name: "billing-blocks-app", Touches: []string{"BILLING-BLOCKS", "BILLING-NO-LEDGER"},
			Clause:      "docs/decisions.md, Billing in readiness: \"A host may block the whole app\"",
			Description: "an exhausted quota blocks the app and every entry of an app with an entry that needs lime.billing, not only that entry"},

		// Data and lifecycle (Desktop P4).
		{Name: "app-id-syntax-checked", Touches: []string{"LIFECYCLE-ISOLATED"},
			Clause:      "docs/decisions.md, Ids and keys are exact: a host may refuse an id no app could have as malformed params",
			Description: "every control call whose appId no manifest name could be (capitals, spaces) is refused with -32602 naming appId, before any app is looked up"},
		{Name: "desktop-p2-without-agent", Alone: true, Claims: desktopP2WithoutAgentLevels(),
			// Every requirement of the levels it claims: the App Server
			// mapping is not-applicable there, never blocked or failed.
			Touches:     levelRequirements(desktopP2WithoutAgentLevels()...),
			Clause:      "spec 002, Required desktop host behavior and Desktop levels: P2 injects the Capability SDK; the App Server JSON-RPC fact source is named at P5; docs/decisions.md, The App Server bridge from the level that offers it",
			Description: "a Desktop P2 host with no agent runtime: it claims up to capability and desktop-p2, its profile has lime.agent off, and it answers -32006 to host/configure naming an App Server"},
		{Name: "export-as-zip", Touches: []string{"UNINSTALL-EXPORT", "STORAGE-NAMESPACED"},
			Clause:      "spec 002, Cleanup: \"export then delete\" (no format named); docs/decisions.md, Export then delete: any format, zip included",
			Description: "export then delete writes one zip archive holding the app's files and what it stored"},
		{Name: "storage-namespace-exclusive", Touches: []string{"STORAGE-NAMESPACED", "BRIDGE-STORAGE-PARTITIONED"},
			Clause:      "spec 000, Storage and data boundary: \"Apps may declare their own storage namespace\" (nothing says two may declare one); docs/decisions.md, A storage namespace two apps declare",
			Description: "a package declaring the storage namespace an installed app declares is refused at install (-32001, a finding on storage.namespace naming it)"},
		{Name: "retired-entry-disabled", Touches: []string{"ROLLBACK-RETIRES-ENTRIES"},
			Clause:      "spec 003, Rollback: \"Disable new entries if incompatible\"; docs/decisions.md, Update and rollback: -32602 naming entryKey, or -32009 disabled",
			Description: "after a rollback, launching an entry only the newer release had is refused with -32009 and a disabled readiness, not -32602"},
		{Name: "rollback-never-downgrades", Touches: []string{"ROLLBACK-EXPORT-BEFORE-DELETE"},
			Clause:      "spec 003, Rollback: \"avoid running downgrade migrations automatically\", \"expose export before delete when data loss is possible\"; docs/decisions.md, Export before a downgrade: a host that never runs downgrade migrations loses no data in a rollback",
			Description: "app/rollback with downMigrations is refused with -32602 naming downMigrations: the host never runs downgrade migrations"},
		{Name: "workspace-not-seeded", Touches: []string{"UPDATE-KEEPS-WORKSPACE-FILES"},
			Clause:      "spec 000, Quickstart: hosts use it \"for onboarding, sample workspaces\" (no duty to seed); docs/decisions.md, User state across an upgrade: a host may seed the workspace from examples/workspace/ or not",
			Description: "a package's sample workspace (examples/workspace/) is never copied into the app's workspace, at install or at update"},

		// Backends (Desktop P6).
		{Name: "backend-crash-reported", Touches: []string{"BACKEND-RESTART"},
			Clause:      "spec 001, App backend services: the host owns the \"restart policy\"; docs/decisions.md, Backend restart: restarted or reported",
			Description: "a backend that exits on its own is not restarted: host/observe reports it crashed"},
	}
	var together []string
	for _, v := range vs {
		if !v.Alone {
			together = append(together, v.Name)
		}
	}
	sort.Strings(together)
	vs = append(vs, Variant{Name: EveryReading, Touches: levelRequirements(levels.Default().JudgedLevels()...),
		Clause:      "docs/decisions.md: accept every reading the texts allow, in any combination a host takes them",
		Description: "every variant's reading at once but " + strings.Join(aloneNames(vs), ", ") + ": " + strings.Join(together, ", ")})
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	return vs
}

// aloneNames lists the variants marked Alone, sorted.
func aloneNames(vs []Variant) []string {
	var out []string
	for _, v := range vs {
		if v.Alone {
			out = append(out, v.Name)
		}
	}
	sort.Strings(out)
	return out
}

// refusalRequirements lists the requirements whose check rests on a
// refusal of kind k (levels.Requirement.Refusal).
func refusalRequirements(k levels.RefusalKind) []string {
	var out []string
	for _, r := range levels.Default().Requirements() {
		if slices.Contains(r.Refusal, k) {
			out = append(out, r.ID)
		}
	}
	return out
}

// levelRequirements lists the requirements of the levels ids.
func levelRequirements(ids ...string) []string {
	var out []string
	for _, r := range levels.Default().ForLevels(ids) {
		out = append(out, r.ID)
	}
	return out
}

// agentMappingRequirements are the AGENT- requirements but AGENT-OFFERED
// and AGENT-NONE-AT-PROJECTION: what a host offering lime.agent is judged
// on (a host with no agent runtime is not-applicable there), not whether a
// level needs it offered, nor what projection leaves undone, which a host
// with none is not-applicable to at the levels it claims.
func agentMappingRequirements() []string {
	var out []string
	for _, r := range levels.Default().Requirements() {
		if strings.HasPrefix(r.ID, "AGENT-") && r.ID != "AGENT-OFFERED" && r.ID != "AGENT-NONE-AT-PROJECTION" {
			out = append(out, r.ID)
		}
	}
	return out
}

// desktopP2WithoutAgentLevels are the levels a host with no agent runtime
// claims under the variant desktop-p2-without-agent.
func desktopP2WithoutAgentLevels() []string {
	return []string{"catalog", "installable", "capability", "desktop-p0", "desktop-p1", "desktop-p2"}
}

// readinessRequirements are the requirements judged on a not-ready
// readiness status, and the launch gate that quotes one.
func readinessRequirements() []string {
	out := append(refusalRequirements(levels.NotReady), refusalRequirements(levels.NotReadyInstalled)...)
	for _, id := range []string{"READY-STATUS", "READY-SETUP-ACTIONS", "LAUNCH-GATED", "UPDATE-KEEPS-SECRET-BINDINGS", "UNINSTALL-SECRET-BINDINGS", "APP-DISABLE"} {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// projectionRequirements are the requirements judged on package/project.
func projectionRequirements() []string {
	return []string{"CAT-DISCOVER-APPMD", "CAT-METADATA", "CAT-PUBLISHER-VERIFIED", "CAT-LAYERED-LOAD", "CAT-LAYERED-PRECEDENCE", "CAT-LEGACY-KINDS",
		"PROJ-DETERMINISTIC", "PROJ-PROVENANCE", "PROJ-NO-SECRETS", "PROJ-CONTENTS", "P0-NO-APP-CODE", "HOST-NO-SECRET-LEAK"}
}

// bridgeErrorRequirements are requirements judged on the code, message or
// text of a host:error the app frame receives, one for each way the
// harness reads them (hostbridge.ErrorOf on the bridge and through
// app/invoke, the requestId of an error, a search of its text); those that
// only ask for a host:error, not what it says, are not among them.
func bridgeErrorRequirements() []string {
	return []string{"BRIDGE-REQUESTID", "BRIDGE-FAIL-CLOSED", "BRIDGE-INVALID-ANSWERED", "BRIDGE-PERMISSION-INTERCEPTED", "MODEL-SETTINGS-HOST-OWNED", "AGENT-NO-LEAK",
		"WORKFLOW-IDEMPOTENT-START"}
}

// Expand resolves ids and prefixes (an id ending in *) against the
// catalog, in catalog order; an unknown id is kept as it is, so a test
// can name it.
func Expand(cat *levels.Catalog, ids []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, r := range cat.Requirements() {
		for _, id := range ids {
			if r.ID == id || strings.HasSuffix(id, "*") && strings.HasPrefix(r.ID, strings.TrimSuffix(id, "*")) {
				add(r.ID)
			}
		}
	}
	for _, id := range ids {
		if _, ok := cat.Requirement(id); !ok && !strings.HasSuffix(id, "*") {
			add(id)
		}
	}
	return out
}

// OptedOut reports whether the variant may leave requirement id blocked or
// error.
func (v Variant) OptedOut(id string) bool {
	for _, o := range v.OptsOut {
		if o == id || strings.HasSuffix(o, "*") && strings.HasPrefix(id, strings.TrimSuffix(o, "*")) {
			return true
		}
	}
	return false
}

// VariantSet is the set of variants a mockhost runs with.
type VariantSet map[string]bool

// ParseVariants checks variant names, naming an unknown one.
func ParseVariants(names []string) (VariantSet, error) {
	known := map[string]bool{}
	for _, v := range Variants() {
		known[v.Name] = true
	}
	vs := VariantSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if !known[n] {
			return nil, fmt.Errorf("unknown variant %q (see `conformance mockhost --list-variants`)", n)
		}
		vs[n] = true
		// variant: every-reading — every variant not marked Alone, at once.
		if n == EveryReading {
			for _, v := range Variants() {
				if !v.Alone && v.Name != EveryReading {
					vs[v.Name] = true
				}
			}
		}
	}
	return vs, nil
}

// Has reports whether variant name is switched on.
func (vs VariantSet) Has(name string) bool { return vs[name] }

// Names lists the variants switched on, sorted.
func (vs VariantSet) Names() []string {
	var out []string
	for n := range vs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
