package agentpkg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentapp/conformance/drivers/protocol"
)

// Profile is the host profile a projection is made for.
type Profile struct {
	Capabilities map[string]protocol.Capability
}

// Provenance is the object stamped on every projected object (spec 000,
// Projection contract; SPEC-NOTES, provenance fields).
func (p *Package) Provenance() map[string]any {
	name, _ := p.Manifest["name"].(string)
	version, _ := p.Manifest["version"].(string)
	return map[string]any{
		"appName":         name,
		"appVersion":      version,
		"packageHash":     p.PackageHash,
		"manifestHash":    p.ManifestHash,
		"standard":        Standard,
		"standardVersion": StandardVersion,
	}
}

// Sections of the projection and the manifest keys they come from.
// triggers and skills are projected too, but without provenance: the
// standard's projection schema closes both objects to other members.
func objectSections() []string {
	return []string{"ui", "storage", "lifecycle", "quickstart", "publisher",
		"supportWindow", "support", "distribution", "compliance", "i18n", "signature", "health",
		"agentRuntime", "install", "presentation", "compatibility", "readiness"}
}

func arraySections() map[string]string { // projection key -> manifest key
	return map[string]string{
		"services": "services", "workflows": "workflows", "knowledgeTemplates": "knowledgeTemplates",
		"toolRequirements": "toolRefs", "artifactTypes": "artifactTypes", "evals": "evals",
		"events": "events", "overlayTemplates": "overlayTemplates", "permissions": "permissions",
		"maintainers": "maintainers", "contributors": "contributors", "skillRefs": "skillRefs",
	}
}

func appSummaryKeys() []string {
	return []string{"name", "version", "description", "displayName", "displayNameI18n", "shortDescription",
		"shortDescriptionI18n", "status", "appType", "runtimeTargets", "keywords", "categories"}
}

// Project compiles the manifest into host catalog objects (spec 000,
// Projection contract): deterministic canonical JSON (sorted keys, no
// indentation), with no absolute path, time or random id, and provenance on
// the whole projection, the app summary, every object section and every
// element of every array section. Secrets are projected as slots (key,
// provider, required, scope) only. Legacy entry kinds of a pre-0.10.0
// manifest carry "legacy": true and "compatibility": "legacy". A package with
// error findings (a 0.10.0 manifest with legacy kinds among them) is refused
// with a *PackageError.
func Project(p *Package, prof Profile) (json.RawMessage, error) {
	if errs := p.Errors(); len(errs) > 0 {
		return nil, &PackageError{Findings: errs}
	}
	pj := projector{p: p, m: p.Manifest}
	return canonicalJSON(pj.build(prof))
}

type projector struct {
	p *Package
	m map[string]any
}

// stamp copies obj and adds provenance.
func (pj projector) stamp(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj)+1)
	for k, v := range obj {
		out[k] = v
	}
	out["provenance"] = pj.p.Provenance()
	return out
}

// stampAll stamps each element; non-object elements become {"value": x}.
func (pj projector) stampAll(list []any) []any {
	out := make([]any, 0, len(list))
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			obj = map[string]any{"value": item}
		}
		out = append(out, pj.stamp(obj))
	}
	return out
}

func (pj projector) build(prof Profile) map[string]any {
	m := pj.m
	out := map[string]any{"provenance": pj.p.Provenance()}
	app := map[string]any{}
	for _, k := range appSummaryKeys() {
		if v, ok := m[k]; ok {
			app[k] = v
		}
	}
	app["manifestVersion"] = StandardVersion
	if mv, ok := m["manifestVersion"].(string); ok {
		app["manifestVersion"] = mv
	}
	out["app"] = pj.stamp(app)
	if cr := pj.capabilityRequirements(prof); cr != nil {
		out["capabilityRequirements"] = cr
	}
	out["entries"] = pj.entries()
	for _, k := range objectSections() {
		if obj, ok := m[k].(map[string]any); ok {
			out[k] = pj.stamp(obj)
		}
	}
	// publisher.verified is host-decided: written by the registry after
	// verification, ignored if self-declared (spec 000, Identity and
	// presentation). No registry vouches here, so it is never projected.
	if pub, ok := out["publisher"].(map[string]any); ok {
		delete(pub, "verified")
	}
	for _, k := range []string{"triggers", "skills"} {
		if obj, ok := m[k].(map[string]any); ok {
			out[k] = obj
		}
	}
	for pk, mk := range arraySections() {
		if list, ok := m[mk].([]any); ok {
			out[pk] = pj.stampAll(list)
		}
	}
	if list, ok := m["secrets"].([]any); ok {
		out["secrets"] = pj.secrets(list)
	}
	switch a := m["author"].(type) {
	case string:
		out["author"] = a
	case map[string]any:
		out["author"] = pj.stamp(a)
	}
	pj.grouped(out, "timeline", map[string]string{"createdAt": "createdAt", "updatedAt": "updatedAt",
		"releasedAt": "releasedAt", "deprecatedAt": "deprecatedAt", "endOfLifeAt": "endOfLifeAt"})
	pj.grouped(out, "links", map[string]string{"homepage": "homepage", "repository": "repository",
		"documentation": "documentation", "issues": "issues", "changelog": "changelog"})
	pj.grouped(out, "license", map[string]string{"spdx": "license", "licenseUrl": "licenseUrl", "copyright": "copyright"})
	if errs := pj.errorCatalog(); errs != nil {
		out["errors"] = errs
	}
	for _, k := range []string{"integrations", "operations"} {
		if list := innerList(m[k], k); list != nil {
			out[k] = pj.stampAll(list)
		}
	}
	for k, inner := range map[string]string{"requirements": "requirements", "boundary": "boundaries"} {
		switch v := m[k].(type) {
		case map[string]any:
			out[k] = pj.stamp(v)
		case []any:
			out[k] = pj.stamp(map[string]any{inner: v})
		}
	}
	return out
}

