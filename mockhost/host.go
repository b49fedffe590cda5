// Package mockhost is the reference host: it speaks the host control protocol
// v1 (docs/host-control-protocol.md) over Content-Length framed JSON-RPC 2.0
// and does what a conforming Desktop P0 host does with a package (verify,
// project, install, uninstall, readiness) without ever executing package
// code. Each fault of faults.go switches on one realistic bug, implemented
// at one place marked `// fault: <name>`.
package mockhost

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Identity of the reference host (conformance/hello).
const (
	Name    = "agentapp-mockhost"
	Version = "0.1.0"
	Kind    = "reference"
)

// ClaimedLevels are the levels the reference host claims in hello.
func ClaimedLevels() []string {
	return []string{"catalog", "installable", "capability", "runtime", "product", "executable", "desktop-p0", "desktop-p1", "desktop-p2", "desktop-p3", "desktop-p4", "desktop-p5", "desktop-p6"}
}

// DefaultProfile returns the reference capability profile: every capability
// of the Capability SDK at 0.10.0, enabled.
func DefaultProfile() map[string]protocol.Capability { return agentpkg.FullProfile() }

// Host is one reference host: installed apps, retained data and
// configuration in memory, app data folders in a temp dir it owns.
type Host struct {
	faults FaultSet
	// variants are the readings the texts allow that the host takes
	// instead of its default ones (variants.go).
	variants VariantSet
	// otel sends the host's runtime spans to the collector it is given
	// (telemetry.go).
	otel otelExporter

	mu     sync.Mutex
	closed bool
	cfg    *protocol.ConfigureParams
	clock  time.Time // zero: the wall clock
	apps   map[string]*installedApp
	// overlays are the apps' tenant, user and workspace overlays, by appId
	// (overlays.go); overlaySeq orders the times they were set.
	overlays   map[string]map[overlaySlot]overlaySet
	overlaySeq int
	retained   map[string]string // appId -> data folder kept by uninstall
	// keptReleases are the release histories uninstalls keeping data kept
	// for a reinstall (only under the fault reinstall-keeps-release-history).
	keptReleases map[string]*installedApp
	// jitGiven is the last just-in-time token each app was handed
	// (cloudsession.go): only faults read it back.
	jitGiven map[string]string
	// cleanups are the cleanup records of the uninstalls since the last reset.
	cleanups []protocol.CleanupRecord
	// paths remembers the package each app id was installed from since the
	// last reset (used only by the readiness-after-uninstall fault).
	paths map[string]string
	// copies lists, per app id, the folders holding its installed copies
	// (its release and the one app/update replaced or a rollback left),
	// removed at uninstall, host/reset and Close.
	copies map[string][]string
	// revocations caches revocation answers by checkUrl and packageHash.
	revocations map[string]revocationEntry
	// bootstraps keeps the last bootstrap of each registry (read only by
	// the bootstrap-cached-across-tenants fault).
	bootstraps map[string][]registryRelease
	tmpDir     string
	// coreDB is the host's own database (coredb.go), opened on first use.
	coreDB *sql.DB
	// refusedMigrations are the migrations refused since the last reset,
	// by app id and file name, with why.
	refusedMigrations map[string]map[string]string
	seq               int
	sessions          map[*session]struct{}
	// projected keeps projections by package path (used only by the
	// projection-cache-by-path fault).
	projected sync.Map
	// centerSeen keeps the readiness the app center judged, by app id and
	// entry key (used only by the center-readiness-kept fault).
	centerSeen sync.Map
	// inputSchemas keeps compiled workflow inputs by workflow key (used
	// only by the workflow-inputs-cached-by-key fault).
	inputSchemas sync.Map

	// surf is the app surface: the host page, the app frame server, the
	// bridge's logs and app storage (surface.go).
	surf *surfaces
	// runtime is the host's own browser in DevTools mode (runtime.go);
	// nil when app/launch answers with a URL.
	runtime *browserRuntime
	// webview is the host's own window in web-view mode (webview.go); nil
	// otherwise.
	webview *webView
	// agent is the host's App Server client (agent.go).
	agent *agentClient
	// backends supervises the apps' client-local backend services (backends.go).
	backends *backends
	// bindings are the secrets bound to each app's slots (secrets.go), by
	// app id and slot key; under mu.
	bindings map[string]map[string]string
	// knowledge are the knowledge packs the user bound to each app's
	// knowledgeTemplates (userstate.go), by app id and template; under mu.
	knowledge map[string]map[string]string
	// workflows is the workflow runtime's runs (workflows.go).
	workflows *workflowRuns
	// frameFacts is what a faulty host kept of the task facts the app's
	// frame posted (app_facts.go).
	frameFacts frameFacts
	// healthFailed are the startup health checks seen failing, by app name
	// (read only by the health-failure-sticks fault); under mu.
	healthFailed map[string][]string

	// schemas check params; nil if they failed to compile (then params
	// are decoded strictly instead).
	schemas *protocol.Schemas

	// logw receives protocol errors; exit ends the process under
	// crash-mid-uninstall (nil in-process).
	logw io.Writer
	exit func(int)
}

