//go:build unix

package browser

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone asserts that the process pid has ended and been reaped, that no
// process still uses the profile directory, and that the directory is gone.
func gone(t *testing.T, pid int, profile string) {
	t.Helper()
	if pid <= 0 {
		t.Fatalf("no browser PID (%d)", pid)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("browser process %d: kill(0) = %v, want it gone", pid, err)
	}
	if pids := usingProfile(profile); len(pids) > 0 {
		t.Errorf("processes %v still use the profile %s", pids, profile)
	}
	if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the profile directory %s is still there (%v)", profile, err)
	}
}

// Close kills the browser, its helpers and its profile directory.
func TestCloseLeavesNothing(t *testing.T) {
	b := launch(t)
	if i := b.Info(); !strings.HasPrefix(b.Describe(), "Chromium ") || !strings.HasSuffix(b.Describe(), ") over DevTools, launched headless") || i.Build == "" ||
		i.Engine != EngineChromium || i.Protocol != ProtocolDevTools || !regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`).MatchString(i.EngineVersion) ||
		!strings.Contains(b.Describe(), " "+i.EngineVersion+" ") {
		t.Errorf("Describe() = %q, Info() = %#v: want the engine and its version the browser answered", b.Describe(), i)
	}
	pid, profile := b.pid, b.profile
	if len(usingProfile(profile)) < 2 {
		t.Errorf("the browser runs %d processes with its profile; the check below would prove nothing", len(usingProfile(profile)))
	}
	s := session(t, b)
	site := serve(t, "127.0.0.1", html(map[string]string{"/": "<title>x</title>"}))
	if err := s.Open(within(t, 5*time.Second), site+"/"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(start))
	gone(t, pid, profile)
	if err := s.Eval(within(t, time.Second), "", "1", nil); !errors.Is(err, errBrowserClosed) {
		t.Errorf("Eval after Close: %v", err)
	}
	if _, err := b.NewSession(within(t, time.Second)); !errors.Is(err, errBrowserClosed) {
		t.Errorf("NewSession after Close: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// A browser that crashed is cleaned up too, and its sessions fail fast.
func TestCloseAfterCrash(t *testing.T) {
	b := launch(t)
	pid, profile := b.pid, b.profile
	s := session(t, b)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := s.Eval(within(t, 5*time.Second), "", "1", nil); err == nil {
		t.Error("Eval in a crashed browser succeeded")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Eval in a crashed browser took %v", took)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, pid, profile)
}

// No browser binary: ErrNoBrowser, so that callers can skip.
func TestNoBrowser(t *testing.T) {
	_, err := LaunchChromium(context.Background(), Options{Binary: "/nonexistent/chromium"})
	if !errors.Is(err, ErrNoBrowser) {
		t.Fatalf("LaunchChromium without a binary: %v, want ErrNoBrowser", err)
	}
	_, err = LaunchChromium(context.Background(), Options{ExtraFlags: map[string]any{"user-data-dir": "/tmp/x"}})
	if err == nil || errors.Is(err, ErrNoBrowser) && os.Getenv("CI") == "true" {
		t.Errorf("LaunchChromium with a profile flag: %v, want an error", err)
	}
}

// Attach drives a browser somebody else started with a debugging port (an
// Electron host in a certification run) and leaves it running.
func TestAttach(t *testing.T) {
	exe, err := findBinary("")
	skipWithoutBrowser(t, err)
	profile := t.TempDir()
	cmd := exec.Command(exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-port=0", "--user-data-dir="+profile, "about:blank")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		reap(profile)
	})
	ws := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				ws <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var endpoint string
	select {
	case endpoint = <-ws:
	case <-time.After(15 * time.Second):
		t.Fatal("the browser printed no DevTools address")
	}

	b, err := Attach(within(t, 10*time.Second), endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Describe(); !strings.HasSuffix(d, " over DevTools, attached to "+endpoint) || b.Info().Reached != "attached to "+endpoint || b.pid != 0 || b.profile != "" {
		t.Errorf("Describe() = %q, pid %d, profile %q", d, b.pid, b.profile)
	}
	app := appSite(t)
	host := hostSite(t, app)
	s := session(t, b)
	if err := s.Open(within(t, 5*time.Second), host+"/host"); err != nil {
		t.Fatal(err)
	}
	var got struct{ N int }
	if err := s.AwaitResult(within(t, 5*time.Second), app+"/app", &got); err != nil || got.N != 3 {
		t.Fatalf("AwaitResult over an attached browser: %+v, %v", got, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the attached browser is gone after Close: %v", err)
	}
	// It still answers, and has no tab of the session left.
	addr := strings.TrimPrefix(endpoint, "ws://")
	addr = addr[:strings.Index(addr, "/")]
	resp, err := http.Get("http://" + addr + "/json/list")
	if err != nil {
		t.Fatalf("the attached browser does not answer after Close: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(body), host) {
		t.Errorf("the session's page is still open in the attached browser: %s", body)
	}
}

// A launch cut short by its context leaves no process and no profile.
func TestLaunchTimeout(t *testing.T) {
	if _, err := findBinary(""); err != nil {
		skipWithoutBrowser(t, err)
	}
	before := profiles(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	b, err := LaunchChromium(ctx, Options{})
	if err == nil {
		_ = b.Close()
		t.Skip("the browser started within 30ms; nothing to test")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("LaunchChromium past its deadline: %v", err)
	}
	for dir := range profiles(t) {
		if !before[dir] {
			t.Errorf("the profile %s is left behind (processes %v)", dir, usingProfile(dir))
		}
	}
}

// profiles lists this package's profile directories in the temp dir.
func profiles(t *testing.T) map[string]bool {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "agentapp-browser-*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range m {
		out[d] = true
	}
	return out
}