// grouped gathers top-level manifest fields into one projected object.
func (pj projector) grouped(out map[string]any, section string, fields map[string]string) {
	obj := map[string]any{}
	for pk, mk := range fields {
		if v, ok := pj.m[mk]; ok && v != nil {
			obj[pk] = v
		}
	}
	if len(obj) > 0 {
		out[section] = pj.stamp(obj)
	}
}

// innerList accepts both `key: [...]` and `key: {key: [...]}` (the layered
// file's document shape).
func innerList(v any, key string) []any {
	switch t := v.(type) {
	case []any:
		return t
	case map[string]any:
		l, _ := t[key].([]any)
		return l
	}
	return nil
}

func (pj projector) entries() []any {
	list, _ := pj.m["entries"].([]any)
	legacy := IsLegacyManifest(pj.m)
	out := make([]any, 0, len(list))
	for _, item := range pj.stampAll(list) {
		e := item.(map[string]any)
		if kind, _ := e["kind"].(string); legacy && legacyEntryKind(kind) {
			e["legacy"] = true
			e["compatibility"] = "legacy"
		}
		out = append(out, e)
	}
	return out
}

// secrets projects credential slots only: never a value, default or example.
func (pj projector) secrets(list []any) []any {
	out := make([]any, 0, len(list))
	for _, item := range list {
		src, _ := item.(map[string]any)
		slot := map[string]any{}
		for _, k := range []string{"key", "provider", "required", "scope"} {
			if v, ok := src[k]; ok {
				slot[k] = v
			}
		}
		out = append(out, pj.stamp(slot))
	}
	return out
}

// errorCatalog turns app.errors.yaml's name -> definition map into a list sorted by name.
func (pj projector) errorCatalog() []any {
	switch v := pj.m["errors"].(type) {
	case []any:
		return pj.stampAll(v)
	case map[string]any:
		out := make([]any, 0, len(v))
		for _, name := range sortedKeys(v) {
			def, ok := v[name].(map[string]any)
			if !ok {
				def = map[string]any{"message": v[name]}
			}
			e := pj.stamp(def)
			e["key"] = name
			out = append(out, e)
		}
		return out
	}
	return nil
}

func (pj projector) capabilityRequirements(prof Profile) map[string]any {
	req, hasReq := pj.m["requires"]
	caps, hasCaps := pj.m["capabilities"]
	if !hasReq && !hasCaps {
		return nil
	}
	obj := map[string]any{}
	if hasReq {
		obj["requires"] = req
	}
	if hasCaps {
		obj["capabilities"] = caps
	}
	resolved := []any{}
	for _, r := range RequiredCapabilities(pj.m) {
		row := map[string]any{"capability": r.Name, "range": r.Range}
		if prof.Capabilities != nil {
			problem, _ := capabilityProblem(r, prof.Capabilities)
			row["satisfied"] = problem == ""
			if problem != "" {
				row["reason"] = problem
			}
		}
		resolved = append(resolved, row)
	}
	obj["resolved"] = resolved
	return pj.stamp(obj)
}

// canonicalJSON marshals v with sorted keys, no indentation and no HTML escaping.
func canonicalJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encoding projection: %w", err)
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// RegisteredCatalogs are the host catalogs install registers projected
// objects into, named by their projection key (spec 000, Runtime contract
// 4: "register entries, UI, storage, services, skills, knowledge, tools,
// artifacts, evals, and permissions into host catalogs"). UI and storage
// are one object each, not keyed lists, and are not listed here.
func RegisteredCatalogs() []string {
	return []string{"entries", "services", "skillRefs", "knowledgeTemplates", "toolRequirements", "artifactTypes", "evals", "permissions"}
}

// CatalogKeys lists, per registered catalog, the keys (or ids) of the
// objects a projection puts in it, sorted; catalogs the projection leaves empty are
// left out.
func CatalogKeys(projection map[string]any) map[string][]string {
	out := map[string][]string{}
	for _, c := range RegisteredCatalogs() {
		list, _ := projection[c].([]any)
		for _, item := range list {
			if o, ok := item.(map[string]any); ok && ItemKey(o) != "" {
				out[c] = append(out[c], ItemKey(o))
			}
		}
		slices.Sort(out[c])
	}
	return out
}
