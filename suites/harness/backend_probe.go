package harness

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// backendFixture is the app with one client-local backend service, probe,
// whose command is bin/backend-probe.
const (
	backendFixture = "backend-app"
	backendService = "probe"
	BackendEntry   = "main"
	backendCommand = "bin/backend-probe"
)

// probeBuildTimeout bounds the one build of backend-probe in a run.
const probeBuildTimeout = 3 * time.Minute

// probeBuild is the run's one build of backend-probe: the binary, or why
// there is none.
type probeBuild struct {
	once sync.Once
	bin  string
	// blocked says why no binary could be made on this machine (no Go
	// toolchain); err is the harness's own trouble.
	blocked string
	err     error
}

// build compiles the embedded source of backend-probe once, into a folder
// below workDir (removed with it at the end of the run).
func (b *probeBuild) build(workDir, prebuilt string) (string, string, error) {
	b.once.Do(func() {
		if prebuilt != "" {
			b.bin = prebuilt
			return
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			b.blocked = "no Go toolchain on PATH to build the backend-app fixture's service (backend-probe)"
			return
		}
		dir, err := os.MkdirTemp(workDir, "backend-probe-")
		if err != nil {
			b.err = fmt.Errorf("making a folder to build backend-probe: %w", err)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), probeBuildTimeout)
		defer cancel()
		bin, err := platformconformance.BuildBackendProbe(ctx, goBin, dir)
		if err != nil {
			b.blocked = fmt.Sprintf("the Go toolchain on PATH could not build backend-probe: %v", err)
			return
		}
		b.bin = bin
	})
	return b.bin, b.blocked, b.err
}

// Service kinds a backend spec runs its service as: the app's backend, and
// a worker (spec 000 Security rules 5: "Workers, tool adapters, and
// background tasks must run under host sandbox and policy"; spec 001:
// "Raw worker or app backend execution requires additional sandboxing").
const (
	KindBackend = "app-backend"
	KindWorker  = "worker"
)

// BackendApp copies backend-app into a fresh folder named name, puts the
// built backend-probe at bin/backend-probe and returns the folder. A
// machine that cannot build it blocks the spec.
func (tc *TestContext) BackendApp(name string) string {
	ginkgo.GinkgoHelper()
	return tc.ServiceApp(name, KindBackend)
}

// ServiceApp is backendApp with its service declared of kind.
func (tc *TestContext) ServiceApp(name, kind string) string {
	ginkgo.GinkgoHelper()
	bin, blocked, err := tc.probe.build(tc.Config.WorkDir, tc.Config.BackendProbe)
	if err != nil {
		Errorf("%v", err)
	}
	if blocked != "" {
		tc.Blockedf("%s", blocked)
	}
	dir := tc.FixtureAs(backendFixture, name)
	SetField(dir, "name", name)
	data, err := os.ReadFile(bin)
	if err != nil {
		Errorf("reading the built backend-probe: %v", err)
	}
	if kind != KindBackend {
		ReplaceIn(dir, "APP.md", "kind: "+KindBackend, "kind: "+kind)
	}
	WriteFile(dir, backendCommand, data)
	if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(backendCommand)), 0o755); err != nil {
		Errorf("making %s executable: %v", backendCommand, err)
	}
	return dir
}

// ProbeReport is what backend-probe answers to probe/report
// (fixtures/platform-conformance/backend-probe).
type ProbeReport struct {
	PID   int               `json:"pid"`
	PPID  int               `json:"ppid"`
	Cwd   string            `json:"cwd"`
	Exe   string            `json:"exe"`
	Args  []string          `json:"args"`
	Env   map[string]string `json:"env"`
	Files []probeFile       `json:"files"`
	Net   struct {
		ConnectTried bool   `json:"connectTried"`
		ConnectOK    bool   `json:"connectOK"`
		ListenTried  bool   `json:"listenTried"`
		ListenAddr   string `json:"listenAddr"`
		Error        string `json:"error"`
	} `json:"net"`
}

// probeFile is one file the probe read: its path, the SHA-256 and length
// of what it read (at most 64 KiB), and the first 4 KiB (base64).
type probeFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Size   int    `json:"size"`
	Head   string `json:"head"`
}

