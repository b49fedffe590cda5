package agentpkg

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/Masterminds/semver/v3"
)

// Entry kinds (spec 000, Entry model).
func currentEntryKinds() []string {
	return []string{"page", "panel", "expert-chat", "command", "workflow", "artifact", "background-task", "settings"}
}

// legacyEntryKind reports kinds kept for compatibility with older manifests only.
func legacyEntryKind(kind string) bool { return kind == "home" || kind == "scene" }

var (
	namePattern     = regexp.MustCompile(`^[a-z0-9][a-z0-9-_.]*$`)
	entryKeyPattern = regexp.MustCompile(`^[a-zA-Z0-9_.:-]+$`)
	hashPattern     = regexp.MustCompile(`^sha256:[a-fA-F0-9]{64}$`)
)

// validator checks the merged manifest against the APP.md field rules
// (spec 000, Required fields, Open-platform metadata, Entry model).
type validator struct {
	p     *Package
	lines map[string]map[string]int
}

// topKey is the manifest key a field path starts with.
func topKey(path string) string {
	if i := strings.IndexAny(path, ".["); i >= 0 {
		return path[:i]
	}
	return path
}

func (v *validator) fileOf(path string) string {
	if f, ok := v.p.Sources[topKey(path)]; ok {
		return f
	}
	return ManifestFile
}

func (v *validator) report(code, severity, path, format string, args ...any) {
	file := v.fileOf(path)
	msg := fmt.Sprintf(format, args...)
	for p := path; p != ""; p = parentPath(p) {
		if line := v.lines[file][p]; line > 0 {
			msg = fmt.Sprintf("%s (line %d)", msg, line)
			break
		}
	}
	v.p.Findings = append(v.p.Findings, finding(code, severity, file, path, "%s", msg))
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func (v *validator) run() {
	for _, f := range v.p.Findings {
		if f.File == ManifestFile && f.Severity == SeverityError {
			return // no usable frontmatter: required-field noise would add nothing
		}
	}
	v.requiredString("name", 64, func(s string) string {
		if !namePattern.MatchString(s) {
			return "must match ^[a-z0-9][a-z0-9-_.]*$"
		}
		return ""
	})
	v.requiredString("description", 1024, nil)
	v.requiredString("version", 0, nil)
	v.requiredString("status", 0, enumCheck("draft", "ready", "needs-review", "deprecated", "archived"))
	v.requiredString("appType", 0, enumCheck("agent-app", "workflow-app", "domain-app", "customer-app", "custom"))
	v.optionalString("displayName", 128)
	v.optionalString("shortDescription", 140)
	v.optionalString("copyright", 256)
	// 000 Identity and presentation: "keywords Catalog search keywords
	// (max 32)", "categories Top-level catalog categories (max 8)".
	v.optionalList("keywords", 32)
	v.optionalList("categories", 8)
	mv := v.manifestVersion()
	v.entries(mv)
	v.dates()
	v.hashes()
	v.requires()
	v.keyedLists()
	v.readinessTiers()
	v.paths()
	v.noBypassPermissions("", v.p.Manifest)
}

// bypassPermissions is the permission mode no manifest may declare (spec
// 000, Permission evaluation: "Agent App manifests must not declare
// bypassPermissions").
const bypassPermissions = "bypassPermissions"

// noBypassPermissions reports every place in the merged manifest (the
// frontmatter and the layered files) that declares bypassPermissions: as
// a key (bypassPermissions: true) or as a value (permissionMode:
// bypassPermissions). The texts name no field for it, so every place
// counts (docs/decisions.md, "Declaring bypassPermissions").
func (v *validator) noBypassPermissions(path string, node any) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch n := node.(type) {
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if k == bypassPermissions {
				v.report(CodeBypassPermissions, SeverityError, join(k), "the manifest declares %s, which no Agent App manifest may", bypassPermissions)
				continue
			}
			v.noBypassPermissions(join(k), n[k])
		}
	case []any:
		for i, e := range n {
			v.noBypassPermissions(fmt.Sprintf("%s[%d]", path, i), e)
		}
	case string:
		if n == bypassPermissions {
			v.report(CodeBypassPermissions, SeverityError, path, "%s is %s, which no Agent App manifest may declare", path, bypassPermissions)
		}
	}
}

func enumCheck(values ...string) func(string) string {
	return func(s string) string {
		if !slices.Contains(values, s) {
			return "must be one of " + strings.Join(values, ", ")
		}
		return ""
	}
}

func (v *validator) requiredString(key string, maxLen int, check func(string) string) {
	raw, ok := v.p.Manifest[key]
	if !ok || raw == nil {
		v.report(CodeMissingField, SeverityError, key, "required field %s is missing", key)
		return
	}
	v.stringValue(key, raw, maxLen, check)
}

func (v *validator) optionalString(key string, maxLen int) {
	if raw, ok := v.p.Manifest[key]; ok {
		v.stringValue(key, raw, maxLen, nil)
	}
}

