package agentpkg

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// pathRef is one in-package path the manifest refers to.
type pathRef struct {
	field string
	value string
	base  string // folder the value is relative to ("" = package root)
	// loose marks fields that may hold a key instead of a path (an entry's
	// workflow may name a workflow key); they are checked only when they look
	// like a path.
	loose bool
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]+:`)

// pathRefs collects every relative path reference of the manifest.
func pathRefs(m map[string]any) []pathRef {
	var refs []pathRef
	add := func(field string, v any, base string, loose bool) {
		if s, ok := v.(string); ok && s != "" {
			refs = append(refs, pathRef{field: field, value: s, base: base, loose: loose})
		}
	}
	obj := func(v any) map[string]any { o, _ := v.(map[string]any); return o }
	list := func(v any) []any { l, _ := v.([]any); return l }
	idx := func(key string, i int) string { return key + "[" + strconv.Itoa(i) + "]" }

	rp := obj(m["runtimePackage"])
	for _, part := range []string{"ui", "worker", "tools"} {
		ref := obj(rp[part])
		p, _ := ref["path"].(string)
		add("runtimePackage."+part+".path", ref["path"], "", false)
		add("runtimePackage."+part+".entry", ref["entry"], p, false)
	}
	add("runtimePackage.storage.schema", obj(rp["storage"])["schema"], "", false)
	add("runtimePackage.storage.migrations", obj(rp["storage"])["migrations"], "", false)
	add("runtimePackage.lockfile", rp["lockfile"], "", false)
	add("storage.schema", obj(m["storage"])["schema"], "", false)
	add("storage.migrations", obj(m["storage"])["migrations"], "", false)
	for i, e := range list(m["entries"]) {
		add(idx("entries", i)+".persona", obj(e)["persona"], "", false)
		add(idx("entries", i)+".workflow", obj(e)["workflow"], "", true)
		add(idx("entries", i)+".service", obj(e)["service"], "", true)
	}
	for i, w := range list(m["workflows"]) {
		add(idx("workflows", i)+".path", obj(w)["path"], "", false)
	}
	skills := obj(m["skills"])
	for i, s := range list(skills["bundled"]) {
		add(idx("skills.bundled", i)+".path", obj(s)["path"], "", false)
	}
	for i, s := range list(m["skillRefs"]) {
		add(idx("skillRefs", i)+".path", obj(s)["path"], "", false)
	}
	for i, k := range list(m["knowledgeTemplates"]) {
		add(idx("knowledgeTemplates", i)+".path", obj(k)["path"], "", false)
	}
	for i, s := range list(m["services"]) {
		p, _ := obj(s)["path"].(string)
		add(idx("services", i)+".path", obj(s)["path"], "", false)
		add(idx("services", i)+".entry", obj(s)["entry"], p, false)
		add(idx("services", i)+".binary", obj(s)["binary"], p, false)
	}
	for _, key := range []string{"artifactTypes", "events", "overlayTemplates"} {
		for i, a := range list(m[key]) {
			add(idx(key, i)+".schema", obj(a)["schema"], "", true)
		}
	}
	for i, e := range list(m["evals"]) {
		add(idx("evals", i)+".path", obj(e)["path"], "", false)
	}
	translations := obj(obj(m["i18n"])["translations"])
	for _, loc := range sortedKeys(translations) {
		add("i18n.translations."+loc, translations[loc], "", false)
	}
	add("changelog", m["changelog"], "", false)
	add("presentation.icon", obj(m["presentation"])["icon"], "", false)
	add("install.branding.icon", obj(obj(m["install"])["branding"])["icon"], "", false)
	lc := obj(m["lifecycle"])
	for _, hook := range sortedKeys(lc) {
		add("lifecycle."+hook, lc[hook], "", true)
		add("lifecycle."+hook+".path", obj(lc[hook])["path"], "", false)
		add("lifecycle."+hook+".script", obj(lc[hook])["script"], "", false)
	}
	so := obj(obj(obj(m["agentRuntime"])["agentTask"])["structuredOutput"])
	add("agentRuntime.agentTask.structuredOutput.schemaRef", so["schemaRef"], "", false)
	return refs
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, `/\`) || strings.HasPrefix(s, ".")
}

// isAbsolute catches POSIX, UNC and drive-letter absolute paths on any OS.
func isAbsolute(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) ||
		(len(s) >= 2 && s[1] == ':' && (len(s) == 2 || s[2] == '/' || s[2] == '\\'))
}

// paths rejects references that are absolute or climb out of the package,
// lexically and, when the target exists, through symbolic links (guide
// clause: references must stay inside the package; the reference CLI does
// not check this). Missing targets are only a warning.
func (v *validator) paths() {
	for _, r := range pathRefs(v.p.Manifest) {
		if r.loose && !looksLikePath(r.value) {
			continue
		}
		if isAbsolute(r.value) {
			v.report(CodePathEscapesPackage, SeverityError, r.field, "path %q is absolute; references must stay inside the package", r.value)
			continue
		}
		if schemeRE.MatchString(r.value) {
			continue // a URL or a scheme-qualified reference, not a package path
		}
		rel := path.Clean(path.Join(filepath.ToSlash(r.base), strings.ReplaceAll(r.value, `\`, "/")))
		if rel == ".." || strings.HasPrefix(rel, "../") || isAbsolute(rel) {
			v.report(CodePathEscapesPackage, SeverityError, r.field, "path %q climbs out of the package", r.value)
			continue
		}
		full := filepath.Join(v.p.Dir, filepath.FromSlash(rel))
		if real, ok := deepestExisting(full); !ok || !within(v.p.Dir, real) {
			v.report(CodePathEscapesPackage, SeverityError, r.field, "path %q resolves outside the package through a symbolic link", r.value)
			continue
		}
		if _, err := os.Lstat(full); err != nil && !(r.loose && r.base == "" && !strings.Contains(r.value, "/")) {
			v.report(CodeMissingFile, SeverityWarning, r.field, "path %q does not exist in the package", r.value)
		}
	}
}

// deepestExisting resolves the symbolic links of the longest existing prefix
// of full, so a reference through a link is judged by where it really lands.
func deepestExisting(full string) (string, bool) {
	rest := ""
	for p := full; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest), true
		}
		if filepath.Dir(p) == p {
			return "", false
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
