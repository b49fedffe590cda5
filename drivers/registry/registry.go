// Package registry is the registry the harness plays on loopback (spec 003,
// Release object, Channels and pins, Distribution flow: "Host->>Registry:
// Request bootstrap metadata; Registry-->>Host: Enabled releases and policy
// defaults"). The texts define no wire format; the harness's is the
// smallest one (docs/host-control-protocol.md, "The registry the harness
// plays"):
//
//	GET /bootstrap?tenantId=T         200 {"tenantId": T, "releases": [release…]}
//	GET /apps/{appId}/releases        200 {"appId": …, "releases": [release…]}
//	GET /packages/{appId}/{version}.zip  200 the package archive (application/zip)
//
// The bootstrap lists the releases enabled for the tenant, each resolved to
// one concrete release (a channel the tenant enabled names the release it
// pins). The public catalogue lists every release of an app, enabled or
// not; it is there so that a host that installs from it, instead of from
// its tenant's bootstrap, can be seen doing so.
//
// Each spec scripts what is published, enabled, pinned and withdrawn, and
// how the registry answers (down, hanging, garbage, dropped half-way), and reads back which
// requests it saw: the evidence of what the host fetched, and when.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Mode is how the registry answers.
type Mode int

// Modes.
const (
	Answer  Mode = iota // answer from the script
	Down                // answer 503 to everything
	Hang                // answer nothing until the host gives up (at most MaxHang)
	Garbage             // answer 200 with a body that is not JSON
	Drop                // start a 200 answer and close the connection half-way
)

// MaxHang bounds how long a hanging answer holds a request.
const MaxHang = 30 * time.Second

// Status values of a release object (the harness's reading: spec 003's
// table has no field for it; docs/decisions.md).
const (
	Active    = "active"
	Withdrawn = "withdrawn"
)

// Publisher is the publisher a registry vouches for (spec 000, Publisher:
// publisherId "issued by the registry", verified "written by the registry
// after verification", verifiedDomain).
type Publisher struct {
	PublisherID    string `json:"publisherId"`
	Name           string `json:"name,omitempty"`
	Verified       bool   `json:"verified"`
	VerifiedDomain string `json:"verifiedDomain,omitempty"`
}

// Release is a release object (spec 003, Release object), with the
// harness's two additions: status and the channel the tenant enabled it
// through.
type Release struct {
	AppID           string          `json:"appId"`
	Version         string          `json:"version"`
	ManifestVersion string          `json:"manifestVersion,omitempty"`
	PackageURL      string          `json:"packageUrl"`
	PackageHash     string          `json:"packageHash"`
	ManifestHash    string          `json:"manifestHash,omitempty"`
	SignatureRef    string          `json:"signatureRef,omitempty"`
	SignatureBundle json.RawMessage `json:"signatureBundle,omitempty"`
	Compatibility   json.RawMessage `json:"compatibility,omitempty"`
	Install         json.RawMessage `json:"install,omitempty"`
	Publisher       *Publisher      `json:"publisher,omitempty"`
	Status          string          `json:"status"`
	Channel         string          `json:"channel,omitempty"`
	// RollbackTarget is the version of the app's known safe previous
	// release (spec 003, Release object).
	RollbackTarget string `json:"rollbackTarget,omitempty"`
}

// Request is one request the registry saw.
type Request struct {
	Path   string // path and query
	Tenant string // the tenantId query parameter, if any
	At     time.Time
}

type key struct{ app, version string }

// Registry is a registry on 127.0.0.1.
type Registry struct {
	srv  *http.Server
	base string
	seen func(r Request, answer string)

	mu       sync.Mutex
	mode     Mode
	releases map[key]Release
	archives map[key][]byte
	enabled  map[string][]enablement // tenant -> what it enabled
	channels map[string]map[string]string
	requests []Request
	done     chan struct{}
}

// enablement is one thing a tenant enabled: a version or a channel.
type enablement struct{ app, version, channel string }

// Start listens on a free loopback port; seen (may be nil) is told of
// every request and what it was answered, for the transcript.
func Start(seen func(r Request, answer string)) (*Registry, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("registry: listening on loopback: %w", err)
	}
	g := &Registry{seen: seen, done: make(chan struct{}), base: "http://" + ln.Addr().String()}
	g.reset()
	g.srv = &http.Server{Handler: http.HandlerFunc(g.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// URL is the registry's base URL, the registryUrl of host/configure.
func (g *Registry) URL() string { return g.base }

// Close stops the registry; hanging requests end at once.
func (g *Registry) Close() error {
	g.mu.Lock()
	select {
	case <-g.done:
	default:
		close(g.done)
	}
	g.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := g.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("registry: %w", err)
	}
	return nil
}

// Reset forgets the script and the requests seen.
func (g *Registry) Reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reset()
}

func (g *Registry) reset() {
	g.mode = Answer
	g.releases, g.archives = map[key]Release{}, map[key][]byte{}
	g.enabled, g.channels = map[string][]enablement{}, map[string]map[string]string{}
	g.requests = nil
}

// SetMode sets how the registry answers from now on.
func (g *Registry) SetMode(m Mode) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mode = m
}

// Publish makes rel available with archive as its package: the release's
// packageUrl points at the registry and its status is active unless set.
// It returns the release as published.
func (g *Registry) Publish(rel Release, archive []byte) Release {
	g.mu.Lock()
	defer g.mu.Unlock()
	rel.PackageURL = g.packageURL(rel.AppID, rel.Version)
	if rel.Status == "" {
		rel.Status = Active
	}
	rel.Channel = ""
	k := key{rel.AppID, rel.Version}
	g.releases[k], g.archives[k] = rel, archive
	return rel
}

