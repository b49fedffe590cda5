package backends

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// Waits of the backend specs.
const (
	// backendStopGrace is how long a stopped backend's process may take to
	// go after the host answered the call that stopped it.
	backendStopGrace = 3 * time.Second
	// backendRestartWait is how long a crashed backend may take to answer
	// again, or to be reported crashed.
	backendRestartWait = 6 * time.Second
)

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// describeBackends checks the host's supervision of an app's client-local
// backend services (spec 000, Client-local service backend; spec 001, App
// backend services; spec 002, Desktop P6), speaking to the backend through
// the app/backend hook (docs/host-control-protocol.md).
func describeBackends(tc *harness.TestContext) {
	Describe("App backend services", func() {
		It("runs an app's backend only while the app may run, and ends its process at disable and uninstall", tc.Req("BACKEND-SUPERVISED", levels.EveryTransition), func() {
			control, cr, _ := runningBackend(tc, "control")
			tc.Precondition("host/observe shows the control's backend running while it answers", func() {
				if b, ok := tc.BackendOf(control); !ok || b.State != protocol.BackendRunning {
					tc.Blockedf("host/observe of %s shows its backend as %+v (shown: %v) while it answers: the host does not report backends (observe.backends), which this check needs", control, b, ok)
				}
			})
			seen := harness.ProcessState(cr.PID) == "running"
			if !seen {
				tc.Reading("Backend lifecycle", fmt.Sprintf("the harness cannot see the backend's process (pid %d) on this machine", cr.PID))
			}

			dir := tc.BackendApp(harness.Nonce("backend"))
			app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			expectNotRunning(tc, app, "after install, before any entry launched")
			tc.LaunchBackend(app)
			first := expectAnswers(tc, app, "after app/launch of "+app)
			if b, ok := tc.BackendOf(app); !ok || b.State != protocol.BackendRunning {
				tc.Failf("after app/launch of %s host/observe shows its answering backend as %+v (shown: %v), not running", app, b, ok)
			}
			tc.MustCall(protocol.MethodDisable, protocol.AppIDParams{AppID: app}, &protocol.AppStateResult{})
			expectStopped(tc, app, first.PID, seen, "after app/disable")
			tc.MustCall(protocol.MethodEnable, protocol.AppIDParams{AppID: app}, &protocol.AppStateResult{})
			tc.LaunchBackend(app)
			again := expectAnswers(tc, app, "after app/enable and app/launch of "+app)
			tc.Uninstall(app, false)
			expectStopped(tc, app, again.PID, seen, "after app/uninstall")

			unready := tc.BackendApp(harness.Nonce("unready"))
			withRequiredSecret(unready, "provider_api_key")
			u := tc.Install(unready, tc.ReleaseOf(unready)).AppID
			tc.Precondition("the copy requiring the secret provider_api_key, which is not configured, is not ready", func() {
				if r := tc.AppReadiness(u); r.Status == protocol.StatusReady || r.Status == protocol.StatusReadyDegraded {
					tc.Blockedf("app/readiness of %s is %q although the secret it requires is not configured", u, r.Status)
				}
			})
			_, _ = tc.TryLaunch(u, harness.BackendEntry) // its refusal is READY-*'s concern; here only the backend is judged
			expectNotRunning(tc, u, "after app/launch of an app that needs setup")
			if !seen {
				tc.Blockedf("host/observe and app/backend showed each backend stopped where it should be, but the harness cannot see the backend's processes (pid %d is not in this machine's /proc), so whether they ended is not judged", cr.PID)
			}
		})

		// Who answers: the line carrying the request's id, never a
		// notification or another request's answer the backend writes
		// before it (docs/host-control-protocol.md, app/backend). The
		// control is probe/report through the same hook.
		It("relays the backend's answer to the request, past a notification and another request's answer it writes first, and a backend's error or silence as -32603", tc.Req("PROTO-BACKEND-RELAY", levels.WhoAnswers, levels.EveryMember), func() {
			// The host may wait on the silent backend below a second, not
			// its own call timeout (docs/host-control-protocol.md, "Peer
			// timeouts": backendMs).
			p := tc.DefaultConfigure()
			p.Timeouts.BackendMs = silentBackendMs
			tc.Configure(p)
			app, _, _ := runningBackend(tc, "relay")
			text := harness.Nonce("echo")
			raw, err := tc.BackendCall(app, "probe/echo", map[string]any{"text": text})
			if err != nil {
				tc.Failf("app/backend of probe/echo, which backend-probe answers after a notification and an answer to another id, answered %s", harness.AnswerOf(err))
			}
			var got struct {
				Echo string `json:"echo"`
			}
			if json.Unmarshal(raw, &got) != nil || got.Echo != text {
				tc.Failf("app/backend relayed %.200s as the backend's answer to probe/echo {text: %q}; its answer, with the request's id, is {\"echo\": %q}", raw, text, text)
			}
			// Every way the backend fails to answer is -32603, never a
			// result the host made up: an error the backend answers (a
			// method it does not know), and nothing within the call
			// timeout (probe/silent), which the host ends itself before
			// the harness's own call timeout. Silence last: a host that
			// does not answer it closes the session.
			for _, c := range []struct{ method, does string }{
				{"probe/" + harness.Nonce("unknown"), "answers with an error (it does not know the method)"},
				{"probe/silent", "never answers"},
			} {
				raw, err := tc.BackendCall(app, c.method, map[string]any{})
				if harness.CallTimedOut(err) {
					tc.Failf("app/backend of %s, which the backend %s, got no answer within the harness's call timeout: the host must answer -32603 once its own call timeout passes", c.method, c.does)
				}
				if err == nil {
					tc.Failf("app/backend of %s, which the backend %s, answered the result %.200s, not -32603: the host answered for the backend", c.method, c.does, raw)
				}
				if code, _ := tc.HostErrorCode(protocol.MethodBackend, err); code != protocol.CodeInternalError {
					tc.Failf("app/backend of %s, which the backend %s, answered %s, not -32603", c.method, c.does, harness.AnswerOf(err))
				}
			}
		})

		It("restarts a backend that exits on its own, or reports it crashed, never running while nothing answers", tc.Req("BACKEND-RESTART", levels.ChangeBetweenReads), func() {
			app, r, _ := runningBackend(tc, "restart")
			_, _ = tc.BackendCall(app, "probe/exit", map[string]any{"code": 3}) // it may exit before the answer reaches the host
			deadline := time.Now().Add(backendRestartWait)
			var last protocol.BackendState
			var shown bool
			for time.Now().Before(deadline) {
				if nr, _, err := tc.BackendReport(app, nil); err == nil && nr.PID != r.PID {
					b, _ := tc.BackendOf(app)
					tc.Reading("Backend restart", fmt.Sprintf("restarted: a new process answers (restarts %d)", b.Restarts))
					return
				}
				if last, shown = tc.BackendOf(app); shown && (last.State == protocol.BackendCrashed || last.State == protocol.BackendStopped) {
					tc.Reading("Backend restart", "reported "+last.State+", not restarted")
					return
				}
				time.Sleep(statePoll)
			}
			if nr, _, err := tc.BackendReport(app, nil); err == nil && nr.PID == r.PID {
				tc.Errorf("the backend of %s (pid %d) still answers after probe/exit: the relayed request did not reach it", app, r.PID)
			}
			if shown && last.State == protocol.BackendRunning {
				tc.Failf("%s after its backend (pid %d) exited on its own: host/observe says it runs (pid %d, restarts %d), but no process answers through app/backend", backendRestartWait, r.PID, last.PID, last.Restarts)
			}
			tc.Failf("%s after its backend (pid %d) exited on its own, no new process answers and host/observe reports it neither crashed nor stopped (shown: %v)", backendRestartWait, r.PID, shown)
		})

		DescribeTable("hands a backend or worker no configured secret or session token, in its environment, arguments or files", func(kind string) {
			tc.Configure(tc.WithSecret())
			app, r, _ := runningService(tc, "env", kind)
			env, err := json.Marshal(r.Env)
			if err != nil {
				harness.Errorf("encoding the backend's environment: %v", err)
			}
			tc.ExpectNoCanary("the environment of the backend of "+app, env)
			tc.ExpectNoCanary("the arguments of the backend of "+app, []byte(strings.Join(r.Args, "\x00")))
			for _, f := range r.Files {
				tc.ExpectNoCanary(fmt.Sprintf("the file %s, which the backend of %s read", f.Path, app), f.Content())
			}
		},
			Entry("an app backend", tc.Req("BACKEND-ENV-CLEAN", levels.EveryMember), harness.KindBackend),
			Entry("a worker", tc.Req("BACKEND-ENV-CLEAN", levels.EveryMember), harness.KindWorker),
		)

		DescribeTable("keeps a backend or worker from host databases, another app's stored data and the host's secrets", func(kind string) {
			tc.Configure(tc.WithSecret())
			stored := harness.Nonce("stored")
			half := len(stored) / 2
			// The value is joined by SQLite, so only the neighbour's database
			// holds it whole, not its package.
			kept := fmt.Sprintf("CREATE TABLE kept (v TEXT);\nINSERT INTO kept VALUES ('%s' || '%s');\n", stored[:half], stored[half:])
			// The neighbour's id begins with the backend's app id: a host
			// that grants folders by id prefix opens the neighbour's too.
			name := harness.Nonce("backend")
			other := tc.InstallMigrating(tc.MigrationApp(name+"-neighbour", map[string]string{"003_kept.sql": kept}), true)
			tc.Precondition("the neighbour's migrations, which store a fresh value in its database, are applied", func() {
				tc.ReadyWithMigrations(other)
			})
			otherRow, _ := tc.ListedApp(other)
			dir := tc.ServiceApp(name, kind)
			installed := tc.Install(dir, tc.ReleaseOf(dir))
			tc.LaunchBackend(installed.AppID)
			var paths []string
			if otherRow.InstalledPath != "" {
				paths = append(paths, otherRow.InstalledPath, filepath.Dir(otherRow.InstalledPath))
			}
			paths = append(paths, tc.Host().Hello().DataPaths...)
			// A sandbox may let the backend reach a folder it cannot list
			// the parent of: each folder in the host's data paths is asked
			// for by name (what the harness can list on this machine).
			for _, d := range tc.Host().Hello().DataPaths {
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					paths = append(paths, filepath.Join(d, e.Name()))
				}
			}
			var r harness.ProbeReport
			tc.Precondition("the backend answers probe/report and reads its own APP.md", func() {
				r, _ = tc.MustBackendReport(installed.AppID, map[string]any{"paths": paths})
				if !readOwnManifest(r, installed.AppID) {
					tc.Blockedf("the backend of %s read no APP.md naming it among the %d files it read: the harness cannot tell whether it can read at all", installed.AppID, len(r.Files))
				}
			})
			own := ownFolders(tc, installed, r, otherRow.InstalledPath)
			for _, f := range r.Files {
				if within(f.Path, tc.Config.WorkDir) {
					continue // the harness's own copies, no host's file
				}
				c := f.Content()
				if bytes.Contains(c, []byte(stored)) {
					tc.Failf("the backend of %s read %s, which holds the value the neighbour %s stored in its own database", installed.AppID, f.Path, other)
				}
				tc.ExpectNoCanary(fmt.Sprintf("the file %s, which the backend of %s read", f.Path, installed.AppID), c)
				if bytes.HasPrefix(c, sqliteHeader) && !withinAny(f.Path, own) && !systemFile(f.Path) {
					tc.Failf("the backend of %s read the SQLite database %s, outside its own package and data folder (%s)", installed.AppID, f.Path, strings.Join(own, ", "))
				}
			}
		},
			Entry("an app backend", tc.Req("BACKEND-NO-HOST-ACCESS", levels.EveryMember, levels.ConfusableIdentity), harness.KindBackend),
			Entry("a worker", tc.Req("BACKEND-NO-HOST-ACCESS", levels.EveryMember, levels.ConfusableIdentity), harness.KindWorker),
		)

		DescribeTable("runs a backend or worker under resource limits of its own, tighter than the host's", func(kind string) {
			app, r, _ := runningService(tc, "limits", kind)
			pid := strconv.Itoa(r.PID)
			if harness.ProcessState(r.PID) != "running" {
				tc.Blockedf("the harness cannot see the backend of %s (pid %d) on this machine, so its limits cannot be read", app, r.PID)
			}
			mine, err := procLimits("self")
			if err != nil {
				tc.Blockedf("the harness cannot read its own resource limits to compare: %v", err)
			}
			theirs, err := procLimits(pid)
			if err != nil {
				tc.Blockedf("the harness cannot read the resource limits of the backend of %s (pid %d): %v", app, r.PID, err)
			}
			if tighter := tighterLimits(theirs, mine); len(tighter) > 0 {
				tc.Reading("Backend sandbox", "resource limits: "+strings.Join(tighter, "; "))
				return
			}
			ownGroup, _ := cgroupLimits("self")
			group, set := cgroupLimits(pid)
			if group != "" && group != ownGroup && len(set) > 0 {
				tc.Reading("Backend sandbox", fmt.Sprintf("resource limits: cgroup %s (%s)", group, strings.Join(set, ", ")))
				return
			}
			tc.Failf("the backend of %s (pid %d) runs with no resource limit tighter than the harness's own (/proc/%d/limits: %v; the harness: %v) and in no cgroup of its own with a limit (its cgroup %q)",
				app, r.PID, r.PID, theirs, mine, group)
		},
			Entry("an app backend", tc.Req("BACKEND-RESOURCE-LIMITS", levels.EveryMember), harness.KindBackend),
			Entry("a worker", tc.Req("BACKEND-RESOURCE-LIMITS", levels.EveryMember), harness.KindWorker),
		)

		It("keeps what a backend writes to its stderr, for the host's logs", tc.Req("BACKEND-LOGS-CAPTURED", levels.EveryTransition), func() {
			app, _, _ := runningBackend(tc, "logs")
			tc.Precondition("host/observe shows the backend of "+app, func() {
				if _, ok := tc.BackendOf(app); !ok {
					tc.Blockedf("host/observe of %s shows no backend (observe.backends), which this check needs", app)
				}
			})
			logged := func(when string) {
				GinkgoHelper()
				line := harness.Nonce("logged")
				if _, err := tc.BackendCall(app, "probe/log", map[string]any{"text": line}); err != nil {
					tc.Errorf("the backend of %s did not answer probe/log through app/backend %s: %v", app, when, err)
				}
				deadline := time.Now().Add(backendStopGrace)
				for {
					b, _ := tc.BackendOf(app)
					if strings.Contains(b.Log, line) {
						return
					}
					if time.Now().After(deadline) {
						tc.Failf("%s after the backend of %s wrote %q to its stderr %s, host/observe shows its log as %q", backendStopGrace, app, line, when, harness.Truncate(b.Log, 300))
					}
					time.Sleep(logPoll)
				}
			}
			logged("after its first launch")
			// Every transition: a backend started again keeps its log too.
			tc.MustCall(protocol.MethodDisable, protocol.AppIDParams{AppID: app}, &protocol.AppStateResult{})
			tc.MustCall(protocol.MethodEnable, protocol.AppIDParams{AppID: app}, &protocol.AppStateResult{})
			tc.LaunchBackend(app)
			expectAnswers(tc, app, "after app/disable, app/enable and app/launch of "+app)
			logged("after app/disable, app/enable and app/launch")
		})

		DescribeTable("keeps a backend or worker whose manifest declares network deny-by-default from opening a TCP connection or listening on a port", func(kind string) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				harness.Errorf("opening the harness's loopback listener: %v", err)
			}
			tc.Resources().Track("listener "+l.Addr().String(), func() error { _ = l.Close(); return nil })
			var accepted atomic.Int32
			go func() {
				for {
					c, err := l.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					_ = c.Close()
				}
			}()
			app, _, _ := runningService(tc, "network", kind)
			r, _ := tc.MustBackendReport(app, map[string]any{"connect": l.Addr().String(), "listen": true})
			time.Sleep(acceptQuiet)
			if n := accepted.Load(); n > 0 {
				tc.Failf("the backend of %s, whose manifest declares network deny-by-default, opened %d TCP connection(s) to the harness's listener on %s", app, n, l.Addr())
			}
			if r.Net.ListenAddr != "" {
				tc.Failf("the backend of %s, whose manifest declares network deny-by-default, listened on %s", app, r.Net.ListenAddr)
			}
			if !r.Net.ConnectTried || !r.Net.ListenTried {
				tc.Errorf("backend-probe did not try to connect to %s and to listen: its report is not what the fixture sends", l.Addr())
			}
			if r.Net.ConnectOK {
				tc.Reading("Backend sandbox", "the backend says it connected, but the listener saw no connection (a host-mediated path)")
			}
		},
			Entry("an app backend", tc.Req("BACKEND-NETWORK-POLICY", levels.EveryMember), harness.KindBackend),
			Entry("a worker", tc.Req("BACKEND-NETWORK-POLICY", levels.EveryMember), harness.KindWorker),
		)
	})
}

