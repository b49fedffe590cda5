// Package protocol holds the typed messages of the host control protocol v1
// (docs/host-control-protocol.md): the JSON-RPC 2.0 contract through which
// the harness drives any host under test. The JSON Schemas that every answer
// is checked against live beside these types in schemas/.
package protocol

import "encoding/json"

// Version is the protocol version this harness speaks.
const Version = "1"

// Method names of protocol v1.
const (
	MethodHello        = "conformance/hello"
	MethodReset        = "host/reset"
	MethodConfigure    = "host/configure"
	MethodVerify       = "package/verify"
	MethodProject      = "package/project"
	MethodInstall      = "app/install"
	MethodUninstall    = "app/uninstall"
	MethodDisable      = "app/disable"
	MethodEnable       = "app/enable"
	MethodUpdate       = "app/update"
	MethodRollback     = "app/rollback"
	MethodReadiness    = "app/readiness"
	MethodList         = "app/list"
	MethodRegistryList = "registry/list"
	MethodReview       = "app/review"
	MethodShutdownHint = "host/shutdown"
)

// ReservedMethods lists the names of later methods; a v1 host answers them
// with CodeMethodNotFound until it implements them.
func ReservedMethods() []string {
	return []string{
		"app/observe", "host/snapshot", "bridge/open", "bridge/close",
	}
}

// Error codes. The JSON-RPC 2.0 codes keep their meaning; the -320xx range
// carries the protocol's own stable outcomes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	CodePackageInvalid     = -32001 // the package cannot be read or its manifest is invalid
	CodeVerificationFailed = -32002 // a hash, signature or compatibility check failed
	CodeConsentRequired    = -32003 // install without user, tenant or workspace consent
	CodeAppNotFound        = -32004 // no installed app with that id
	CodeNotConfigured      = -32005 // a method needed host/configure first
	CodeUnsupported        = -32006 // the host does not implement this optional feature
	CodePolicyDenied       = -32007 // tenant or workspace policy does not allow it
	CodeRegistryFailed     = -32008 // the configured registry could not be reached or gave no usable answer
)

// ErrorData is the `data` member of a protocol error: findings that name the
// file and field at fault.
type ErrorData struct {
	Findings []Finding `json:"findings,omitempty"`
	// Readiness is the readiness answer behind a CodeNotReady refusal.
	Readiness *ReadinessResult `json:"readiness,omitempty"`
}

// HostKinds lists the kinds a hello may report.
func HostKinds() []string { return []string{"electron", "tauri", "runtime-backed", "web", "reference"} }

// HelloParams opens a session.
type HelloParams struct {
	HarnessName     string `json:"harnessName"`
	HarnessVersion  string `json:"harnessVersion"`
	ProtocolVersion string `json:"protocolVersion"`
}

// HostIdentity names the host under test.
type HostIdentity struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// Capability is one entry of a capability profile.
type Capability struct {
	Version string `json:"version"`
	Enabled bool   `json:"enabled"`
}

// HelloResult is the host's self-description.
type HelloResult struct {
	Host            HostIdentity          `json:"host"`
	ProtocolVersion string                `json:"protocolVersion"`
	Capabilities    map[string]Capability `json:"capabilities"`
	Levels          []string              `json:"levels"`
	Methods         []string              `json:"methods,omitempty"`
	// DataPaths are the absolute paths of the folders where the host keeps
	// its own data and its apps' (spec 002 P2: the app must not see
	// "filesystem internals"): the harness looks for them wherever an app
	// can look.
	DataPaths []string `json:"dataPaths,omitempty"`
}

// OK is the answer of methods that only acknowledge.
type OK struct {
	OK bool `json:"ok"`
}

