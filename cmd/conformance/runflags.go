package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/agentapp/conformance/drivers/browser"
	"github.com/agentapp/conformance/reports"
)

// checkRunOptions checks the flag values of `conformance run` that would
// otherwise fail only after specs ran (a signing key, a host artifact, an
// --out that is not a report folder) or inside Ginkgo (a focus that does not compile panics there). Each error is
// one line that names its flag.
func checkRunOptions(o *runOptions) error {
	if o.signKey != "" {
		if _, err := reports.LoadPrivateKey(o.signKey); err != nil {
			return fmt.Errorf("--sign-key: %s", oneLine(err))
		}
	}
	if strings.TrimSpace(o.out) == "" {
		return errors.New("--out must name a folder")
	}
	// Checked again under the lock when the run opens --out (openReportDir).
	if err := checkReplaceable(o.out); err != nil {
		return fmt.Errorf("--out %s: %w", o.out, err)
	}
	if o.hostArtifact != "" {
		if err := checkRegularFile(o.hostArtifact); err != nil {
			return fmt.Errorf("--host-artifact: %w", err)
		}
	}
	if o.hostAddr != "" {
		if err := checkHostPort(o.hostAddr); err != nil {
			return fmt.Errorf("--host-addr %q: %w", o.hostAddr, err)
		}
	}
	if o.browser != "" {
		if err := checkRegularFile(o.browser); err != nil {
			return fmt.Errorf("--browser: %w", err)
		}
	}
	if o.browserAttempts < 0 || o.browserAttempts > 2 {
		return fmt.Errorf("--browser-attempts %d: want 1 or 2 (0 means the default, 2)", o.browserAttempts)
	}
	if o.backendProbe != "" {
		if err := checkRegularFile(o.backendProbe); err != nil {
			return fmt.Errorf("--backend-probe: %w", err)
		}
	}
	if o.browserWS != "" && !strings.HasPrefix(o.browserWS, "ws://") && !strings.HasPrefix(o.browserWS, "wss://") {
		return fmt.Errorf("--browser-endpoint %q: want a DevTools ws:// or wss:// URL", o.browserWS)
	}
	o.engines = []browser.Engine{browser.EngineChromium}
	if o.browserEngine != "" {
		es, err := parseEngines(o.browserEngine)
		if err != nil {
			return err
		}
		o.engines = es
	}
	engine := o.engines[0]
	if len(o.engines) > 1 && (o.browser != "" || o.webdriverURL != "" || o.browserWS != "") {
		// Each names one engine's browser or remote end.
		return fmt.Errorf("--browser-engine %s judges in each engine's own browser: drop --browser, --webdriver and --browser-endpoint, which name one", o.browserEngine)
	}
	if o.webdriverURL != "" && !strings.HasPrefix(o.webdriverURL, "http://") && !strings.HasPrefix(o.webdriverURL, "https://") {
		return fmt.Errorf("--webdriver %q: want the remote end's http:// URL", o.webdriverURL)
	}
	if o.webdriverCaps != "" {
		if err := json.Unmarshal([]byte(o.webdriverCaps), &o.webdriverCapsObj); err != nil {
			return fmt.Errorf("--webdriver-capabilities: want a JSON object of capabilities: %s", oneLine(err))
		}
		if o.webdriverCapsObj == nil {
			return errors.New("--webdriver-capabilities: want a JSON object of capabilities, not null")
		}
		if len(o.engines) > 1 {
			return errors.New("--webdriver-capabilities names one engine's session: drop it with --browser-engine " + o.browserEngine)
		}
	}
	if o.webdriverHost && (o.hostAddr == "" || o.webdriverCapsObj == nil) {
		// The host is the session's application: it cannot also be the
		// harness's child, and without capabilities the session starts a
		// plain browser.
		return errors.New("--webdriver-host wants --webdriver-capabilities naming the host's application and --host-addr where it listens (not --host-cmd)")
	}
	if o.browserWS != "" && (o.webdriverURL != "" || engine != browser.EngineChromium) {
		return errors.New("--browser-endpoint (DevTools) excludes --webdriver and --browser-engine webkit")
	}
	for _, f := range o.focus {
		if _, err := regexp.Compile(f); err != nil {
			return fmt.Errorf("--focus %q: %s", f, oneLine(err))
		}
	}
	sh, err := parseShard(o.shardSpec)
	if err != nil {
		return err
	}
	o.shard = sh
	if o.labelFilter != "" {
		if n := len(o.labelFilter); n > reports.MaxLabelFilter {
			return fmt.Errorf("--label-filter: %d characters, more than the report keeps (%d)", n, reports.MaxLabelFilter)
		}
		if _, err := types.ParseLabelFilter(o.labelFilter); err != nil {
			return fmt.Errorf("--label-filter %q: %s", o.labelFilter, labelFilterError(err))
		}
	}
	return nil
}

// checkRegularFile checks that path names a regular file this process can read.
func checkRegularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// checkHostPort checks a HOST:PORT address with a numeric port in 1..65535.
func checkHostPort(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("want HOST:PORT: %w", err)
	}
	if host == "" {
		return errors.New("want HOST:PORT: the host is missing")
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	return nil
}

// labelFilterError gives the last line of Ginkgo's syntax error, which says
// what is wrong; the lines above it repeat the filter with terminal markup.
func labelFilterError(err error) string {
	var ge types.GinkgoError
	if errors.As(err, &ge) && ge.Message != "" {
		msg := strings.TrimSpace(ge.Message)
		return msg[strings.LastIndex(msg, "\n")+1:]
	}
	return oneLine(err)
}

// oneLine joins a multi-line error message into one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
