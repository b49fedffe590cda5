package mockhost

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// revocationEntry is a cached answer of a revocation service.
type revocationEntry struct {
	revoked bool
	reason  string
	until   time.Time
}

// revocationFindings runs step 3 of spec 000's verification order (Package
// signing and revocation): after the hashes passed (step 1; findings holds
// their result), ask the package's revocation.checkUrl, with a cache that
// honours cacheSeconds under the configured clock. A revoked package, and
// an answer that cannot be had, block install (step 5; the second is the
// harness's reading "An unreachable revocation endpoint").
func (h *Host) revocationFindings(p *agentpkg.Package, findings []protocol.Finding) []protocol.Finding {
	checkURL, cacheSeconds := revocationOf(p.Manifest)
	// fault: ignore-revocation — revocation.checkUrl is never called.
	if checkURL == "" || h.faults.Has("ignore-revocation") {
		return nil
	}
	// fault: revocation-skipped-for-installed-app — a release of an app already installed is not asked about ("it was checked at install"): app/update takes a revoked newer release (held-out l10).
	if name, _ := identity(p); name != "" && h.faults.Has("revocation-skipped-for-installed-app") && h.isInstalled(name) {
		return nil
	}
	// fault: revocation-before-hash — the revocation service is asked before, and whatever, the hashes say.
	if agentpkg.HasErrors(findings) && !h.faults.Has("revocation-before-hash") {
		return nil
	}
	_, now := h.config()
	if now.IsZero() {
		now = time.Now()
	}
	key := checkURL + " " + p.PackageHash
	// fault: revocation-cache-by-url — a cached revocation answer is kept per checkUrl, so every package naming the service gets the first one's answer.
	if h.faults.Has("revocation-cache-by-url") {
		key = checkURL
	}
	h.mu.Lock()
	e, cached := h.revocations[key]
	h.mu.Unlock()
	// fault: revocation-cache-forever — a cached answer is used whatever its age.
	if !cached || (!now.Before(e.until) && !h.faults.Has("revocation-cache-forever")) {
		// fault: revocation-missing-status-not-revoked — a 200 JSON answer without a revoked member (or with null) is read as not revoked.
		revoked, reason, err := askRevocation(checkURL, p, h.timeouts().revocation, h.faults.Has("revocation-missing-status-not-revoked"))
		if err != nil {
			// fault: revocation-fail-open — an unreachable revocation service lets the package through.
			if h.faults.Has("revocation-fail-open") {
				return nil
			}
			// fault: revocation-failure-cached — a failed lookup is remembered for cacheSeconds as "not revoked", to spare a service that is down: the next verification passes.
			if h.faults.Has("revocation-failure-cached") {
				h.mu.Lock()
				h.revocations[key] = revocationEntry{until: now.Add(time.Duration(cacheSeconds) * time.Second)}
				h.mu.Unlock()
			}
			return []protocol.Finding{revocationFinding("revocation-unavailable",
				fmt.Sprintf("the revocation status could not be had from %s (%v); the package is blocked until it can", checkURL, err))}
		}
		e = revocationEntry{revoked: revoked, reason: reason, until: now.Add(time.Duration(cacheSeconds) * time.Second)}
		h.mu.Lock()
		h.revocations[key] = e
		h.mu.Unlock()
	}
	if e.revoked {
		return []protocol.Finding{revocationFinding("revoked", "the package is revoked: "+e.reason)}
	}
	return nil
}

func revocationFinding(code, msg string) protocol.Finding {
	return protocol.Finding{Code: code, Severity: agentpkg.SeverityError, File: "app.signature.yaml",
		Field: "signature.revocation", Message: "app.signature.yaml: field signature.revocation: " + msg}
}

// revocationOf reads signature.revocation of a merged manifest.
func revocationOf(m map[string]any) (checkURL string, cacheSeconds int) {
	sig, _ := m["signature"].(map[string]any)
	rev, _ := sig["revocation"].(map[string]any)
	checkURL, _ = rev["checkUrl"].(string)
	// YAML integers decode as int64 (and some decoders give int, uint64 or
	// float64): every one of them is a number of seconds.
	switch n := rev["cacheSeconds"].(type) {
	case int:
		cacheSeconds = n
	case int64:
		cacheSeconds = int(n)
	case uint64:
		cacheSeconds = int(min(n, math.MaxInt32))
	case float64:
		cacheSeconds = int(n)
	}
	return checkURL, max(cacheSeconds, 0)
}

// askRevocation asks the service (docs/host-control-protocol.md, "The
// revocation service the harness plays").
// absentIsFalse reads an answer without a status as "not revoked" (a
// fault).
func askRevocation(checkURL string, p *agentpkg.Package, timeout time.Duration, absentIsFalse bool) (revoked bool, reason string, err error) {
	u, err := url.Parse(checkURL)
	if err != nil {
		return false, "", fmt.Errorf("checkUrl: %w", err)
	}
	q := u.Query()
	q.Set("packageHash", p.PackageHash)
	q.Set("manifestHash", p.ManifestHash)
	u.RawQuery = q.Encode()
	client := http.Client{Timeout: timeout}
	resp, err := client.Get(u.String())
	if err != nil {
		return false, "", err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return false, "", fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var st struct {
		Revoked *bool  `json:"revoked"`
		Reason  string `json:"reason"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 64<<10)).Decode(&st); err != nil || st.Revoked == nil && !absentIsFalse {
		return false, "", fmt.Errorf("an answer that is not {\"revoked\": bool}")
	}
	if st.Revoked == nil {
		return false, st.Reason, nil
	}
	return *st.Revoked, st.Reason, nil
}