// ConfigureParams sets the host's profile for the specs that follow. Secrets
// and session tokens are canaries: the harness plants random values and looks
// for them wherever the app or the projection could see them.
type ConfigureParams struct {
	Profile       string            `json:"profile,omitempty"`
	TenantID      string            `json:"tenantId"`
	WorkspaceID   string            `json:"workspaceId"`
	UserID        string            `json:"userId"`
	Secrets       map[string]string `json:"secrets,omitempty"`
	SessionTokens map[string]string `json:"sessionTokens,omitempty"`
	Policy        *Policy           `json:"policy,omitempty"`
	// Grants lists, per app name, the permission keys the user or admin
	// granted. Absent: the host's own grants (not judged); present: an
	// app not named has none.
	Grants map[string][]string `json:"grants,omitempty"`
	// Available lists, per kind (tools, skills, evals), the keys the host
	// has. A kind absent: the host's own (not judged); present: only those.
	Available    map[string][]string   `json:"available,omitempty"`
	Capabilities map[string]Capability `json:"capabilities,omitempty"`
	RegistryURL  string                `json:"registryUrl,omitempty"`
	// Sigstore is whom the host trusts to sign packages; absent, a package
	// signed with sigstore cannot be verified.
	Sigstore *SigstoreTrust `json:"sigstore,omitempty"`
	// AppServer is how the host reaches the App Server the harness plays;
	// absent, the host has none (and must fail closed where it needs one).
	AppServer *AppServerConfig `json:"appServer,omitempty"`
	// Locale is the host's active locale (BCP 47, e.g. "zh-CN"); catalog
	// rows show an app's displayNameI18n override for it. Empty: the
	// host's own.
	Locale string `json:"locale,omitempty"`
	// Timezone is the host's IANA time zone, carried in host snapshots.
	Timezone string `json:"timezone,omitempty"`
	// Clock is an RFC 3339 instant the host must treat as "now" for lifecycle
	// dates (deprecatedAt, endOfLifeAt). Empty means the wall clock.
	Clock string `json:"clock,omitempty"`
	// ModelSettings, Branding and Billing are what Lime Cloud (played by
	// the harness) tells the host about the tenant's model settings, OEM
	// branding and billing (spec 002, Desktop P3). Absent: the host's own.
	ModelSettings *ModelSettings `json:"modelSettings,omitempty"`
	Branding      *Branding      `json:"branding,omitempty"`
	Billing       *Billing       `json:"billing,omitempty"`
	// Timeouts say how long the host may wait on a peer the harness plays
	// before it gives up on it. A host may honour them; either way it is
	// judged on what it does once it gives up (docs/host-control-protocol.md,
	// "Peer timeouts"). Absent: the host's own.
	Timeouts *PeerTimeouts `json:"timeouts,omitempty"`
	// SystemRuntime is the lime-runtime installed on the system, which a
	// runtime-backed host runs releases on (spec 003, Distribution flow).
	// Absent: the host's own (not judged).
	SystemRuntime *SystemRuntime `json:"systemRuntime,omitempty"`
	// Health is what the host-observable signals of the apps' health
	// checks (evals/health.yaml) read (spec 000, Health checks). Absent:
	// the host's own signals (not judged).
	Health *HealthSignals `json:"health,omitempty"`
	// Telemetry is the OpenTelemetry collector the harness plays (spec
	// 000, Tool discovery and observability). Absent: the host's own
	// telemetry, not judged.
	Telemetry *Telemetry `json:"telemetry,omitempty"`
}

// Telemetry is where the host exports its runtime spans, and whether the
// user opted in to exporting content.
type Telemetry struct {
	// Endpoint is an OTLP/HTTP base URL: traces go to Endpoint +
	// "/v1/traces" (as OTEL_EXPORTER_OTLP_ENDPOINT is read).
	Endpoint string `json:"endpoint"`
	// ExportContent is the user's explicit opt-in to exporting prompt
	// text, user content and artifact bodies; false is the default.
	ExportContent bool `json:"exportContent"`
}

// HealthSignals name the health checks whose signals read as failing;
// every other check passes. Failing is never null when sent.
type HealthSignals struct {
	Failing []string `json:"failing"`
}

// SystemRuntime is the system lime-runtime a runtime-backed host finds.
type SystemRuntime struct {
	Version string `json:"version"`
}

// PeerTimeouts are the waits a host may take from host/configure, in
// milliseconds; zero means the host's own. The harness sets them low so a
// spec that watches a host wait out a silent peer (an App Server that
// hangs, a revocation service or registry that never answers, an app's
// backend that says nothing) sees the host give up within seconds,
// without a shorter watch of its own.
type PeerTimeouts struct {
	AppServerMs  int `json:"appServerMs,omitempty"`
	RegistryMs   int `json:"registryMs,omitempty"`
	RevocationMs int `json:"revocationMs,omitempty"`
	// BackendMs bounds one answer of an app's client-local backend
	// (app/backend): past it the host answers -32603.
	BackendMs int `json:"backendMs,omitempty"`
}