// installedApp is one row of app/list with what the host keeps about it.
type installedApp struct {
	row  protocol.InstalledApp
	path string // the host's own copy of the package (installed.go)
	// source is the folder the package was installed from (read only by
	// the readiness-after-uninstall fault).
	source string
	// files are the digests of the copy's files taken at install.
	files   map[string]fileDigest
	dataDir string // the app's data namespace, created at install
	// carried is true when the namespace holds data from before this
	// install (kept by an uninstall with keepData).
	carried bool
	// displayNames are the manifest's displayNameI18n overrides by locale.
	displayNames map[string]string
	// previous is the release app/update replaced: app/rollback's target
	// unless the release names another (rollbackTarget).
	previous *installedApp
	// rollbackTarget is the version of the known safe previous release
	// its release object names (spec 003, Release object); "" for none.
	rollbackTarget string
	// leftPath is the package of the release a rollback left (read only by
	// the rollback-keeps-new-entries fault).
	leftPath string
	// overlays are the app's overlays as they were when an update replaced
	// this release (kept only by the rollback-restores-old-overlays fault).
	overlays map[overlaySlot]overlaySet
}

// hasData reports whether the app has data of its own. The reference host
// never runs apps, so the only data an app can have is data an earlier
// installation left behind: a fresh install has none.
func (a *installedApp) hasData() bool { return a.carried && dirExists(a.dataDir) }

// Options configure a reference host beyond its faults.
type Options struct {
	Faults FaultSet
	// Variants switch on readings the texts allow that mockhost does not
	// take by default (variants.go).
	Variants VariantSet
	// DevTools makes the host a browser runtime, as an Electron host is:
	// app/launch and app/center open their page in a Chromium the host
	// starts itself and answer with its DevTools endpoint and the page's
	// target instead of a URL.
	DevTools bool
	// Browser is the Chromium binary DevTools mode starts ("" looks up
	// chromium in PATH).
	Browser string
	// WebView makes the host one whose web view a WebDriver session
	// starts, as tauri-driver starts a Tauri app: StartWebView runs this
	// browser binary (WebKitGTK's MiniBrowser for automation) with
	// WebViewArgs, app/launch and app/center show their page in its one
	// window and answer with that window (webview.go).
	WebView     string
	WebViewArgs []string
}

// New returns a fresh reference host running with the given faults.
func New(faults FaultSet) *Host { return NewWithOptions(Options{Faults: faults}) }

// NewWithOptions returns a fresh reference host configured by o.
func NewWithOptions(o Options) *Host {
	fs := FaultSet{}
	maps.Copy(fs, o.Faults)
	vs := VariantSet{}
	maps.Copy(vs, o.Variants)
	var rt *browserRuntime
	// fault: forge-probe-devtools — forge-probe in a browser of the host's own: app/launch answers with the DevTools endpoint of a Chromium the host started, where it serves the forger.
	if o.DevTools || fs.Has("forge-probe-devtools") {
		rt = newBrowserRuntime(o.Browser)
	}
	schemas, err := protocol.LoadSchemas()
	if err != nil {
		schemas = nil
	}
	h := &Host{
		schemas:           schemas,
		faults:            fs,
		variants:          vs,
		apps:              map[string]*installedApp{},
		retained:          map[string]string{},
		jitGiven:          map[string]string{},
		overlays:          map[string]map[overlaySlot]overlaySet{},
		paths:             map[string]string{},
		copies:            map[string][]string{},
		revocations:       map[string]revocationEntry{},
		bootstraps:        map[string][]registryRelease{},
		refusedMigrations: map[string]map[string]string{},
		sessions:          map[*session]struct{}{},
		surf:              newSurfaces(),
		runtime:           rt,
		webview:           newWebView(o),
		backends:          newBackends(),
		workflows:         newWorkflowRuns(),
		bindings:          map[string]map[string]string{},
		knowledge:         map[string]map[string]string{},
		logw:              io.Discard,
	}
	h.agent = newAgentClient(h)
	return h
}

// Close ends every connection, stops the app surface servers and removes
// the host's temp dir.
func (h *Host) Close() error {
	if h.runtime != nil {
		h.runtime.close()
	}
	h.workflows.forget()
	h.agent.close()
	h.backends.stopAllAndForget()
	surfErr := h.surf.close()
	h.mu.Lock()
	h.closed = true
	sessions := make([]*session, 0, len(h.sessions))
	for s := range h.sessions {
		sessions = append(sessions, s)
	}
	coreErr := h.closeCoreLocked()
	dir := h.tmpDir
	h.tmpDir = ""
	h.apps = map[string]*installedApp{}
	h.retained = map[string]string{}
	h.copies = map[string][]string{} // under dir, removed with it
	h.mu.Unlock()
	for _, s := range sessions {
		_ = s.stream.Close()
	}
	surfErr = errors.Join(surfErr, coreErr)
	if dir == "" {
		return surfErr
	}
	if err := os.RemoveAll(dir); err != nil {
		return errors.Join(surfErr, fmt.Errorf("removing mockhost temp dir %s: %w", dir, err))
	}
	return surfErr
}

