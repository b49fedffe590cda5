//go:build !mutation

package mockhost

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// backendAppManifest declares tiny-app's one client-local backend, probe.
const backendAppManifest = "runtimePackage:\n  ui:\n    path: ./dist/ui\n    entry: index.html\n" +
	"services:\n  - key: probe\n    kind: app-backend\n    executionPlane: client-local\n    protocol: stdio-jsonrpc\n" +
	"    network: deny-by-default\n    command: bin/backend-probe\n"

// probeBuildDir is where probeBinary built backend-probe ("" before it
// did); TestMain removes it.
var probeBuildDir string

// TestMain removes the folder of the one backend-probe build.
func TestMain(m *testing.M) {
	code := m.Run()
	if probeBuildDir != "" {
		_ = os.RemoveAll(probeBuildDir)
	}
	os.Exit(code)
}

// probeBinary is backend-probe, built once for the test binary with the
// go on PATH (`make test` runs the tests with it): a machine without one
// fails these tests, never skips them.
var probeBinary = sync.OnceValues(func() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no Go toolchain on PATH to build it: %w", err)
	}
	dir, err := os.MkdirTemp("", "mockhost-backend-probe-")
	if err != nil {
		return "", err
	}
	probeBuildDir = dir
	return platformconformance.BuildBackendProbe(context.Background(), goBin, dir)
})

// buildProbe is the path of backend-probe, built once.
func buildProbe(t testing.TB) string {
	t.Helper()
	bin, err := probeBinary()
	if err != nil {
		t.Fatalf("backend-probe: %v", err)
	}
	return bin
}

// backendApp is tiny-app with the probe as its backend service; extra goes
// into its manifest.
func backendApp(t testing.TB, extra string) string {
	t.Helper()
	bin, err := os.ReadFile(buildProbe(t))
	if err != nil {
		t.Fatal(err)
	}
	return pkg(t, "tiny-app", map[string]string{
		"APP.md":             manifest(withDefaults(backendAppManifest + extra)),
		"dist/ui/index.html": "<!doctype html><title>tiny</title>",
		"bin/backend-probe":  string(bin),
	})
}

// backends is what host/observe shows of tiny-app's backends: state and
// restarts, pids left out.
func observedBackends(x *harness) string {
	var o protocol.ObserveResult
	x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
	var out []string
	for _, b := range o.Backends {
		out = append(out, fmt.Sprintf("%s=%s/%d", b.Service, b.State, b.Restarts))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// probeReport is the part of the probe's report the tests read.
type probeReport struct {
	PID   int               `json:"pid"`
	Env   map[string]string `json:"env"`
	Files []struct {
		Path string `json:"path"`
	} `json:"files"`
	Net struct {
		ConnectOK  bool   `json:"connectOK"`
		ListenAddr string `json:"listenAddr"`
	} `json:"net"`
}

func report(x *harness, params map[string]any) (probeReport, error) {
	if params == nil {
		params = map[string]any{}
	}
	raw, _ := json.Marshal(params)
	var r protocol.BackendResult
	if err := x.call(protocol.MethodBackend, protocol.BackendParams{AppID: "tiny-app", Service: "probe", Method: "probe/report", Params: raw}, &r); err != nil {
		return probeReport{}, err
	}
	var pr probeReport
	err := json.Unmarshal(r.Result, &pr)
	return pr, err
}

func launched(x *harness, dir string) {
	x.t.Helper()
	if _, err := x.install(dir, nil, true); err != nil {
		x.t.Fatal(err)
	}
	x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, nil)
}

// processGone reports whether pid no longer runs (gone or a zombie).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z")
}

