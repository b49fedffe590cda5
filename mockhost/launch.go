package mockhost

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// launch answers app/launch (spec 002, Launch flow: run readiness; on
// needs-setup or blocked show the reasons, on ready mount a controlled UI
// surface). The answer names the host page and the runtime origin.
func (h *Host) launch(p protocol.LaunchParams) (protocol.LaunchResult, *jsonrpc2.Error) {
	l, e := h.mount(p)
	if e != nil {
		return protocol.LaunchResult{}, e
	}
	page := l.hostOrigin + "/surface/" + l.hostToken
	if h.runtime != nil {
		dt, err := h.runtime.open("surface", page)
		if err != nil {
			return protocol.LaunchResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
		}
		return protocol.LaunchResult{DevTools: dt, RuntimeOrigin: l.frameOrigin}, nil
	}
	if h.webview != nil {
		h.webview.show(page)
		return protocol.LaunchResult{Window: &protocol.HostWindow{URL: page}, RuntimeOrigin: l.frameOrigin}, nil
	}
	return protocol.LaunchResult{URL: page, RuntimeOrigin: l.frameOrigin}, nil
}

// mount runs the launch gate of an entry and mounts its surface: what
// app/launch shows and app/invoke speaks for.
func (h *Host) mount(p protocol.LaunchParams) (*launch, *jsonrpc2.Error) {
	h.mu.Lock()
	a, ok := h.apps[p.AppID]
	var path, version, leftPath string
	if ok {
		path, version, leftPath = a.path, a.row.Version, a.leftPath
	}
	h.mu.Unlock()
	if !ok {
		return nil, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", p.AppID), nil)
	}
	pk, findings, err := h.load(path)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if pk == nil {
		return nil, rpcError(protocol.CodePackageInvalid,
			fmt.Sprintf("the package of %s cannot be read: %s", p.AppID, firstError(findings)), protocol.ErrorData{Findings: findings})
	}
	entry, ok := manifestEntry(pk.Manifest, p.EntryKey)
	stale := false // an entry of the release a rollback left (fault only)
	// fault: rollback-keeps-new-entries — the entries of the release a rollback left stay registered and launch.
	if !ok && leftPath != "" && h.faults.Has("rollback-keeps-new-entries") {
		if newer, _, err := h.load(leftPath); err == nil && newer != nil {
			if e, found := manifestEntry(newer.Manifest, p.EntryKey); found {
				pk, entry, ok, stale = newer, e, true, true
			}
		}
	}
	// variant: retired-entry-disabled — an entry the rollback left behind stays registered and is refused as disabled (-32009), not as unknown (its registration: rollback, lifecycle.go).
	if !ok && leftPath != "" && h.variants.Has("retired-entry-disabled") {
		if newer, _, err := h.load(leftPath); err == nil && newer != nil {
			if _, found := manifestEntry(newer.Manifest, p.EntryKey); found {
				r := protocol.ReadinessResult{Status: protocol.StatusDisabled, App: p.AppID, Entry: p.EntryKey,
					Checks: []protocol.ReadinessCheck{{Severity: agentpkg.SeverityError, Kind: "release", Key: p.EntryKey, Required: true, Blocking: true,
						Message: "entry " + p.EntryKey + " belongs to the release that was rolled back, and is disabled"}},
					Blockers: []string{"release:" + p.EntryKey}}
				return nil, rpcError(protocol.CodeNotReady, fmt.Sprintf("entry %q of %s is disabled since the rollback", p.EntryKey, p.AppID), protocol.ErrorData{Readiness: &r})
			}
		}
	}
	if !ok {
		return nil, invalidParams(protocol.MethodLaunch, "entryKey", fmt.Sprintf("names no entry of app %q: %q", p.AppID, p.EntryKey))
	}
	route := p.Route
	if route == "" {
		route = stringField(entry, "route")
	}
	if route == "" {
		route = "/"
	}
	if !appLocalRoute(route) {
		return nil, invalidParams(protocol.MethodLaunch, "route", fmt.Sprintf("must be an app-local path starting with one /: %q", route))
	}
	ui, e := uiFolderOf(pk)
	if e != nil {
		return nil, e
	}
	// fault: backend-starts-unready — the backends start before the readiness gate, so an app that needs setup runs its backend anyway.
	if h.faults.Has("backend-starts-unready") {
		_ = h.startBackends(p.AppID, pk)
	}
	if e := h.launchGate(p.AppID, p.EntryKey); e != nil && !stale {
		return nil, e
	}
	// The app's backends start once an entry passed its gate (spec 002,
	// Desktop P6: "Run app-owned backend services ... under host supervision").
	if e := h.startBackends(p.AppID, pk); e != nil {
		return nil, e
	}
	hostOrigin, err := h.surf.startHost(h.hostMux)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	partition := p.AppID
	// fault: frame-partition-by-namespace — the app's frame is served from an origin (browser storage partition) keyed by the storage namespace it declares, not its id: two apps declaring one namespace share it (held-out m20).
	if h.faults.Has("frame-partition-by-namespace") {
		partition = storageNamespace(pk, p.AppID)
	}
	// variant: partition-per-launch — each launch serves the app's frame from a fresh origin, so nothing kept in the browser outlives its surface.
	if h.variants.Has("partition-per-launch") {
		partition = p.AppID + "\x00" + token()
	}
	// fault: frames-share-one-origin — every app's frame is served from one origin, so the apps share the browser's storage of it.
	if h.faults.Has("frames-share-one-origin") {
		partition = ""
	}
	// fault: frame-origins-by-port-only — each app's frames get a port of their own on the host page's address: storage is apart, cookies (which ignore the port) are one jar for every app.
	frameOrigin, err := h.surf.startFrame(partition, h.faults.Has("frame-origins-by-port-only"), h.frameMux)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	// fault: frame-same-origin-as-host — the app frame is served from the host origin, so it can reach the host page's DOM.
	if h.faults.Has("frame-same-origin-as-host") {
		frameOrigin = hostOrigin
	}
	l := &launch{
		hostToken: token(), frameToken: token(),
		appID: p.AppID, version: version, entryKey: p.EntryKey, route: route, title: surfaceTitle(pk.Manifest, entry),
		hostOrigin: hostOrigin, frameOrigin: frameOrigin, ui: ui,
		declared: declaredCapabilities(pk.Manifest), origins: declaredOrigins(pk.Manifest), entries: manifestEntryKeys(pk.Manifest),
		routes: manifestEntryRoutes(pk.Manifest), permissions: declaredPermissions(pk.Manifest),
		subs: map[chan hostMessage]struct{}{}, done: make(chan struct{}),
	}
	if err := h.surf.add(l); err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	if h.faults.Has("snapshot-on-timer") || h.pushesSnapshots() {
		go h.pushSnapshots(l)
	}
	return l, nil
}

