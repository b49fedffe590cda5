package mockhost

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// Fault is a switch that makes mockhost break one requirement the way a real
// host would get it wrong. Breaks lists the requirement ids whose specs must
// fail under the fault (and only those: selftest checks both ways).
type Fault struct {
	Name        string
	Description string
	Breaks      []string
	// Hostile faults attack the harness itself (hang, crash, garbage, flood).
	Hostile bool
	// Escapes faults leave a process outside the host's process group, in
	// a host process only (mockhost --stdio). They need break no
	// requirement: the run must kill the process and report it
	// (report.json run.escapedProcesses), which selftest checks.
	Escapes bool
	// Indiscriminate lists the refusals this fault gives, or withholds,
	// whatever the spec planted: under it no requirement whose check rests
	// on a refusal of those kinds (levels.Requirement.Refusal) may pass, and
	// selftest proves it.
	Indiscriminate []levels.RefusalKind
}

// Faults returns every fault, sorted by name.
func Faults() []Fault {
	fs := []Fault{
		// Control protocol.
		{Name: "hello-wrong-protocol", Breaks: []string{"PROTO-HELLO"},
			Description: "hello reports protocol version 0 and an unknown host kind"},
		{Name: "reset-keeps-apps", Breaks: []string{"PROTO-RESET"},
			Description: "host/reset forgets configuration but keeps installed apps"},
		{Name: "lenient-params", Breaks: []string{"PROTO-ERRORS"},
			Description: "params are not checked: a call missing a required member runs with it empty instead of getting -32602"},
		{Name: "unknown-method-null", Breaks: []string{"PROTO-ERRORS"},
			Description: "unknown methods are answered with a null result instead of -32601"},

		// Catalog.
		{Name: "name-from-directory", Breaks: []string{"CAT-DISCOVER-APPMD"},
			Description: "app identity is taken from the folder name, not from APP.md"},
		{Name: "accept-missing-required", Breaks: []string{"CAT-FRONTMATTER-REQUIRED"},
			Description: "APP.md without frontmatter or with required fields missing is accepted"},
		{Name: "accept-any-manifest-version", Breaks: []string{"CAT-MANIFEST-VERSION", "INSTALL-VERIFY-FIRST"},
			Description: "any manifestVersion is accepted"},
		{Name: "count-bytes-not-characters", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "field limits are counted in UTF-8 bytes, so a valid non-ASCII value at the limit is refused"},
		{Name: "no-length-limits", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "field lengths are never checked"},
		{Name: "open-vocabularies", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "status and appType take any value"},
		{Name: "only-current-manifest-version", Breaks: []string{"CAT-MANIFEST-VERSION"},
			Description: "any manifestVersion but the current 0.10.0 is refused"},
		{Name: "allow-bypass-permissions", Breaks: []string{"CAT-NO-BYPASS-PERMISSIONS"},
			Description: "a manifest declaring bypassPermissions is accepted"},
		{Name: "trust-self-declared-verified", Breaks: []string{"CAT-PUBLISHER-VERIFIED"},
			Description: "a publisher that declares itself verified is shown as verified"},
		{Name: "ignore-host-version", Breaks: []string{"VERIFY-HOST-VERSION"},
			Description: "requires.lime version ranges (the app runtime) are not checked"},
		{Name: "drop-display-metadata", Breaks: []string{"CAT-METADATA", "CAT-DISPLAYNAME-I18N"},
			Description: "the catalog card omits displayName and publisher"},
		{Name: "ignore-layered-files",
			Breaks:      []string{"CAT-LAYERED-LOAD", "CAT-LAYERED-PRECEDENCE", "VERIFY-SIGNATURE-FILE", "INSTALL-VERIFY-FIRST", "CAT-NO-BYPASS-PERMISSIONS", "READY-PERMISSIONS", "INSTALL-REGISTERS", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "VERIFY-ORDER", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE", "INSTALL-REVIEW"},
			Description: "independent app.*.yaml files are not loaded (so app.signature.yaml is not read either)"},
		{Name: "frontmatter-wins", Breaks: []string{"CAT-LAYERED-PRECEDENCE", "INSTALL-REGISTERS"},
			Description: "frontmatter wins over an independent file that disagrees"},
		{Name: "legacy-kinds-as-current", Breaks: []string{"CAT-LEGACY-KINDS"},
			Description: "home and scene entries of a 0.10.0 manifest are projected as ordinary entries"},

		// Verification and containment.
		{Name: "skip-package-hash", Breaks: []string{"VERIFY-PACKAGE-HASH", "INSTALL-VERIFY-FIRST", "VERIFY-ORDER"},
			Description: "the expected packageHash is not compared (a tampered package verifies)"},
		{Name: "skip-manifest-hash", Breaks: []string{"VERIFY-MANIFEST-HASH"},
			Description: "the expected manifestHash is not compared"},
		{Name: "hash-full-path-sort", Breaks: []string{"VERIFY-HASH-ALGORITHM"},
			Description: "packageHash sorts files by full path instead of per directory"},
		{Name: "hash-skips-dotfiles", Breaks: []string{"VERIFY-HASH-ALGORITHM", "VERIFY-PACKAGE-HASH"},
			Description: "hidden files and folders are left out of packageHash, as a glob leaves them out"},
		{Name: "hash-skips-empty-files", Breaks: []string{"VERIFY-HASH-ALGORITHM", "VERIFY-PACKAGE-HASH"},
			Description: "files with no bytes are left out of packageHash"},
		{Name: "hash-normalises-newlines", Breaks: []string{"BACKEND-LOGS-CAPTURED", "BACKEND-RESOURCE-LIMITS", "VERIFY-HASH-ALGORITHM", "VERIFY-PACKAGE-HASH", "BACKEND-SUPERVISED", "BACKEND-RESTART", "BACKEND-ENV-CLEAN", "BACKEND-NO-HOST-ACCESS", "BACKEND-NETWORK-POLICY"},
			Description: "CRLF line ends are hashed as LF, as a checkout with autocrlf would"},
		{Name: "hash-content-only", Breaks: []string{"VERIFY-HASH-ALGORITHM", "VERIFY-PACKAGE-HASH",
			// Its hashes differ from every release the harness computes,
			// so whatever installs a released package is blocked too.
			"HOST-NO-SECRET-LEAK", "INSTALL-CONSENT", "INSTALL-PINNED", "INSTALL-VERIFY-FIRST", "PROJ-PROVENANCE", "PROTO-RESET",
			"UNINSTALL-DELETE-DATA", "UNINSTALL-ISOLATED", "UNINSTALL-KEEP-DATA", "VERIFY-MANIFEST-HASH", "VERIFY-SIGNATURE-FILE", "POLICY-INSTALL", "INSTALL-REGISTERS", "VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "REGISTRY-METADATA-FIRST", "REGISTRY-OUTAGE", "REGISTRY-PINNED-CHANNEL", "REGISTRY-TENANT-ENABLED", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE", "CAT-DISPLAYNAME-I18N", "INSTALL-REVIEW", "BRIDGE-APPID", "BRIDGE-CAPS-DECLARED", "BRIDGE-CONTAINMENT", "BRIDGE-DOWNLOAD", "BRIDGE-ENVELOPE", "BRIDGE-ENVELOPE-CHECKED", "BRIDGE-FAIL-CLOSED", "BRIDGE-INVALID-ANSWERED", "BRIDGE-NO-LEAK", "BRIDGE-OPEN-EXTERNAL", "BRIDGE-ORIGIN", "BRIDGE-REQUESTID", "BRIDGE-SNAPSHOT", "BRIDGE-SNAPSHOT-FIELDS", "BRIDGE-SOURCE", "BRIDGE-THEME-UPDATE", "BRIDGE-TOAST-TEXT", "BRIDGE-VISIBILITY", "CENTER-BLOCKERS", "LAUNCH-GATED", "ACTIVATE-CONSENT", "BRIDGE-NAVIGATE", "READY-INSTALLED-HASH", "READY-MIGRATIONS", "MIGRATIONS-AFTER-CONSENT", "MIGRATION-IRREVERSIBLE-RISK", "UNINSTALL-APP-DATABASE", "MIGRATION-NO-HOST-WRITE", "AGENT-PROJECTIONS", "AGENT-TASK-MAPPED", "AGENT-NO-LEAK", "OVERLAY-PRECEDENCE", "OVERLAY-KEEPS-PACKAGE-HASH", "UPDATE-KEEPS-OVERLAYS", "STORAGE-SCOPED", "BACKEND-SUPERVISED", "BACKEND-RESTART", "BACKEND-ENV-CLEAN", "BACKEND-NO-HOST-ACCESS", "BACKEND-NETWORK-POLICY"},
			Description: "packageHash covers the files' bytes but not their names"},
		{Name: "ignore-signature-file", Breaks: []string{"VERIFY-SIGNATURE-FILE"},
			Description: "app.signature.yaml's manifest hash is not checked"},
		{Name: "appmd-optional", Breaks: []string{"CAT-DISCOVER-APPMD"},
			Description: "a folder without APP.md is still taken for an app"},
		{Name: "exec-worker-on-verify", Breaks: []string{"P0-NO-APP-CODE"},
			Description: "verification runs the package's worker as an install self-test"},
		{Name: "line-subset-yaml", Breaks: []string{"PKG-HOSTILE-YAML"},
			Description: "a frontmatter that YAML cannot parse is re-read line by line, as the reference CLI's home-made reader does, and accepted"},
		{Name: "hash-through-links", Breaks: []string{"PKG-NO-ESCAPING-LINKS"},
			Description: "the package is hashed, links followed outside it, before the containment check refuses it"},
		{Name: "skip-unreadable-files", Breaks: []string{"PKG-NO-ESCAPING-LINKS"},
			Description: "dangling links, link cycles and special files are left out of the package silently instead of refusing it"},
		{Name: "ignore-version-ranges", Breaks: []string{"VERIFY-COMPATIBILITY"},
			Description: "requires.capabilities version ranges are not checked against the host profile"},
		{Name: "allow-parent-refs", Breaks: []string{"PKG-NO-PARENT-REFS"},
			Description: "references that climb out of the package (../) are accepted"},
		{Name: "follow-escaping-links", Breaks: []string{"PKG-NO-ESCAPING-LINKS", "INSTALL-VERIFY-FIRST"},
			Description: "symlinks are followed wherever they point, as the reference CLI does"},
		{Name: "no-yaml-limits", Breaks: []string{"PKG-HOSTILE-YAML"},
			Description: "YAML is parsed with no depth, size or UTF-8 checks"},

		// Install and uninstall.
		{Name: "install-skips-verification", Breaks: []string{"INSTALL-VERIFY-FIRST", "VERIFY-REVOCATION", "VERIFY-PACKAGE-HASH", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE", "INSTALL-REVIEW"},
			Description: "app/install installs without checking the expected hashes"},
		{Name: "install-without-consent", Breaks: []string{"INSTALL-CONSENT"},
			Description: "app/install ignores a missing consent"},
		{Name: "list-drops-hash", Breaks: []string{"INSTALL-PINNED", "REGISTRY-OUTAGE", "REGISTRY-PINNED-CHANNEL"},
			Description: "app/list reports installed apps without the package hash they were installed from"},
		{Name: "uninstall-always-deletes", Breaks: []string{"UNINSTALL-KEEP-DATA", "UNINSTALL-APP-STORAGE", "UNINSTALL-APP-DATABASE", "UNINSTALL-APP-OUTPUTS", "UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall deletes app data even when asked to keep it"},
		{Name: "uninstall-never-deletes", Breaks: []string{"UNINSTALL-DELETE-DATA", "UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT", "UNINSTALL-APP-DATABASE", "UNINSTALL-APP-OUTPUTS", "UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall keeps app data even when asked to delete it"},
		{Name: "readiness-after-uninstall", Breaks: []string{"UNINSTALL-DELETE-DATA"},
			Description: "readiness of an uninstalled app is still answered from the package it was installed from"},
		{Name: "uninstall-removes-all", Breaks: []string{"UNINSTALL-ISOLATED"},
			Description: "uninstalling one app removes every installed app"},

		// Projection.
		{Name: "projection-random-id", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "projection stamps a random id on every entry"},
		{Name: "projection-timestamp", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "projection records the time it was generated"},
		{Name: "projection-absolute-path", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "projection carries the package's absolute path on the host"},
		{Name: "provenance-missing-on-entry", Breaks: []string{"PROJ-PROVENANCE"},
			Description: "the last projected entry carries no provenance"},
		// Its answer breaks the package/project schema in a member only
		// PROJ-PROVENANCE reads: every other check of the projection must
		// still judge, and the violation shows once, under PROTO-RESULT-SCHEMA.
		{Name: "projection-without-provenance", Breaks: []string{"PROJ-PROVENANCE", "PROTO-RESULT-SCHEMA"},
			Description: "the projection itself carries no provenance (its schema requires it); the app summary and the projected objects keep theirs"},
		{Name: "projection-embeds-secrets", Breaks: []string{"PROJ-NO-SECRETS", "HOST-NO-SECRET-LEAK"},
			Description: "projected secret slots carry the configured secret values"},
		{Name: "error-data-carries-session", Breaks: []string{"HOST-NO-SECRET-LEAK"},
			Description: "error answers carry the request context for debugging, session tokens included, base64-encoded"},
		{Name: "projection-cache-by-path", Breaks: []string{"PROJ-PROVENANCE"},
			Description: "projections are kept by package path, so a package changed in place is projected with its old hashes"},
		{Name: "projection-drops-permissions", Breaks: []string{"PROJ-CONTENTS", "CAT-LAYERED-LOAD", "CAT-LAYERED-PRECEDENCE"},
			Description: "projection omits permissions and policy prompts"},
		{Name: "exec-worker-on-project", Breaks: []string{"P0-NO-APP-CODE"},
			Description: "projection runs the package's worker to discover its routes"},
		{Name: "exec-worker-on-readiness", Breaks: []string{"P0-NO-APP-CODE"},
			Description: "readiness runs the package's worker as a health probe"},

		// Readiness.
		{Name: "readiness-nonstandard-status",
			Breaks: []string{"READY-STATUS", "READY-CAPABILITIES", "READY-DEPRECATED", "READY-END-OF-LIFE",
				"READY-PER-ENTRY", "READY-SECRETS", "READY-REQUIRED-TIER", "READY-RECOMMENDED-TIER",
				"READY-PERFORMANCE-TIER", "VERIFY-HOST-VERSION", "READY-PERMISSIONS", "READY-POLICY", "READY-AVAILABILITY", "REGISTRY-OUTAGE", "READY-INSTALLED-HASH", "READY-MIGRATIONS", "MIGRATION-IRREVERSIBLE-RISK", "MIGRATION-NO-HOST-WRITE", "BACKEND-NO-HOST-ACCESS", "PROTO-RESULT-SCHEMA"},
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
		{Name: "register-entries-only", Breaks: []string{"INSTALL-REGISTERS"},
			Description: "install registers the app's entries and nothing else"},
		{Name: "ignore-revocation", Breaks: []string{"VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "VERIFY-ORDER"},
			Description: "revocation.checkUrl is never called"},
		{Name: "revocation-before-hash", Breaks: []string{"VERIFY-ORDER"},
			Description: "the revocation service is asked before, and whatever, the hashes say"},
		{Name: "revocation-cache-forever", Breaks: []string{"VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION", "VERIFY-REVOCATION-FAIL-CLOSED"},
			Description: "a cached revocation answer is used whatever its age"},
		{Name: "revocation-fail-open", Breaks: []string{"VERIFY-REVOCATION-FAIL-CLOSED"},
			Description: "an unreachable revocation service lets the package through"},
		{Name: "ignore-locale", Breaks: []string{"CAT-DISPLAYNAME-I18N"},
			Description: "catalog rows always show the default displayName, whatever the host's locale"},
		{Name: "review-all-passed", Breaks: []string{"INSTALL-REVIEW"},
			Description: "the install review shows every step passed, whatever verification found"},
		{Name: "skip-sigstore", Breaks: []string{"VERIFY-SIGSTORE", "VERIFY-ORDER", "INSTALL-REVIEW"},
			Description: "sigstore signatures are never verified"},
		{Name: "sigstore-any-signer", Breaks: []string{"VERIFY-SIGSTORE", "VERIFY-ORDER", "INSTALL-REVIEW"},
			Description: "a sigstore signature is checked, but not who made it (identity and issuer)"},
		{Name: "revocation-before-signature", Breaks: []string{"VERIFY-ORDER"},
			Description: "the revocation service is asked whatever the signature step found"},
		{Name: "ignore-publisher", Breaks: []string{"VERIFY-PUBLISHER"},
			Description: "publisher and verifiedDomain are never compared with the registry's release"},
		{Name: "registry-ignores-tenant", Breaks: []string{"REGISTRY-TENANT-ENABLED", "REGISTRY-WITHDRAWN", "REGISTRY-PINNED-CHANNEL", "REGISTRY-METADATA-FIRST", "REGISTRY-OUTAGE", "VERIFY-PACKAGE-HASH", "VERIFY-PUBLISHER"},
			Description: "the bootstrap is asked for the registry's default tenant, not the configured one"},
		{Name: "bootstrap-cached-across-tenants", Breaks: []string{"REGISTRY-TENANT-ENABLED", "REGISTRY-METADATA-FIRST", "REGISTRY-WITHDRAWN", "VERIFY-PUBLISHER"},
			Description: "the first bootstrap of a registry is kept, whatever tenant is configured later"},
		{Name: "install-not-enabled", Breaks: []string{"REGISTRY-TENANT-ENABLED"},
			Description: "a release the tenant did not enable is installed from the registry's public catalogue"},
		{Name: "list-withdrawn", Breaks: []string{"REGISTRY-WITHDRAWN"},
			Description: "withdrawn releases are offered and installed like any other"},
		{Name: "registry-records-latest", Breaks: []string{"REGISTRY-PINNED-CHANNEL"},
			Description: "a channel resolves to the newest release in the registry's catalogue, not the one it pins"},
		{Name: "download-before-compatibility", Breaks: []string{"REGISTRY-METADATA-FIRST"},
			Description: "the package is downloaded before the release's compatibility is checked"},
		{Name: "list-needs-registry", Breaks: []string{"REGISTRY-OUTAGE"},
			Description: "app/list syncs with the registry first and fails when it cannot"},
		{Name: "ignore-tenant-policy", Breaks: []string{"POLICY-INSTALL", "READY-POLICY", "ACTIVATE-CONSENT"},
			Description: "tenant policy is never read, at install or in readiness"},
		{Name: "policy-denies-whole-app", Breaks: []string{"READY-POLICY"},
			Description: "an app with one entry denied by policy is denied as a whole"},
		{Name: "ignore-availability", Breaks: []string{"READY-AVAILABILITY"},
			Description: "required tools, skills and evals count as available whatever the host has"},
		{Name: "ignore-permission-grants", Breaks: []string{"READY-PERMISSIONS"},
			Description: "required permissions count as granted whatever the grants say"},
		{Name: "ignore-clock-override", Breaks: []string{"READY-END-OF-LIFE", "READY-DEPRECATED"},
			Description: "lifecycle dates are compared with the wall clock, not the configured clock"},
		{Name: "lifecycle-by-day", Breaks: []string{"READY-END-OF-LIFE", "READY-DEPRECATED"},
			Description: "lifecycle dates are compared by calendar day: a date takes effect a day late"},
		{Name: "deprecated-blocks", Breaks: []string{"READY-DEPRECATED", "READY-END-OF-LIFE"},
			Description: "a deprecated app is blocked instead of warned about"},
		{Name: "ignore-missing-secrets", Breaks: []string{"READY-SECRETS", "READY-SETUP-ACTIONS", "BACKEND-SUPERVISED", "UNINSTALL-SECRET-BINDINGS", "UPDATE-KEEPS-SECRET-BINDINGS"},
			Description: "required secrets are not checked"},
		{Name: "ignore-capability-profile", Breaks: []string{"READY-CAPABILITIES", "READY-PER-ENTRY"},
			Description: "readiness ignores capabilities disabled in the host profile"},
		{Name: "entry-readiness-copies-app", Breaks: []string{"READY-PER-ENTRY", "READY-POLICY"},
			Description: "every entry gets the app's overall status"},
		{Name: "readiness-trusts-install", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "readiness of an installed app never hashes its installed copy again: files changed since install go unnoticed"},
		{Name: "installed-hash-by-size", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "readiness compares the installed copy's files by size only, so an edit that keeps a file's size passes"},
		{Name: "installed-hash-known-files", Breaks: []string{"READY-INSTALLED-HASH"},
			Description: "readiness checks only the files recorded at install, so a file added to the installed copy passes"},
		{Name: "readiness-echoes-secret", Breaks: []string{"READY-NO-SECRET-LEAK", "HOST-NO-SECRET-LEAK"},
			Description: "readiness messages quote the configured secret value"},

		// Refusing or accepting for the wrong reason: the positive controls and
		// the rule that a refusal names what was planted must catch these.
		{Name: "refusals-as-unsupported", Breaks: []string{
			"CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-LEGACY-KINDS", "CAT-MANIFEST-VERSION", "INSTALL-VERIFY-FIRST",
			"PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "PKG-NO-PARENT-REFS", "VERIFY-COMPATIBILITY", "VERIFY-HOST-VERSION",
			"VERIFY-MANIFEST-HASH", "VERIFY-PACKAGE-HASH", "VERIFY-SIGNATURE-FILE", "CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS", "VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE"},
			Description: "a package the host would refuse is answered -32006 (cannot take it in its intake form) instead of being refused"},
		{Name: "refuse-without-entries", Breaks: []string{
			"CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-MANIFEST-VERSION", "INSTALL-CONSENT", "PKG-HOSTILE-YAML",
			"PKG-NO-ESCAPING-LINKS", "PROTO-RESET", "UNINSTALL-DELETE-DATA", "UNINSTALL-ISOLATED", "UNINSTALL-KEEP-DATA",
			"VERIFY-MANIFEST-HASH", "INSTALL-VERIFY-FIRST", "VERIFY-PACKAGE-HASH", "CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS", "POLICY-INSTALL", "REGISTRY-METADATA-FIRST", "REGISTRY-OUTAGE", "REGISTRY-PINNED-CHANNEL", "REGISTRY-TENANT-ENABLED", "CENTER-BLOCKERS", "READY-MIGRATIONS", "MIGRATIONS-AFTER-CONSENT", "MIGRATION-IRREVERSIBLE-RISK", "UNINSTALL-APP-DATABASE", "MIGRATION-NO-HOST-WRITE", "OVERLAY-PRECEDENCE", "OVERLAY-KEEPS-PACKAGE-HASH", "UPDATE-KEEPS-OVERLAYS", "BACKEND-NO-HOST-ACCESS"},
			Description: "a package that declares no entries is refused (finding no-entries), whatever else is wrong with it"},
		{Name: "refuse-unrelated-finding", Indiscriminate: everyRefusal(), Breaks: []string{
			"CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-LAYERED-LOAD", "CAT-LAYERED-PRECEDENCE", "CAT-LEGACY-KINDS",
			"CAT-MANIFEST-VERSION", "CAT-METADATA", "CAT-PUBLISHER-VERIFIED", "INSTALL-CONSENT", "INSTALL-PINNED",
			"INSTALL-VERIFY-FIRST", "PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "PKG-NO-PARENT-REFS", "PROJ-CONTENTS",
			"PROJ-DETERMINISTIC", "PROJ-PROVENANCE", "PROTO-RESET", "READY-CAPABILITIES", "READY-DEPRECATED",
			"READY-END-OF-LIFE", "READY-PER-ENTRY", "READY-PERFORMANCE-TIER", "READY-RECOMMENDED-TIER", "READY-REQUIRED-TIER",
			"READY-SECRETS", "READY-SETUP-ACTIONS", "READY-STATUS", "UNINSTALL-DELETE-DATA", "UNINSTALL-ISOLATED",
			"UNINSTALL-KEEP-DATA", "VERIFY-COMPATIBILITY", "VERIFY-HOST-VERSION", "VERIFY-MANIFEST-HASH",
			"VERIFY-PACKAGE-HASH", "VERIFY-SIGNATURE-FILE", "HOST-NO-SECRET-LEAK", "CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS", "POLICY-INSTALL", "READY-PERMISSIONS", "READY-POLICY", "INSTALL-REGISTERS", "READY-AVAILABILITY", "VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "REGISTRY-METADATA-FIRST", "REGISTRY-OUTAGE", "REGISTRY-PINNED-CHANNEL", "REGISTRY-TENANT-ENABLED", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE", "CAT-DISPLAYNAME-I18N", "INSTALL-REVIEW", "BRIDGE-APPID", "BRIDGE-CAPS-DECLARED", "BRIDGE-CONTAINMENT", "BRIDGE-DOWNLOAD", "BRIDGE-ENVELOPE", "BRIDGE-ENVELOPE-CHECKED", "BRIDGE-FAIL-CLOSED", "BRIDGE-INVALID-ANSWERED", "BRIDGE-NO-LEAK", "BRIDGE-OPEN-EXTERNAL", "BRIDGE-ORIGIN", "BRIDGE-REQUESTID", "BRIDGE-SNAPSHOT", "BRIDGE-SNAPSHOT-FIELDS", "BRIDGE-SOURCE", "BRIDGE-THEME-UPDATE", "BRIDGE-TOAST-TEXT", "BRIDGE-VISIBILITY", "CENTER-BLOCKERS", "LAUNCH-GATED", "ACTIVATE-CONSENT", "AGENT-APPROVAL", "AGENT-CANCEL-MAPPED", "AGENT-EVENTS-PROJECTED", "AGENT-FAIL-CLOSED", "AGENT-RESUME-CONFIRMED", "AGENT-STRUCTURED-OUTPUT", "AGENT-TASK-MAPPED", "APPSERVER-HANDSHAKE", "BRIDGE-NAVIGATE", "STORAGE-NAMESPACED", "APP-DISABLE", "LIFECYCLE-ISOLATED", "UPDATE-VERIFIED", "UPDATE-KEEPS-DATA", "ROLLBACK-KEEPS-DATA", "UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT", "UNINSTALL-CLEANUP-RECORD", "UPDATE-KEEPS-EVIDENCE", "EVIDENCE-RELEASE-PROVENANCE", "ROLLBACK-RETIRES-ENTRIES", "READY-INSTALLED-HASH", "READY-MIGRATIONS", "MIGRATIONS-AFTER-CONSENT", "MIGRATION-NO-HOST-WRITE", "MIGRATION-IRREVERSIBLE-RISK", "UNINSTALL-APP-DATABASE", "AGENT-PROJECTIONS", "AGENT-NO-LEAK", "OVERLAY-PRECEDENCE", "OVERLAY-KEEPS-PACKAGE-HASH", "UPDATE-KEEPS-OVERLAYS", "STORAGE-SCOPED", "BACKEND-SUPERVISED", "BACKEND-RESTART", "BACKEND-ENV-CLEAN", "BACKEND-NO-HOST-ACCESS", "BACKEND-NETWORK-POLICY", "BACKEND-RESOURCE-LIMITS", "BACKEND-LOGS-CAPTURED", "UNINSTALL-APP-OUTPUTS", "UNINSTALL-SECRET-BINDINGS", "UPDATE-KEEPS-ARTIFACTS", "UPDATE-KEEPS-SECRET-BINDINGS", "WORKFLOW-STATE-KINDS", "WORKFLOW-HUMAN-REVIEW", "WORKFLOW-INTERRUPT-RESUME", "WORKFLOW-RETRY-POLICY", "WORKFLOW-TIMEOUT", "WORKFLOW-FAILS-CLOSED", "WORKFLOW-OUTPUTS-RECORDED", "WORKFLOW-RUNS-ISOLATED"},
			Description: "every package is refused, and every readiness blocked, always for the same unrelated reason (an unsupported license)"},
		{Name: "accept-everything", Indiscriminate: everyRefusal(), Breaks: []string{
			"CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-LEGACY-KINDS", "CAT-MANIFEST-VERSION", "INSTALL-CONSENT",
			"INSTALL-VERIFY-FIRST", "PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "PKG-NO-PARENT-REFS", "READY-CAPABILITIES",
			"READY-DEPRECATED", "READY-END-OF-LIFE", "READY-PER-ENTRY", "READY-RECOMMENDED-TIER", "READY-REQUIRED-TIER",
			"READY-SECRETS", "READY-SETUP-ACTIONS", "VERIFY-COMPATIBILITY", "VERIFY-HOST-VERSION", "VERIFY-MANIFEST-HASH",
			"VERIFY-PACKAGE-HASH", "VERIFY-SIGNATURE-FILE", "CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS", "READY-PERMISSIONS", "READY-POLICY", "READY-AVAILABILITY", "VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE", "INSTALL-REVIEW", "CENTER-BLOCKERS", "LAUNCH-GATED", "ACTIVATE-CONSENT", "APP-DISABLE", "UPDATE-VERIFIED", "READY-INSTALLED-HASH", "READY-MIGRATIONS", "MIGRATION-IRREVERSIBLE-RISK", "BACKEND-SUPERVISED", "UNINSTALL-SECRET-BINDINGS", "UPDATE-KEEPS-SECRET-BINDINGS"},
			Description: "nothing is checked: every package verifies, installs (with or without consent) and projects as it comes, and is always ready"},
		{Name: "vague-refusals", Breaks: []string{"CAT-DISCOVER-APPMD", "CAT-FRONTMATTER-REQUIRED", "CAT-LEGACY-KINDS", "CAT-MANIFEST-VERSION", "INSTALL-VERIFY-FIRST", "PKG-HOSTILE-YAML", "PKG-NO-ESCAPING-LINKS", "PKG-NO-PARENT-REFS", "VERIFY-COMPATIBILITY", "VERIFY-HOST-VERSION", "VERIFY-MANIFEST-HASH", "VERIFY-PACKAGE-HASH", "VERIFY-SIGNATURE-FILE", "CAT-FIELD-CONSTRAINTS", "CAT-NO-BYPASS-PERMISSIONS", "VERIFY-ORDER", "VERIFY-REVOCATION", "VERIFY-REVOCATION-CACHE", "VERIFY-REVOCATION-FAIL-CLOSED", "VERIFY-PUBLISHER", "VERIFY-SIGSTORE", "INSTALL-REVIEW"},
			Description: "every refusal says only \"the package failed verification\": no finding code, file or field names the cause"},
		{Name: "vague-readiness", Breaks: []string{"ACTIVATE-CONSENT", "LAUNCH-GATED", "READY-CAPABILITIES", "READY-PER-ENTRY", "READY-REQUIRED-TIER", "READY-SECRETS", "READY-PERMISSIONS", "READY-POLICY", "READY-AVAILABILITY", "READY-INSTALLED-HASH", "READY-MIGRATIONS"},
			Description: "a not-ready answer names no failing check: a single blocker says setup is incomplete"},
		{Name: "not-installed-not-ready", Indiscriminate: []levels.RefusalKind{levels.NotReady}, Breaks: []string{
			"READY-CAPABILITIES", "READY-DEPRECATED", "READY-END-OF-LIFE", "READY-PER-ENTRY", "READY-PERFORMANCE-TIER",
			"READY-RECOMMENDED-TIER", "READY-REQUIRED-TIER", "READY-SECRETS", "READY-SETUP-ACTIONS", "READY-STATUS",
			"VERIFY-HOST-VERSION", "READY-PERMISSIONS", "READY-POLICY", "READY-AVAILABILITY"},
			Description: "readiness of a package that is not installed is needs-setup \"not installed\", whatever its own checks say"},

		// The app surface and the Host Bridge.
		{Name: "launch-keeps-install-consent", Breaks: []string{"ACTIVATE-CONSENT"},
			Description: "app/launch trusts the consent of install time: an app the tenant policy withdrew since still mounts"},
		{Name: "launch-ignores-readiness", Breaks: []string{"LAUNCH-GATED", "ACTIVATE-CONSENT", "BACKEND-SUPERVISED"},
			Description: "app/launch mounts an entry that is not ready"},
		{Name: "no-snapshot-on-get", Breaks: []string{"BRIDGE-SNAPSHOT"},
			Description: "host:getSnapshot is ignored (only app:ready is answered)"},
		{Name: "snapshot-on-timer", Breaks: []string{"BRIDGE-SNAPSHOT"},
			Description: "app:ready and host:getSnapshot go unanswered; the host pushes a snapshot every 250 ms instead, so one always follows a request"},
		{Name: "snapshot-default-locale-on-top", Breaks: []string{"BRIDGE-SNAPSHOT-FIELDS"},
			Description: "the snapshot's locale and timezone are the host's defaults; the configured ones only appear nested in a user object"},
		{Name: "storage-answer-names-path", Breaks: []string{"BRIDGE-NO-LEAK"},
			Description: "lime.storage set answers with where the value lives on the host's disk (a path under the host's data folder)"},
		{Name: "theme-update-previous-mode", Breaks: []string{"BRIDGE-THEME-UPDATE"},
			Description: "theme:update carries the new tokens but the theme mode of before the change"},
		{Name: "navigate-anywhere", Breaks: []string{"BRIDGE-NAVIGATE"},
			Description: "host:navigate accepts any entry key and any route, absolute URLs and other schemes too"},
		// The App Server bridge.
		{Name: "appserver-no-clientinfo", Breaks: []string{"APPSERVER-HANDSHAKE", "AGENT-TASK-MAPPED"},
			Description: "the App Server client's initialize carries no clientInfo"},
		{Name: "appserver-skips-initialized", Breaks: []string{"AGENT-NO-LEAK", "UNINSTALL-APP-OUTPUTS", "UPDATE-KEEPS-ARTIFACTS", "WORKFLOW-FAILS-CLOSED", "WORKFLOW-HUMAN-REVIEW", "WORKFLOW-INTERRUPT-RESUME", "WORKFLOW-OUTPUTS-RECORDED", "WORKFLOW-RETRY-POLICY", "WORKFLOW-RUNS-ISOLATED", "WORKFLOW-STATE-KINDS", "WORKFLOW-TIMEOUT", "APPSERVER-HANDSHAKE", "AGENT-TASK-MAPPED", "AGENT-EVENTS-PROJECTED", "AGENT-APPROVAL", "AGENT-CANCEL-MAPPED", "AGENT-FAIL-CLOSED", "AGENT-RESUME-CONFIRMED", "AGENT-STRUCTURED-OUTPUT", "AGENT-PROJECTIONS"},
			Description: "the App Server client never sends initialized and goes straight to business methods"},
		{Name: "agent-session-unbound", Breaks: []string{"AGENT-TASK-MAPPED", "AGENT-RESUME-CONFIRMED"},
			Description: "agentSession/start binds the app but no workspace"},
		{Name: "agent-turn-drops-idempotency-key", Breaks: []string{"AGENT-TASK-MAPPED"},
			Description: "agentSession/turn/start carries no idempotency key"},
		{Name: "agent-events-raw", Breaks: []string{"AGENT-EVENTS-PROJECTED", "AGENT-APPROVAL", "AGENT-CANCEL-MAPPED", "AGENT-STRUCTURED-OUTPUT"},
			Description: "the app gets the App Server's agentSession/event params as they are, not the task event envelope"},
		{Name: "events-dropped-under-burst", Breaks: []string{"AGENT-EVENTS-PROJECTED"},
			Description: "the app's event stream holds 16 messages: task facts that come faster than the page takes them are lost"},
		{Name: "agent-cancel-local-only", Breaks: []string{"AGENT-CANCEL-MAPPED"},
			Description: "lime.agent cancelTask is answered ok but never reaches the App Server: the turn runs on to success"},
		{Name: "agent-resume-unconfirmed", Breaks: []string{"AGENT-RESUME-CONFIRMED"},
			Description: "a session id the app cached is resumed as it is, never confirmed with agentSession/read"},
		{Name: "agent-resume-any-workspace", Breaks: []string{"AGENT-RESUME-CONFIRMED"},
			Description: "a cached session is confirmed to exist but not to belong to the current workspace"},
		{Name: "approval-decision-dropped", Breaks: []string{"AGENT-APPROVAL"},
			Description: "the app's decision on a runtime approval is acknowledged but never sent to the App Server"},
		{Name: "approval-app-overrides-policy", Breaks: []string{"AGENT-APPROVAL"},
			Description: "the app's allow on a runtime approval is passed on although the tenant policy denies the tool"},
		{Name: "capabilities-from-manifest", Breaks: []string{"AGENT-PROJECTIONS"},
			Description: "lime.agent listCapabilities answers from the app's own manifest instead of capability/list"},
		{Name: "artifact-read-local", Breaks: []string{"AGENT-PROJECTIONS"},
			Description: "lime.artifacts read answers from a record of the host's own; artifact/read is never asked"},
		{Name: "agent-events-unredacted", Breaks: []string{"AGENT-NO-LEAK"},
			Description: "a task fact quoting a credential the host holds (a tool call's authorization header) reaches the app as it is"},
		{Name: "agent-projections-unredacted", Breaks: []string{"AGENT-NO-LEAK"},
			Description: "what the App Server answers an artifact read or an evidence export with, and its error messages, reach the app as they are, credentials they quote included"},
		// Workflow runtime.
		{Name: "workflow-branch-unsupported", Breaks: []string{"WORKFLOW-STATE-KINDS", "WORKFLOW-INTERRUPT-RESUME"},
			Description: "a branch state is not understood: a run fails when it reaches one"},
		{Name: "workflow-review-auto-approved", Breaks: []string{"WORKFLOW-HUMAN-REVIEW", "WORKFLOW-STATE-KINDS", "WORKFLOW-INTERRUPT-RESUME"},
			Description: "a human-review state passes at once: the storage write and the artifact after it happen before anybody decided"},
		{Name: "workflow-reject-continues", Breaks: []string{"WORKFLOW-HUMAN-REVIEW"},
			Description: "a rejection at a human review is taken as an approval: what comes after the review happens anyway"},
		{Name: "workflow-interrupt-ignored", Breaks: []string{"WORKFLOW-INTERRUPT-RESUME"},
			Description: "interrupt is answered as done, but the run goes on: a signal meanwhile still ends it"},
		{Name: "workflow-resume-from-start", Breaks: []string{"WORKFLOW-INTERRUPT-RESUME"},
			Description: "resume starts the run again from its first state: its agent task runs twice and its review is asked again"},
		{Name: "workflow-retry-ignored", Breaks: []string{"WORKFLOW-RETRY-POLICY", "WORKFLOW-TIMEOUT"},
			Description: "a failed state is never tried again: a run whose agent task fails once fails, whatever recovery.maxRetries allows"},
		{Name: "workflow-retry-unbounded", Breaks: []string{"WORKFLOW-RETRY-POLICY", "WORKFLOW-TIMEOUT"},
			Description: "a failed state is tried once more than recovery.maxRetries allows"},
		{Name: "workflow-timeout-ignored", Breaks: []string{"WORKFLOW-TIMEOUT"},
			Description: "a state's timeout is not applied: the run waits for a hanging agent task for minutes"},
		{Name: "workflow-mock-success-when-down", Breaks: []string{"WORKFLOW-FAILS-CLOSED"},
			Description: "an agent-task state whose App Server is down counts as done, and the run goes on to write and publish"},
		{Name: "workflow-missing-tool-skipped", Breaks: []string{"WORKFLOW-FAILS-CLOSED"},
			Description: "a tool-call state whose tool the host does not have counts as done"},
		{Name: "workflow-runs-shared", Breaks: []string{"WORKFLOW-RUNS-ISOLATED"},
			Description: "a workflow run is found by its id alone: another app reads it, and could answer its review"},
		{Name: "workflow-artifact-no-provenance", Breaks: []string{"WORKFLOW-OUTPUTS-RECORDED"},
			Description: "a workflow's artifact is recorded without the release, workflow, run and state that made it"},
		{Name: "workflow-no-evidence", Breaks: []string{"WORKFLOW-OUTPUTS-RECORDED"},
			Description: "the states of a workflow run leave no evidence"},

		{Name: "update-drops-artifacts", Breaks: []string{"UPDATE-KEEPS-ARTIFACTS"},
			Description: "the artifacts the app's workflow runs made before an update are gone after it"},
		{Name: "artifacts-stamped-current", Breaks: []string{"UPDATE-KEEPS-ARTIFACTS"},
			Description: "every artifact record names the release installed now, not the one that made it"},
		{Name: "delete-data-keeps-outputs", Breaks: []string{"UNINSTALL-APP-OUTPUTS"},
			Description: "uninstall deleting data leaves the app's artifacts and workflow runs for the next install"},
		{Name: "keep-data-drops-outputs", Breaks: []string{"UNINSTALL-APP-OUTPUTS"},
			Description: "uninstall keeping data keeps the app's storage but throws away its artifacts and workflow runs"},

		{Name: "update-drops-secret-bindings", Breaks: []string{"UPDATE-KEEPS-SECRET-BINDINGS"},
			Description: "an update forgets the secrets the user bound to the app: it needs setup again"},
		{Name: "delete-data-keeps-secret-bindings", Breaks: []string{"UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall deleting data leaves the app's bound secrets for the next install"},
		{Name: "keep-data-drops-secret-bindings", Breaks: []string{"UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall keeping data forgets the secrets the user bound to the app"},

		// Overlays.
		{Name: "overlay-last-write-wins", Breaks: []string{"OVERLAY-PRECEDENCE"},
			Description: "the overlay value set last is in effect, whatever its scope: a tenant default set after a workspace override beats it"},
		{Name: "overlay-user-over-workspace", Breaks: []string{"OVERLAY-PRECEDENCE"},
			Description: "a user overlay beats the workspace override of the same name"},
		{Name: "overlay-written-into-package", Breaks: []string{"OVERLAY-KEEPS-PACKAGE-HASH"},
			Description: "an overlay is saved into the installed package beside its APP.md, so the package no longer hashes to its release"},
		{Name: "update-resets-overlays", Breaks: []string{"UPDATE-KEEPS-OVERLAYS"},
			Description: "an update starts the newer release from its package defaults: the tenant, user and workspace overlays set before are gone"},
		{Name: "artifact-mock-when-down", Breaks: []string{"AGENT-PROJECTIONS"},
			Description: "with the App Server unreachable, lime.artifacts read answers with a placeholder artifact"},
		{Name: "evidence-export-synthesized", Breaks: []string{"AGENT-PROJECTIONS"},
			Description: "lime.evidence export builds the pack from the host's local records instead of evidence/export"},
		{Name: "structured-output-unchecked", Breaks: []string{"AGENT-STRUCTURED-OUTPUT"},
			Description: "a success result is passed to the app without validating its output against the schema the app asked for"},
		{Name: "structured-output-retries-unbounded", Breaks: []string{"AGENT-STRUCTURED-OUTPUT"},
			Description: "output that fails its schema is retried five times more than maxValidationRetries allows"},
		// Storage migrations.
		{Name: "readiness-ignores-migrations", Breaks: []string{"READY-MIGRATIONS", "MIGRATION-IRREVERSIBLE-RISK"},
			Description: "readiness never looks at storage migrations: an app whose migrations wait for approval is ready"},
		{Name: "migrations-without-consent", Breaks: []string{"MIGRATIONS-AFTER-CONSENT", "READY-MIGRATIONS", "MIGRATION-IRREVERSIBLE-RISK", "UNINSTALL-APP-DATABASE", "MIGRATION-NO-HOST-WRITE"},
			Description: "app/install runs the package's storage migrations although the user did not approve them"},
		{Name: "migrate-ignores-consent", Breaks: []string{"MIGRATIONS-AFTER-CONSENT"},
			Description: "app/migrate runs the migrations without the user's approval"},
		{Name: "irreversible-risk-hidden", Breaks: []string{"MIGRATION-IRREVERSIBLE-RISK"},
			Description: "an irreversible migration waits for approval like any other: its declared risk is never shown"},
		{Name: "uninstall-keep-drops-database", Breaks: []string{"UNINSTALL-APP-DATABASE"},
			Description: "uninstall keeping data keeps the data folder but deletes the app's database in it"},
		{Name: "uninstall-delete-keeps-ledger", Breaks: []string{"UNINSTALL-APP-DATABASE"},
			Description: "uninstall deleting data deletes the app's database but not the host's ledger of its applied migrations, so a reinstall never runs them again"},
		{Name: "migrate-first-pending-only", Breaks: []string{"READY-MIGRATIONS", "MIGRATION-NO-HOST-WRITE"},
			Description: "an approval applies only the first of the app's pending storage migrations; the others stay pending"},
		{Name: "migrations-unvetted", Breaks: []string{"MIGRATION-NO-HOST-WRITE"},
			Description: "migrations run as written: ATTACH, VACUUM INTO, PRAGMA and load_extension are not refused"},
		{Name: "migrations-in-host-db", Breaks: []string{"MIGRATION-NO-HOST-WRITE", "READY-MIGRATIONS", "MIGRATIONS-AFTER-CONSENT", "UNINSTALL-APP-DATABASE"},
			Description: "app migrations run in the host's own database, so a migration naming a host table writes host core state"},
		{Name: "migration-partial", Breaks: []string{"MIGRATION-NO-HOST-WRITE"},
			Description: "a migration's statements are checked one at a time as they run, so a refused migration leaves what ran before the forbidden statement"},
		{Name: "storage-shared-namespace", Breaks: []string{"STORAGE-NAMESPACED", "UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT", "STORAGE-SCOPED"},
			Description: "every app's lime.storage keys live in one namespace, so two apps with the same key read each other's value"},
		{Name: "storage-list-every-app", Breaks: []string{"STORAGE-NAMESPACED", "STORAGE-SCOPED"},
			Description: "lime.storage list names the keys of every app, not only the caller's"},
		{Name: "disable-still-launches", Breaks: []string{"APP-DISABLE"},
			Description: "a disabled app's readiness says disabled, but its entries still launch"},
		{Name: "disable-drops-data", Breaks: []string{"APP-DISABLE"},
			Description: "disabling an app deletes what it stored"},
		{Name: "enable-stays-disabled", Breaks: []string{"APP-DISABLE", "BACKEND-SUPERVISED"},
			Description: "app/enable is acknowledged, but the app stays disabled"},
		{Name: "disable-affects-all", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "disabling one app disables every installed app"},
		{Name: "update-skips-verification", Breaks: []string{"UPDATE-VERIFIED"},
			Description: "app/update installs the newer package without checking it is the release it names"},
		{Name: "update-drops-data", Breaks: []string{"UPDATE-KEEPS-DATA", "ROLLBACK-KEEPS-DATA"},
			Description: "the updated app starts with empty storage"},
		{Name: "update-disables-others", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "updating one app leaves every other installed app disabled"},
		{Name: "rollback-drops-data", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "rollback reinstalls the older release from scratch, so what the app stored is gone"},
		{Name: "rollback-keeps-newer", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "app/rollback answers with the older release, but the newer one stays installed"},
		{Name: "uninstall-keep-drops-storage", Breaks: []string{"UNINSTALL-APP-STORAGE"},
			Description: "uninstall keeping data keeps the app's data folder and reports it retained, but drops what the app stored"},
		{Name: "uninstall-delete-keeps-storage", Breaks: []string{"UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT"},
			Description: "uninstall deleting data removes the data folder and reports it removed, but what the app stored is there for the next install"},
		{Name: "export-keeps-data", Breaks: []string{"UNINSTALL-EXPORT"},
			Description: "export then delete writes the export but keeps the app's data for the next install"},
		{Name: "export-without-storage", Breaks: []string{"UNINSTALL-EXPORT"},
			Description: "export then delete exports the app's files but not what it stored through lime.storage"},
		{Name: "storage-ignores-workspace", Breaks: []string{"STORAGE-SCOPED"},
			Description: "an app's lime.storage keys are the same in every workspace and tenant: what it stored for one workspace another reads"},
		{Name: "export-every-app", Breaks: []string{"STORAGE-NAMESPACED"},
			Description: "the export of one app holds what every installed app stored"},
		{Name: "no-cleanup-record", Breaks: []string{"UNINSTALL-CLEANUP-RECORD"},
			Description: "uninstalls leave no cleanup record"},
		{Name: "cleanup-record-says-deleted", Breaks: []string{"UNINSTALL-CLEANUP-RECORD"},
			Description: "every cleanup record says the data was deleted, whatever the uninstall mode"},
		{Name: "update-drops-evidence", Breaks: []string{"UPDATE-KEEPS-EVIDENCE", "EVIDENCE-RELEASE-PROVENANCE"},
			Description: "an update forgets the evidence the app recorded before it"},
		{Name: "evidence-stamped-current", Breaks: []string{"EVIDENCE-RELEASE-PROVENANCE"},
			Description: "every evidence record names the release installed now, not the one that made it"},
		{Name: "rollback-keeps-new-entries", Breaks: []string{"ROLLBACK-RETIRES-ENTRIES"},
			Description: "after a rollback the entries only the newer release had stay registered and launch"},
		{Name: "agent-drop-ends-in-success", Breaks: []string{"AGENT-FAIL-CLOSED"},
			Description: "a turn whose App Server connection drops mid-turn ends, for the app, with a success result"},
		{Name: "agent-mock-success-when-down", Breaks: []string{"AGENT-FAIL-CLOSED"},
			Description: "with the App Server unreachable, startTask answers a mock task and pushes a fabricated delta and a success result"},
		{Name: "snapshot-without-theme", Breaks: []string{"BRIDGE-SNAPSHOT-FIELDS"},
			Description: "the snapshot has no theme and no timezone"},
		{Name: "snapshot-offers-profile", Breaks: []string{"BRIDGE-CAPS-DECLARED"},
			Description: "the capability summary lists the whole host profile"},
		{Name: "version-as-string", Breaks: []string{"BRIDGE-ENVELOPE"},
			Description: "host messages carry version \"1\" (a string)"},
		{Name: "response-without-requestid", Breaks: []string{"BRIDGE-NO-LEAK", "BRIDGE-REQUESTID", "BRIDGE-APPID", "BRIDGE-DOWNLOAD", "BRIDGE-ENVELOPE-CHECKED", "BRIDGE-FAIL-CLOSED", "BRIDGE-INVALID-ANSWERED", "BRIDGE-OPEN-EXTERNAL", "BRIDGE-ORIGIN", "BRIDGE-SOURCE", "BRIDGE-NAVIGATE"},
			Description: "host:response and host:error omit requestId"},
		{Name: "silent-on-invalid", Breaks: []string{"BRIDGE-INVALID-ANSWERED"},
			Description: "invalid requests from the app frame are rejected silently (no host:error)"},
		{Name: "bridge-trusts-any-source", Breaks: []string{"BRIDGE-SOURCE"},
			Description: "event.source is not checked (origin still is)"},
		{Name: "bridge-trusts-any-origin", Breaks: []string{"BRIDGE-ORIGIN"},
			Description: "event.origin is not checked (source still is)"},
		{Name: "bridge-ignores-version", Breaks: []string{"BRIDGE-ENVELOPE-CHECKED", "BRIDGE-INVALID-ANSWERED"},
			Description: "protocol and version of app messages are not checked"},
		{Name: "bridge-ignores-appid", Breaks: []string{"BRIDGE-APPID"},
			Description: "the envelope appId is not compared with the launched app"},
		{Name: "invoke-undeclared", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "the allowlist gate is skipped"},
		{Name: "invoke-unready-mock-success", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "a call to a disabled capability gets host:response {ok: true, mock: true}"},
		{Name: "invoke-ignores-policy", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "policy.deniedCapabilities is not applied"},
		{Name: "invoke-ignores-approval", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "approvalRequired capabilities execute"},
		{Name: "snapshot-carries-session-token", Breaks: []string{"BRIDGE-NO-LEAK"},
			Description: "the snapshot's cloud session part carries the configured session token value"},
		{Name: "error-echoes-secret", Breaks: []string{"BRIDGE-NO-LEAK"},
			Description: "a lime.secrets status answer echoes the secret's value in its message"},
		{Name: "frame-same-origin-as-host", Breaks: []string{"BRIDGE-CONTAINMENT"},
			Description: "the app frame is served from the host origin (same origin as the host page), so it can reach the host DOM"},
		{Name: "frame-gets-node-globals", Breaks: []string{"BRIDGE-CONTAINMENT"},
			Description: "the app's frame gets a host preload with Node's require, process and Buffer in its main world"},
		{Name: "host-endpoints-open", Breaks: []string{"BRIDGE-CONTAINMENT"},
			Description: "a CORS middleware left on: every answer of the host origin, its pages included, carries Access-Control-Allow-Origin: *"},
		{Name: "open-external-any-url", Breaks: []string{"BRIDGE-OPEN-EXTERNAL"},
			Description: "any URL is allowed (javascript:, file:, data:, other origins)"},
		{Name: "download-any-url", Breaks: []string{"BRIDGE-DOWNLOAD"},
			Description: "any URL is allowed"},
		{Name: "toast-innerhtml", Breaks: []string{"BRIDGE-TOAST-TEXT"},
			Description: "toast messages are inserted with innerHTML"},
		{Name: "no-theme-update", Breaks: []string{"BRIDGE-THEME-UPDATE"},
			Description: "host/set theme pushes nothing"},
		{Name: "no-visibility-event", Breaks: []string{"BRIDGE-VISIBILITY"},
			Description: "host/set visibility pushes nothing"},
		{Name: "center-omits-ready-apps", Breaks: []string{"CENTER-BLOCKERS"},
			Description: "the app center lists only apps with an entry that needs attention; a ready app is missing"},
		{Name: "center-hides-blockers", Breaks: []string{"CENTER-BLOCKERS"},
			Description: "the app center shows status only, no blocker reasons or setup actions"},

		// Client-local backend services.
		{Name: "backend-started-at-install", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "an app's backend services start as soon as it is installed, before any entry passed its readiness gate"},
		{Name: "backend-starts-unready", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "app/launch starts the app's backends before its readiness gate, so an app that needs setup runs its backend anyway"},
		{Name: "backend-survives-disable", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "a disabled app's backends keep running"},
		{Name: "backend-survives-uninstall", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "an uninstalled app's backends keep running until host/reset"},
		{Name: "backend-crash-ignored", Breaks: []string{"BACKEND-RESTART"},
			Description: "a backend that exits on its own is neither restarted nor reported: host/observe still says it runs"},
		{Name: "backend-env-inherits-secrets", Breaks: []string{"BACKEND-ENV-CLEAN", "HOST-NO-SECRET-LEAK"},
			Description: "the configured secrets and session tokens are put into each backend's environment, for convenience"},
		{Name: "backend-unsandboxed", Breaks: []string{"BACKEND-NO-HOST-ACCESS"},
			Description: "backends run with the host's own rights (no Landlock): they can read the host's database and other apps' data"},
		{Name: "backend-no-resource-limits", Breaks: []string{"BACKEND-RESOURCE-LIMITS"},
			Description: "a backend runs with the host's own resource limits: as many open files and as large files as the host may have"},
		{Name: "backend-stderr-discarded", Breaks: []string{"BACKEND-LOGS-CAPTURED"},
			Description: "a backend's stderr goes nowhere: what it logs is not kept"},
		{Name: "worker-unsandboxed", Breaks: []string{"BACKEND-NO-HOST-ACCESS", "BACKEND-NETWORK-POLICY"},
			Description: "only services of kind app-backend are sandboxed: a client-local worker runs with the host's own rights, reading host databases and opening connections"},
		{Name: "backend-may-listen", Breaks: []string{"BACKEND-NETWORK-POLICY"},
			Description: "network deny-by-default stops a backend's outgoing connections only: it may still listen on a port"},
		{Name: "backend-network-open", Breaks: []string{"BACKEND-NETWORK-POLICY"},
			Description: "the filesystem sandbox is applied, but a backend declaring network deny-by-default may still connect anywhere"},

		// Hostile hosts: the harness must fail the check at hand, record it and go on.
		{Name: "host-page-spins", Hostile: true, Breaks: bridgeRequirements("BRIDGE-CONTAINMENT", "CENTER-BLOCKERS"),
			Description: "the host's pages loop for ever: a surface's host page never finishes loading, and the app center stops answering once it has loaded"},
		// Forgers: a host that has no Host Bridge and writes what the
		// probe would report gains no pass (the probe is the harness's,
		// in a world the page cannot reach).
		{Name: "forge-probe", Hostile: true, Breaks: bridgeRequirements(),
			Description: "no Host Bridge at all: the app frame runs a forger that writes a conforming host's findings where the probe's report used to be read and dispatches made-up host messages"},
		{Name: "forge-probe-devtools", Hostile: true, Breaks: bridgeRequirements("BRIDGE-CONTAINMENT", "CENTER-BLOCKERS",
			// Every requirement judged on a surface: none can be judged
			// in a browser the operator did not name or trust.
			"AGENT-PROJECTIONS", "AGENT-APPROVAL", "AGENT-CANCEL-MAPPED", "AGENT-EVENTS-PROJECTED", "AGENT-FAIL-CLOSED", "AGENT-NO-LEAK", "AGENT-RESUME-CONFIRMED",
			"AGENT-STRUCTURED-OUTPUT", "AGENT-TASK-MAPPED", "APPSERVER-HANDSHAKE", "APP-DISABLE", "EVIDENCE-RELEASE-PROVENANCE", "LIFECYCLE-ISOLATED",
			"ROLLBACK-KEEPS-DATA", "STORAGE-NAMESPACED", "UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT", "UPDATE-KEEPS-DATA", "UPDATE-KEEPS-EVIDENCE", "UPDATE-VERIFIED"),
			Description: "forge-probe in a browser of the host's own: app/launch and app/center name the DevTools endpoint of a Chromium the host started"},
		{Name: "hang-on-readiness", Hostile: true,
			Breaks: []string{"APP-DISABLE", "BILLING-BLOCKS", "LIFECYCLE-ISOLATED", "OVERLAY-KEEPS-PACKAGE-HASH", "UNINSTALL-SECRET-BINDINGS", "UPDATE-KEEPS-SECRET-BINDINGS", "UPDATE-VERIFIED", "READY-STATUS", "READY-REQUIRED-TIER", "READY-RECOMMENDED-TIER", "READY-PERFORMANCE-TIER",
				"READY-SETUP-ACTIONS", "READY-END-OF-LIFE", "READY-DEPRECATED", "READY-SECRETS", "READY-CAPABILITIES",
				"READY-PER-ENTRY", "READY-NO-SECRET-LEAK", "P0-NO-APP-CODE", "VERIFY-HOST-VERSION", "HOST-NO-SECRET-LEAK", "UNINSTALL-DELETE-DATA", "READY-PERMISSIONS", "READY-POLICY", "READY-AVAILABILITY", "REGISTRY-OUTAGE", "CENTER-BLOCKERS", "READY-INSTALLED-HASH", "READY-MIGRATIONS", "MIGRATION-IRREVERSIBLE-RISK", "MIGRATION-NO-HOST-WRITE", "BACKEND-SUPERVISED", "BACKEND-NO-HOST-ACCESS"},
			Description: "app/readiness never answers"},
		{Name: "crash-mid-uninstall", Hostile: true,
			Breaks: []string{"UNINSTALL-APP-OUTPUTS", "UNINSTALL-SECRET-BINDINGS", "PROTO-RESET", "UNINSTALL-KEEP-DATA", "UNINSTALL-DELETE-DATA", "UNINSTALL-ISOLATED",
				"INSTALL-CONSENT", "INSTALL-VERIFY-FIRST", "HOST-NO-SECRET-LEAK", "POLICY-INSTALL", "VERIFY-PACKAGE-HASH", "VERIFY-PUBLISHER", "STORAGE-NAMESPACED", "UNINSTALL-EXPORT", "UNINSTALL-CLEANUP-RECORD", "UNINSTALL-APP-STORAGE", "UNINSTALL-APP-DATABASE", "BACKEND-SUPERVISED"},
			Description: "the host writes half an answer to app/uninstall and dies"},
		{Name: "garbage-on-list", Hostile: true,
			Breaks:      []string{"APP-DISABLE", "EVIDENCE-RELEASE-PROVENANCE", "LIFECYCLE-ISOLATED", "ROLLBACK-KEEPS-DATA", "UPDATE-KEEPS-ARTIFACTS", "UPDATE-KEEPS-DATA", "UPDATE-KEEPS-EVIDENCE", "UPDATE-KEEPS-SECRET-BINDINGS", "UPDATE-VERIFIED", "WORKFLOW-OUTPUTS-RECORDED", "PROTO-RESET", "INSTALL-CONSENT", "INSTALL-VERIFY-FIRST", "INSTALL-PINNED", "UNINSTALL-KEEP-DATA", "UNINSTALL-DELETE-DATA", "UNINSTALL-ISOLATED", "HOST-NO-SECRET-LEAK", "POLICY-INSTALL", "INSTALL-REGISTERS", "REGISTRY-OUTAGE", "REGISTRY-PINNED-CHANNEL", "REGISTRY-TENANT-ENABLED", "REGISTRY-WITHDRAWN", "CAT-DISPLAYNAME-I18N", "INSTALL-REVIEW", "CENTER-BLOCKERS", "MIGRATION-NO-HOST-WRITE", "OVERLAY-KEEPS-PACKAGE-HASH", "UPDATE-KEEPS-OVERLAYS", "BACKEND-NO-HOST-ACCESS"},
			Description: "app/list is answered with bytes that are not JSON"},
		{Name: "leave-setsid-child", Hostile: true, Escapes: true,
			Description: "at start the host forks `sleep 300` into a session of its own (setsid) and never stops it, so it would outlive the run"},
		{Name: "flood-on-project", Hostile: true,
			Breaks: []string{"CAT-DISCOVER-APPMD", "CAT-METADATA", "CAT-PUBLISHER-VERIFIED", "CAT-LAYERED-LOAD", "CAT-LAYERED-PRECEDENCE",
				"PROJ-DETERMINISTIC", "PROJ-PROVENANCE", "PROJ-NO-SECRETS", "PROJ-CONTENTS", "P0-NO-APP-CODE", "HOST-NO-SECRET-LEAK"},
			Description: "package/project is answered with 100 MB"},
	}
	fs = withPlatform(fs)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	return fs
}

// bridgeRequirements lists the requirements of the bridge levels
// (capability, desktop-p2) judged on what a launched app surface's Host
// Bridge does (what a host with no bridge cannot pass), and more. The
// levels a fault's requirements count in are the levels its child runs
// (selftest --scope levels): a surface fault that named a requirement of a
// higher level would run, and fail, every surface spec there too.
func bridgeRequirements(more ...string) []string {
	return append([]string{"BRIDGE-SNAPSHOT", "BRIDGE-SNAPSHOT-FIELDS", "BRIDGE-CAPS-DECLARED", "BRIDGE-ENVELOPE", "BRIDGE-REQUESTID",
		"BRIDGE-INVALID-ANSWERED", "BRIDGE-SOURCE", "BRIDGE-ORIGIN", "BRIDGE-ENVELOPE-CHECKED", "BRIDGE-APPID", "BRIDGE-FAIL-CLOSED",
		"BRIDGE-NO-LEAK", "BRIDGE-OPEN-EXTERNAL", "BRIDGE-DOWNLOAD", "BRIDGE-TOAST-TEXT", "BRIDGE-THEME-UPDATE",
		"BRIDGE-VISIBILITY", "BRIDGE-NAVIGATE"}, more...)
}

func everyRefusal() []levels.RefusalKind {
	return []levels.RefusalKind{levels.RefusesPackage, levels.NotReady, levels.NotReadyInstalled}
}

// FaultSet is the set of faults a mockhost runs with.
type FaultSet map[string]bool

// ParseFaults checks fault names, naming an unknown one.
func ParseFaults(names []string) (FaultSet, error) {
	known := map[string]bool{}
	for _, f := range Faults() {
		known[f.Name] = true
	}
	fs := FaultSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if !known[n] {
			return nil, fmt.Errorf("unknown fault %q (see `conformance mockhost --list-faults`)", n)
		}
		fs[n] = true
	}
	return fs, nil
}

// Has reports whether fault name is switched on.
func (fs FaultSet) Has(name string) bool { return fs[name] }

// Names lists the faults switched on, sorted.
func (fs FaultSet) Names() []string {
	var out []string
	for n := range fs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
