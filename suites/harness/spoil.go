package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"go.yaml.in/yaml/v3"

	"github.com/agentapp/conformance/drivers/agentpkg"
)

// Spoilers: each changes one thing of a package the spec has just shown to
// be accepted, so that a refusal can only be about that one thing.

// SetField sets a top-level frontmatter field of APP.md (a line `key: ...`
// at no indent), adding it when absent.
func SetField(dir, key, value string) {
	ginkgo.GinkgoHelper()
	EditFrontmatter(dir, func(lines []string) []string {
		for i, l := range lines {
			if strings.HasPrefix(l, key+":") {
				lines[i] = key + ": " + value
				return lines
			}
		}
		return append(lines, key+": "+value)
	})
}

// DropField removes a top-level frontmatter field of APP.md and the
// indented lines under it.
func DropField(dir, key string) {
	ginkgo.GinkgoHelper()
	EditFrontmatter(dir, func(lines []string) []string {
		var out []string
		dropping, found := false, false
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, key+":"):
				dropping, found = true, true
				continue
			case dropping && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "-")):
				continue
			}
			dropping = false
			out = append(out, l)
		}
		if !found {
			Errorf("fixture sanity: APP.md of %s has no field %s", filepath.Base(dir), key)
		}
		return out
	})
}

// ReplaceIn replaces the first occurrence of old in a package file.
func ReplaceIn(dir, rel, old, new string) {
	ginkgo.GinkgoHelper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	if err != nil {
		Errorf("reading %s: %v", rel, err)
	}
	if !bytes.Contains(b, []byte(old)) {
		Errorf("fixture sanity: %s of %s does not contain %q", rel, filepath.Base(dir), old)
	}
	WriteFile(dir, rel, bytes.Replace(b, []byte(old), []byte(new), 1))
}

// EditFrontmatter rewrites the frontmatter lines of APP.md.
func EditFrontmatter(dir string, edit func([]string) []string) {
	ginkgo.GinkgoHelper()
	RewriteAppMD(dir, func(md []byte) []byte {
		s := string(md)
		if !strings.HasPrefix(s, "---\n") {
			Errorf("fixture sanity: APP.md of %s has no frontmatter", filepath.Base(dir))
		}
		end := strings.Index(s[4:], "\n---\n")
		if end < 0 {
			Errorf("fixture sanity: APP.md of %s has an unterminated frontmatter", filepath.Base(dir))
		}
		lines := strings.Split(s[4:4+end], "\n")
		return []byte("---\n" + strings.Join(edit(lines), "\n") + s[4+end:])
	})
}

// DropCapabilities takes capability names out of every place a package
// requires them: a key of requires.capabilities, an item of a block list
// (the capabilities list of APP.md or app.capabilities.yaml), and an item
// of a flow list (an entry's requiredCapabilities, a boundary's host
// plane), in APP.md and every app.*.yaml.
func DropCapabilities(dir string, names ...string) {
	ginkgo.GinkgoHelper()
	files, _ := filepath.Glob(filepath.Join(dir, "app.*.yaml"))
	files = append([]string{filepath.Join(dir, "APP.md")}, files...)
	dropped := false
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			Errorf("reading %s: %v", filepath.Base(p), err)
		}
		out, changed := dropCapabilityLines(string(b), names)
		if changed {
			dropped = true
			WriteFile(dir, filepath.Base(p), []byte(out))
		}
	}
	if !dropped {
		Errorf("fixture sanity: %s requires none of %s", filepath.Base(dir), strings.Join(names, ", "))
	}
}

// dropCapabilityLines is DropCapabilities on the text of one file.
func dropCapabilityLines(text string, names []string) (string, bool) {
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	lines := strings.Split(text, "\n")
	out := lines[:0]
	changed := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		key, _, isKey := strings.Cut(t, ":")
		if drop[strings.TrimSpace(strings.TrimPrefix(t, "- "))] && strings.HasPrefix(t, "- ") || isKey && drop[key] {
			changed = true
			continue
		}
		if open, close := strings.Index(l, "["), strings.LastIndex(l, "]"); open >= 0 && close > open {
			var keep []string
			dropped := false
			for _, item := range strings.Split(l[open+1:close], ",") {
				item = strings.TrimSpace(item)
				dropped = dropped || drop[item]
				if item != "" && !drop[item] {
					keep = append(keep, item)
				}
			}
			if dropped {
				l, changed = l[:open+1]+strings.Join(keep, ", ")+l[close:], true
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n"), changed
}

// DropReadinessCheck removes, from every tier of evals/readiness.yaml, the
// checks whose fields name name (a template, a capability, a check key).
func DropReadinessCheck(dir, name string) {
	ginkgo.GinkgoHelper()
	p := filepath.Join(dir, "evals", "readiness.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		Errorf("reading evals/readiness.yaml: %v", err)
	}
	var doc struct {
		Readiness map[string][]map[string]any `yaml:"readiness"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		Errorf("fixture sanity: evals/readiness.yaml: %v", err)
	}
	dropped := 0
	for tier, checks := range doc.Readiness {
		var keep []map[string]any
		for _, c := range checks {
			if c["template"] == name || c["capability"] == name || c["check"] == name {
				dropped++
				continue
			}
			keep = append(keep, c)
		}
		doc.Readiness[tier] = keep
	}
	if dropped == 0 {
		Errorf("fixture sanity: no readiness check of %s names %s", filepath.Base(dir), name)
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		Errorf("encoding evals/readiness.yaml: %v", err)
	}
	WriteFile(dir, "evals/readiness.yaml", out)
}

// CopyPackage copies the package in dir to a fresh folder with the same
// name and returns it: a twin to spoil while dir stays untouched.
func (tc *TestContext) CopyPackage(dir string) string {
	ginkgo.GinkgoHelper()
	twin := filepath.Join(tc.Scratch(), filepath.Base(dir))
	if err := os.CopyFS(twin, os.DirFS(dir)); err != nil {
		Errorf("copying %s: %v", filepath.Base(dir), err)
	}
	return twin
}

// keepSignatureCurrent keeps a derived package valid in every respect but
// the one its spec plants: when APP.md changed from before to after and
// app.signature.yaml named the hash of before, it names the hash of after
// (spec 000, Package signing: the manifest hash covers APP.md). A host that
// verifies before it projects (000's order) would otherwise refuse every
// derived package for a stale hash the spec never meant. A signature that
// names another hash (planted on purpose) is left as it is.
func keepSignatureCurrent(dir string, before, after []byte) {
	ginkgo.GinkgoHelper()
	p := filepath.Join(dir, "app.signature.yaml")
	sig, err := os.ReadFile(p)
	if err != nil {
		return // no signature file: nothing to keep current
	}
	old, now := agentpkg.HashManifest(before), agentpkg.HashManifest(after)
	if old == now || !bytes.Contains(sig, []byte(old)) {
		return
	}
	WriteFile(dir, "app.signature.yaml", bytes.ReplaceAll(sig, []byte(old), []byte(now)))
}