// surfaceTitle is what the host page shows: the app's and the entry's titles.
func surfaceTitle(m, entry map[string]any) string {
	app := stringField(m, "displayName")
	if app == "" {
		app = stringField(m, "name")
	}
	if t := stringField(entry, "title"); t != "" {
		return app + " · " + t
	}
	return app
}

// launchGate refuses an entry that is not ready or ready-degraded with
// CodeNotReady, its readiness answer as data (spec 002, Readiness state
// rules: needs-setup shows setupActions, blocked shows reasons and blocks
// launch).
func (h *Host) launchGate(appID, entryKey string) *jsonrpc2.Error {
	r, e := h.readiness(protocol.ReadinessParams{AppID: appID, Entry: entryKey})
	if e != nil {
		return e
	}
	// fault: launch-ignores-readiness — an entry that is not ready is mounted anyway.
	if r.OK || h.faults.Has("launch-ignores-readiness") {
		return nil
	}
	// fault: launch-checks-capabilities-only — the launch gate reads only the entry's capability checks: an entry blocked for another reason (tenant policy) mounts.
	if h.faults.Has("launch-checks-capabilities-only") && !slices.ContainsFunc(r.Blockers, func(b string) bool { return strings.HasPrefix(b, "capability:") }) {
		return nil
	}
	// fault: disable-still-launches — a disabled app's entries still mount.
	if h.faults.Has("disable-still-launches") && r.Status == protocol.StatusDisabled {
		return nil
	}
	// fault: launch-keeps-install-consent — launch trusts the consent of install time: an app the tenant policy withdrew since still mounts.
	if h.faults.Has("launch-keeps-install-consent") && onlyPolicyBlocks(r) {
		return nil
	}
	// variant: activation-asks-consent — an app the tenant policy withdrew is refused at launch as needing consent (-32003).
	if h.variants.Has("activation-asks-consent") && onlyPolicyBlocks(r) {
		return rpcError(protocol.CodeConsentRequired, fmt.Sprintf("%s needs the tenant's consent again before it can be activated: %s",
			appID, strings.Join(blockerReasons(r), "; ")), nil)
	}
	return rpcError(protocol.CodeNotReady, fmt.Sprintf("entry %q of %s is %s and cannot launch: %s",
		entryKey, appID, r.Status, strings.Join(blockerReasons(r), "; ")), protocol.ErrorData{Readiness: &r})
}