// optionalList checks an optional list of non-empty strings holding at
// most maxItems of them.
func (v *validator) optionalList(key string, maxItems int) {
	raw, ok := v.p.Manifest[key]
	if !ok {
		return
	}
	items, isList := raw.([]any)
	switch {
	case !isList:
		v.report(CodeInvalidField, SeverityError, key, "must be a list, not %s", typeName(raw))
	case len(items) > maxItems:
		v.report(CodeInvalidField, SeverityError, key, "has %d items; at most %d are allowed", len(items), maxItems)
	default:
		for i, e := range items {
			v.stringValue(fmt.Sprintf("%s[%d]", key, i), e, 0, nil)
		}
	}
}

func (v *validator) stringValue(path string, raw any, maxLen int, check func(string) string) {
	s, ok := raw.(string)
	switch {
	case !ok:
		v.report(CodeInvalidField, SeverityError, path, "must be a string, not %s", typeName(raw))
	case s == "":
		v.report(CodeInvalidField, SeverityError, path, "must not be empty")
	case maxLen > 0 && utf8.RuneCountInString(s) > maxLen:
		v.report(CodeInvalidField, SeverityError, path, "has %d characters; at most %d are allowed", utf8.RuneCountInString(s), maxLen)
	case check != nil:
		if why := check(s); why != "" {
			v.report(CodeInvalidField, SeverityError, path, "value %q %s", s, why)
		}
	}
}

// manifestVersion checks manifestVersion and returns the version in effect.
func (v *validator) manifestVersion() string {
	raw, ok := v.p.Manifest["manifestVersion"]
	if !ok || raw == nil {
		v.report(CodeMissingField, SeverityWarning, "manifestVersion",
			"manifestVersion is not set; treating the manifest as the current %s", StandardVersion)
		return StandardVersion
	}
	s, _ := raw.(string)
	if !slices.Contains(KnownManifestVersions(), s) {
		v.report(CodeUnsupportedManifestVersion, SeverityError, "manifestVersion",
			"manifest version %q is not supported; known versions are %s", fmt.Sprint(raw), strings.Join(KnownManifestVersions(), ", "))
		return StandardVersion
	}
	return s
}

// IsLegacyManifest reports whether manifestVersion is a known version older than 0.10.0.
func IsLegacyManifest(manifest map[string]any) bool {
	s, _ := manifest["manifestVersion"].(string)
	return s != StandardVersion && slices.Contains(KnownManifestVersions(), s)
}

func (v *validator) entries(mv string) {
	raw, ok := v.p.Manifest["entries"]
	if !ok {
		return
	}
	list, ok := raw.([]any)
	if !ok {
		v.report(CodeInvalidField, SeverityError, "entries", "must be a list of entries, not %s", typeName(raw))
		return
	}
	keys := map[string]bool{}
	for i, item := range list {
		path := "entries[" + strconv.Itoa(i) + "]"
		e, ok := item.(map[string]any)
		if !ok {
			v.report(CodeInvalidField, SeverityError, path, "must be a mapping, not %s", typeName(item))
			continue
		}
		for _, f := range []string{"key", "kind", "title"} {
			if e[f] == nil {
				v.report(CodeMissingField, SeverityError, path+"."+f, "entry field %s is required", f)
			} else {
				v.stringValue(path+"."+f, e[f], 0, nil)
			}
		}
		if key, _ := e["key"].(string); key != "" {
			if !entryKeyPattern.MatchString(key) {
				v.report(CodeInvalidField, SeverityError, path+".key", "entry key %q must match ^[a-zA-Z0-9_.:-]+$", key)
			}
			if keys[key] {
				v.report(CodeInvalidField, SeverityError, path+".key", "entry key %q is used twice", key)
			}
			keys[key] = true
		}
		kind, _ := e["kind"].(string)
		switch {
		case kind == "":
		case legacyEntryKind(kind) && mv == StandardVersion:
			v.report(CodeLegacyEntryKind, SeverityError, path+".kind",
				"legacy entry kind %q is not allowed in a %s manifest; use page, command, workflow, artifact, background-task or settings",
				kind, StandardVersion)
		case legacyEntryKind(kind):
			v.report(CodeLegacyEntryKind, SeverityInfo, path+".kind",
				"legacy entry kind %q of a %s manifest is accepted for compatibility only", kind, mv)
		case !slices.Contains(currentEntryKinds(), kind):
			v.report(CodeInvalidField, SeverityError, path+".kind", "entry kind %q is unknown; current kinds are %s",
				kind, strings.Join(currentEntryKinds(), ", "))
		}
		if need := map[string]string{"page": "route", "panel": "panel", "command": "command",
			"workflow": "workflow", "expert-chat": "persona"}[kind]; need != "" && e[need] == nil {
			v.report(CodeMissingField, SeverityWarning, path+"."+need, "a %s entry should declare %s", kind, need)
		}
		v.stringList(path+".requiredCapabilities", e["requiredCapabilities"])
	}
}

