package mockhost

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// The readings of variants.go that rewrite a whole answer live here; each
// is switched on at the one place its `// variant:` marker names.

// manifestAtFault reports whether an error finding is the package's own
// (its manifest, files or YAML), not a verification step's (stepOf).
func manifestAtFault(findings []protocol.Finding) bool {
	for _, f := range findings {
		if _, step := stepOf[f.Code]; f.Severity == agentpkg.SeverityError && !step {
			return true
		}
	}
	return false
}

// refusalCode is the protocol error a refusal is given as: -32001 when the
// package's own manifest is at fault, -32002 when only a hash, signature or
// compatibility check failed.
func refusalCode(findings []protocol.Finding) int64 {
	if manifestAtFault(findings) {
		return protocol.CodePackageInvalid
	}
	return protocol.CodeVerificationFailed
}

// verdictAsError turns a refusing package/verify verdict into the error a
// host that refuses with errors gives (docs/decisions.md, Refusal form);
// nil when the verdict accepts or the host gives verdicts.
func (h *Host) verdictAsError(path string, r protocol.VerifyResult) *jsonrpc2.Error {
	// variant: refusals-as-errors — a refused package is answered with -32001 / -32002 and data.findings, not a verdict.
	if r.OK || !h.variants.Has("refusals-as-errors") {
		return nil
	}
	return rpcError(refusalCode(r.Findings), fmt.Sprintf("package %s is refused: %s", path, firstError(r.Findings)),
		protocol.ErrorData{Findings: r.Findings})
}

// intakeMethods are the methods that hand the host a package folder.
var intakeMethods = map[string]bool{
	protocol.MethodVerify: true, protocol.MethodProject: true, protocol.MethodInstall: true,
	protocol.MethodReadiness: true, protocol.MethodReview: true, protocol.MethodUpdate: true,
}

// maxIntakeWalk bounds the entries intakeRefusal looks at.
const maxIntakeWalk = 10000

// intakeRefusal answers -32006, naming each symbolic link in data.findings,
// for a package folder that holds links, when the host's intake form holds
// none (docs/decisions.md, Packages the host cannot take in its own form);
// nil otherwise.
func (h *Host) intakeRefusal(req *jsonrpc2.Request) *jsonrpc2.Error {
	// variant: links-outside-intake-form — a package holding a symbolic link is answered -32006 with findings naming each link.
	if !h.variants.Has("links-outside-intake-form") || !intakeMethods[req.Method] || req.Params == nil {
		return nil
	}
	var p struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(*req.Params, &p) != nil || p.Path == "" {
		return nil
	}
	var found []protocol.Finding
	seen := 0
	_ = filepath.WalkDir(p.Path, func(path string, d fs.DirEntry, err error) error {
		if seen++; err != nil || seen > maxIntakeWalk {
			return filepath.SkipAll
		}
		if d.Type()&os.ModeSymlink != 0 {
			rel, _ := filepath.Rel(p.Path, path)
			found = append(found, protocol.Finding{Code: "not-translatable", Severity: agentpkg.SeverityError, File: filepath.ToSlash(rel),
				Message: "this host keeps packages in a form that holds no symbolic links"})
		}
		return nil
	})
	if len(found) == 0 {
		return nil
	}
	return rpcError(protocol.CodeUnsupported, fmt.Sprintf("this host cannot take %s in its own intake form: it holds %d symbolic link(s)", p.Path, len(found)),
		protocol.ErrorData{Findings: found})
}

