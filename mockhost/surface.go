package mockhost

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// The app surface (docs/host-control-protocol.md, "The app surface"): the
// UI a host mounts for an entry and the Host Bridge between it and the host
// (spec 000, Host Bridge v1; spec 001, UI runtime; spec 002, Launch flow).
// mockhost serves it from two loopback HTTP servers started on first use:
//
//   - the host origin, http://127.0.0.1:P1, serves the page that mounts an
//     entry (/surface/<hostToken>), the page's bridge endpoints and the app
//     center;
//   - each app's frame origin, http://127.0.0.N:P (N from 2, one address
//     per app id), another site, as a real host's sandbox is, serves that
//     app's UI files and nothing else (/app/<frameToken>/<path>).

// maxLogged bounds each observe list of an app, and maxStoredKeys the keys
// one app may keep in lime.storage.
const (
	maxLogged     = 1000
	maxStoredKeys = 1000
)

// surfaces holds what the app surface keeps between control calls. Its
// mutex is a leaf: nothing calls into Host while holding it.
type surfaces struct {
	mu      sync.Mutex
	closed  bool
	servers []*http.Server
	// hostOrigin is "" until its server runs; partitions are the app
	// frames' origins and servers by app id, each from the app's first
	// launch until its data is deleted, host/reset or the host's close:
	// the browser keeps what a frame stored by origin, so a fresh origin is
	// a fresh browser storage (a forgotten partition's server runs on in
	// servers until the host closes). nextFrameHost picks the next one's
	// address.
	hostOrigin    string
	partitions    map[string]partition
	nextFrameHost int
	launches      map[string]*launch // by host token
	frames        map[string]*launch // by frame token
	centers       map[string]bool    // app center tokens
	logs          map[string]*protocol.ObserveResult
	storage       map[string]map[string]json.RawMessage // bucket (storageBucket) -> key -> value
	// theme and locale are what host/set changed (nil, "": the defaults).
	theme  *protocol.Theme
	locale string
}

func newSurfaces() *surfaces {
	s := &surfaces{partitions: map[string]partition{}}
	s.clear()
	return s
}

// partition is the origin one app's frames are served from, and its server.
type partition struct {
	origin string
	srv    *http.Server
}

// clear forgets every launch, center, log, stored value and partition (mu
// held).
func (s *surfaces) clear() {
	for key := range s.partitions {
		s.dropPartitionLocked(key)
	}
	s.launches = map[string]*launch{}
	s.frames = map[string]*launch{}
	s.centers = map[string]bool{}
	s.logs = map[string]*protocol.ObserveResult{}
	s.storage = map[string]map[string]json.RawMessage{}
	s.theme, s.locale = nil, ""
}

// launch is one mounted entry: the host page at /surface/<hostToken>
// framing the app's UI at <frameOrigin>/app/<frameToken>/.
type launch struct {
	hostToken, frameToken string
	appID, entryKey       string
	version               string // the release installed when the entry launched
	route                 string
	title                 string // shown by the host page
	hostOrigin            string
	frameOrigin           string // the runtime origin
	ui                    uiFolder
	// declared are the capabilities the manifest declares, origins the
	// origins of the URLs it names (for host:openExternal).
	declared []string
	origins  []string
	entries  []string // the app's entry keys
	// routes are the entries' routes by key; permissions the manifest's
	// permission declarations (scope and domains).
	routes      map[string]string
	permissions []declaredPermission

	mu   sync.Mutex
	subs map[chan hostMessage]struct{}
	done chan struct{} // closed when the surface is closed
	once sync.Once
	// secretStatuses are lime.secrets status answers kept for the life of
	// the surface, by key (only under the fault secret-status-cached-per-surface).
	secretStatuses map[string]string
	// firstCapabilities is the capability summary of the surface's first
	// snapshot (only under the fault snapshot-capabilities-cached).
	firstCapabilities []hostbridge.CapabilityState
}

// actingAs is the bug behind bridge-acts-as-message-appid: the surface's
// launch with appID put in its app's place (a surface of its own: no
// events reach it).
func (l *launch) actingAs(appID string) *launch {
	return &launch{hostToken: l.hostToken, frameToken: l.frameToken, appID: appID, entryKey: l.entryKey,
		version: l.version, route: l.route, title: l.title, hostOrigin: l.hostOrigin, frameOrigin: l.frameOrigin,
		ui: l.ui, declared: l.declared, origins: l.origins, entries: l.entries, routes: l.routes,
		permissions: l.permissions, subs: map[chan hostMessage]struct{}{}, done: make(chan struct{})}
}

// close ends the surface: its event streams stop.
func (l *launch) close() { l.once.Do(func() { close(l.done) }) }

// maxQueuedEvents bounds what one event stream holds that its page has not
// taken yet: enough for a burst of a task's facts (BenchmarkTaskEventProjection
// streams thousands without a pause), small enough that a page that stopped
// reading costs little.
const maxQueuedEvents = 8192

