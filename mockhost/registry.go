package mockhost

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// maxArchive bounds a downloaded package archive and what it unpacks to.
const maxArchive = 64 << 20

// registryRelease is a release object as the registry serves it (spec 003,
// Release object; docs/host-control-protocol.md, "The registry the
// harness plays").
type registryRelease struct {
	AppID           string              `json:"appId"`
	Version         string              `json:"version"`
	ManifestVersion string              `json:"manifestVersion"`
	PackageURL      string              `json:"packageUrl"`
	PackageHash     string              `json:"packageHash"`
	ManifestHash    string              `json:"manifestHash"`
	SignatureRef    string              `json:"signatureRef"`
	SignatureBundle json.RawMessage     `json:"signatureBundle"`
	Compatibility   map[string]any      `json:"compatibility"`
	Publisher       *protocol.Publisher `json:"publisher"`
	Status          string              `json:"status"`
	Channel         string              `json:"channel"`
	RollbackTarget  string              `json:"rollbackTarget"`
}

// bootstrap asks the configured registry for the releases enabled for the
// configured tenant (spec 003, Distribution flow: "Request bootstrap
// metadata"). Errors say what went wrong in one line.
func (h *Host) bootstrap() ([]registryRelease, *jsonrpc2.Error) {
	if h.desktopP0Only() {
		return nil, rpcError(protocol.CodeUnsupported, "this host has no registry client: it installs packages from folders only", nil)
	}
	cfg, _ := h.config()
	if cfg.RegistryURL == "" {
		return nil, rpcError(protocol.CodeNotConfigured, "no registryUrl is configured (host/configure)", nil)
	}
	tenant := cfg.TenantID
	// fault: registry-ignores-tenant — the bootstrap is asked for the registry's default tenant, not the configured one.
	if h.faults.Has("registry-ignores-tenant") {
		tenant = "default"
	}
	// fault: bootstrap-cached-across-tenants — the first bootstrap of a registry is kept, whatever tenant is configured later.
	if h.faults.Has("bootstrap-cached-across-tenants") {
		h.mu.Lock()
		cached, ok := h.bootstraps[cfg.RegistryURL]
		h.mu.Unlock()
		if ok {
			return cached, nil
		}
	}
	u := strings.TrimSuffix(cfg.RegistryURL, "/") + "/bootstrap?tenantId=" + url.QueryEscape(tenant)
	var b struct {
		Releases []registryRelease `json:"releases"`
	}
	body, err := httpGet(u, 4<<20, h.timeouts().registry)
	if err == nil {
		err = json.Unmarshal(body, &b)
	}
	if err != nil {
		return nil, rpcError(protocol.CodeRegistryFailed, fmt.Sprintf("the registry at %s gave no usable bootstrap: %v", cfg.RegistryURL, err), nil)
	}
	h.mu.Lock()
	h.bootstraps[cfg.RegistryURL] = b.Releases
	h.mu.Unlock()
	return b.Releases, nil
}

// registryList answers registry/list: the releases of the bootstrap a user
// may install (spec 002, Discovery: "Installable app list"); a withdrawn
// release is not offered.
func (h *Host) registryList() (protocol.RegistryListResult, *jsonrpc2.Error) {
	rels, e := h.bootstrap()
	if e != nil {
		return protocol.RegistryListResult{}, e
	}
	if h.faults.Has("install-from-listed-bootstrap") {
		cfg, _ := h.config()
		h.mu.Lock()
		h.bootstraps[offeredKey(cfg)] = rels
		h.mu.Unlock()
	}
	out := protocol.RegistryListResult{Releases: []protocol.ListedRelease{}}
	for _, r := range rels {
		// fault: list-withdrawn — withdrawn releases are listed and installed like any other.
		if r.Status != "active" && !h.faults.Has("list-withdrawn") {
			continue
		}
		out.Releases = append(out.Releases, protocol.ListedRelease{AppID: r.AppID, Version: r.Version,
			PackageHash: r.PackageHash, Channel: r.Channel})
	}
	return out, nil
}

// installFromRegistry installs the release src names: it must be enabled
// for the tenant and active, compatible by its metadata before anything is
// downloaded, and its package, fetched from packageUrl and unpacked, is
// then installed exactly as a folder is, pinned to the release's hashes.
func (h *Host) installFromRegistry(params protocol.InstallParams) (protocol.InstallResult, *jsonrpc2.Error) {
	if !params.Consent.Granted && !h.faults.Has("install-without-consent") && !h.faults.Has("accept-everything") {
		return protocol.InstallResult{}, rpcError(protocol.CodeConsentRequired,
			fmt.Sprintf("installing %s needs user, tenant or workspace consent (params.consent.granted is false)", params.Source.AppID), nil)
	}
	dir, rel, e := h.fetchSource(*params.Source)
	if e != nil {
		return protocol.InstallResult{}, e
	}
	// The download is only where the package is read from: app/install
	// keeps a copy of its own (installed.go), so the download goes.
	defer func() { _ = os.RemoveAll(dir) }()
	params.Path, params.Source, params.Release = dir, nil, rel
	return h.install(params)
}

