package protocol

import "encoding/json"

// Methods of the app surface (docs/host-control-protocol.md, "The app
// surface"): how the harness reaches the UI a host mounts for an entry, and
// what the host recorded while the app ran there.
const (
	MethodLaunch  = "app/launch"
	MethodCenter  = "app/center"
	MethodObserve = "host/observe"
	MethodSet     = "host/set"
	// MethodInvoke has the host answer one capability:invoke as if the
	// app of a launched entry sent it from its frame: a conformance hook
	// for the specs that judge what a capability call becomes on the
	// host's far side, without a browser.
	MethodInvoke = "app/invoke"
)

// CodeNotReady answers app/launch of an entry that is not ready; data
// carries the readiness answer with its reasons (spec 002, Readiness state
// rules: "Show reasons and block launch").
const CodeNotReady = -32009

// LaunchParams asks the host to mount an entry of an installed app.
type LaunchParams struct {
	AppID    string `json:"appId"`
	EntryKey string `json:"entryKey"`
	Route    string `json:"route,omitempty"`
}

// LaunchResult says how to reach the surface that mounts the entry: a URL a
// browser opens, or, for a host that is itself a browser runtime
// (Electron), a DevTools endpoint and target, or, for a host whose web
// view a WebDriver session started (Tauri), the window showing it.
type LaunchResult struct {
	// URL of the page that mounts the entry (http or https).
	URL string `json:"url,omitempty"`
	// DevTools is set instead of (or beside) URL by a browser-runtime host.
	DevTools *DevToolsTarget `json:"devtools,omitempty"`
	// Window is set instead of URL by a host that shows the surface in a
	// window of its own web view (Where).
	Window *HostWindow `json:"window,omitempty"`
	// RuntimeOrigin is the origin the app's frame runs at: the
	// event.origin the bridge accepts (spec 001, UI runtime).
	RuntimeOrigin string `json:"runtimeOrigin"`
}

// DevToolsTarget is a page of a running browser runtime.
type DevToolsTarget struct {
	Endpoint string `json:"endpoint"`
	TargetID string `json:"targetId,omitempty"`
}

// HostWindow is a window of the host's own web view, named by the address
// of the document it shows (tauri://localhost/..., http://tauri.localhost/...):
// what a host can know of it, since WebDriver's window handles are the
// remote end's.
type HostWindow struct {
	URL string `json:"url"`
}

// CenterResult says where the app center is (spec 002, Desktop P1).
type CenterResult struct {
	URL      string          `json:"url,omitempty"`
	DevTools *DevToolsTarget `json:"devtools,omitempty"`
	Window   *HostWindow     `json:"window,omitempty"`
}

// Where is how to reach a page the host named: the members app/launch and
// app/center share.
type Where struct {
	URL      string
	DevTools *DevToolsTarget
	Window   *HostWindow
}

// Where is how to reach the surface.
func (r LaunchResult) Where() Where { return Where{r.URL, r.DevTools, r.Window} }

// Where is how to reach the app center.
func (r CenterResult) Where() Where { return Where(r) }

// ObserveParams asks what the host recorded about one app's surface.
type ObserveParams struct {
	AppID string `json:"appId"`
}

// ObserveResult is what the host recorded since the app was launched:
// every request the bridge accepted with its decision, every message it
// rejected and why, the evidence it recorded, and the cleanup records of
// its uninstalls since the last host/reset.
type ObserveResult struct {
	Calls    []BridgeCall      `json:"calls"`
	Rejected []RejectedMessage `json:"rejected"`
	Evidence []EvidenceRecord  `json:"evidence"`
	Cleanup  []CleanupRecord   `json:"cleanup,omitempty"`
	// Migrations are the app's storage migrations and their state; Storage
	// the app's storage namespaces; HostState the digest of the host's core
	// state (docs/host-control-protocol.md, "Storage migrations").
	Migrations []MigrationRecord  `json:"migrations,omitempty"`
	Storage    []StorageNamespace `json:"storage,omitempty"`
	HostState  *HostState         `json:"hostState,omitempty"`
	// Overlay is the value in effect for each name the app's overlays set,
	// with the scope it comes from (docs/host-control-protocol.md,
	// "app/overlay").
	Overlay map[string]OverlayValue `json:"overlay,omitempty"`
	// Backends are the app's client-local backend services and their state
	// (docs/host-control-protocol.md, app/backend).
	Backends []BackendState `json:"backends,omitempty"`
	// Artifacts are the artifacts the host's runtime created for the app,
	// with their provenance (spec 003, Rollback: "record which release
	// created each artifact").
	Artifacts []ArtifactRecord `json:"artifacts,omitempty"`
	// Holds is host-wide: for each credential host/configure planted that
	// the host keeps (by its member path, e.g. "modelSettings.providerKey"),
	// the SHA-256 of the value it keeps, so the harness sees the host hold
	// what a must-not forbids it to show an app without the value coming
	// back (docs/host-control-protocol.md, host/observe).
	Holds map[string]string `json:"holds,omitempty"`
}

