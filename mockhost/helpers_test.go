//go:build !mutation

package mockhost

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// manifest returns an APP.md for a small valid app named tiny-app, with
// extra YAML lines added to its frontmatter (top-level keys given in extra
// replace nothing: do not repeat the base keys).
func manifest(extra string) string {
	return "---\n" +
		"name: tiny-app\n" +
		"description: A tiny app for mockhost tests.\n" +
		"version: 1.0.0\n" +
		"status: ready\n" +
		"appType: domain-app\n" +
		"displayName: Tiny App\n" +
		"publisher:\n  name: tiny-publisher\n" +
		extra +
		"---\n# Tiny App\n\nUsed by the mockhost tests.\n"
}

// withVersion adds manifestVersion 0.10.0 and one page entry unless extra
// sets them itself.
func withDefaults(extra string) string {
	if !strings.Contains(extra, "manifestVersion:") {
		extra = "manifestVersion: 0.10.0\n" + extra
	}
	if !strings.Contains(extra, "entries:") {
		extra += "entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n"
	}
	return extra
}

// pkg writes a package folder named name below a fresh temp dir. files maps
// slash paths to contents; APP.md defaults to manifest(withDefaults("")).
func pkg(t testing.TB, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if _, ok := files["APP.md"]; !ok {
		files["APP.md"] = manifest(withDefaults(""))
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// app is a package with a frontmatter extension and nothing else.
func app(t *testing.T, extra string) string {
	t.Helper()
	return pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(extra))})
}

// harness is a control client connected to an in-process Host.
type harness struct {
	t    testing.TB
	h    *Host
	c    *control.Client
	done chan struct{} // closed when Serve returns
}

// start serves a Host with the given faults over an in-process pipe.
func start(t testing.TB, faults ...string) *harness {
	t.Helper()
	return startWith(t, control.Options{CallTimeout: 10 * time.Second}, faults...)
}

func startWith(t testing.TB, opts control.Options, faults ...string) *harness {
	t.Helper()
	fs, err := ParseFaults(faults)
	if err != nil {
		t.Fatal(err)
	}
	return startHost(t, opts, Options{Faults: fs})
}

// startVariants starts a host taking the readings of the named variants.
func startVariants(t testing.TB, variants ...string) *harness {
	t.Helper()
	vs, err := ParseVariants(variants)
	if err != nil {
		t.Fatal(err)
	}
	return startHost(t, control.Options{CallTimeout: 10 * time.Second}, Options{Variants: vs})
}

// startHost starts a host configured by o and connects to it.
func startHost(t testing.TB, opts control.Options, o Options) *harness {
	t.Helper()
	x := &harness{t: t, h: NewWithOptions(o), done: make(chan struct{})}
	t.Cleanup(func() { _ = x.h.Close() })
	conn := control.PipeConnector(func(c io.ReadWriteCloser) {
		defer close(x.done)
		_ = x.h.Serve(c)
	}, opts)
	cl, err := conn.Connect(context.Background(), control.NewTranscript(io.Discard, nil))
	if err != nil {
		t.Fatalf("connecting to mockhost: %v", err)
	}
	x.c = cl
	t.Cleanup(func() { _ = cl.Close() })
	return x
}

// call calls method; the error is returned as is.
func (x *harness) call(method string, params, result any) error {
	return x.c.Call(context.Background(), method, params, result)
}

// must calls method and fails the test on error.
func (x *harness) must(method string, params, result any) {
	x.t.Helper()
	if err := x.call(method, params, result); err != nil {
		x.t.Fatalf("%s: %v", method, err)
	}
}

// code returns the JSON-RPC error code of err, or 0.
func code(err error) int64 {
	var he *control.HostError
	if errors.As(err, &he) {
		return he.Code
	}
	return 0
}

// configureWith sends host/configure with p, its ids filled in.
func (x *harness) configureWith(p protocol.ConfigureParams) {
	x.t.Helper()
	p.TenantID, p.WorkspaceID, p.UserID = "t1", "w1", "u1"
	x.must(protocol.MethodConfigure, p, nil)
}

// configure sets a profile with optional secrets, capabilities and clock.
func (x *harness) configure(secrets map[string]string, caps map[string]protocol.Capability, clock string) {
	x.t.Helper()
	x.must(protocol.MethodConfigure, protocol.ConfigureParams{TenantID: "t1", WorkspaceID: "w1", UserID: "u1",
		Secrets: secrets, Capabilities: caps, Clock: clock}, nil)
}

func (x *harness) verify(dir string, rel *protocol.Release) protocol.VerifyResult {
	x.t.Helper()
	var r protocol.VerifyResult
	x.must(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}, &r)
	return r
}

// project returns the projection decoded, or the error.
func (x *harness) project(dir string) (map[string]any, error) {
	var r protocol.ProjectResult
	if err := x.call(protocol.MethodProject, protocol.PackageParams{Path: dir}, &r); err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(r.Projection, &m); err != nil {
		x.t.Fatalf("projection is not a JSON object: %v", err)
	}
	return m, nil
}

func (x *harness) projectRaw(dir string) string {
	x.t.Helper()
	var r protocol.ProjectResult
	x.must(protocol.MethodProject, protocol.PackageParams{Path: dir}, &r)
	return string(r.Projection)
}

func (x *harness) install(dir string, rel *protocol.Release, consent bool) (protocol.InstallResult, error) {
	var r protocol.InstallResult
	err := x.call(protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: rel,
		Consent: protocol.Consent{Granted: consent, By: "user"}}, &r)
	return r, err
}

// installedTinyApp configures the host with no overrides and installs the
// default tiny-app, with consent; the install must succeed.
func (x *harness) installedTinyApp(t *testing.T) {
	t.Helper()
	x.configure(nil, nil, "")
	if _, err := x.install(app(t, ""), nil, true); err != nil {
		t.Fatal(err)
	}
}

func (x *harness) list() protocol.ListResult {
	x.t.Helper()
	var r protocol.ListResult
	x.must(protocol.MethodList, nil, &r)
	return r
}

func (x *harness) readiness(p protocol.ReadinessParams) (protocol.ReadinessResult, error) {
	var r protocol.ReadinessResult
	err := x.call(protocol.MethodReadiness, p, &r)
	return r, err
}

// raw is the JSON text of v.
func raw(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sourceOfMockhost is mockhost's non-test Go source, concatenated: where
// the `// fault: NAME` and `// variant: NAME` markers are counted.
func sourceOfMockhost(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	return src.String()
}