// ModelSettings are the host's global model settings. ProviderKey and
// Routing are canaries: the host holds them and never lets an app see them
// (spec 001, Shared projection: "Provider API keys or host-private routing
// tables" are forbidden).
type ModelSettings struct {
	Profile     string           `json:"profile"`
	Limits      map[string]int64 `json:"limits,omitempty"`
	ProviderKey string           `json:"providerKey,omitempty"`
	Routing     string           `json:"routing,omitempty"`
}

// Branding is the OEM brand the host projects to apps (spec 002, Shared
// platform capabilities: "The host projects branding, theme, and shell
// copy").
type Branding struct {
	Name      string            `json:"name"`
	ShellCopy string            `json:"shellCopy,omitempty"`
	Tokens    map[string]string `json:"tokens,omitempty"`
}

// Billing is the tenant's billing state. Ledger and PaymentCredential are
// canaries the host holds and never lets an app see (spec 001, Shared
// projection: "Raw billing ledger or payment credentials").
type Billing struct {
	Plan string `json:"plan"`
	// Quota is "ok" or "exhausted"; exhausted blocks what needs billing.
	Quota             string `json:"quota"`
	BlockedReason     string `json:"blockedReason,omitempty"`
	Ledger            string `json:"ledger,omitempty"`
	PaymentCredential string `json:"paymentCredential,omitempty"`
}

// Billing quota states.
const (
	QuotaOK        = "ok"
	QuotaExhausted = "exhausted"
)

// App Server transports.
const (
	AppServerSocket = "socket" // a loopback socket at Address
	AppServerStdio  = "stdio"  // a sidecar the host spawns with Command, JSON lines on its stdio
)

// AppServerConfig says how the host reaches the App Server (spec 001: the
// App Server client is owned by the host, which performs the JSON-RPC
// initialization and every session, turn and action request).
type AppServerConfig struct {
	Transport string   `json:"transport"`
	Address   string   `json:"address,omitempty"`
	Command   []string `json:"command,omitempty"`
}

// SigstoreTrust is the Sigstore trust the host verifies package signatures
// against (spec 000, Package signing and revocation, step 2; the harness's
// reading, docs/decisions.md "Sigstore signatures").
type SigstoreTrust struct {
	// TrustedRoot is a Sigstore TrustedRoot document (Fulcio CAs, Rekor
	// logs, timestamp authorities).
	TrustedRoot json.RawMessage `json:"trustedRoot"`
	// Issuer is the OIDC issuer a signing certificate must carry.
	Issuer string `json:"issuer"`
}

// Policy is the tenant policy the host applies (spec 003, Distribution
// flow: install only after consent and policy pass; spec 000, Readiness:
// policy allows the requested entry).
type Policy struct {
	// DeniedApps are app names the policy does not allow.
	DeniedApps []string `json:"deniedApps,omitempty"`
	// DeniedEntries lists, per app name, entry keys the policy does not allow.
	DeniedEntries map[string][]string `json:"deniedEntries,omitempty"`
	// DeniedCapabilities are capabilities the policy does not allow any
	// app to call through the bridge (spec 001, UI runtime: calls "must
	// still pass readiness, permission, policy, allowlists").
	DeniedCapabilities []string `json:"deniedCapabilities,omitempty"`
	// ApprovalRequired are capabilities a call to which needs the user's
	// approval first; a harness run has no user to approve, so the host
	// answers host:error.
	ApprovalRequired []string `json:"approvalRequired,omitempty"`
	// DeniedTools are tools the policy does not allow an agent task to
	// use: a runtime approval for one is denied whatever the app decides
	// (spec 000, Runtime approval: "Deny wins over allow").
	DeniedTools []string `json:"deniedTools,omitempty"`
}