// fetchSource resolves src among the releases enabled for the tenant,
// checks the release's compatibility before anything is downloaded, then
// downloads and unpacks its package into a folder of the host's own. It
// returns the folder and the release it must be.
func (h *Host) fetchSource(src protocol.Source) (string, *protocol.Release, *jsonrpc2.Error) {
	rel, e := h.resolveSource(src)
	if e != nil {
		return "", nil, e
	}
	// fault: download-before-compatibility — the package is fetched before its release metadata is checked.
	early := h.faults.Has("download-before-compatibility")
	// fault: channel-install-downloads-first — a release named by a channel is downloaded before its compatibility is checked.
	early = early || (h.faults.Has("channel-install-downloads-first") && src.Channel != "")
	var dir string
	if early {
		if dir, e = h.download(rel); e != nil {
			return "", nil, e
		}
	}
	compat := rel.Compatibility
	// fault: release-compatibility-lime-unread — only the capability ranges of a release's compatibility are read before the download; its host version range (lime) is left to the manifest.
	// A host-version-at-readiness host installs what its app runtime range
	// excludes and blocks it in readiness, so that range refuses no download.
	if h.faults.Has("release-compatibility-lime-unread") || h.variants.Has("host-version-at-readiness") {
		compat = map[string]any{"capabilities": rel.Compatibility["capabilities"]}
	}
	if fs := agentpkg.ReleaseCompatibility(compat, h.profile()); agentpkg.HasErrors(fs) {
		return "", nil, rpcError(protocol.CodeVerificationFailed,
			fmt.Sprintf("release %s@%s is not compatible with this host, nothing was downloaded: %s", rel.AppID, rel.Version, firstError(fs)),
			protocol.ErrorData{Findings: fs})
	}
	if !early {
		if dir, e = h.download(rel); e != nil {
			return "", nil, e
		}
	}
	pinned := &protocol.Release{AppID: rel.AppID, Version: rel.Version, ManifestVersion: rel.ManifestVersion,
		PackageHash: rel.PackageHash, ManifestHash: rel.ManifestHash, SignatureRef: rel.SignatureRef,
		SignatureBundle: rel.SignatureBundle, Publisher: rel.Publisher, RollbackTarget: rel.RollbackTarget}
	// fault: download-pinned-to-itself — the download is pinned to the hashes it computes itself, not to the release's.
	if h.faults.Has("download-pinned-to-itself") {
		pinned.PackageHash, pinned.ManifestHash = "", ""
	}
	return dir, pinned, nil
}

// resolveSource finds the release src names among those enabled for the
// tenant: a version, or the concrete release a channel resolves to.
func (h *Host) resolveSource(src protocol.Source) (registryRelease, *jsonrpc2.Error) {
	var rels []registryRelease
	offered := false
	// fault: install-from-listed-bootstrap — an install picks from the releases registry/list offered earlier (per registry and tenant), never asking the registry again.
	if h.faults.Has("install-from-listed-bootstrap") {
		cfg, _ := h.config()
		h.mu.Lock()
		rels, offered = h.bootstraps[offeredKey(cfg)]
		h.mu.Unlock()
	}
	if !offered {
		var e *jsonrpc2.Error
		if rels, e = h.bootstrap(); e != nil {
			return registryRelease{}, e
		}
	}
	// fault: install-not-enabled — a release the tenant did not enable is installed from the registry's public catalogue.
	if h.faults.Has("install-not-enabled") {
		if r, ok := h.fromCatalogue(src); ok {
			rels = append(rels, r)
		}
	}
	// fault: registry-records-latest — a channel resolves to the newest release in the catalogue.
	if h.faults.Has("registry-records-latest") && src.Channel != "" {
		if r, ok := h.fromCatalogue(protocol.Source{AppID: src.AppID}); ok {
			return r, nil
		}
	}
	for _, r := range rels {
		if r.AppID != src.AppID || (src.Version != "" && r.Version != src.Version) || (src.Channel != "" && r.Channel != src.Channel) {
			continue
		}
		// fault: signed-withdrawn-installed — a withdrawn release whose signature verifies is installed: the signature is taken for the registry's word.
		signedPass := h.faults.Has("signed-withdrawn-installed") && len(r.SignatureBundle) > 0
		// fault: withdrawn-installed-by-channel — a channel is trusted to name a current release: only an install naming a version is checked for withdrawal.
		byChannel := src.Channel != "" && h.faults.Has("withdrawn-installed-by-channel")
		if r.Status != "active" && !h.faults.Has("list-withdrawn") && !signedPass && !byChannel {
			return registryRelease{}, sourceRefusal(src, "release-withdrawn",
				fmt.Sprintf("release %s@%s is withdrawn from the registry", r.AppID, r.Version))
		}
		return r, nil
	}
	return registryRelease{}, sourceRefusal(src, "release-not-enabled",
		fmt.Sprintf("no release of %s matching %s is enabled for this tenant", src.AppID, describeSource(src)))
}

