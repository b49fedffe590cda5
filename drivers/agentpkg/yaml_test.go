package agentpkg

import (
	"strings"
	"testing"
	"time"
)

func appMD(frontmatter string) string {
	return "---\n" + frontmatter + "---\n# Body\n"
}

const requiredFields = "name: demo-app\ndescription: Demo app.\nversion: 1.0.0\nstatus: ready\nappType: agent-app\nmanifestVersion: 0.10.0\n"

func TestHostileYAMLRejectedFast(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString(requiredFields + "metadata:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		bomb.WriteString("  " + string(c) + ": &" + string(c) + " [" + strings.Repeat("*"+prev+", ", 8) + "*" + prev + "]\n")
		prev = string(c)
	}
	cases := map[string]struct {
		appMD string
		code  string
	}{
		"deep flow nesting":  {appMD(requiredFields + "metadata: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"), CodeYAMLTooDeep},
		"deep over parser":   {appMD(requiredFields + "metadata: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n"), CodeYAMLTooDeep},
		"deep block nesting": {appMD(requiredFields + deepBlock(100)), CodeYAMLTooDeep},
		"alias bomb":         {appMD(bomb.String()), CodeYAMLAliasBomb},
		"over 1 MiB":         {appMD(requiredFields + "metadata: \"" + strings.Repeat("x", 1<<20) + "\"\n"), CodeYAMLTooLarge},
		"not utf-8":          {appMD(requiredFields + "displayName: \xff\xfe bad\n"), CodeNotUTF8},
		"unterminated quote": {appMD(requiredFields + "displayName: \"open\n"), CodeInvalidYAML},
		"tab indentation":    {appMD(requiredFields + "entries:\n\t- key: x\n"), CodeInvalidYAML},
		"not a mapping":      {appMD("- just\n- a list\n"), CodeInvalidYAML},
		"duplicate key":      {appMD(requiredFields + "name: again\n"), CodeInvalidYAML},
		"self alias":         {appMD(requiredFields + "metadata: &a [*a]\n"), CodeInvalidYAML},
		"no frontmatter":     {"# Just Markdown\n", CodeNoFrontmatter},
		"unclosed":           {"---\nname: x\n", CodeNoFrontmatter},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			p := loadTree(t, map[string]string{"APP.md": tc.appMD}, LoadOptions{})
			f, ok := hasCode(p.Findings, tc.code)
			if !ok {
				t.Fatalf("findings %v lack %s", p.Findings, tc.code)
			}
			if f.File != ManifestFile || !strings.HasPrefix(f.Message, "APP.md") || f.Severity != SeverityError {
				t.Errorf("finding does not name APP.md as an error: %+v", f)
			}
			if p.Valid() {
				t.Error("package is valid")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Logf("slow: %v", d) // no wall-clock assert; logged for the record
			}
		})
	}
}

