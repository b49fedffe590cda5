package webdriver

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// remoteEnd is one installed driver the tests start.
type remoteEnd struct {
	name   string
	server ServerOptions
	caps   func(t *testing.T) Capabilities
}

// remoteEnds are Debian's chromedriver (chromium-driver) and
// WebKitWebDriver (webkit2gtk-driver, under xvfb-run).
func remoteEnds() []remoteEnd {
	return []remoteEnd{
		{"chromedriver", ServerOptions{Binary: "chromedriver"}, func(t *testing.T) Capabilities {
			return ChromeCapabilities(installed(t, "/usr/bin/chromium"), t.TempDir())
		}},
		{"webkit", ServerOptions{Binary: "WebKitWebDriver", Xvfb: true}, func(t *testing.T) Capabilities {
			return WebKitCapabilities(installed(t, MiniBrowser))
		}},
	}
}

// installed returns path (a path or a name in PATH), skipping the test
// under -short or when it is missing, except under CI=true, where a
// missing driver fails (make deps installs them).
func installed(t *testing.T, path string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts a browser (make test-quick leaves browsers out)")
	}
	p, err := exec.LookPath(path)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s is not installed (run `make deps`): %v", path, err)
		}
		t.Skipf("%s is not installed (make deps installs it): %v", path, err)
	}
	return p
}

// startSession starts the remote end and a session in it, both ended
// when the test ends.
func startSession(t *testing.T, re remoteEnd) *Session {
	t.Helper()
	installed(t, re.server.Binary)
	caps := re.caps(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var log bytes.Buffer
	srv, err := StartServer(ctx, ServerOptions{Binary: re.server.Binary, Xvfb: re.server.Xvfb, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Cleanup(srv.Close)
	s, err := NewClient(srv.URL).NewSession(ctx, caps)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Delete(ctx)
	})
	return s
}

// crossSitePage serves a page on 127.0.0.1 that mounts a frame from
// localhost, as a host mounts an app, and returns the page's address.
func crossSitePage(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	mux := http.NewServeMux()
	mux.HandleFunc("/host", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>host</title><iframe src="http://localhost:%d/app"></iframe>`, port)
	})
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><script>window.appGlobal = 7;</script><p>app</p>`)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return fmt.Sprintf("http://127.0.0.1:%d/host", port)
}

func TestClientDrivesTheInstalledRemoteEnds(t *testing.T) {
	for _, re := range remoteEnds() {
		t.Run(re.name, func(t *testing.T) {
			s := startSession(t, re)
			page := crossSitePage(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.Navigate(ctx, page); err != nil {
				t.Fatal(err)
			}
			var title string
			if err := s.ExecuteSync(ctx, "return document.title + arguments[0]", []any{"!"}, &title); err != nil || title != "host!" {
				t.Fatalf("the top page's title: %v, %q", err, title)
			}
			if err := s.SwitchToFrame(ctx, 0); err != nil {
				t.Fatal(err)
			}
			var seen []any
			if err := s.ExecuteAsync(ctx, "const cb = arguments[arguments.length-1]; setTimeout(() => cb([location.host.split(':')[0], window.appGlobal]), 5)", nil, &seen); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(seen) != "[localhost 7]" {
				t.Fatalf("the cross-site frame answered %v, want [localhost 7] (its host and its page's global)", seen)
			}
			if err := s.ExecuteSync(ctx, "throw new Error('boom')", nil, nil); !IsCode(err, CodeJavaScript) || !strings.Contains(err.Error(), "boom") {
				t.Fatalf("a throwing script: %v, want a javascript error naming boom", err)
			}
			if err := s.SwitchToParent(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.SwitchToFrame(ctx, 3); !IsCode(err, CodeNoSuchFrame) {
				t.Fatalf("switching to a frame the page lacks: %v, want no such frame", err)
			}
			if hs, err := s.WindowHandles(ctx); err != nil || len(hs) != 1 {
				t.Fatalf("window handles: %v, %v, want one", err, hs)
			}
			png, err := s.Screenshot(ctx)
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("screenshot: %v (%d bytes), want a PNG", err, len(png))
			}
			if u, err := s.CurrentURL(ctx); err != nil || u != page {
				t.Fatalf("current URL: %v, %q, want %q", err, u, page)
			}
		})
	}
}