// ArtifactRecord is one artifact the host created for an app and where it
// came from: the release, and for a workflow's artifact-create state the
// workflow, run and state.
type ArtifactRecord struct {
	ArtifactID string `json:"artifactId"`
	AppID      string `json:"appId"`
	Version    string `json:"version"`
	Type       string `json:"type,omitempty"`
	Workflow   string `json:"workflow,omitempty"`
	RunID      string `json:"runId,omitempty"`
	State      string `json:"state,omitempty"`
}

// CleanupRecord is what the host recorded of one uninstall of the app
// (spec 001, Host responsibilities: "Record ... cleanup records"): the
// release removed, the mode, and what went.
type CleanupRecord struct {
	AppID   string   `json:"appId"`
	Version string   `json:"version,omitempty"`
	Mode    string   `json:"mode"`
	Removed []string `json:"removed,omitempty"`
}

// BridgeCall is one app -> host request the bridge accepted as coming from
// the app's frame, and what the host decided.
type BridgeCall struct {
	Type       string `json:"type"`
	RequestID  string `json:"requestId,omitempty"`
	Capability string `json:"capability,omitempty"`
	Method     string `json:"method,omitempty"`
	// Decision is "allowed" (executed) or "denied".
	Decision string `json:"decision"`
	// Gate names what denied it: allowlist, readiness, policy,
	// permission (a permission the app declares that is not granted),
	// approval or validation (a malformed request or a refused URL).
	Gate string `json:"gate,omitempty"`
	// Code is the stable code of the host:error the app got.
	Code string `json:"code,omitempty"`
}

// Decisions and gates of BridgeCall.
const (
	DecisionAllowed = "allowed"
	DecisionDenied  = "denied"

	GateAllowlist  = "allowlist"
	GateReadiness  = "readiness"
	GatePolicy     = "policy"
	GatePermission = "permission"
	GateApproval   = "approval"
	GateValidation = "validation"
)

// RejectedMessage is a message the bridge did not accept as the app's:
// ignored or logged, never executed (spec 001, UI runtime).
type RejectedMessage struct {
	Type string `json:"type,omitempty"`
	// Reason is origin, source, protocol, version, appId or malformed.
	Reason string `json:"reason"`
	Origin string `json:"origin,omitempty"`
}

// Rejection reasons of RejectedMessage.
const (
	RejectOrigin    = "origin"
	RejectSource    = "source"
	RejectProtocol  = "protocol"
	RejectVersion   = "version"
	RejectAppID     = "appId"
	RejectMalformed = "malformed"
)

// EvidenceRecord is one evidence record the host kept for the app.
type EvidenceRecord struct {
	Kind       string `json:"kind"`
	Capability string `json:"capability,omitempty"`
	RequestID  string `json:"requestId,omitempty"`
	AppID      string `json:"appId,omitempty"`
	// Version is the release of the app that made the record (spec 003,
	// Rollback: "preserve evidence records", "record which release created
	// each artifact").
	Version string `json:"version,omitempty"`
	// RunID and State name the workflow run and state a workflow's
	// evidence is of.
	RunID string `json:"runId,omitempty"`
	State string `json:"state,omitempty"`
}

// SetParams changes host state as a user would; each member present is
// applied, and the bridge pushes the change to mounted apps.
type SetParams struct {
	Theme      *Theme `json:"theme,omitempty"`
	Visibility string `json:"visibility,omitempty"` // visible or hidden
	Locale     string `json:"locale,omitempty"`
}

// Theme is the host's theme as the bridge carries it: tokens only.
type Theme struct {
	Mode          string            `json:"mode"` // light, dark or system
	ColorSchemeID string            `json:"colorSchemeId,omitempty"`
	Tokens        map[string]string `json:"tokens,omitempty"`
}

// InvokeParams is one capability call made as the app of an entry.
type InvokeParams struct {
	AppID      string          `json:"appId"`
	EntryKey   string          `json:"entryKey"`
	RequestID  string          `json:"requestId"`
	Capability string          `json:"capability"`
	Method     string          `json:"method"`
	Args       json.RawMessage `json:"args,omitempty"`
}

// InvokeResult is the Host Bridge message the app's frame would have got
// for the call: host:response or host:error, carrying the requestId.
type InvokeResult struct {
	Answer json.RawMessage `json:"answer"`
}