func (g *Registry) packageURL(app, version string) string {
	return g.base + "/packages/" + app + "/" + version + ".zip"
}

// Withdraw marks a published release withdrawn.
func (g *Registry) Withdraw(app, version string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := key{app, version}
	if rel, ok := g.releases[k]; ok {
		rel.Status = Withdrawn
		g.releases[k] = rel
	}
}

// Pin makes channel of app resolve to version.
func (g *Registry) Pin(app, channel, version string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.channels[app] == nil {
		g.channels[app] = map[string]string{}
	}
	g.channels[app][channel] = version
}

// EnableVersion enables one release of app for tenant.
func (g *Registry) EnableVersion(tenant, app, version string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.enabled[tenant] = append(g.enabled[tenant], enablement{app: app, version: version})
}

// EnableChannel enables a channel of app for tenant.
func (g *Registry) EnableChannel(tenant, app, channel string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.enabled[tenant] = append(g.enabled[tenant], enablement{app: app, channel: channel})
}

// Requests lists the requests seen whose path starts with prefix ("" for all).
func (g *Registry) Requests(prefix string) []Request {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Request
	for _, r := range g.requests {
		if strings.HasPrefix(r.Path, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// PackagePath is the path of a release's package archive, for Requests.
func PackagePath(app, version string) string {
	return "/packages/" + app + "/" + version + ".zip"
}

// Bootstrap is what the registry answers a tenant's bootstrap request.
type Bootstrap struct {
	TenantID string    `json:"tenantId"`
	Releases []Release `json:"releases"`
}

// Catalogue is what the registry answers for an app's releases.
type Catalogue struct {
	AppID    string    `json:"appId"`
	Releases []Release `json:"releases"`
}

func (g *Registry) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Path: r.URL.RequestURI(), Tenant: r.URL.Query().Get("tenantId"), At: time.Now()}
	g.mu.Lock()
	g.requests = append(g.requests, req)
	mode, done := g.mode, g.done
	g.mu.Unlock()
	switch mode {
	case Down:
		g.tell(req, "503 (scripted: down)")
		http.Error(w, "registry down", http.StatusServiceUnavailable)
		return
	case Hang:
		g.tell(req, "(scripted: no answer)")
		select {
		case <-r.Context().Done():
		case <-done:
		case <-time.After(MaxHang):
		}
		return
	case Garbage:
		g.tell(req, "200 (scripted: not JSON)")
		_, _ = w.Write([]byte("<html>this is not a registry answer"))
		return
	case Drop:
		g.tell(req, "200 (scripted: connection dropped half-way)")
		dropHalfway(w)
		return
	}
	status, body, ctype := g.answer(r)
	g.tell(req, fmt.Sprintf("%d %s", status, summarise(body, ctype)))
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// dropHalfway promises a body and closes the connection before half of it.
func dropHalfway(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "cannot drop", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }()
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"tenantId\": \"")
	_ = buf.Flush()
}

func (g *Registry) tell(r Request, answer string) {
	if g.seen != nil {
		g.seen(r, answer)
	}
}

func summarise(body []byte, ctype string) string {
	if ctype != "application/json" {
		return fmt.Sprintf("%s, %d bytes", ctype, len(body))
	}
	return string(body)
}

// answer decides status, body and content type from the script.
func (g *Registry) answer(r *http.Request) (int, []byte, string) {
	if r.Method != http.MethodGet {
		return jsonError(http.StatusMethodNotAllowed, "only GET")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	p := r.URL.Path
	switch {
	case p == "/bootstrap":
		tenant := r.URL.Query().Get("tenantId")
		if tenant == "" {
			return jsonError(http.StatusBadRequest, "tenantId is required")
		}
		return jsonOK(Bootstrap{TenantID: tenant, Releases: g.resolve(tenant)})
	case strings.HasPrefix(p, "/apps/") && strings.HasSuffix(p, "/releases"):
		app := strings.TrimSuffix(strings.TrimPrefix(p, "/apps/"), "/releases")
		c := Catalogue{AppID: app, Releases: []Release{}}
		for k, rel := range g.releases {
			if k.app == app {
				c.Releases = append(c.Releases, rel)
			}
		}
		sort.Slice(c.Releases, func(i, j int) bool { return c.Releases[i].Version < c.Releases[j].Version })
		return jsonOK(c)
	case strings.HasPrefix(p, "/packages/") && strings.HasSuffix(p, ".zip"):
		rest := strings.TrimSuffix(strings.TrimPrefix(p, "/packages/"), ".zip")
		app, version, ok := strings.Cut(rest, "/")
		if archive, found := g.archives[key{app, version}]; ok && found {
			return http.StatusOK, archive, "application/zip"
		}
	}
	return jsonError(http.StatusNotFound, "no such thing in this registry")
}

// resolve lists the releases enabled for tenant, channels resolved to
// the release they pin; an enablement naming nothing published is left out.
func (g *Registry) resolve(tenant string) []Release {
	out := []Release{}
	for _, e := range g.enabled[tenant] {
		version := e.version
		if e.channel != "" {
			version = g.channels[e.app][e.channel]
		}
		rel, ok := g.releases[key{e.app, version}]
		if !ok {
			continue
		}
		rel.Channel = e.channel
		out = append(out, rel)
	}
	return out
}

func jsonOK(v any) (int, []byte, string) {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonError(http.StatusInternalServerError, err.Error())
	}
	return http.StatusOK, b, "application/json"
}

func jsonError(status int, msg string) (int, []byte, string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return status, b, "application/json"
}