// silentBackendMs is the wait on a backend that never answers the harness
// offers the host where a spec sends one such a request.
const silentBackendMs = 1000

// runningBackend installs and launches a fresh copy of backend-app and
// returns its app id and its backend's first report: the positive control
// of every backend spec. A host that cannot do this judges nothing here.
func runningBackend(tc *harness.TestContext, prefix string) (string, harness.ProbeReport, json.RawMessage) {
	GinkgoHelper()
	return runningService(tc, prefix, harness.KindBackend)
}

// runningService is runningBackend with the service declared of kind.
func runningService(tc *harness.TestContext, prefix, kind string) (string, harness.ProbeReport, json.RawMessage) {
	GinkgoHelper()
	dir := tc.ServiceApp(harness.Nonce(prefix), kind)
	var app string
	var r harness.ProbeReport
	var raw json.RawMessage
	tc.Precondition("a fresh copy of backend-app installs and launches, and its backend answers probe/report through app/backend", func() {
		app = tc.Install(dir, tc.ReleaseOf(dir)).AppID
		tc.LaunchBackend(app)
		r, raw = tc.MustBackendReport(app, nil)
	})
	return app, r, raw
}

// expectAnswers is the backend's report when it should run: a host that
// answers with an error fails the spec (the control's backend answered),
// an unusable answer ends it as an error.
func expectAnswers(tc *harness.TestContext, appID, when string) harness.ProbeReport {
	GinkgoHelper()
	r, _, err := tc.BackendReport(appID, nil)
	if _, refused := harness.HostError(err); refused {
		tc.Failf("%s its backend does not answer probe/report through app/backend, as the control's did: %v", when, err)
	}
	if err != nil {
		tc.Errorf("no usable answer to app/backend %s: %v", when, err)
	}
	return r
}

