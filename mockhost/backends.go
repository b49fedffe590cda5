package mockhost

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Client-local backend services (spec 000, Client-local service backend:
// "The host owns lifecycle, port / socket binding, environment, resource
// limits, logs, cancellation, and permissions"; stdio-jsonrpc: "Host owns
// process lifecycle, env, stdout/stderr capture, cancellation, and
// permission envelope"). The host starts an app's stdio-jsonrpc backends
// when one of its entries launches, restarts one that exits on its own,
// and stops them at disable, update, rollback, uninstall, host/reset and
// close.

// Supervision limits.
const (
	maxBackendRestarts = 3                      // then the backend is reported crashed
	backendStopGrace   = time.Second            // SIGTERM, then SIGKILL
	backendMaxLine     = 8 << 20                // longest answer line read from a backend
	backendStderrMax   = 64 << 10               // stderr kept per process
	backendRestartWait = 100 * time.Millisecond // pause before a restart
)

// backendSpec is one client-local stdio-jsonrpc service of a manifest.
type backendSpec struct {
	key     string
	command string // slash path inside the package
	network string
	kind    string // app-backend, worker, background-task, ...
}

// backendServices lists the services of m the host runs itself.
func backendServices(m map[string]any) []backendSpec {
	list, _ := m["services"].([]any)
	var out []backendSpec
	for _, it := range list {
		s, _ := it.(map[string]any)
		if stringField(s, "executionPlane") != "client-local" || stringField(s, "protocol") != "stdio-jsonrpc" {
			continue
		}
		cmd := ""
		for _, f := range []string{"command", "binary", "path", "entry"} {
			if cmd = stringField(s, f); cmd != "" {
				break
			}
		}
		out = append(out, backendSpec{key: stringField(s, "key"), kind: stringField(s, "kind"), command: cmd, network: stringField(s, "network")})
	}
	return out
}

// backend is one supervised service of one app.
type backend struct {
	appID string
	spec  backendSpec
	exe   string // the command in the installed copy
	env   []string
	dir   string // working folder: the app's data folder
	sb    sandbox
	// restartCrashed is false under backend-crash-ignored.
	restartCrashed bool
	// maxRestarts is how many times a crashed backend is restarted
	// before it is reported crashed.
	maxRestarts int
	// limited puts the process under the host's resource limits
	// (limitProcess); discardStderr drops its stderr (faults only).
	limited, discardStderr bool
	// silenceAnswered answers a relayed request the running backend left
	// unanswered with a null result (a fault only).
	silenceAnswered bool

	call sync.Mutex // one relayed request at a time
	mu   sync.Mutex
	proc *backendProc
	// state is protocol.BackendRunning, BackendStopped or BackendCrashed.
	state    string
	restarts int
	stopping bool
	seq      int64
}

// backendProc is one process of a backend.
type backendProc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	lines  chan []byte // answer lines; closed when stdout ends
	exited chan struct{}
	stderr *capped
}

// capped keeps the last max bytes written to it (the backend's stderr).
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

// String is what was kept.
func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if over := c.buf.Len() - c.max; over > 0 {
		c.buf.Next(over)
	}
	return len(p), nil
}

// backends is the host's supervisor: every backend it started since the
// last reset, by app id.
type backends struct {
	mu    sync.Mutex
	byApp map[string][]*backend
}

func newBackends() *backends { return &backends{byApp: map[string][]*backend{}} }

// startBackends starts the client-local backends of the installed app
// appID (pk is its installed copy) unless they run already.
func (h *Host) startBackends(appID string, pk *agentpkg.Package) *jsonrpc2.Error {
	specs := backendServices(pk.Manifest)
	if len(specs) == 0 {
		return nil
	}
	h.mu.Lock()
	a, ok := h.apps[appID]
	var dataDir string
	if ok {
		dataDir = a.dataDir
	}
	cfg := h.cfg
	h.mu.Unlock()
	if !ok {
		return rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", appID), nil)
	}
	b := h.backends
	b.mu.Lock()
	defer b.mu.Unlock()
	running := map[string]bool{}
	for _, be := range b.byApp[appID] {
		if be.isRunning() {
			running[be.spec.key] = true
		}
	}
	var started []*backend
	for _, s := range specs {
		if running[s.key] {
			continue
		}
		be, err := h.newBackend(appID, s, pk.Dir, dataDir, cfg)
		// fault: backend-relaunch-stderr-lost — the stderr of a service started again (after disable and enable) is not captured: only its first process's is.
		if err == nil && h.faults.Has("backend-relaunch-stderr-lost") && slices.ContainsFunc(b.byApp[appID], func(o *backend) bool { return o.spec.key == s.key }) {
			be.discardStderr = true
		}
		if err == nil {
			err = be.start()
		}
		if err != nil {
			for _, st := range started {
				st.stop()
			}
			return rpcError(protocol.CodeUnsupported, fmt.Sprintf("backend service %q of %s cannot start under this host's supervision: %v", s.key, appID, err), nil)
		}
		started = append(started, be)
	}
	// Replace the records of services that stopped with the new ones.
	keep := b.byApp[appID][:0]
	for _, be := range b.byApp[appID] {
		if running[be.spec.key] {
			keep = append(keep, be)
		}
	}
	b.byApp[appID] = append(keep, started...)
	return nil
}

