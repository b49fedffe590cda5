package agentpkg

import (
	"errors"
	"io/fs"
	"strings"
)

// layeredFile is one independent configuration file loaded by file-name
// convention (spec 000, Layered configuration).
type layeredFile struct {
	Path string
	Key  string // manifest key the file provides
	// Whole marks keys whose manifest value is the file's whole document
	// object even when it holds a same-named list (app.requirements.yaml
	// holds requirements[], nonGoals[], later[]; app.integrations.yaml holds
	// integrations[]).
	Whole bool
}

// layeredFiles lists the convention files in load order.
func layeredFiles() []layeredFile {
	return []layeredFile{
		{Path: "app.capabilities.yaml", Key: "capabilities"},
		{Path: "app.entries.yaml", Key: "entries"},
		{Path: "app.permissions.yaml", Key: "permissions"},
		{Path: "app.errors.yaml", Key: "errors"},
		{Path: "app.i18n.yaml", Key: "i18n"},
		{Path: "app.signature.yaml", Key: "signature"},
		{Path: "app.runtime.yaml", Key: "agentRuntime"},
		{Path: "app.requirements.yaml", Key: "requirements", Whole: true},
		{Path: "app.boundary.yaml", Key: "boundary", Whole: true},
		{Path: "app.integrations.yaml", Key: "integrations", Whole: true},
		{Path: "app.operations.yaml", Key: "operations", Whole: true},
		{Path: "app.install.yaml", Key: "install"},
		{Path: "evals/readiness.yaml", Key: "readiness"},
		{Path: "evals/health.yaml", Key: "health"},
	}
}

// LayeredFiles returns the convention file names and the manifest key each provides.
func LayeredFiles() map[string]string {
	out := map[string]string{}
	for _, lf := range layeredFiles() {
		out[lf.Path] = lf.Key
	}
	return out
}

// merger builds Package.Manifest from the frontmatter and layered files.
type merger struct {
	p     *Package
	opts  LoadOptions
	lines map[string]map[string]int // file -> field path -> line
}

func (m *merger) add(fs ...Finding) { m.p.Findings = append(m.p.Findings, fs...) }

func (m *merger) frontmatter(raw []byte) {
	fm, reason := splitFrontmatter(raw)
	m.p.Body = fm.body
	if reason != "" {
		m.add(finding(CodeNoFrontmatter, SeverityError, ManifestFile, "", "%s", reason))
		return
	}
	if !m.opts.SkipUTF8Check && !utf8Valid(fm.body) {
		m.add(finding(CodeNotUTF8, SeverityError, ManifestFile, "", "the Markdown body is not valid UTF-8"))
	}
	doc, fs := parseYAML(fm.yaml, ManifestFile, fm.lineOffset, m.opts, "")
	m.add(fs...)
	if HasErrors(fs) {
		return
	}
	m.lines[ManifestFile] = doc.lines
	if doc.value == nil {
		return // empty frontmatter: required fields are reported missing
	}
	top, ok := doc.value.(map[string]any)
	if !ok {
		m.add(finding(CodeInvalidYAML, SeverityError, ManifestFile, "", "the frontmatter is not a YAML mapping"))
		return
	}
	for k, v := range top {
		m.p.Manifest[k] = v
		m.p.Sources[k] = ManifestFile
	}
}

func (m *merger) layered(lf layeredFile) {
	raw, err := readPackageFile(m.p.Dir, lf.Path, m.opts.Limits.withDefaults().MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		m.add(finding(CodeMissingFile, SeverityError, lf.Path, "", "cannot be read: %v", err))
		return
	}
	// First pass decides whether the document is wrapped in its key, so
	// field paths are recorded relative to the manifest.
	doc, fs := parseYAML(raw, lf.Path, 0, m.opts, "")
	m.add(fs...)
	if HasErrors(fs) || doc.value == nil {
		return
	}
	value, wrapped := unwrap(lf, doc.value)
	lines := map[string]int{}
	for path, line := range doc.lines {
		if wrapped {
			lines[path] = line
		} else {
			lines[childPath(lf.Key, path)] = line
		}
	}
	if !wrapped {
		lines[lf.Key] = 1
	}
	if _, inFront := m.p.Manifest[lf.Key]; inFront && m.opts.FrontmatterWins {
		return
	}
	m.p.Manifest[lf.Key] = value
	m.p.Sources[lf.Key] = lf.Path
	m.lines[lf.Path] = lines
}

// unwrap returns the manifest value a layered document provides. A document
// whose top level holds the file's key is wrapped (`entries: [...]`); other
// top-level keys beside an object-valued wrapper are folded into it (the
// app.runtime.yaml schema puts agentTask beside agentRuntime). A document
// without the key is the value itself.
func unwrap(lf layeredFile, doc any) (any, bool) {
	top, ok := doc.(map[string]any)
	if !ok {
		return doc, false
	}
	inner, has := top[lf.Key]
	if !has {
		return doc, false
	}
	obj, isObj := inner.(map[string]any)
	switch {
	case isObj:
		out := make(map[string]any, len(obj)+len(top))
		for k, v := range top {
			if k != lf.Key {
				out[k] = v
			}
		}
		for k, v := range obj {
			out[k] = v
		}
		return out, true
	case lf.Whole:
		return doc, false
	default:
		return inner, true
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
