package agentpkg

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

func project(t *testing.T, p *Package) map[string]any {
	t.Helper()
	raw, err := Project(p, Profile{Capabilities: defaultCaps()})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProjectionDeterministicAcrossFolders(t *testing.T) {
	var outs [][]byte
	var dirs []string
	for range 2 {
		dir, err := platformconformance.Materialize("full-app", t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p, err := Load(dir, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			raw, err := Project(p, Profile{Capabilities: defaultCaps()})
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, raw)
		}
		dirs = append(dirs, dir)
	}
	for _, o := range outs[1:] {
		if !bytes.Equal(o, outs[0]) {
			t.Fatal("projections differ between runs or folders")
		}
	}
	for _, d := range dirs {
		if bytes.Contains(outs[0], []byte(d)) {
			t.Error("projection carries the package's absolute path")
		}
	}
	var generic any
	if err := json.Unmarshal(outs[0], &generic); err != nil {
		t.Fatal(err)
	}
	var canon bytes.Buffer
	enc := json.NewEncoder(&canon)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(generic)
	if !bytes.Equal(bytes.TrimSpace(canon.Bytes()), outs[0]) {
		t.Error("projection is not canonical JSON (sorted keys, no indentation)")
	}
}

func TestProvenanceOnEveryProjectedObject(t *testing.T) {
	p := fixture(t, "full-app")
	out := project(t, p)
	want := p.Provenance()
	check := func(where string, v any) {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s is not an object", where)
			return
		}
		prov, _ := obj["provenance"].(map[string]any)
		for k, val := range want {
			if prov[k] != val {
				t.Errorf("%s: provenance.%s = %v, want %v", where, k, prov[k], val)
			}
		}
	}
	check("projection", out)
	objects, arrays := 0, 0
	for key, v := range out {
		switch val := v.(type) {
		case map[string]any:
			// triggers and skills are closed objects in the standard's schema.
			if key != "provenance" && key != "triggers" && key != "skills" {
				check(key, val)
				objects++
			}
		case []any:
			for i, item := range val {
				check(key+"["+string(rune('0'+i%10))+"]", item)
			}
			arrays++
		}
	}
	if want["standard"] != "agentapp" || want["standardVersion"] != "0.10.0" || want["appVersion"] != "1.2.0" {
		t.Errorf("provenance = %v", want)
	}
	sections := []string{"app", "capabilityRequirements", "entries", "ui", "storage", "services", "workflows",
		"knowledgeTemplates", "toolRequirements", "artifactTypes", "evals", "permissions", "secrets", "triggers",
		"quickstart", "timeline", "supportWindow", "publisher", "links", "license", "i18n", "signature", "errors",
		"events", "overlayTemplates", "lifecycle", "skills", "support", "distribution", "compliance", "health",
		"agentRuntime", "requirements", "boundary", "integrations", "operations", "install"}
	for _, s := range sections {
		if out[s] == nil {
			t.Errorf("projection lacks %s", s)
		}
	}
	if objects < 20 || arrays < 10 {
		t.Errorf("only %d object and %d array sections checked", objects, arrays)
	}
	if n := len(out["entries"].([]any)); n != 8 {
		t.Errorf("%d entries projected, want 8", n)
	}
	if perms := out["permissions"].([]any); len(perms) != 2 {
		t.Errorf("permissions = %v, want app.permissions.yaml's two", perms)
	}
}

func TestProjectionSecretsAreSlotsOnly(t *testing.T) {
	p := loadTree(t, map[string]string{"APP.md": appMD(requiredFields +
		"secrets:\n  - key: api_key\n    provider: acme\n    required: true\n    scope: workspace\n    value: CANARY-VALUE\n    default: CANARY-DEFAULT\n")}, LoadOptions{})
	raw, err := Project(p, Profile{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("CANARY")) {
		t.Error("projection carries a secret value")
	}
	var out struct{ Secrets []map[string]any }
	_ = json.Unmarshal(raw, &out)
	var keys []string
	for k := range out.Secrets[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"key", "provenance", "provider", "required", "scope"}) {
		t.Errorf("secret slot keys = %v", keys)
	}
}

func TestProjectionLegacyEntries(t *testing.T) {
	out := project(t, fixture(t, "legacy-entry-kinds-v04"))
	for _, e := range out["entries"].([]any) {
		entry := e.(map[string]any)
		legacy := entry["kind"] == "home"
		if (entry["legacy"] == true) != legacy || (entry["compatibility"] == "legacy") != legacy {
			t.Errorf("entry %v: legacy flags wrong", entry)
		}
	}
	_, err := Project(fixture(t, "legacy-entry-kinds"), Profile{})
	var pe *PackageError
	if !errors.As(err, &pe) {
		t.Fatalf("0.10.0 manifest with legacy kinds projected: %v", err)
	}
	if _, ok := hasCode(pe.Findings, CodeLegacyEntryKind); !ok || !strings.Contains(err.Error(), "entries[0].kind") {
		t.Errorf("error = %v", err)
	}
}

func TestProjectionLayeredWinnerAndCapabilities(t *testing.T) {
	out := project(t, fixture(t, "layered-conflict-app"))
	entries := out["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["key"] != "from_entries_file" {
		t.Errorf("entries = %v", entries)
	}
	out = project(t, fixture(t, "full-app"))
	resolved := out["capabilityRequirements"].(map[string]any)["resolved"].([]any)
	for _, r := range resolved {
		if r.(map[string]any)["satisfied"] != true {
			t.Errorf("capability not satisfied by a default host: %v", r)
		}
	}
}