// newBackend prepares the supervised process of service s.
func (h *Host) newBackend(appID string, s backendSpec, pkgDir, dataDir string, cfg *protocol.ConfigureParams) (*backend, error) {
	rel := packagePath(s.command, "")
	if s.key == "" || rel == "" {
		return nil, fmt.Errorf("the service declares no command inside the package (%q)", s.command)
	}
	exe := filepath.Join(pkgDir, filepath.FromSlash(rel))
	st, err := os.Lstat(exe)
	if err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("its command %s is not a file of the installed package", rel)
	}
	// The host's copy keeps no modes: the declared command is made
	// executable (modes are not part of packageHash).
	if err := os.Chmod(exe, 0o755); err != nil {
		return nil, fmt.Errorf("making %s executable: %w", rel, err)
	}
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + dataDir, "LIME_APP_ID=" + appID,
		"LIME_DATA_DIR=" + dataDir, "LIME_SERVICE_KEY=" + s.key}
	// fault: backend-env-inherits-secrets — the configured secrets and session tokens are handed to the backend in its environment, for convenience.
	if h.faults.Has("backend-env-inherits-secrets") && cfg != nil {
		for k, v := range cfg.Secrets {
			env = append(env, "LIME_SECRET_"+strings.ToUpper(k)+"="+v)
		}
		for k, v := range cfg.SessionTokens {
			env = append(env, "LIME_SESSION_"+strings.ToUpper(k)+"="+v)
		}
	}
	sb := sandbox{readExec: []string{pkgDir, "/usr", "/lib", "/lib64", "/bin"}, readWrite: []string{dataDir},
		denyNet: s.network == "" || s.network == "deny-by-default"}
	// fault: backend-grants-prefixed-apps — the sandbox also opens the folders of every app whose id begins with this app's id (taken for its own releases).
	if h.faults.Has("backend-grants-prefixed-apps") {
		h.mu.Lock()
		for id, a := range h.apps {
			if id != appID && strings.HasPrefix(id, appID) && a.dataDir != "" {
				sb.readExec = append(sb.readExec, a.dataDir)
			}
		}
		h.mu.Unlock()
	}
	// fault: backend-unsandboxed — the backend runs with the host's own rights: no filesystem or network restriction.
	if h.faults.Has("backend-unsandboxed") {
		sb.off = true
	}
	// fault: worker-unsandboxed — only services of kind app-backend are sandboxed: a worker runs with the host's own rights.
	if s.kind == "worker" && h.faults.Has("worker-unsandboxed") {
		sb.off = true
	}
	// fault: backend-may-listen — deny-by-default stops outgoing connections only: the backend may still listen on a port.
	sb.mayBind = h.faults.Has("backend-may-listen")
	// fault: backend-network-open — the filesystem is restricted, but the network policy deny-by-default is not applied.
	if h.faults.Has("backend-network-open") {
		sb.denyNet = false
	}
	restarts := maxBackendRestarts
	// variant: backend-crash-reported — a backend that exits on its own is not restarted; host/observe reports it crashed.
	if h.variants.Has("backend-crash-reported") {
		restarts = 0
	}
	return &backend{appID: appID, spec: s, exe: exe, env: env, dir: dataDir, sb: sb, maxRestarts: restarts,
		restartCrashed: !h.faults.Has("backend-crash-ignored"), state: protocol.BackendStopped,
		// fault: backend-no-resource-limits — the backend runs with the host's own resource limits: as many files and as large as the host may.
		limited:       !h.faults.Has("backend-no-resource-limits"),
		discardStderr: h.faults.Has("backend-stderr-discarded"),
		// fault: backend-silence-as-success — a backend still running that answers nothing within the call timeout is answered a null result (held-out m10).
		silenceAnswered: h.faults.Has("backend-silence-as-success")}, nil
}