// Content is what the probe read of f, as far as the harness can know it:
// the file as the harness reads it when that hashes as the probe said
// (same bytes), or else the head the probe sent.
func (f probeFile) Content() []byte {
	if fh, err := os.Open(f.Path); err == nil {
		b, _ := io.ReadAll(io.LimitReader(fh, int64(f.Size)))
		_ = fh.Close()
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) == f.SHA256 {
			return b
		}
	}
	head, _ := base64.StdEncoding.DecodeString(f.Head)
	return head
}

// BackendCall relays one request to appID's backend through app/backend.
// A host that does not implement the hook blocks the spec.
func (tc *TestContext) BackendCall(appID, method string, params any) (json.RawMessage, error) {
	ginkgo.GinkgoHelper()
	tc.RequireMethod(protocol.MethodBackend)
	raw, err := json.Marshal(params)
	if err != nil {
		Errorf("encoding %s params: %v", method, err)
	}
	var res protocol.BackendResult
	err = tc.Call(protocol.MethodBackend, protocol.BackendParams{AppID: appID, Service: backendService, Method: method, Params: raw}, &res)
	if code, ok := tc.HostErrorCode(protocol.MethodBackend, err); ok && code == protocol.CodeMethodNotFound {
		tc.Blockedf("the host answers app/backend with -32601: the harness cannot speak to the backend it handed over (docs/host-control-protocol.md, app/backend)")
	}
	return res.Result, err
}

// BackendReport asks appID's backend what it sees; the error is the host's.
func (tc *TestContext) BackendReport(appID string, params map[string]any) (ProbeReport, json.RawMessage, error) {
	ginkgo.GinkgoHelper()
	if params == nil {
		params = map[string]any{}
	}
	raw, err := tc.BackendCall(appID, "probe/report", params)
	if err != nil {
		return ProbeReport{}, nil, err
	}
	var r ProbeReport
	if err := json.Unmarshal(raw, &r); err != nil || r.PID <= 0 {
		return ProbeReport{}, raw, fmt.Errorf("app/backend gave no report of backend-probe (%v): %.200s", err, raw)
	}
	return r, raw, nil
}

// MustBackendReport is report as a step the spec needs: no report ends it.
func (tc *TestContext) MustBackendReport(appID string, params map[string]any) (ProbeReport, json.RawMessage) {
	ginkgo.GinkgoHelper()
	r, raw, err := tc.BackendReport(appID, params)
	if err != nil {
		tc.FailCall(protocol.MethodBackend, err)
	}
	return r, raw
}

// BackendOf is what host/observe shows of appID's probe service (ok false:
// the host shows it not at all).
func (tc *TestContext) BackendOf(appID string) (protocol.BackendState, bool) {
	ginkgo.GinkgoHelper()
	for _, b := range tc.Observe(appID).Backends {
		if b.Service == backendService {
			return b, true
		}
	}
	return protocol.BackendState{}, false
}

// LaunchBackend launches the app's entry, as a precondition: the host
// starts its backend then.
func (tc *TestContext) LaunchBackend(appID string) {
	ginkgo.GinkgoHelper()
	tc.Precondition("app/launch of "+appID+" mounts its entry "+BackendEntry, func() {
		if _, err := tc.TryLaunch(appID, BackendEntry); err != nil {
			tc.FailCall(protocol.MethodLaunch, err)
		}
	})
}

// ProcessState says whether the harness sees pid running backend-probe:
// "running", "gone" (no such process, a zombie, or another program), or
// "unseen" when this machine's /proc shows no processes at all of the
// host's (another pid namespace, another machine).
func ProcessState(pid int) string {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return "unseen"
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return "gone"
	}
	if err != nil {
		return "unseen"
	}
	if _, rest, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X") {
		return "gone"
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "backend-probe") {
		return "gone"
	}
	return "running"
}

// WaitGone polls until pid is gone or grace passed; the state it saw last.
func WaitGone(pid int, grace time.Duration) string {
	deadline := time.Now().Add(grace)
	for {
		s := ProcessState(pid)
		if s != "running" || time.Now().After(deadline) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}