func (v *validator) stringList(path string, raw any) {
	if raw == nil {
		return
	}
	list, ok := raw.([]any)
	if !ok {
		v.report(CodeInvalidField, SeverityError, path, "must be a list of strings, not %s", typeName(raw))
		return
	}
	for i, item := range list {
		if _, ok := item.(string); !ok {
			v.report(CodeInvalidField, SeverityError, path+"["+strconv.Itoa(i)+"]", "must be a string, not %s", typeName(item))
		}
	}
}

// dates checks the timeline fields are RFC 3339 date-times (spec 000, Version and timeline).
func (v *validator) dates() {
	fields := []string{"createdAt", "updatedAt", "releasedAt", "deprecatedAt", "endOfLifeAt"}
	for _, f := range fields {
		v.date(f, v.p.Manifest[f])
	}
	if sw, ok := v.p.Manifest["supportWindow"].(map[string]any); ok {
		v.date("supportWindow.supportedUntil", sw["supportedUntil"])
		if sb, ok := sw["supersededBy"]; ok && sb != nil {
			v.stringValue("supportWindow.supersededBy", sb, 0, nil)
		}
	}
}

func (v *validator) date(path string, raw any) {
	if raw == nil {
		return
	}
	s, ok := raw.(string)
	if !ok {
		v.report(CodeInvalidField, SeverityError, path, "must be an RFC 3339 date-time string, not %s", typeName(raw))
		return
	}
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		v.report(CodeInvalidField, SeverityError, path, "%q is not an RFC 3339 date-time (e.g. 2026-01-01T00:00:00Z)", s)
	}
}

// hashes checks pinned hashes have the schema's form sha256:<64 hex>.
func (v *validator) hashes() {
	rp, ok := v.p.Manifest["runtimePackage"].(map[string]any)
	if !ok {
		return
	}
	check := func(path string, raw any) {
		if raw == nil {
			return
		}
		if s, ok := raw.(string); !ok || !hashPattern.MatchString(s) {
			v.report(CodeInvalidField, SeverityError, path, "hash %v must look like sha256:<64 hex digits>", raw)
		}
	}
	check("runtimePackage.hash", rp["hash"])
	for _, part := range []string{"ui", "worker", "tools"} {
		if ref, ok := rp[part].(map[string]any); ok {
			check("runtimePackage."+part+".hash", ref["hash"])
		}
	}
}

// requires checks requires.capabilities version ranges parse.
func (v *validator) requires() {
	for _, c := range RequiredCapabilities(v.p.Manifest) {
		if c.Range == "" || c.Range == "current" || c.Range == "*" {
			continue
		}
		if _, err := semver.NewConstraint(c.Range); err != nil {
			v.report(CodeInvalidField, SeverityError, "requires.capabilities."+c.Name,
				"version range %q of %s is not a SemVer range: %v", c.Range, c.Name, err)
		}
	}
}

// keyedLists checks the lists whose items need a key (spec 000 field table).
func (v *validator) keyedLists() {
	for _, key := range []string{"permissions", "secrets", "knowledgeTemplates", "services", "workflows",
		"toolRefs", "artifactTypes", "evals", "events", "overlayTemplates"} {
		raw, ok := v.p.Manifest[key]
		if !ok || raw == nil {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			v.report(CodeInvalidField, SeverityError, key, "must be a list, not %s", typeName(raw))
			continue
		}
		for i, item := range list {
			path := key + "[" + strconv.Itoa(i) + "]"
			obj, ok := item.(map[string]any)
			if !ok {
				v.report(CodeInvalidField, SeverityError, path, "must be a mapping, not %s", typeName(item))
				continue
			}
			if obj["key"] == nil {
				v.report(CodeMissingField, SeverityError, path+".key", "%s items need a key", key)
			}
		}
	}
}

// readinessTiers checks evals/readiness.yaml's tiers are lists of checks.
func (v *validator) readinessTiers() {
	r, ok := v.p.Manifest["readiness"].(map[string]any)
	if !ok {
		if raw, has := v.p.Manifest["readiness"]; has && raw != nil {
			v.report(CodeInvalidField, SeverityError, "readiness", "must be a mapping of tiers, not %s", typeName(raw))
		}
		return
	}
	for _, tier := range ReadinessTiers() {
		raw, ok := r[tier]
		if !ok || raw == nil {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			v.report(CodeInvalidField, SeverityError, "readiness."+tier, "must be a list of checks, not %s", typeName(raw))
			continue
		}
		for i, item := range list {
			path := "readiness." + tier + "[" + strconv.Itoa(i) + "]"
			obj, ok := item.(map[string]any)
			if !ok {
				v.report(CodeInvalidField, SeverityError, path, "must be a mapping, not %s", typeName(item))
				continue
			}
			if _, ok := obj["check"].(string); !ok {
				v.report(CodeMissingField, SeverityError, path+".check", "readiness checks need a check kind")
			}
		}
	}
}

// ReadinessTiers are the tiers of evals/readiness.yaml, in order.
func ReadinessTiers() []string { return []string{"required", "recommended", "performance"} }

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	default:
		return fmt.Sprintf("%T", v)
	}
}