// expectNotRunning fails the spec when appID's backend runs: host/observe
// says so, or it answers through app/backend.
func expectNotRunning(tc *harness.TestContext, appID, when string) {
	GinkgoHelper()
	if b, ok := tc.BackendOf(appID); ok && b.State == protocol.BackendRunning {
		tc.Failf("host/observe shows the backend of %s running (pid %d) %s", appID, b.PID, when)
	}
	if r, _, err := tc.BackendReport(appID, nil); err == nil {
		tc.Failf("the backend of %s answered probe/report through app/backend (pid %d) %s: it runs", appID, r.PID, when)
	}
}

// expectStopped fails the spec when appID's backend still runs after a
// call that must stop it: shown running, answering, or (seen) its process
// pid still there after backendStopGrace.
func expectStopped(tc *harness.TestContext, appID string, pid int, seen bool, when string) {
	GinkgoHelper()
	expectNotRunning(tc, appID, when)
	if seen {
		if s := harness.WaitGone(pid, backendStopGrace); s == "running" {
			tc.Failf("the process of the backend of %s (pid %d) still runs %s after %s", appID, pid, backendStopGrace, strings.TrimPrefix(when, "after "))
		}
	}
}

// withRequiredSecret makes the package in dir require the workspace secret key.
func withRequiredSecret(dir, key string) {
	GinkgoHelper()
	harness.EditFrontmatter(dir, func(lines []string) []string {
		return append(lines, "secrets:", "  - key: "+key, "    provider: generic-llm", "    required: true", "    scope: workspace")
	})
}