// readinessReadings rewrites a readiness answer in the readings the
// variants take (docs/decisions.md, A failing required readiness check,
// Deprecation warning, Where supersededBy is surfaced, Setup action kinds).
func (h *Host) readinessReadings(res *protocol.ReadinessResult) {
	// variant: setup-as-blocked — a failing required check a setup action could fix gives blocked, not needs-setup.
	if h.variants.Has("setup-as-blocked") {
		respell(res, map[string]string{protocol.StatusNeedsSetup: protocol.StatusBlocked})
	}
	// variant: readiness-old-vocabulary — every not-ready status is spelled failed, the older word.
	if h.variants.Has("readiness-old-vocabulary") {
		respell(res, map[string]string{protocol.StatusNeedsSetup: protocol.StatusFailed, protocol.StatusBlocked: protocol.StatusFailed})
	}
	// variant: performance-stays-ready — failing performance checks only warn: the app stays ready.
	if h.variants.Has("performance-stays-ready") && degradedOnlyBy(res, "performance") {
		respell(res, map[string]string{protocol.StatusReadyDegraded: protocol.StatusReady})
	}
	// variant: superseded-in-setup-action — the successor of an end-of-life app is named only in its upgrade setup action.
	if h.variants.Has("superseded-in-setup-action") && res.SupersededBy != "" {
		next := res.SupersededBy
		res.SupersededBy = ""
		eachCheck(res, func(c *protocol.ReadinessCheck) {
			c.Message = strings.ReplaceAll(c.Message, "; superseded by "+next, "")
		})
		for i, w := range res.Warnings {
			res.Warnings[i] = strings.ReplaceAll(w, "; superseded by "+next, "")
		}
	}
	// variant: deprecation-check-only — the deprecation warning is a check of severity warning; warnings[] does not repeat it.
	if h.variants.Has("deprecation-check-only") {
		eachCheck(res, func(c *protocol.ReadinessCheck) {
			if c.Kind == "lifecycle" && c.Key == "deprecatedAt" {
				res.Warnings = slices.DeleteFunc(res.Warnings, func(w string) bool { return w == c.Message })
			}
		})
	}
	// variant: setup-action-host-kinds — setup actions carry the host's own kebab-case kinds.
	if h.variants.Has("setup-action-host-kinds") {
		for i := range res.SetupActions {
			res.SetupActions[i].Kind = "open-host-" + firstNonEmptyString(res.SetupActions[i].Kind, "settings")
		}
	}
}

// respell renames the app's status and each entry's by spelling.
func respell(res *protocol.ReadinessResult, spelling map[string]string) {
	if to, ok := spelling[res.Status]; ok {
		res.Status = to
	}
	for i := range res.Entries {
		if to, ok := spelling[res.Entries[i].Status]; ok {
			res.Entries[i].Status = to
		}
	}
}

// degradedOnlyBy reports whether every check that degrades the answer
// (a failing check of a readiness tier) is of tier.
func degradedOnlyBy(res *protocol.ReadinessResult, tier string) bool {
	for _, c := range res.Checks {
		if c.Tier != "" && c.Severity == agentpkg.SeverityWarning && c.Tier != tier {
			return false
		}
	}
	return true
}

func firstNonEmptyString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// snapshotAnswer is the host:snapshot payload of surface l in the layout
// the variants take (spec 001, UI runtime, and spec 002, Minimum host
// snapshot fields, name the fields, not their layout).
func (h *Host) snapshotAnswer(l *launch) any {
	s := h.snapshot(l)
	var caps any = s.Capabilities
	// variant: capabilities-as-map — the capability summary is a map from name to {available, reason}.
	if h.variants.Has("capabilities-as-map") {
		m := map[string]any{}
		for _, c := range s.Capabilities {
			row := map[string]any{"available": c.Available}
			if c.Reason != "" {
				row["reason"] = c.Reason
			}
			m[c.Name] = row
		}
		caps = m
	}
	// variant: snapshot-grouped — the snapshot's fields are grouped: app, theme, context and entry.
	if h.variants.Has("snapshot-grouped") {
		return map[string]any{
			"app":          map[string]any{"appId": s.AppID, "entryKey": s.EntryKey, "route": s.Route, "runtimeOrigin": s.RuntimeOrigin},
			"theme":        s.Theme,
			"context":      map[string]any{"locale": s.Locale, "timezone": s.Timezone, "workspaceId": s.WorkspaceID, "tenantId": s.TenantID},
			"entry":        map[string]any{"capabilities": caps, "readiness": s.Readiness},
			"cloudSession": s.CloudSession,
		}
	}
	if h.variants.Has("capabilities-as-map") {
		b, err := json.Marshal(s)
		var m map[string]any
		if err != nil || json.Unmarshal(b, &m) != nil {
			return s
		}
		m["capabilities"] = caps
		return m
	}
	return s
}