// start starts a new process of the backend (mu not held).
func (be *backend) start() error {
	p, err := be.spawn()
	if err != nil {
		return err
	}
	be.mu.Lock()
	be.proc, be.state, be.stopping = p, protocol.BackendRunning, false
	be.mu.Unlock()
	go be.supervise(p)
	return nil
}

// spawn starts one process: stdin and stdout are pipes the host holds,
// stderr is kept, bounded.
func (be *backend) spawn() (*backendProc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the backend's stdin: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, fmt.Errorf("making the backend's stdout: %w", err)
	}
	p := &backendProc{stdin: inW, lines: make(chan []byte, 16), exited: make(chan struct{}), stderr: &capped{max: backendStderrMax}}
	cmd := exec.Command(be.exe)
	cmd.Dir, cmd.Env = be.dir, be.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	// fault: backend-stderr-discarded — the backend's stderr goes nowhere: nothing it logs is kept.
	if be.discardStderr {
		cmd.Stderr = io.Discard
	}
	p.cmd = cmd
	err = startSandboxed(cmd, be.sb)
	if err == nil && be.limited {
		err = limitProcess(cmd.Process.Pid)
		if err != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}
	_ = inR.Close()
	_ = outW.Close()
	if err != nil {
		_ = inW.Close()
		_ = outR.Close()
		return nil, err
	}
	go readLines(outR, p.lines)
	return p, nil
}

// readLines passes each line of r to lines, closing it at the end (or at a
// line past backendMaxLine: the host stops listening to such a backend).
func readLines(r *os.File, lines chan<- []byte) {
	defer close(lines)
	defer func() { _ = r.Close() }()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), backendMaxLine)
	for sc.Scan() {
		lines <- append([]byte(nil), sc.Bytes()...)
	}
}

// supervise waits for p to exit; an exit the host did not ask for is a
// crash, restarted up to maxBackendRestarts times.
func (be *backend) supervise(p *backendProc) {
	_ = p.cmd.Wait()
	_ = p.stdin.Close()
	close(p.exited)
	be.mu.Lock()
	if be.proc != p || be.stopping {
		if be.proc == p {
			be.state = protocol.BackendStopped
		}
		be.mu.Unlock()
		return
	}
	// fault: backend-crash-ignored — a backend that exits on its own is neither restarted nor reported: the host still says it runs.
	if !be.restartCrashed {
		be.mu.Unlock()
		return
	}
	if be.restarts >= be.maxRestarts {
		be.state = protocol.BackendCrashed
		be.mu.Unlock()
		return
	}
	be.restarts++
	be.mu.Unlock()
	time.Sleep(backendRestartWait)
	be.mu.Lock()
	if be.stopping || be.proc != p {
		be.mu.Unlock()
		return
	}
	np, err := be.spawn()
	if err != nil {
		be.state = protocol.BackendCrashed
		be.mu.Unlock()
		return
	}
	be.proc = np
	be.mu.Unlock()
	go be.supervise(np)
}

func (be *backend) isRunning() bool {
	be.mu.Lock()
	defer be.mu.Unlock()
	return be.state == protocol.BackendRunning
}

// stop ends the backend: SIGTERM, SIGKILL after backendStopGrace, and waits
// for the process to be reaped.
func (be *backend) stop() {
	be.mu.Lock()
	be.stopping = true
	p := be.proc
	be.state = protocol.BackendStopped
	be.mu.Unlock()
	if p == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return
	case <-time.After(backendStopGrace):
	}
	_ = p.cmd.Process.Kill()
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}

// state is what host/observe shows of the backend.
func (be *backend) observed() protocol.BackendState {
	be.mu.Lock()
	defer be.mu.Unlock()
	s := protocol.BackendState{Service: be.spec.key, State: be.state, Restarts: be.restarts}
	if be.state == protocol.BackendRunning && be.proc != nil {
		s.PID = be.proc.cmd.Process.Pid
	}
	if be.proc != nil {
		s.Log = be.proc.stderr.String()
	}
	return s
}

