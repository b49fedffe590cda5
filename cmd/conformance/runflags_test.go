package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// TestRunRejectsBadFlagValuesBeforeAnySpec gives `conformance run` one bad
// flag value at a time: each is a one-line usage error naming the flag,
// exit 2, and nothing is written beside or into --out. (A value that got
// past the checks would start Ginkgo in this process and fail the test.)
func TestRunRejectsBadFlagValuesBeforeAnySpec(t *testing.T) {
	files := t.TempDir()
	_, pub := keygen(t, reports.Ed25519)
	garbage := filepath.Join(files, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{"sign-key missing", []string{"--sign-key", filepath.Join(files, "none.key")}, "--sign-key"},
		{"sign-key not PEM", []string{"--sign-key", garbage}, "--sign-key"},
		{"sign-key a public key", []string{"--sign-key", pub}, "--sign-key"},
		{"sign-key a folder", []string{"--sign-key", files}, "--sign-key"},
		{"host-artifact missing", []string{"--host-artifact", filepath.Join(files, "none")}, "--host-artifact"},
		{"host-artifact a folder", []string{"--host-artifact", files}, "--host-artifact"},
		{"backend-probe missing", []string{"--backend-probe", filepath.Join(files, "none")}, "--backend-probe"},
		{"browser-attempts 3", []string{"--browser-attempts", "3"}, "--browser-attempts"},
		{"browser-attempts negative", []string{"--browser-attempts", "-1"}, "--browser-attempts"},
		{"browser-engine unknown", []string{"--browser-engine", "gecko"}, "--browser-engine"},
		{"browser-engine list with an unknown", []string{"--browser-engine", "chromium,gecko"}, "--browser-engine"},
		{"browser-engine twice", []string{"--browser-engine", "webkit,webkit"}, "--browser-engine"},
		{"browser-engine empty item", []string{"--browser-engine", "chromium,"}, "--browser-engine"},
		{"two engines with one webdriver", []string{"--browser-engine", "chromium,webkit", "--webdriver", "http://127.0.0.1:4444"}, "--browser-engine"},
		{"webdriver not http", []string{"--webdriver", "ws://127.0.0.1:4444"}, "--webdriver"},
		{"webdriver-capabilities not JSON", []string{"--webdriver-capabilities", "tauri:options"}, "--webdriver-capabilities"},
		{"webdriver-capabilities not an object", []string{"--webdriver-capabilities", "[1]"}, "--webdriver-capabilities"},
		{"webdriver-capabilities null", []string{"--webdriver-capabilities", "null"}, "--webdriver-capabilities"},
		{"webdriver-capabilities with two engines", []string{"--browser-engine", "chromium,webkit", "--webdriver-capabilities", "{}"}, "--webdriver-capabilities"},
		{"webdriver-host without host-addr", []string{"--webdriver-host", "--webdriver-capabilities", "{}"}, "--webdriver-host"},
		{"webdriver-host without capabilities", []string{"--webdriver-host", "--host-addr", "127.0.0.1:7000"}, "--webdriver-host"},
		{"browser-endpoint with webkit", []string{"--browser-engine", "webkit", "--browser-endpoint", "ws://127.0.0.1:9222"}, "--browser-endpoint"},
		{"host-addr no port", []string{"--host-addr", "127.0.0.1"}, "--host-addr"},
		{"host-addr no host", []string{"--host-addr", ":7000"}, "--host-addr"},
		{"host-addr port 0", []string{"--host-addr", "127.0.0.1:0"}, "--host-addr"},
		{"host-addr port too big", []string{"--host-addr", "127.0.0.1:65536"}, "--host-addr"},
		{"host-addr named port", []string{"--host-addr", "localhost:http"}, "--host-addr"},
		{"focus unbalanced", []string{"--focus", "(["}, "--focus"},
		{"second focus bad", []string{"--focus", "ok", "--focus", "a)"}, "--focus"},
		{"label-filter dangling", []string{"--label-filter", "a &&"}, "--label-filter"},
		{"label-filter unbalanced", []string{"--label-filter", "(a || b"}, "--label-filter"},
		{"label-filter longer than the report keeps", []string{"--label-filter", strings.Repeat("a || ", 820) + "a"}, "--label-filter"},
		{"shard index 0", []string{"--shard", "0/3"}, "--shard"},
		{"shard past its total", []string{"--shard", "4/3"}, "--shard"},
		{"shard not I/N", []string{"--shard", "2"}, "--shard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "report")
			args := append([]string{"run", "--quiet", "--out", out}, tc.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "conformance run: "+tc.flag) {
				t.Errorf("stderr %q, want one line naming %s", stderr, tc.flag)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if entries, _ := os.ReadDir(parent); len(entries) > 0 {
				t.Errorf("a rejected run wrote %s beside --out", entries[0].Name())
			}
		})
	}
}

// TestRunRefusesAnOutThatIsNotAReport: an --out holding a folder, or files
// but no report, is a usage error before anything runs, and stays as it was.
func TestRunRefusesAnOutThatIsNotAReport(t *testing.T) {
	out := t.TempDir()
	if err := os.Mkdir(filepath.Join(out, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "run", "--out", ""); code != exitUsage || !strings.HasPrefix(stderr, "conformance run: --out ") {
		t.Errorf("--out \"\": exit %d, stderr %q", code, stderr)
	}
	code, _, stderr := runCLI(t, "run", "--quiet", "--out", out)
	if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "conformance run: --out "+out+": ") {
		t.Errorf("exit %d, stderr %q: want exit %d and one line naming --out", code, stderr, exitUsage)
	}
	if got := strings.Join(names(t, out), " "); got != "src" {
		t.Errorf("--out now holds %s", got)
	}
	if got := names(t, filepath.Dir(out)); len(got) != 1 {
		t.Errorf("beside --out: %v", got)
	}
}

// TestCheckRunOptionsAcceptsGoodValues keeps the checks from refusing what
// a run can use.
func TestCheckRunOptionsAcceptsGoodValues(t *testing.T) {
	priv, _ := keygen(t, reports.ECDSAP256)
	o := &runOptions{
		out:          filepath.Join(t.TempDir(), "report"),
		signKey:      priv,
		hostArtifact: priv,
		hostAddr:     "[::1]:65535",
		focus:        multiFlag{"install", `^P0-\w+$`},
		labelFilter:  "catalog && !slow || (P0-NO-APP-CODE)",
	}
	if err := checkRunOptions(o); err != nil {
		t.Fatal(err)
	}
	o.hostAddr = "localhost:1"
	if err := checkRunOptions(o); err != nil {
		t.Fatal(err)
	}
}