// subscribe registers an event stream holding at most queue messages its
// page has not taken; cancel unregisters it.
func (l *launch) subscribe(queue int) (ch chan hostMessage, cancel func()) {
	ch = make(chan hostMessage, queue)
	l.mu.Lock()
	l.subs[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.subs, ch)
		l.mu.Unlock()
	}
}

// frameURL is the address of the entry's document in the app's frame.
func (l *launch) frameURL() string {
	return l.frameOrigin + "/app/" + l.frameToken + "/" + l.ui.entry
}

// push sends m to every event stream of the surface; a stream too slow to
// take it loses it (the app can always ask for a snapshot).
func (l *launch) push(m hostMessage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs {
		select {
		case ch <- m:
		default:
		}
	}
}

// token returns a fresh unguessable token (128 bits or more).
func token() string { return rand.Text() }

// startHost runs the host origin's server on first use and returns its
// origin.
func (s *surfaces) startHost(handler func(hostOrigin string) http.Handler) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("the host is closed")
	}
	if s.hostOrigin != "" {
		return s.hostOrigin, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("starting the host origin server: %w", err)
	}
	s.hostOrigin = "http://" + l.Addr().String()
	s.servers = append(s.servers, serve(l, handler(s.hostOrigin)))
	return s.hostOrigin, nil
}

// maxFrameHosts is how many loopback addresses (127.0.0.2 and up) the app
// frame servers take before they share them, by port only.
const maxFrameHosts = 250

// startFrame runs, on first use, the server of the partition of key (an
// app id) and returns its origin. Each partition gets a loopback address
// of its own, so that the browser keeps each app's storage and cookies
// apart (spec 002, Required desktop host behavior: app data namespaced by
// app; cookies ignore the port). Where only 127.0.0.1 is a loopback
// address (macOS), the origins differ by port only, which keeps storage
// apart and not cookies.
func (s *surfaces) startFrame(key string, byPortOnly bool, handler func(frameOrigin string) http.Handler) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("the host is closed")
	}
	if p, ok := s.partitions[key]; ok {
		return p.origin, nil
	}
	ip := fmt.Sprintf("127.0.0.%d", 2+s.nextFrameHost%maxFrameHosts)
	s.nextFrameHost++
	if byPortOnly {
		ip = "127.0.0.1"
	}
	l, err := net.Listen("tcp", ip+":0")
	if err != nil {
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return "", fmt.Errorf("starting the app frame server: %w", err)
		}
		ip = "localhost"
	}
	origin := fmt.Sprintf("http://%s:%d", ip, l.Addr().(*net.TCPAddr).Port)
	s.partitions[key] = partition{origin: origin, srv: serve(l, handler(origin))}
	return origin, nil
}

// dropPartition forgets the partition of key: the app's next launch starts
// on a fresh origin with nothing stored (uninstall deleting data). Its
// server runs on until the host closes, answering 404 to what it served (a
// web view still showing one of its frames stalled when it stopped).
func (s *surfaces) dropPartition(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropPartitionLocked(key)
}

func (s *surfaces) dropPartitionLocked(key string) {
	if p, ok := s.partitions[key]; ok {
		s.servers = append(s.servers, p.srv)
		delete(s.partitions, key)
	}
}

// serve runs handler on l until it is closed.
func serve(l net.Listener, handler http.Handler) *http.Server {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return srv
}

// add registers an open surface.
func (s *surfaces) add(l *launch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the host is closed")
	}
	s.launches[l.hostToken] = l
	s.frames[l.frameToken] = l
	return nil
}

// byHostToken and byFrameToken find an open surface (nil if none).
func (s *surfaces) byHostToken(t string) *launch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.launches[t]
}

func (s *surfaces) byFrameToken(t string) *launch {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.frames[t]
}

// open lists the open surfaces.
func (s *surfaces) open() []*launch {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*launch, 0, len(s.launches))
	for _, l := range s.launches {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].hostToken < out[j].hostToken })
	return out
}

// newCenter registers an app center page and returns its token.
func (s *surfaces) newCenter() string {
	t := token()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.centers[t] = true
	return t
}

func (s *surfaces) isCenter(t string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.centers[t]
}

// reset closes every surface and center and forgets logs, app storage,
// partitions and what host/set changed (host/reset). The host origin's
// server keeps running.
func (s *surfaces) reset(keepSettings bool) {
	s.mu.Lock()
	launches := s.launches
	theme, locale := s.theme, s.locale
	s.clear()
	if keepSettings { // a fault's (Host.reset)
		s.theme, s.locale = theme, locale
	}
	s.mu.Unlock()
	for _, l := range launches {
		l.close()
	}
}

// close closes every surface and stops both servers (Host.Close).
func (s *surfaces) close() error {
	s.mu.Lock()
	s.closed = true
	launches := s.launches
	s.clear()
	servers := s.servers
	s.servers = nil
	s.mu.Unlock()
	for _, l := range launches {
		l.close()
	}
	var errs []error
	for _, srv := range servers {
		if err := srv.Close(); err != nil {
			errs = append(errs, fmt.Errorf("stopping the app surface server: %w", err))
		}
	}
	return errors.Join(errs...)
}