// pushesSnapshots reports whether the host pushes snapshots unasked, every
// 250 ms (pushSnapshots), besides answering app:ready and host:getSnapshot
// with one naming their requestId.
func (h *Host) pushesSnapshots() bool {
	// variant: snapshots-pushed-unasked — snapshots are pushed unasked too; the ones that answer name the request.
	return h.variants.Has("snapshots-pushed-unasked")
}

// visibilityPayload is host:visibility's payload for state (visible or
// hidden), in the member the variants name.
func (h *Host) visibilityPayload(state string) any {
	switch {
	// variant: visibility-as-word — host:visibility says {visibility: "hidden" | "visible"}.
	case h.variants.Has("visibility-as-word"):
		return map[string]string{"visibility": state}
	// variant: visibility-as-state — host:visibility says {state: "hidden" | "visible"}.
	case h.variants.Has("visibility-as-state"):
		return map[string]string{"state": state}
	}
	return hostbridge.Visibility{Visible: state == "visible"}
}

// declaredPermission is a permission the manifest declares (spec 000,
// permissions: what "the host must authorize before install or runtime").
type declaredPermission struct {
	Key     string
	Scope   string
	Access  string
	Domains []string
}

// declaredPermissions lists the manifest's permissions.
func declaredPermissions(m map[string]any) []declaredPermission {
	var out []declaredPermission
	list, _ := m["permissions"].([]any)
	for _, item := range list {
		p, _ := item.(map[string]any)
		d := declaredPermission{Key: stringField(p, "key"), Scope: stringField(p, "scope"), Access: stringField(p, "access")}
		doms, _ := p["domains"].([]any)
		for _, v := range doms {
			if s, ok := v.(string); ok {
				d.Domains = append(d.Domains, strings.ToLower(s))
			}
		}
		out = append(out, d)
	}
	return out
}

// permitsDownload reports whether the launched app may save files: it
// declares a permission of scope export, or filesystem with write access.
func (l *launch) permitsDownload() bool {
	return slices.ContainsFunc(l.permissions, declaredPermission.savesFiles)
}

// savesFiles reports whether the permission lets the app save files:
// scope export, or filesystem with write access.
func (p declaredPermission) savesFiles() bool {
	return p.Scope == "export" || p.Scope == "filesystem" && strings.Contains(p.Access, "write")
}

// permitsHost reports whether the launched app declares a network
// permission whose domains name host or a domain above it.
func (l *launch) permitsHost(host string) bool {
	return slices.ContainsFunc(l.permissions, func(p declaredPermission) bool { return p.namesHost(host) })
}

// namesHost reports whether the permission is of scope network and its
// domains name host or a domain above it.
func (p declaredPermission) namesHost(host string) bool {
	host = strings.ToLower(host)
	return p.Scope == "network" && slices.ContainsFunc(p.Domains, func(d string) bool {
		return host == d || strings.HasSuffix(host, "."+d)
	})
}

// refusesUnpermitted reports whether a host:download (download) or
// host:openExternal of raw must be refused for want of a declared
// permission, under the variants that ask for one.
func (h *Host) refusesUnpermitted(l *launch, download bool, raw string) bool {
	if download {
		// variant: download-needs-permission — host:download needs a declared permission of scope export (or filesystem write).
		return h.variants.Has("download-needs-permission") && !l.permitsDownload()
	}
	u, err := url.Parse(raw)
	// variant: open-external-needs-permission — host:openExternal needs a declared network permission naming the URL's host.
	return h.variants.Has("open-external-needs-permission") && (err != nil || !l.permitsHost(u.Hostname()))
}
