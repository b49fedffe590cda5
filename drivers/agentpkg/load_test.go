package agentpkg

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const frontEntries = "entries:\n  - key: from_frontmatter\n    kind: page\n    title: From Frontmatter\n    route: /a\n"
const fileEntries = "entries:\n  - key: from_file\n    kind: page\n    title: From File\n    route: /b\n"

func entryKeys(m map[string]any) []string {
	var keys []string
	list, _ := m["entries"].([]any)
	for _, e := range list {
		keys = append(keys, e.(map[string]any)["key"].(string))
	}
	return keys
}

func TestLayeredFileWinsOverFrontmatter(t *testing.T) {
	files := map[string]string{"APP.md": appMD(requiredFields + frontEntries), "app.entries.yaml": fileEntries}
	p := loadTree(t, files, LoadOptions{})
	if got := entryKeys(p.Manifest); !slices.Equal(got, []string{"from_file"}) {
		t.Errorf("entries = %v, want the file's", got)
	}
	if p.Sources["entries"] != "app.entries.yaml" || p.Sources["name"] != "APP.md" {
		t.Errorf("sources = %v", p.Sources)
	}
	p = loadTree(t, files, LoadOptions{FrontmatterWins: true})
	if got := entryKeys(p.Manifest); !slices.Equal(got, []string{"from_frontmatter"}) {
		t.Errorf("FrontmatterWins: entries = %v", got)
	}
	files["evals/readiness.yaml"] = "readiness:\n  required: []\n"
	p = loadTree(t, files, LoadOptions{IgnoreLayeredFiles: true})
	if got := entryKeys(p.Manifest); !slices.Equal(got, []string{"from_frontmatter"}) || p.Sources["entries"] != "APP.md" {
		t.Errorf("IgnoreLayeredFiles: entries = %v", got)
	}
	if p.Readiness == nil {
		t.Error("IgnoreLayeredFiles dropped evals/readiness.yaml too")
	}
}

func TestLayeredFilesAllKeys(t *testing.T) {
	files := map[string]string{"APP.md": minimalAppMD}
	for path, key := range LayeredFiles() {
		files[path] = key + ":\n  marker: " + strings.ReplaceAll(path, "/", "_") + "\n"
	}
	// Unwrapped documents are the value themselves; list-shaped files keep the document.
	files["app.permissions.yaml"] = "- key: p1\n  scope: storage\n"
	files["app.requirements.yaml"] = "requirements:\n  - id: R1\nnonGoals: [x]\n"
	files["app.integrations.yaml"] = "integrations:\n  - key: i1\n"
	files["app.runtime.yaml"] = "agentRuntime:\n  bridge: {kind: x}\nagentTask:\n  eventSchema: v1\n"
	p := loadTree(t, files, LoadOptions{})
	for path, key := range LayeredFiles() {
		if p.Sources[key] != path {
			t.Errorf("%s: source = %q", key, p.Sources[key])
		}
	}
	if p.Manifest["errors"].(map[string]any)["marker"] != "app.errors.yaml" {
		t.Errorf("errors = %v", p.Manifest["errors"])
	}
	if perms := p.Manifest["permissions"].([]any); perms[0].(map[string]any)["key"] != "p1" {
		t.Errorf("permissions = %v", perms)
	}
	if req := p.Manifest["requirements"].(map[string]any); req["nonGoals"] == nil || req["requirements"] == nil {
		t.Errorf("requirements = %v", req)
	}
	if in := p.Manifest["integrations"].(map[string]any); in["integrations"] == nil {
		t.Errorf("integrations = %v", in)
	}
	if rt := p.Manifest["agentRuntime"].(map[string]any); rt["bridge"] == nil || rt["agentTask"] == nil {
		t.Errorf("agentRuntime = %v", rt)
	}
	if p.Readiness["marker"] != "evals_readiness.yaml" || p.Signature["marker"] != "app.signature.yaml" {
		t.Errorf("readiness %v signature %v", p.Readiness, p.Signature)
	}
}