// logOf returns the observe log of appID, creating it (mu held).
func (s *surfaces) logOf(appID string) *protocol.ObserveResult {
	lg, ok := s.logs[appID]
	if !ok {
		lg = &protocol.ObserveResult{Calls: []protocol.BridgeCall{}, Rejected: []protocol.RejectedMessage{}, Evidence: []protocol.EvidenceRecord{}}
		s.logs[appID] = lg
	}
	return lg
}

// record, reject and addEvidence append to an app's observe log.
func (s *surfaces) record(appID string, c protocol.BridgeCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lg := s.logOf(appID); len(lg.Calls) < maxLogged {
		lg.Calls = append(lg.Calls, c)
	}
}

func (s *surfaces) reject(appID string, r protocol.RejectedMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lg := s.logOf(appID); len(lg.Rejected) < maxLogged {
		lg.Rejected = append(lg.Rejected, r)
	}
}

func (s *surfaces) addEvidence(appID string, e protocol.EvidenceRecord) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lg := s.logOf(appID); len(lg.Evidence) < maxLogged {
		lg.Evidence = append(lg.Evidence, e)
	}
}

// observe answers host/observe: a copy of the app's log, never null lists.
func (s *surfaces) observe(appID string) protocol.ObserveResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	lg, ok := s.logs[appID]
	if !ok {
		lg = &protocol.ObserveResult{}
	}
	return protocol.ObserveResult{
		Calls:    append([]protocol.BridgeCall{}, lg.Calls...),
		Rejected: append([]protocol.RejectedMessage{}, lg.Rejected...),
		Evidence: append([]protocol.EvidenceRecord{}, lg.Evidence...),
	}
}

// store, load and keys are lime.storage, namespaced by app id: an app
// never sees another's keys (spec 002, Storage boundary).
func (s *surfaces) store(bucket, key string, value json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.storage[bucket]
	if !ok {
		m = map[string]json.RawMessage{}
		s.storage[bucket] = m
	}
	if _, exists := m[key]; !exists && len(m) >= maxStoredKeys {
		return fmt.Errorf("app %s already keeps %d keys", bucketOwner(bucket), maxStoredKeys)
	}
	m[key] = value
	return nil
}

// storageBucket names where an app's lime.storage keys live in one tenant
// and workspace (spec 002, Required desktop host behavior: "Namespace app
// data, outputs, logs, and evidence by app, workspace, and tenant").
// Each part is escaped, so ids holding "@" or "/" cannot join into another
// app's, tenant's or workspace's bucket (tenant "t/a" with workspace "b" is
// not tenant "t" with workspace "a/b").
func storageBucket(appID, tenant, workspace string) string {
	return url.QueryEscape(appID) + "@" + url.QueryEscape(tenant) + "/" + url.QueryEscape(workspace)
}

// bucketOwner is the app a storage bucket belongs to.
func bucketOwner(bucket string) string {
	owner, _, _ := strings.Cut(bucket, "@")
	if id, err := url.QueryUnescape(owner); err == nil {
		return id
	}
	return owner
}

// dropStorage deletes everything appID stored, in every tenant and
// workspace.
func (s *surfaces) dropStorage(appID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for b := range s.storage {
		if bucketOwner(b) == appID {
			delete(s.storage, b)
		}
	}
}

func (s *surfaces) load(bucket, key string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.storage[bucket][key]
	return v, ok
}

func (s *surfaces) keys(bucket string, everyApp bool) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []string{}
	for id, m := range s.storage {
		if id != bucket && !everyApp {
			continue
		}
		for k := range m {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// uiState returns what host/set changed.
func (s *surfaces) uiState() (*protocol.Theme, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.theme, s.locale
}

// setUI stores what host/set changes (theme nil, locale "": unchanged).
func (s *surfaces) setUI(theme *protocol.Theme, locale string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if theme != nil {
		t := *theme
		s.theme = &t
	}
	if locale != "" {
		s.locale = locale
	}
}

// storedBy is a copy of what appID stored through lime.storage, by
// bucket (every tenant and workspace it stored in).
func (s *surfaces) storedBy(appID string) map[string]map[string]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]map[string]json.RawMessage{}
	for b, m := range s.storage {
		if bucketOwner(b) == appID {
			out[b] = maps.Clone(m)
		}
	}
	return out
}

// storageOwners are the app ids that stored anything, sorted (read only by
// the export-every-app fault).
func (s *surfaces) storageOwners() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	owners := map[string]bool{}
	for b := range s.storage {
		owners[bucketOwner(b)] = true
	}
	return slices.Sorted(maps.Keys(owners))
}

// dropEvidence forgets the evidence appID recorded (read only by the
// update-drops-evidence fault).
func (s *surfaces) dropEvidence(appID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if lg, ok := s.logs[appID]; ok {
		lg.Evidence = lg.Evidence[:0]
	}
}