func (h *Host) addSession(s *session) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.sessions[s] = struct{}{}
	return true
}

func (h *Host) removeSession(s *session) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sessions, s)
}

// profile returns the effective capability profile: the reference profile
// with host/configure's capabilities laid over it.
func (h *Host) profile() map[string]protocol.Capability {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := DefaultProfile()
	if h.cfg != nil {
		for name, c := range h.cfg.Capabilities {
			// fault: empty-version-keeps-hello — a configured capability with version "" keeps the version the hello gave it, and meets ranges.
			if c.Version == "" && h.faults.Has("empty-version-keeps-hello") {
				c.Version = p[name].Version
			}
			p[name] = c
		}
	}
	off := []string{}
	if h.noAgentRuntime() {
		off = append(off, "lime.agent")
	}
	if h.desktopP0Only() {
		off = append(off, "lime.appUpdates")
	}
	for _, name := range off {
		c := p[name]
		c.Enabled = false
		p[name] = c
	}
	return p
}

// noAgentRuntime reports whether the host has no agent runtime: lime.agent
// is off in its profile and an App Server it is asked to use is answered
// -32006.
func (h *Host) noAgentRuntime() bool {
	// variant: desktop-p2-without-agent — a Desktop P2 host with no agent runtime: lime.agent off in its profile, -32006 to an App Server.
	// fault: no-app-server-client — the host claims every level but ships no App Server client: lime.agent off in its profile, -32006 to an App Server.
	return h.desktopP0Only() || h.variants.Has("desktop-p2-without-agent") || h.faults.Has("no-app-server-client")
}

// desktopP0Only reports whether the host is a Desktop P0 host, with no
// agent runtime and no registry client (spec 002, Desktop levels): it
// claims catalog and desktop-p0, has lime.agent and lime.appUpdates
// turned off, and answers -32006 to an App Server or a registry it is
// asked to use.
func (h *Host) desktopP0Only() bool {
	// variant: no-agent-runtime-no-registry — no agent runtime and no registry client: -32006 to what needs them.
	return h.variants.Has("no-agent-runtime-no-registry")
}

// config returns a copy of the configuration (zero value when none).
func (h *Host) config() (protocol.ConfigureParams, time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cfg == nil {
		return protocol.ConfigureParams{}, h.clock
	}
	return *h.cfg, h.clock
}

// newDataDir creates the data folder of a newly installed app, holding one
// small file so the app has data to keep or delete.
func (h *Host) newDataDir(appID string) (string, error) {
	dir, err := h.newOwnDir("app", appID)
	if err != nil {
		return "", err
	}
	note := fmt.Sprintf("{\"appId\":%q,\"createdBy\":%q}\n", appID, Name)
	if err := os.WriteFile(dir+"/state.json", []byte(note), 0o600); err != nil {
		return "", fmt.Errorf("writing the data of %s: %w", appID, err)
	}
	return dir, nil
}

// newPackageDir creates a folder for a package the host downloaded.
func (h *Host) newPackageDir(appID string) (string, error) {
	return h.newOwnDir("package", appID)
}

// dataRoot is the host's own data folder (its temp dir), created on first
// use: what conformance/hello names in dataPaths.
func (h *Host) dataRoot() (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.dataRootLocked()
}

func (h *Host) dataRootLocked() (string, error) {
	if h.closed {
		return "", errors.New("host is closed")
	}
	if h.tmpDir == "" {
		d, err := os.MkdirTemp("", "agentapp-mockhost-")
		if err != nil {
			return "", fmt.Errorf("creating the host's data folder: %w", err)
		}
		h.tmpDir = d
	}
	return h.tmpDir, nil
}

// newOwnDir creates a fresh folder of kind for appID under the host's
// own temp dir, creating that first.
func (h *Host) newOwnDir(kind, appID string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	root, err := h.dataRootLocked()
	if err != nil {
		return "", err
	}
	h.seq++
	dir, err := os.MkdirTemp(root, fmt.Sprintf("%s-%d-", kind, h.seq))
	if err != nil {
		return "", fmt.Errorf("creating the %s folder of %s: %w", kind, appID, err)
	}
	return dir, nil
}

// dirExists reports whether a data folder exists.
func dirExists(dir string) bool {
	if dir == "" {
		return false
	}
	_, err := os.Stat(dir)
	return err == nil
}