// onlyPolicyBlocks reports whether every blocker of r is a policy check.
func onlyPolicyBlocks(r protocol.ReadinessResult) bool {
	for _, b := range r.Blockers {
		if !strings.HasPrefix(b, "policy:") {
			return false
		}
	}
	return len(r.Blockers) > 0
}

// blockerReasons are the messages of a readiness answer's blocking checks.
func blockerReasons(r protocol.ReadinessResult) []string {
	var out []string
	for _, b := range r.Blockers {
		out = append(out, blockerMessage(r, b))
	}
	if len(out) == 0 {
		out = append(out, "no blocker named")
	}
	return out
}

// blockerMessage is the message of the check blocker ("kind:key") names.
func blockerMessage(r protocol.ReadinessResult, blocker string) string {
	if c, ok := blockerCheck(r, blocker); ok {
		return c.Message
	}
	return blocker
}

// blockerCheck is the check of r behind blocker, if r has one.
func blockerCheck(r protocol.ReadinessResult, blocker string) (protocol.ReadinessCheck, bool) {
	for _, c := range r.Checks {
		if ref(c) == blocker && c.Severity != agentpkg.SeverityInfo {
			return c, true
		}
	}
	return protocol.ReadinessCheck{}, false
}

// center answers app/center with the URL of a fresh app center page.
func (h *Host) center() (protocol.CenterResult, *jsonrpc2.Error) {
	hostOrigin, err := h.surf.startHost(h.hostMux)
	if err != nil {
		return protocol.CenterResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	page := hostOrigin + "/center/" + h.surf.newCenter()
	if h.runtime != nil {
		dt, err := h.runtime.open("center", page)
		if err != nil {
			return protocol.CenterResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
		}
		return protocol.CenterResult{DevTools: dt}, nil
	}
	if h.webview != nil {
		h.webview.show(page)
		return protocol.CenterResult{Window: &protocol.HostWindow{URL: page}}, nil
	}
	return protocol.CenterResult{URL: page}, nil
}

// uiFolder is an installed package's UI: the folder the frame server
// serves and the file an entry opens.
type uiFolder struct {
	pkgDir string // the package folder
	dir    string // slash path of the UI folder inside it
	entry  string // slash path of the entry file inside the UI folder
}

// uiFolderOf reads runtimePackage.ui (path default dist/ui, entry default
// index.html); a package without that file has no UI to mount: -32006.
func uiFolderOf(pk *agentpkg.Package) (uiFolder, *jsonrpc2.Error) {
	rt, _ := pk.Manifest["runtimePackage"].(map[string]any)
	ui, _ := rt["ui"].(map[string]any)
	u := uiFolder{pkgDir: pk.Dir, dir: packagePath(stringField(ui, "path"), "dist/ui"), entry: packagePath(stringField(ui, "entry"), "index.html")}
	name, _ := pk.Manifest["name"].(string)
	if u.dir == "" || u.entry == "" {
		return uiFolder{}, rpcError(protocol.CodeUnsupported, fmt.Sprintf("app %s: runtimePackage.ui names a path outside the package", name), nil)
	}
	f, err := u.open(u.entry)
	if err != nil {
		return uiFolder{}, rpcError(protocol.CodeUnsupported, fmt.Sprintf(
			"app %s has no UI this host can mount: runtimePackage.ui (%s/%s) is not a file of the package", name, u.dir, u.entry), nil)
	}
	_ = f.Close()
	return u, nil
}

// packagePath cleans a manifest path (./dist/ui) to a slash path inside the
// package; "" when it would leave it, def when empty.
func packagePath(p, def string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		p = def
	}
	p = path.Clean(strings.TrimPrefix(p, "./"))
	if strings.ContainsAny(p, "\\\x00") || !fs.ValidPath(p) || p == "." {
		return ""
	}
	return p
}

// open opens a regular file of the UI folder by its slash path (the
// entry file when rel is empty). Nothing outside the folder is reachable:
// no "..", no absolute paths, no symlink leading out (os.Root).
func (u uiFolder) open(rel string) (*os.File, error) {
	if rel == "" {
		rel = u.entry
	}
	if strings.ContainsAny(rel, "\\\x00") || !fs.ValidPath(rel) {
		return nil, fs.ErrNotExist
	}
	pkgRoot, err := os.OpenRoot(u.pkgDir)
	if err != nil {
		return nil, fmt.Errorf("opening package %s: %w", u.pkgDir, err)
	}
	defer pkgRoot.Close()
	root, err := pkgRoot.OpenRoot(filepath.FromSlash(u.dir))
	if err != nil {
		return nil, fmt.Errorf("opening the UI folder %s: %w", u.dir, err)
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, fs.ErrNotExist
	}
	return f, nil
}