// readOwnManifest reports whether the probe read an APP.md naming appID.
func readOwnManifest(r harness.ProbeReport, appID string) bool {
	for _, f := range r.Files {
		if filepath.Base(f.Path) == "APP.md" && bytes.Contains(f.Content(), []byte("\nname: "+appID+"\n")) {
			return true
		}
	}
	return false
}

// ownFolders are the folders that belong to the backend's app: its
// installed package (the host's installedPath, or the folder above the
// command) and the data folder it was given (LIME_DATA_DIR, HOME or its
// working folder). A candidate that holds the neighbour's package, the
// host's data folder or the harness's work folder is not its own
// (docs/decisions.md, "Backend sandbox").
func ownFolders(tc *harness.TestContext, app protocol.InstalledApp, r harness.ProbeReport, neighbour string) []string {
	pkg := app.InstalledPath
	if pkg == "" && r.Exe != "" {
		pkg = filepath.Dir(filepath.Dir(r.Exe))
	}
	foreign := append([]string{neighbour, tc.Config.WorkDir}, tc.Host().Hello().DataPaths...)
	var own []string
	for _, d := range []string{pkg, r.Env["LIME_DATA_DIR"], r.Env["HOME"], r.Cwd} {
		d = filepath.Clean(d)
		if !filepath.IsAbs(d) || len(d) < harness.MinHostPath {
			continue
		}
		holds := false
		for _, f := range foreign {
			if f != "" && within(filepath.Clean(f), d) {
				holds = true
			}
		}
		if !holds {
			own = append(own, d)
		}
	}
	return own
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

func withinAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// systemFile reports whether path is part of the system's installed
// software, which a sandbox may let a backend read: no host's database.
func systemFile(path string) bool {
	return withinAny(path, []string{"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin"})
}

// How often the backend specs poll host/observe, and the quiet period in
// which a connection the backend opened may still be accepted (an accept
// in flight is counted).
const (
	statePoll   = 200 * time.Millisecond
	logPoll     = 100 * time.Millisecond
	acceptQuiet = 200 * time.Millisecond
)
