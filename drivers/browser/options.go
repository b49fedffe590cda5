package browser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/agentapp/conformance/drivers/procs"
)

// ErrNoBrowser is returned, wrapped, by [LaunchChromium] when it finds no
// browser binary to start. Callers skip their browser specs with it.
var ErrNoBrowser = errors.New("no Chromium-family browser installed")

// Options configure [LaunchChromium]. The zero value launches a headless
// Chromium found in PATH.
type Options struct {
	// Binary is the browser executable, a path or a name looked up in PATH.
	// Empty means the first of chromium, chromium-browser and google-chrome
	// that PATH has.
	Binary string

	// Visible shows the browser window instead of running headless (it
	// needs a display).
	Visible bool

	// ExtraFlags are more command-line switches, named without the leading
	// "--". A string (or number) value gives --name=value, true gives
	// --name, and false removes a switch this package passes by default,
	// such as "disable-gpu". The profile directory (user-data-dir) is the
	// package's to choose.
	ExtraFlags map[string]any

	// Log receives the browser's own output and the complaints of the
	// DevTools client. Nil discards them.
	Log io.Writer
}

// profileEnv marks the environment of a launched browser with its profile
// directory, so that Close finds the helpers that do not name it on their
// command line.
const profileEnv = procs.EnvBrowserProfile

// binaryNames are the names LaunchChromium looks up in PATH, in order.
func binaryNames() []string {
	return []string{"chromium", "chromium-browser", "google-chrome"}
}

// findBinary resolves o.Binary, or the first known browser name, in PATH.
// Every failure wraps ErrNoBrowser.
func findBinary(name string) (string, error) {
	if name != "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("browser: %w: %v", ErrNoBrowser, err)
		}
		return p, nil
	}
	for _, n := range binaryNames() {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("browser: %w (looked for %v in PATH)", ErrNoBrowser, binaryNames())
}

// allocatorOptions are the chromedp options that start exe with a fresh
// profile in dir: headless unless visible, sandbox, GPU, first-run UI and
// background traffic off, then the caller's extra flags.
// profileTmp is the folder in the profile directory the browser gets as
// its TMPDIR.
const profileTmp = "tmp"

func allocatorOptions(exe, dir string, o Options, out io.Writer) ([]chromedp.ExecAllocatorOption, error) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints"),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(dir),
		chromedp.Env(profileEnv + "=" + dir),
		// Chromium's own temporary files (shared memory under
		// --disable-dev-shm-usage) go inside the profile, so removing the
		// profile removes them even after the browser was killed.
		chromedp.Env("TMPDIR=" + filepath.Join(dir, profileTmp)),
		chromedp.CombinedOutput(out),
	}
	if !o.Visible {
		opts = append(opts, chromedp.Headless)
	}
	names := make([]string, 0, len(o.ExtraFlags))
	for name := range o.ExtraFlags {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var v any
		switch x := o.ExtraFlags[name].(type) {
		case string, bool:
			v = x
		case int, int64, float64, uint:
			v = fmt.Sprint(x)
		default:
			return nil, fmt.Errorf("browser: flag %q: want a string, number or bool, got %T", name, x)
		}
		switch name {
		case "user-data-dir":
			return nil, errors.New("browser: the profile directory (user-data-dir) is fresh for every launch and cannot be set")
		case "remote-debugging-port", "remote-debugging-address":
			// A debugging port means a websocket instead of the pipe.
			opts = append(opts, remote.WebSocket)
		}
		opts = append(opts, chromedp.Flag(name, v))
	}
	return opts, nil
}

// syncWriter serialises writes from the browser's output copier and the
// client's loggers.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// logf writes one line to w in the manner of log.Printf.
func (s *syncWriter) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(s, "chromedp: "+format+"\n", args...)
}

// hasWord reports whether s has w between separators (or s's ends).
func hasWord(s, w []byte, seps string) bool {
	isSep := func(b byte) bool { return strings.IndexByte(seps, b) >= 0 }
	for i := 0; ; {
		j := bytes.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || isSep(s[start-1])) && (end == len(s) || isSep(s[end])) {
			return true
		}
		i = start + 1
	}
}