func deepBlock(n int) string {
	var b strings.Builder
	b.WriteString("metadata:\n")
	for i := 1; i <= n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

func TestHostileLayeredFileNamesTheFile(t *testing.T) {
	p := loadTree(t, map[string]string{
		"APP.md":           minimalAppMD,
		"app.entries.yaml": "entries: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
	}, LoadOptions{})
	f, ok := hasCode(p.Findings, CodeYAMLTooDeep)
	if !ok || f.File != "app.entries.yaml" || !strings.HasPrefix(f.Message, "app.entries.yaml") {
		t.Errorf("findings = %v", p.Findings)
	}
}

func TestNoLimitsAcceptsDeepYAMLButNotBillionNodes(t *testing.T) {
	opts := LoadOptions{Limits: NoLimits(), SkipUTF8Check: true}
	p := loadTree(t, map[string]string{"APP.md": appMD(requiredFields + "metadata: " + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "\ndisplayName: \xff\n")}, opts)
	if !p.Valid() {
		t.Errorf("NoLimits refused deep or non-UTF-8 YAML: %v", p.Findings)
	}
	p = loadTree(t, map[string]string{"APP.md": appMD(requiredFields + "metadata:\n  a: &a [x,x,x,x,x,x,x,x,x,x]\n  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n  g: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n")}, opts)
	if _, ok := hasCode(p.Findings, CodeYAMLAliasBomb); !ok {
		t.Errorf("NoLimits expanded ten million alias nodes: %v", codesOf(p.Findings, ""))
	}
}

func TestFrontmatterFormats(t *testing.T) {
	crlf := strings.ReplaceAll(minimalAppMD, "\n", "\r\n")
	for name, md := range map[string]string{
		"crlf":            crlf,
		"bom":             "\xef\xbb\xbf" + minimalAppMD,
		"fence spaces":    strings.Replace(minimalAppMD, "---\n", "---  \n", 1),
		"empty body":      strings.TrimSuffix(minimalAppMD, "# Demo\n"),
		"no final ending": strings.TrimSuffix(minimalAppMD, "\n# Demo\n"),
	} {
		t.Run(name, func(t *testing.T) {
			p := loadTree(t, map[string]string{"APP.md": md}, LoadOptions{})
			if !p.Valid() || p.Manifest["name"] != "demo-app" {
				t.Errorf("manifest %v, findings %v", p.Manifest, p.Findings)
			}
			if p.ManifestHash != HashManifest([]byte(md)) {
				t.Error("manifestHash is not the hash of the raw bytes")
			}
		})
	}
	p := loadTree(t, map[string]string{"APP.md": minimalAppMD}, LoadOptions{})
	if p.Body != "# Demo\n" {
		t.Errorf("body = %q", p.Body)
	}
}

func TestScalarsFollowCoreSchemaButVersionsStayText(t *testing.T) {
	p := loadTree(t, map[string]string{"APP.md": appMD(
		"name: demo-app\ndescription: Demo.\nversion: 0.10\nstatus: ready\nappType: agent-app\nmanifestVersion: 0.10.0\n" +
			"createdAt: 2025-01-02T03:04:05Z\nrequires:\n  capabilities:\n    lime.ui: 1.0\n" +
			"metadata:\n  n: 42\n  f: 1.5\n  b: true\n  yes: yes\n  nul: ~\n  big: 123456789012345678901234567890\n  inf: .inf\n  ts: 2025-01-01\n" +
			"  base: &base {x: 1, y: 2}\n  merged:\n    <<: *base\n    y: 3\n")}, LoadOptions{})
	m := p.Manifest
	if m["version"] != "0.10" {
		t.Errorf("version = %#v, want \"0.10\"", m["version"])
	}
	if m["createdAt"] != "2025-01-02T03:04:05Z" {
		t.Errorf("createdAt = %#v", m["createdAt"])
	}
	if caps := m["requires"].(map[string]any)["capabilities"].(map[string]any); caps["lime.ui"] != "1.0" {
		t.Errorf("requires range = %#v", caps["lime.ui"])
	}
	md := m["metadata"].(map[string]any)
	want := map[string]any{"n": int64(42), "f": 1.5, "b": true, "yes": "yes", "nul": nil,
		"big": float64(123456789012345678901234567890), "inf": ".inf", "ts": "2025-01-01"}
	for k, v := range want {
		if md[k] != v {
			t.Errorf("metadata.%s = %#v (%T), want %#v", k, md[k], md[k], v)
		}
	}
	merged := md["merged"].(map[string]any)
	if merged["x"] != int64(1) || merged["y"] != int64(3) {
		t.Errorf("merge key: %v", merged)
	}
}

// aliasTextBomb is an APP.md of a few hundred KB whose aliases name one
// 100 KB scalar 9,000 times: few nodes, 900 MB of text once expanded.
func aliasTextBomb() string {
	return appMD(requiredFields + "metadata:\n  big: &big \"" + strings.Repeat("x", 100<<10) + "\"\n  copies: [" +
		strings.Repeat("*big, ", 8999) + "*big]\n")
}

// Alias expansion is bounded in bytes as well as nodes: 9,000 aliases of a
// 100 KB scalar are refused as an alias bomb naming APP.md (with the
// defaults and with NoLimits, mockhost's no-yaml-limits), and an APP.md
// with a few aliases still loads with them expanded.
func TestAliasesBoundedInBytes(t *testing.T) {
	for name, opts := range map[string]LoadOptions{"defaults": {}, "NoLimits": {Limits: NoLimits()}} {
		t.Run(name, func(t *testing.T) {
			p := loadTree(t, map[string]string{"APP.md": aliasTextBomb()}, opts)
			f, ok := hasCode(p.Findings, CodeYAMLAliasBomb)
			if !ok || p.Valid() {
				t.Fatalf("findings %v lack %s", codesOf(p.Findings, ""), CodeYAMLAliasBomb)
			}
			if f.File != ManifestFile || !strings.HasPrefix(f.Message, "APP.md") || !strings.Contains(f.Message, "bytes of text") {
				t.Errorf("finding does not name APP.md and the bytes: %+v", f)
			}
		})
	}
	md := appMD(requiredFields + "metadata:\n  base: &base {team: core, tier: gold}\n  copy: *base\n  merged:\n    <<: *base\n    tier: silver\n")
	p := loadTree(t, map[string]string{"APP.md": md}, LoadOptions{})
	if !p.Valid() {
		t.Fatalf("an APP.md with a few aliases is refused: %v", p.Findings)
	}
	meta, _ := p.Manifest["metadata"].(map[string]any)
	copied, _ := meta["copy"].(map[string]any)
	merged, _ := meta["merged"].(map[string]any)
	if copied["team"] != "core" || merged["team"] != "core" || merged["tier"] != "silver" {
		t.Errorf("aliases not expanded: %v", meta)
	}
}