// Release carries the expected identity of a package the way a registry's
// release object does (spec 003, Release object).
type Release struct {
	AppID           string `json:"appId,omitempty"`
	Version         string `json:"version,omitempty"`
	ManifestVersion string `json:"manifestVersion,omitempty"`
	PackageHash     string `json:"packageHash,omitempty"`
	ManifestHash    string `json:"manifestHash,omitempty"`
	SignatureRef    string `json:"signatureRef,omitempty"`
	// SignatureBundle is the Sigstore bundle signing the package hash, for a
	// package whose app.signature.yaml says signedBy: sigstore.
	SignatureBundle json.RawMessage `json:"signatureBundle,omitempty"`
	// Publisher is who the registry says published the release; absent
	// when the harness plays no registry for the spec.
	Publisher *Publisher `json:"publisher,omitempty"`
	// RollbackTarget is the version of the app's known safe previous
	// release (spec 003, Release object: "rollbackTarget").
	RollbackTarget string `json:"rollbackTarget,omitempty"`
}

// Publisher is the publisher the registry vouches for in a release object
// (spec 000, Publisher: publisherId "issued by the registry", verified
// "written by the registry after verification", verifiedDomain).
type Publisher struct {
	PublisherID    string `json:"publisherId"`
	Name           string `json:"name,omitempty"`
	Verified       bool   `json:"verified"`
	VerifiedDomain string `json:"verifiedDomain,omitempty"`
}

// Source names a release in the configured registry for app/install: one
// version, or a channel the tenant enabled (spec 003, Channels and pins).
type Source struct {
	AppID   string `json:"appId"`
	Version string `json:"version,omitempty"`
	Channel string `json:"channel,omitempty"`
}

// ListedRelease is one row of registry/list: a release the host offers to
// install (spec 002, Discovery: "Installable app list").
type ListedRelease struct {
	AppID       string `json:"appId"`
	Version     string `json:"version"`
	PackageHash string `json:"packageHash"`
	Channel     string `json:"channel,omitempty"`
}

// RegistryListResult answers registry/list.
type RegistryListResult struct {
	Releases []ListedRelease `json:"releases"`
}

// PackageParams names a package folder on the host's file system and the
// release it is expected to be.
type PackageParams struct {
	Path    string   `json:"path"`
	Release *Release `json:"release,omitempty"`
}

// Finding is one observation of a check: what, where (file and field) and how bad.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"` // info | warning | error
	File     string `json:"file,omitempty"`
	Field    string `json:"field,omitempty"`
	Message  string `json:"message"`
}

// VerifyResult is the verdict of package/verify.
type VerifyResult struct {
	OK           bool      `json:"ok"`
	AppName      string    `json:"appName,omitempty"`
	AppVersion   string    `json:"appVersion,omitempty"`
	PackageHash  string    `json:"packageHash,omitempty"`
	ManifestHash string    `json:"manifestHash,omitempty"`
	Findings     []Finding `json:"findings"`
}

// ProjectResult carries the projection (the standard's app-projection shape).
type ProjectResult struct {
	OK         bool            `json:"ok"`
	Projection json.RawMessage `json:"projection"`
	Findings   []Finding       `json:"findings,omitempty"`
}

// Consent records who agreed to an install (spec 000, Runtime contract 3).
type Consent struct {
	Granted bool   `json:"granted"`
	By      string `json:"by,omitempty"` // user | tenant | workspace
	// Migrations is true when the user also approved the package's storage
	// migrations shown in the review; otherwise they wait for app/migrate
	// (spec 001, "apply migrations only after review").
	Migrations bool `json:"migrations,omitempty"`
}

// InstallParams installs a package: a folder (path, with the release it is
// expected to be) or a release the host takes from its registry (source).
type InstallParams struct {
	Path    string   `json:"path,omitempty"`
	Source  *Source  `json:"source,omitempty"`
	Release *Release `json:"release,omitempty"`
	Consent Consent  `json:"consent"`
}

// ReviewParams asks for the install review of a package: what app/install
// with the same params would check, without consent and without installing.
type ReviewParams struct {
	Path    string   `json:"path,omitempty"`
	Source  *Source  `json:"source,omitempty"`
	Release *Release `json:"release,omitempty"`
}