func TestValidationFindings(t *testing.T) {
	cases := map[string]struct {
		front string
		code  string
		field string
		sev   string
	}{
		"missing description": {strings.Replace(requiredFields, "description: Demo app.\n", "", 1), CodeMissingField, "description", SeverityError},
		"missing appType":     {strings.Replace(requiredFields, "appType: agent-app\n", "", 1), CodeMissingField, "appType", SeverityError},
		"bad name":            {strings.Replace(requiredFields, "demo-app", "Demo App", 1), CodeInvalidField, "name", SeverityError},
		"long name":           {strings.Replace(requiredFields, "demo-app", strings.Repeat("a", 65), 1), CodeInvalidField, "name", SeverityError},
		"bad status":          {strings.Replace(requiredFields, "status: ready", "status: live", 1), CodeInvalidField, "status", SeverityError},
		"unknown version":     {strings.Replace(requiredFields, "0.10.0", "9.0.0", 1), CodeUnsupportedManifestVersion, "manifestVersion", SeverityError},
		"absent version":      {strings.Replace(requiredFields, "manifestVersion: 0.10.0\n", "", 1), CodeMissingField, "manifestVersion", SeverityWarning},
		"legacy kind 0.10.0":  {requiredFields + "entries:\n  - {key: a, kind: page, title: A, route: /a}\n  - {key: h, kind: home, title: H}\n", CodeLegacyEntryKind, "entries[1].kind", SeverityError},
		"legacy kind absent":  {strings.Replace(requiredFields, "manifestVersion: 0.10.0\n", "", 1) + "entries:\n  - {key: s, kind: scene, title: S}\n", CodeLegacyEntryKind, "entries[0].kind", SeverityError},
		"legacy kind 0.4.0":   {strings.Replace(requiredFields, "0.10.0", "0.4.0", 1) + "entries:\n  - {key: h, kind: home, title: H}\n", CodeLegacyEntryKind, "entries[0].kind", SeverityInfo},
		"unknown kind":        {requiredFields + "entries:\n  - {key: h, kind: widget, title: H}\n", CodeInvalidField, "entries[0].kind", SeverityError},
		"entry without title": {requiredFields + "entries:\n  - {key: h, kind: settings}\n", CodeMissingField, "entries[0].title", SeverityError},
		"bad endOfLifeAt":     {requiredFields + "endOfLifeAt: next year\n", CodeInvalidField, "endOfLifeAt", SeverityError},
		"bad deprecatedAt":    {requiredFields + "deprecatedAt: 2030-01-01\n", CodeInvalidField, "deprecatedAt", SeverityError},
		"bad pinned hash":     {requiredFields + "runtimePackage:\n  hash: not-a-hash\n", CodeInvalidField, "runtimePackage.hash", SeverityError},
		"bad range":           {requiredFields + "requires:\n  capabilities:\n    lime.ui: \"~> nonsense\"\n", CodeInvalidField, "requires.capabilities.lime.ui", SeverityError},
		"parent ui path":      {requiredFields + "runtimePackage:\n  ui:\n    path: ../../outside-ui\n", CodePathEscapesPackage, "runtimePackage.ui.path", SeverityError},
		"absolute persona":    {requiredFields + "entries:\n  - {key: c, kind: expert-chat, title: C, persona: /etc/passwd}\n", CodePathEscapesPackage, "entries[0].persona", SeverityError},
		"windows path":        {requiredFields + "storage:\n  namespace: x\n  schema: 'C:\\data\\schema.json'\n", CodePathEscapesPackage, "storage.schema", SeverityError},
		"climbing entry":      {requiredFields + "runtimePackage:\n  worker:\n    path: ./dist/worker\n    entry: ../../../run.sh\n", CodePathEscapesPackage, "runtimePackage.worker.entry", SeverityError},
		"climbing i18n":       {requiredFields + "i18n:\n  translations:\n    en-US: ./locales/../../en.json\n", CodePathEscapesPackage, "i18n.translations.en-US", SeverityError},
		"climbing lifecycle":  {requiredFields + "lifecycle:\n  install: ../install.sh\n", CodePathEscapesPackage, "lifecycle.install", SeverityError},
		"missing file":        {requiredFields + "storage:\n  namespace: x\n  schema: ./storage/schema.json\n", CodeMissingFile, "storage.schema", SeverityWarning},
		"bypass as a value":   {requiredFields + "permissionMode: bypassPermissions\n", CodeBypassPermissions, "permissionMode", SeverityError},
		"bypass as a key":     {requiredFields + "policy:\n  bypassPermissions: true\n", CodeBypassPermissions, "policy.bypassPermissions", SeverityError},
		"bypass in a list":    {requiredFields + "permissions:\n  - key: all\n    mode: bypassPermissions\n", CodeBypassPermissions, "permissions[0].mode", SeverityError},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p := loadTree(t, map[string]string{"APP.md": appMD(tc.front)}, LoadOptions{})
			var got *Finding
			for i, f := range p.Findings {
				if f.Code == tc.code && f.Field == tc.field {
					got = &p.Findings[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s finding for %s in %v", tc.code, tc.field, p.Findings)
			}
			if got.Severity != tc.sev || got.File != "APP.md" || !strings.Contains(got.Message, "field "+tc.field) {
				t.Errorf("finding = %+v", *got)
			}
			if p.Valid() != (tc.sev != SeverityError) {
				t.Errorf("Valid() = %v with %v", p.Valid(), p.Findings)
			}
		})
	}
}