// manifestEntry finds an entry by key.
func manifestEntry(m map[string]any, key string) (map[string]any, bool) {
	list, _ := m["entries"].([]any)
	for _, item := range list {
		if e, ok := item.(map[string]any); ok && key != "" && e["key"] == key {
			return e, true
		}
	}
	return nil, false
}

// manifestEntryKeys lists the keys of a manifest's entries.
func manifestEntryKeys(m map[string]any) []string {
	var out []string
	list, _ := m["entries"].([]any)
	for _, item := range list {
		e, _ := item.(map[string]any)
		if k, ok := e["key"].(string); ok && k != "" {
			out = append(out, k)
		}
	}
	return out
}

// manifestEntryRoutes maps each entry key of the manifest to its route
// ("/" when it names none).
func manifestEntryRoutes(m map[string]any) map[string]string {
	out := map[string]string{}
	list, _ := m["entries"].([]any)
	for _, item := range list {
		e, _ := item.(map[string]any)
		if k, ok := e["key"].(string); ok && k != "" {
			out[k] = firstNonEmptyString(stringField(e, "route"), "/")
		}
	}
	return out
}

// appLocalRoute reports whether route is a path of the app itself: one
// leading slash, not "//" or "/\" (which a browser reads as another host).
func appLocalRoute(route string) bool {
	return strings.HasPrefix(route, "/") && !strings.HasPrefix(route, "//") &&
		!strings.ContainsAny(route, "\\\x00\r\n\t")
}

// declaredCapabilities are the capabilities a manifest declares: the keys
// of requires.capabilities and every entry's requiredCapabilities, sorted.
func declaredCapabilities(m map[string]any) []string {
	var out []string
	for _, r := range agentpkg.RequiredCapabilities(m) {
		out = append(out, r.Name)
	}
	list, _ := m["entries"].([]any)
	for _, item := range list {
		e, _ := item.(map[string]any)
		names, _ := e["requiredCapabilities"].([]any)
		for _, n := range names {
			if s, ok := n.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// declaredOrigins are the origins of the URLs a manifest names for users
// to visit: homepage, documentation, support.url, repository.url, issues.
func declaredOrigins(m map[string]any) []string {
	urls := []string{stringField(m, "homepage"), stringField(m, "documentation"), stringField(m, "issues")}
	for _, k := range []string{"support", "repository"} {
		if sub, ok := m[k].(map[string]any); ok {
			urls = append(urls, stringField(sub, "url"))
		}
	}
	var out []string
	for _, s := range urls {
		if o, ok := webOrigin(s); ok {
			out = append(out, o)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// webOrigin is the origin of an absolute http(s) URL without user info.
func webOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" || strings.Contains(host, ":") {
		host = net.JoinHostPort(host, port)
		host = strings.TrimSuffix(host, ":")
	}
	return u.Scheme + "://" + host, true
}

// invokeAsApp answers app/invoke: the entry is mounted as app/launch
// mounts it (its launch gate included), and the call goes through the
// same bridge a message from the app's frame goes through; the answer is
// what the frame would have been posted.
func (h *Host) invokeAsApp(p protocol.InvokeParams) (protocol.InvokeResult, *jsonrpc2.Error) {
	l, e := h.mount(protocol.LaunchParams{AppID: p.AppID, EntryKey: p.EntryKey})
	if e != nil {
		return protocol.InvokeResult{}, e
	}
	body, err := json.Marshal(map[string]any{
		"protocol": hostbridge.Protocol, "version": 1, "type": hostbridge.TypeInvoke,
		"requestId": p.RequestID, "appId": p.AppID, "entryKey": p.EntryKey,
		"payload": map[string]any{"capability": p.Capability, "method": p.Method, "args": p.Args},
	})
	if err != nil {
		return protocol.InvokeResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	for _, m := range h.bridge(l, body).Post {
		if m.RequestID == p.RequestID && (m.Type == hostbridge.TypeResponse || m.Type == hostbridge.TypeError) {
			raw, err := json.Marshal(m)
			if err != nil {
				return protocol.InvokeResult{}, rpcError(protocol.CodeInternalError, err.Error(), nil)
			}
			return protocol.InvokeResult{Answer: raw}, nil
		}
	}
	return protocol.InvokeResult{}, rpcError(protocol.CodeInternalError,
		fmt.Sprintf("the bridge gave no answer to %s %s", p.Capability, p.Method), nil)
}