// Review steps: spec 000's verification order (Package signing and
// revocation) with the manifest and compatibility checks of spec 002's
// Verification row ("Verify package hash, manifest hash, signatures, and
// version compatibility").
const (
	StepManifest      = "manifest"
	StepHashes        = "hashes"
	StepCompatibility = "compatibility"
	StepSignature     = "signature"
	StepRevocation    = "revocation"
	StepPublisher     = "publisher"
)

// ReviewSteps lists the review steps in the order a host runs them.
func ReviewSteps() []string {
	return []string{StepManifest, StepHashes, StepCompatibility, StepSignature, StepRevocation, StepPublisher}
}

// Review step statuses.
const (
	StepPassed        = "passed"
	StepFailed        = "failed"
	StepNotRun        = "not-run"        // an earlier step failed
	StepNotApplicable = "not-applicable" // nothing to check (unsigned, no checkUrl, no registry publisher)
)

// ReviewCheck is one step of an install review.
type ReviewCheck struct {
	Step    string `json:"step"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// ReviewResult answers app/review: the install review the user consents to
// (spec 002, Required desktop host behavior, Verification: "Install review
// result").
type ReviewResult struct {
	OK       bool          `json:"ok"`
	AppID    string        `json:"appId,omitempty"`
	Version  string        `json:"version,omitempty"`
	Checks   []ReviewCheck `json:"checks"`
	Findings []Finding     `json:"findings"`
}

// InstalledApp is one row of app/list.
type InstalledApp struct {
	AppID        string `json:"appId"`
	Name         string `json:"name"`
	Version      string `json:"version"`
	DisplayName  string `json:"displayName,omitempty"`
	Description  string `json:"description,omitempty"`
	PackageHash  string `json:"packageHash"`
	ManifestHash string `json:"manifestHash"`
	State        string `json:"state"` // installed | disabled
	HasData      bool   `json:"hasData"`
	// Registered lists, per host catalog, the keys of the app's projected
	// objects registered in it (agentpkg.RegisteredCatalogs).
	Registered map[string][]string `json:"registered,omitempty"`
	// InstalledPath is the folder the host keeps the installed package in,
	// when it keeps it as a folder: a conformance hook, so the harness can
	// change the installed files and see readiness notice
	// (docs/host-control-protocol.md, app/list).
	InstalledPath string `json:"installedPath,omitempty"`
}

// InstallResult answers app/install.
type InstallResult struct {
	OK  bool         `json:"ok"`
	App InstalledApp `json:"app"`
}

// UninstallParams removes an app, keeping or deleting its data (spec 002,
// Cleanup: "uninstall keep data, uninstall delete data, and export then
// delete"). ExportTo, with KeepData false, asks for export then delete: a
// complete export of the app's data written into that folder first.
type UninstallParams struct {
	AppID    string `json:"appId"`
	KeepData bool   `json:"keepData"`
	ExportTo string `json:"exportTo,omitempty"`
}

// UninstallResult answers app/uninstall. Exported lists the files of the
// export, each inside the folder the caller named.
type UninstallResult struct {
	OK          bool     `json:"ok"`
	AppID       string   `json:"appId"`
	DataRemoved bool     `json:"dataRemoved"`
	Exported    []string `json:"exported,omitempty"`
}

// The uninstall modes of spec 002 (Cleanup), as cleanup records name them.
const (
	ModeKeepData         = "keep-data"
	ModeDeleteData       = "delete-data"
	ModeExportThenDelete = "export-then-delete"
)

// AppIDParams names the installed app app/disable, app/enable or
// app/rollback acts on (spec 002, Cleanup: "Support disable, ..."; Desktop
// P4: "support uninstall, disable, update, and rollback").
type AppIDParams struct {
	AppID string `json:"appId"`
}

// AppStateResult answers app/disable and app/enable with the app's state
// after the call: "disabled" or "installed", as app/list shows it.
type AppStateResult struct {
	OK    bool   `json:"ok"`
	AppID string `json:"appId"`
	State string `json:"state"`
}

// UpdateParams installs a newer release of an installed app from a package
// folder, verified as app/install verifies (spec 003, What must not be
// overwritten).
type UpdateParams struct {
	AppID   string   `json:"appId"`
	Path    string   `json:"path"`
	Release *Release `json:"release,omitempty"`
	Consent Consent  `json:"consent"`
}

// UpdateResult answers app/update with the app as app/list shows it now
// and the version it replaced.
type UpdateResult struct {
	OK              bool         `json:"ok"`
	App             InstalledApp `json:"app"`
	PreviousVersion string       `json:"previousVersion"`
}

// RollbackParams names the installed app app/rollback takes back to its
// earlier release. DownMigrations asks the host to run the downgrade
// migrations the release it leaves ships (the user asked to undo its
// schema; never done unasked, spec 003 Rollback: "avoid running downgrade
// migrations automatically"). ExportTo, only with DownMigrations, asks for
// export before delete: a complete export of the app's data is written
// into that folder before the downgrade runs (spec 003 Rollback: "expose
// export before delete when data loss is possible").
type RollbackParams struct {
	AppID          string `json:"appId"`
	DownMigrations bool   `json:"downMigrations,omitempty"`
	ExportTo       string `json:"exportTo,omitempty"`
}

// RollbackResult answers app/rollback with the app as app/list shows it
// now (the release it went back to) and the version it left. Exported
// lists the files of the export asked with ExportTo.
type RollbackResult struct {
	OK             bool         `json:"ok"`
	App            InstalledApp `json:"app"`
	RolledBackFrom string       `json:"rolledBackFrom"`
	Exported       []string     `json:"exported,omitempty"`
}

// App states of app/list and of app/disable / app/enable answers.
const (
	StateInstalled = "installed"
	StateDisabled  = "disabled"
)

// RetainedData is data kept after an uninstall with keepData.
type RetainedData struct {
	AppID  string   `json:"appId"`
	Scopes []string `json:"scopes"`
}

// ListResult answers app/list.
type ListResult struct {
	Apps     []InstalledApp `json:"apps"`
	Retained []RetainedData `json:"retained"`
}

// ReadinessParams asks for readiness of an installed app (AppID) or of a
// package not installed (Path), for the whole app or one entry.
type ReadinessParams struct {
	AppID   string   `json:"appId,omitempty"`
	Path    string   `json:"path,omitempty"`
	Release *Release `json:"release,omitempty"`
	Entry   string   `json:"entry,omitempty"`
}

// ReadinessCheck is one check of a readiness answer (standard readiness schema).
type ReadinessCheck struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Key      string `json:"key"`
	Required bool   `json:"required,omitempty"`
	Tier     string `json:"tier,omitempty"`
	Blocking bool   `json:"blocking,omitempty"`
	Code     string `json:"code,omitempty"`
	Message  string `json:"message"`
}

// SetupAction is a host-actionable repair step.
type SetupAction struct {
	Key    string `json:"key"`
	Title  string `json:"title"`
	Kind   string `json:"kind,omitempty"`
	Target string `json:"target,omitempty"`
	// Description says more, such as the risk of an irreversible migration.
	Description string `json:"description,omitempty"`
}

// EntryReadiness is the readiness of one entry.
type EntryReadiness struct {
	Key      string   `json:"key"`
	Status   string   `json:"status"`
	Blockers []string `json:"blockers,omitempty"`
}

// ReadinessResult follows the standard's readiness result shape, with the
// superseding version surfaced for end-of-life apps.
type ReadinessResult struct {
	OK           bool                        `json:"ok"`
	Status       string                      `json:"status"`
	App          string                      `json:"app,omitempty"`
	Entry        string                      `json:"entry,omitempty"`
	Checks       []ReadinessCheck            `json:"checks"`
	Tiers        map[string][]ReadinessCheck `json:"tiers,omitempty"`
	Blockers     []string                    `json:"blockers,omitempty"`
	Warnings     []string                    `json:"warnings,omitempty"`
	SetupActions []SetupAction               `json:"setupActions,omitempty"`
	SupersededBy string                      `json:"supersededBy,omitempty"`
	Entries      []EntryReadiness            `json:"entries,omitempty"`
}

// Readiness statuses (spec 000 Readiness; spec 002 Readiness state rules).
const (
	StatusReady         = "ready"
	StatusReadyDegraded = "ready-degraded"
	StatusNeedsSetup    = "needs-setup"
	StatusBlocked       = "blocked"
	StatusUnknown       = "unknown"
	StatusFailed        = "failed" // pre-0.5 vocabulary for blocked
	StatusDisabled      = "disabled"
)