// offeredKey names the releases registry/list offered under a
// configuration (kept by a fault only).
func offeredKey(cfg protocol.ConfigureParams) string {
	return "offered " + cfg.RegistryURL + " " + cfg.TenantID
}

// fromCatalogue reads the registry's public catalogue of an app (used only
// by faults): the release src names, or the newest when it names none.
func (h *Host) fromCatalogue(src protocol.Source) (registryRelease, bool) {
	cfg, _ := h.config()
	body, err := httpGet(strings.TrimSuffix(cfg.RegistryURL, "/")+"/apps/"+url.PathEscape(src.AppID)+"/releases", 4<<20, timeoutsOf(cfg).registry)
	var c struct {
		Releases []registryRelease `json:"releases"`
	}
	if err != nil || json.Unmarshal(body, &c) != nil || len(c.Releases) == 0 {
		return registryRelease{}, false
	}
	for _, r := range c.Releases {
		if src.Version != "" && r.Version == src.Version {
			return r, true
		}
	}
	if src.Version != "" {
		return registryRelease{}, false
	}
	return c.Releases[len(c.Releases)-1], true
}

func describeSource(src protocol.Source) string {
	switch {
	case src.Channel != "":
		return "channel " + src.Channel
	case src.Version != "":
		return "version " + src.Version
	}
	return "any version"
}

func sourceRefusal(src protocol.Source, code, msg string) *jsonrpc2.Error {
	return rpcError(protocol.CodePolicyDenied, msg+"; nothing was installed", protocol.ErrorData{Findings: []protocol.Finding{{
		Code: code, Severity: agentpkg.SeverityError, Field: "source", Message: msg}}})
}

// download fetches a release's package archive and unpacks it into a
// folder of the host's own.
func (h *Host) download(rel registryRelease) (string, *jsonrpc2.Error) {
	body, err := httpGet(rel.PackageURL, maxArchive, h.timeouts().registry)
	if err != nil {
		return "", rpcError(protocol.CodeRegistryFailed, fmt.Sprintf("the package of %s@%s could not be fetched from %s: %v", rel.AppID, rel.Version, rel.PackageURL, err), nil)
	}
	dir, err := h.newPackageDir(rel.AppID)
	if err != nil {
		return "", rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	// fault: archive-climb-mid-path — archive entry names are checked for ../ before they are cleaned, so dist/../../x unpacks outside the package folder.
	// fault: archive-skips-bad-entries — an archive entry that would leave the package folder, or is not a plain file, is skipped and the rest installs.
	if err := unzip(body, dir, unzipFaults{rawNames: h.faults.Has("archive-climb-mid-path"), skipBad: h.faults.Has("archive-skips-bad-entries")}); err != nil {
		return "", rpcError(protocol.CodePackageInvalid, fmt.Sprintf("the package archive of %s@%s cannot be unpacked: %v", rel.AppID, rel.Version, err),
			protocol.ErrorData{Findings: []protocol.Finding{{Code: "invalid-archive", Severity: agentpkg.SeverityError, Field: "packageUrl", Message: err.Error()}}})
	}
	return dir, nil
}

// httpGet fetches u within timeout, refusing a status other than 200 and a
// body over limit bytes.
func httpGet(u string, limit int64, timeout time.Duration) ([]byte, error) {
	c := http.Client{Timeout: timeout}
	resp, err := c.Get(u)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("the answer is over %d bytes", limit)
	}
	return body, nil
}

// unzip unpacks a package archive into dir: relative names only, nothing
// outside dir, regular files and folders only, at most maxArchive bytes.
// rawNames checks the names as they are, not cleaned (a fault).
// unzipFaults are the archive faults unzip carries out: entry names checked
// before they are cleaned (rawNames), and bad entries skipped rather than
// refused (skipBad).
type unzipFaults struct{ rawNames, skipBad bool }

func unzip(archive []byte, dir string, faults unzipFaults) error {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return err
	}
	var total int64
	for _, f := range zr.File {
		name := path.Clean(f.Name)
		checked := name
		if faults.rawNames {
			checked = f.Name
		}
		if strings.HasPrefix(f.Name, "/") || checked == ".." || strings.HasPrefix(checked, "../") || strings.Contains(f.Name, "\\") {
			if faults.skipBad {
				continue
			}
			return fmt.Errorf("entry %q leaves the package", f.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		mode := f.Mode()
		switch {
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
			continue
		case !mode.IsRegular() && faults.skipBad:
			continue
		case !mode.IsRegular():
			return fmt.Errorf("entry %q is neither a file nor a folder", f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("entry %q: %w", f.Name, err)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxArchive-total+1))
		_ = rc.Close()
		if err != nil {
			return fmt.Errorf("entry %q: %w", f.Name, err)
		}
		if total += int64(len(b)); total > maxArchive {
			return errors.New("the archive unpacks to more than 64 MiB")
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
