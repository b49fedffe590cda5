package mockhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/drivers/protocol"
)

// browserRuntime is the browser a host in DevTools mode opens its pages
// in, as an Electron host opens its windows: a Chromium the host starts
// itself, with its DevTools endpoint on loopback (--remote-debugging-port).
// app/launch and app/center then answer with that endpoint and the page's
// target instead of a URL. Each kind of page (a surface, the app center)
// has one window: opening the next closes the one before, as a desktop
// host replaces the surface it shows.
type browserRuntime struct {
	binary string

	mu       sync.Mutex
	cmd      *exec.Cmd
	dir      string // the profile directory
	base     string // http://127.0.0.1:PORT
	endpoint string // ws://127.0.0.1:PORT/devtools/browser/ID
	shown    map[string]string
	closed   bool
}

// runtimeStartTimeout bounds the browser's start; runtimeCallTimeout each
// request to its DevTools HTTP endpoint.
const (
	runtimeStartTimeout = 20 * time.Second
	runtimeCallTimeout  = 5 * time.Second
)

func newBrowserRuntime(binary string) *browserRuntime {
	return &browserRuntime{binary: binary, shown: map[string]string{}}
}

// open shows address as the page of kind, starting the browser on first
// use, and names its DevTools target.
func (r *browserRuntime) open(kind, address string) (*protocol.DevToolsTarget, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errors.New("the host's browser runtime is shut down")
	}
	if r.cmd == nil {
		if err := r.start(); err != nil {
			return nil, err
		}
	}
	var t struct {
		ID string `json:"id"`
	}
	if err := r.call(http.MethodPut, "/json/new?"+url.QueryEscape(address), &t); err != nil {
		return nil, fmt.Errorf("opening %s in the host's browser runtime: %w", address, err)
	}
	if t.ID == "" {
		return nil, fmt.Errorf("opening %s in the host's browser runtime: no target id in its answer", address)
	}
	if old := r.shown[kind]; old != "" {
		_ = r.call(http.MethodGet, "/json/close/"+old, nil)
	}
	r.shown[kind] = t.ID
	return &protocol.DevToolsTarget{Endpoint: r.endpoint, TargetID: t.ID}, nil
}

// start launches the browser with a fresh profile and a DevTools endpoint
// on an ephemeral loopback port, and waits until it names that endpoint.
// Called under r.mu.
func (r *browserRuntime) start() error {
	exe, err := browser.Binary(r.binary)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "agentapp-mockhost-runtime-")
	if err != nil {
		return fmt.Errorf("browser runtime profile: %w", err)
	}
	cmd := exec.Command(exe,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-default-apps", "--disable-extensions", "--disable-breakpad", "--disable-dev-shm-usage",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir="+dir, "about:blank")
	cmd.Env = append(os.Environ(), browser.ProfileEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return fmt.Errorf("starting the host's browser runtime %s: %w", exe, err)
	}
	r.cmd, r.dir = cmd, dir
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(runtimeStartTimeout)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) == 2 {
			r.base = "http://127.0.0.1:" + strings.TrimSpace(lines[0])
			r.endpoint = "ws://127.0.0.1:" + strings.TrimSpace(lines[0]) + strings.TrimSpace(lines[1])
			return nil
		}
		select {
		case <-exited:
			r.stop()
			return fmt.Errorf("the host's browser runtime %s exited before naming its DevTools endpoint", exe)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r.stop()
			return fmt.Errorf("the host's browser runtime %s named no DevTools endpoint within %s", exe, runtimeStartTimeout)
		}
	}
}

// call makes one request to the DevTools HTTP endpoint and decodes its
// JSON answer into out (nil: none wanted).
func (r *browserRuntime) call(method, path string, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), runtimeCallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// stop kills the browser and its helpers and removes its profile. Called
// under r.mu.
func (r *browserRuntime) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
	}
	if r.dir != "" {
		browser.KillProfile(r.dir)
		for deadline := time.Now().Add(3 * time.Second); os.RemoveAll(r.dir) != nil && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	r.cmd, r.dir, r.base, r.endpoint = nil, "", "", ""
	clear(r.shown)
}

// close shuts the browser down for good.
func (r *browserRuntime) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	r.stop()
}

// reset closes every page the runtime shows (host/reset: no surface stays
// mounted), leaving the browser running.
func (r *browserRuntime) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	for kind, id := range r.shown {
		_ = r.call(http.MethodGet, "/json/close/"+id, nil)
		delete(r.shown, kind)
	}
}