// relay sends one request to the running process and waits for its answer.
func (be *backend) relay(method string, params json.RawMessage, idless bool, wait time.Duration) (json.RawMessage, *jsonrpc2.Error) {
	be.call.Lock()
	defer be.call.Unlock()
	be.mu.Lock()
	p, state := be.proc, be.state
	be.seq++
	id := be.seq
	be.mu.Unlock()
	if p == nil || state != protocol.BackendRunning {
		return nil, rpcError(protocol.CodeNotReady, fmt.Sprintf("backend service %q of %s is %s", be.spec.key, be.appID, state), nil)
	}
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if len(params) > 0 {
		req["params"] = params
	}
	line, err := json.Marshal(req)
	if err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	// A backend that stops reading its stdin must not hold the host.
	_ = p.stdin.SetWriteDeadline(time.Now().Add(wait))
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		return nil, rpcError(protocol.CodeInternalError, fmt.Sprintf("backend service %q of %s does not take requests: %v", be.spec.key, be.appID, err), nil)
	}
	deadline := time.After(wait)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return nil, rpcError(protocol.CodeInternalError, fmt.Sprintf("backend service %q of %s ended before it answered", be.spec.key, be.appID), nil)
			}
			var resp struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(l, &resp) != nil || string(resp.ID) != fmt.Sprint(id) && (!idless || len(resp.ID) > 0) {
				continue // not the answer to this request
			}
			if resp.Error != nil {
				return nil, rpcError(protocol.CodeInternalError, fmt.Sprintf("backend service %q answered error %d: %s", be.spec.key, resp.Error.Code, resp.Error.Message), nil)
			}
			return resp.Result, nil
		case <-deadline:
			if be.silenceAnswered && be.isRunning() {
				return json.RawMessage(`null`), nil
			}
			return nil, rpcError(protocol.CodeInternalError, fmt.Sprintf("backend service %q of %s did not answer within %s", be.spec.key, be.appID, wait), nil)
		}
	}
}

// backendCall answers app/backend.
func (h *Host) backendCall(p protocol.BackendParams) (protocol.BackendResult, *jsonrpc2.Error) {
	if !h.isInstalled(p.AppID) {
		return protocol.BackendResult{}, rpcError(protocol.CodeAppNotFound, fmt.Sprintf("no installed app with appId %q", p.AppID), nil)
	}
	be := h.backends.find(p.AppID, p.Service)
	if be == nil {
		return protocol.BackendResult{}, rpcError(protocol.CodeNotReady, fmt.Sprintf("app %s has no started backend service %q (it starts when an entry launches)", p.AppID, p.Service), nil)
	}
	// fault: backend-answer-without-id — the relay takes a line without an id (a notification the backend writes first) as the answer to the request in flight.
	r, e := be.relay(p.Method, p.Params, h.faults.Has("backend-answer-without-id"), h.timeouts().backend)
	if e != nil {
		return protocol.BackendResult{}, e
	}
	return protocol.BackendResult{Result: r}, nil
}

func (b *backends) find(appID, key string) *backend {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, be := range b.byApp[appID] {
		if be.spec.key == key {
			return be
		}
	}
	return nil
}

// observe lists the backends of appID, by service key.
func (b *backends) observe(appID string) []protocol.BackendState {
	b.mu.Lock()
	list := append([]*backend(nil), b.byApp[appID]...)
	b.mu.Unlock()
	var out []protocol.BackendState
	for _, be := range list {
		out = append(out, be.observed())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Service < out[j].Service })
	return out
}

// stopApp stops every backend of appID, keeping their records.
func (b *backends) stopApp(appID string) {
	b.mu.Lock()
	list := append([]*backend(nil), b.byApp[appID]...)
	b.mu.Unlock()
	stopAll(list)
}

// stopOrphans stops the backends of apps that are no longer installed.
func (h *Host) stopOrphanBackends() {
	b := h.backends
	b.mu.Lock()
	var ids []string
	for id := range b.byApp {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	for _, id := range ids {
		if !h.isInstalled(id) {
			b.stopApp(id)
		}
	}
}

// stopAllAndForget stops every backend and forgets them (host/reset, close).
func (b *backends) stopAllAndForget() {
	b.mu.Lock()
	var list []*backend
	for _, l := range b.byApp {
		list = append(list, l...)
	}
	b.byApp = map[string][]*backend{}
	b.mu.Unlock()
	stopAll(list)
}

// stopAll stops the backends given, in parallel.
func stopAll(list []*backend) {
	var wg sync.WaitGroup
	for _, be := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			be.stop()
		}()
	}
	wg.Wait()
}