// TestBypassPermissionsInALayeredFile: the declaration is found in the
// layered file that carries it, and a text that merely mentions the word
// is not a declaration.
func TestBypassPermissionsInALayeredFile(t *testing.T) {
	p := loadTree(t, map[string]string{
		"APP.md":               minimalAppMD,
		"app.permissions.yaml": "permissions:\n  - key: files\n    scope: files\n    mode: bypassPermissions\n",
	}, LoadOptions{})
	f, ok := hasCode(p.Findings, CodeBypassPermissions)
	if !ok || f.File != "app.permissions.yaml" || f.Field != "permissions[0].mode" {
		t.Errorf("findings = %v", p.Findings)
	}
	mention := loadTree(t, map[string]string{"APP.md": appMD(requiredFields + "shortDescription: never asks to bypassPermissions\n")}, LoadOptions{})
	if _, ok := hasCode(mention.Findings, CodeBypassPermissions); ok {
		t.Errorf("a mention in prose is taken for a declaration: %v", mention.Findings)
	}
}

func TestFindingNamesLineAndLayeredFile(t *testing.T) {
	p := loadTree(t, map[string]string{
		"APP.md":           minimalAppMD,
		"app.entries.yaml": "entries:\n  - key: ok\n    kind: page\n    title: OK\n    route: /\n  - key: old\n    kind: home\n    title: Old\n",
	}, LoadOptions{})
	f, ok := hasCode(p.Findings, CodeLegacyEntryKind)
	if !ok {
		t.Fatalf("findings = %v", p.Findings)
	}
	want := `app.entries.yaml: field entries[1].kind: legacy entry kind "home"`
	if f.File != "app.entries.yaml" || !strings.HasPrefix(f.Message, want) || !strings.HasSuffix(f.Message, "(line 7)") {
		t.Errorf("message = %q, want prefix %q", f.Message, want)
	}
}

func TestPathThroughSymlinkEscapes(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"APP.md": appMD(requiredFields + "storage:\n  namespace: x\n  schema: ./data/schema.json\n")})
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "data")); err != nil {
		t.Skip(err)
	}
	// The walk refuses the escaping link before any reference is resolved.
	if _, err := Load(dir, LoadOptions{}); err == nil {
		t.Fatal("Load accepted an escaping link")
	}
	p, err := Load(dir, LoadOptions{FollowEscapingLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := hasCode(p.Findings, CodePathEscapesPackage); !ok {
		t.Errorf("findings = %v", p.Findings)
	}
}

func TestNoAppMD(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"README.md": "# x\n", "app.md": "lower case is not APP.md"})
	_, err := Load(dir, LoadOptions{})
	if codes := errCodes(t, err); !slices.Equal(codes, []string{CodeMissingFile}) || !strings.Contains(err.Error(), "APP.md") {
		t.Errorf("err = %v", err)
	}
}