func backendProbes() map[string]probe {
	return map[string]probe{
		"backend-started-at-install": func(t *testing.T, x *harness) string {
			if _, err := x.install(backendApp(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			return observedBackends(x)
		},
		"backend-starts-unready": func(t *testing.T, x *harness) string {
			dir := backendApp(t, "secrets:\n  - key: provider_api_key\n    required: true\n    scope: workspace\n")
			if _, err := x.install(dir, nil, true); err != nil {
				t.Fatal(err)
			}
			err := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, nil)
			return fmt.Sprintf("launch=%d %s", code(err), observedBackends(x))
		},
		"backend-survives-disable": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
			return observedBackends(x)
		},
		"backend-survives-uninstall": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			return observedBackends(x)
		},
		"backend-crash-ignored": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			_ = x.call(protocol.MethodBackend, protocol.BackendParams{AppID: "tiny-app", Service: "probe", Method: "probe/exit", Params: json.RawMessage(`{"code": 3}`)}, nil)
			time.Sleep(time.Second)
			_, err := report(x, nil)
			return fmt.Sprintf("report=%d %s", code(err), observedBackends(x))
		},
		"backend-env-inherits-secrets": func(t *testing.T, x *harness) string {
			x.configure(map[string]string{"provider_api_key": "canary-env"}, nil, "")
			launched(x, backendApp(t, ""))
			r, err := report(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k, v := range r.Env {
				if strings.Contains(v, "canary-env") {
					keys = append(keys, k)
				}
			}
			return fmt.Sprint(keys)
		},
		"backend-unsandboxed": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			root, err := x.h.dataRoot()
			if err != nil {
				t.Fatal(err)
			}
			r, err := report(x, map[string]any{"paths": []string{filepath.Join(root, "host.sqlite"), "/etc/hostname"}})
			if err != nil {
				t.Fatal(err)
			}
			var outside []string
			for _, f := range r.Files {
				if f.Path == filepath.Join(root, "host.sqlite") || f.Path == "/etc/hostname" {
					outside = append(outside, filepath.Base(f.Path))
				}
			}
			return fmt.Sprint(outside)
		},
		"backend-no-resource-limits": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			r, err := report(x, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/limits", r.PID))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n") {
				if strings.HasPrefix(line, "Max open files") {
					return strings.Join(strings.Fields(line), " ")
				}
			}
			return string(b)
		},
		"backend-stderr-discarded": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			return fmt.Sprintf("%+v", loggedLine(t, x, "a line for the log"))
		},
		"backend-may-listen": func(t *testing.T, x *harness) string {
			launched(x, backendApp(t, ""))
			r, err := report(x, map[string]any{"listen": true})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("listened=%v", r.Net.ListenAddr != "")
		},
		"worker-unsandboxed": func(t *testing.T, x *harness) string {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			dir := backendApp(t, "")
			md := filepath.Join(dir, "APP.md")
			b, err := os.ReadFile(md)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(md, []byte(strings.Replace(string(b), "kind: app-backend", "kind: worker", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			launched(x, dir)
			r, err := report(x, map[string]any{"connect": l.Addr().String()})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("connected=%v", r.Net.ConnectOK)
		},
		"backend-network-open": func(t *testing.T, x *harness) string {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			launched(x, backendApp(t, ""))
			r, err := report(x, map[string]any{"connect": l.Addr().String()})
			if err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("connected=%v", r.Net.ConnectOK)
		},
	}
}

// TestBackendLifecycle walks the healthy path: nothing runs after install;
// launch starts the backend in a minimal environment, confined to its
// package and data folder; a crash is restarted; disable stops it with its
// process gone; host/reset and close leave no process behind.
func TestBackendLifecycle(t *testing.T) {
	x := start(t)
	x.configure(map[string]string{"provider_api_key": "canary-secret"}, nil, "")
	dir := backendApp(t, "")
	if _, err := x.install(dir, nil, true); err != nil {
		t.Fatal(err)
	}
	if got := observedBackends(x); got != "[]" {
		t.Errorf("after install: %s", got)
	}
	x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, nil)
	if got := observedBackends(x); got != "[probe=running/0]" {
		t.Errorf("after launch: %s", got)
	}
	r, err := report(x, map[string]any{"paths": []string{"/etc/hostname"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Env["LIME_APP_ID"] != "tiny-app" || r.Env["HOME"] == "" || len(r.Env) != 5 {
		t.Errorf("backend env: %v", r.Env)
	}
	l := x.list()
	for _, f := range r.Files {
		if !strings.HasPrefix(f.Path, l.Apps[0].InstalledPath) && !strings.HasPrefix(f.Path, r.Env["HOME"]) &&
			!strings.HasPrefix(f.Path, "/usr/") && !strings.HasPrefix(f.Path, "/lib") && !strings.HasPrefix(f.Path, "/bin/") {
			t.Errorf("the sandboxed backend read %s", f.Path)
		}
	}
	_ = x.call(protocol.MethodBackend, protocol.BackendParams{AppID: "tiny-app", Service: "probe", Method: "probe/exit"}, nil)
	deadline := time.Now().Add(5 * time.Second)
	var again probeReport
	for time.Now().Before(deadline) {
		if again, err = report(x, nil); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || again.PID == r.PID || !processGone(r.PID) {
		t.Errorf("after a crash: err %v, pid %d (was %d), %s", err, again.PID, r.PID, observedBackends(x))
	}
	x.must(protocol.MethodDisable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
	if got := observedBackends(x); got != "[probe=stopped/1]" || !processGone(again.PID) {
		t.Errorf("after disable: %s, process gone %v", got, processGone(again.PID))
	}
	x.must(protocol.MethodEnable, protocol.AppIDParams{AppID: "tiny-app"}, nil)
	x.must(protocol.MethodLaunch, protocol.LaunchParams{AppID: "tiny-app", EntryKey: "main"}, nil)
	third, err := report(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.must(protocol.MethodReset, nil, nil)
	if !processGone(third.PID) {
		t.Errorf("backend %d outlived host/reset", third.PID)
	}
	launched(x, backendApp(t, ""))
	fourth, err := report(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.h.Close(); err != nil {
		t.Fatal(err)
	}
	if !processGone(fourth.PID) {
		t.Errorf("backend %d outlived the host's close", fourth.PID)
	}
}

// loggedLine has tiny-app's probe service write text to its stderr and
// returns host/observe's backends once a log shows, or after 2 s.
func loggedLine(t *testing.T, x *harness, text string) []protocol.BackendState {
	t.Helper()
	if err := x.call(protocol.MethodBackend, protocol.BackendParams{AppID: "tiny-app", Service: "probe", Method: "probe/log",
		Params: json.RawMessage(`{"text": "` + text + `"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		var o protocol.ObserveResult
		x.must(protocol.MethodObserve, protocol.ObserveParams{AppID: "tiny-app"}, &o)
		if (len(o.Backends) > 0 && o.Backends[0].Log != "") || time.Now().After(deadline) {
			return o.Backends
		}
		time.Sleep(50 * time.Millisecond)
	}
}
