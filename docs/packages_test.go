// Package docs holds no code. Its tests keep docs/packages.md, the page of
// what a host must know about packages, true to the harness: every
// requirement it names is in the catalog (levels), every bound, limit,
// vocabulary, layered file and readiness tier it states is the one the
// harness's oracle (drivers/agentpkg) applies, every field bound and
// vocabulary the one the CAT-FIELD-CONSTRAINTS specs plant (judged_test.go,
// from the names of the specs suites.Preview lists), and every local link and
// anchor resolves. They live beside the page, read it by a relative path
// and start nothing (the suites are only listed, never run), so `go test
// ./docs` takes about a second.
package docs

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

const packagesPage = "packages.md"

func readPage(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return string(b)
}

func TestPackagesPageNamesOnlyRequirementsTheCatalogHas(t *testing.T) {
	page := readPage(t, packagesPage)
	if bad := unknownRequirements(page, levels.Default()); len(bad) > 0 {
		t.Errorf("%s names requirements levels/ does not have: %s", packagesPage, strings.Join(bad, ", "))
	}
	if n := len(requirementIDs(page)); n < 40 {
		t.Errorf("%s names %d requirements; the page ties each fact to the requirement judging it, so a reading that finds so few is broken", packagesPage, n)
	}
}

// unknownRequirements lists the requirement-like ids of text cat lacks.
func unknownRequirements(text string, cat *levels.Catalog) []string {
	var bad []string
	for _, id := range requirementIDs(text) {
		if _, ok := cat.Requirement(id); !ok {
			bad = append(bad, id)
		}
	}
	return bad
}

func TestEveryPackagesPageSectionNamesARequirement(t *testing.T) {
	cat := levels.Default()
	secs := sections(readPage(t, packagesPage))
	if len(secs) < 10 {
		t.Fatalf("%s has %d sections; the reading of its headings is broken", packagesPage, len(secs))
	}
	for heading, body := range secs {
		named := slices.ContainsFunc(requirementIDs(body), func(id string) bool {
			_, ok := cat.Requirement(id)
			return ok
		})
		if !named {
			t.Errorf("section %q of %s names no requirement that judges what it says", heading, packagesPage)
		}
	}
}

func TestPackagesPageLinksResolve(t *testing.T) {
	broken, err := brokenLinks(packagesPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Error(b)
	}
	if n := len(links(readPage(t, packagesPage))); n < 20 {
		t.Errorf("%s has %d links; the page links the protocol sections it summarises, so a reading that finds so few is broken", packagesPage, n)
	}
}

// The documents a host author starts from link to the page, and their own
// local links and anchors resolve.
func TestHostDocsLinkToThePackagesPage(t *testing.T) {
	for _, doc := range []string{"host-control-protocol.md", "../README.md", "../examples/minimal-host/README.md"} {
		broken, err := brokenLinks(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Error(b)
		}
		page, _ := filepath.Abs(packagesPage)
		linked := slices.ContainsFunc(links(readPage(t, doc)), func(l link) bool {
			file, _, _ := strings.Cut(l.target, "#")
			target, _ := filepath.Abs(filepath.Join(filepath.Dir(doc), filepath.FromSlash(file)))
			return file != "" && target == page
		})
		if !linked {
			t.Errorf("%s does not link to docs/%s", doc, packagesPage)
		}
	}
}

// fieldsTable is the page's table of APP.md fields and their bounds.
func fieldsTable(t *testing.T) table {
	t.Helper()
	tab, err := tableWithHeader(readPage(t, packagesPage), "Field", "Required")
	if err != nil {
		t.Fatalf("%s: the fields table: %v", packagesPage, err)
	}
	return tab
}

var (
	lengthRE     = regexp.MustCompile(`^(\d+) to (\d+) characters`)
	itemsRE      = regexp.MustCompile(`^a list of at most (\d+) items`)
	vocabularyRE = regexp.MustCompile(`must be one of (.+?)(?: \(line \d+\))?$`)
)

// Each length bound the page states is the oracle's, on both sides, counted
// in characters: the value at the bound, in a two-byte character (an ASCII
// one for name, whose pattern allows no other), verifies; one more
// character, and an empty value, do not.
func TestPackagesPageFieldLengthsAreTheOracles(t *testing.T) {
	tab := fieldsTable(t)
	checked := 0
	for _, row := range tab.rows {
		field := fieldOf(t, tab, row)
		m := lengthRE.FindStringSubmatch(tab.cell(row, 2))
		if m == nil {
			continue
		}
		checked++
		lo, _ := strconv.Atoi(m[1])
		hi, _ := strconv.Atoi(m[2])
		char := "é"
		if field == "name" {
			char = "a"
		}
		if lo != 1 {
			t.Errorf("%s: %s: the page gives a lower bound of %d; the oracle's only lower bound is non-empty (1)", packagesPage, field, lo)
		}
		if errs := fieldErrors(t, map[string]string{field: strings.Repeat(char, hi)}, field); len(errs) > 0 {
			t.Errorf("%s: %s of %d characters, the page's bound, is refused by the oracle: %v", packagesPage, field, hi, errs)
		}
		if errs := fieldErrors(t, map[string]string{field: strings.Repeat(char, hi+1)}, field); !hasCode(errs, agentpkg.CodeInvalidField) {
			t.Errorf("%s: %s of %d characters, one past the page's bound, is accepted by the oracle", packagesPage, field, hi+1)
		}
		if errs := fieldErrors(t, map[string]string{field: ""}, field); !hasCode(errs, agentpkg.CodeInvalidField) {
			t.Errorf("%s: an empty %s is accepted by the oracle", packagesPage, field)
		}
	}
	if checked < 4 {
		t.Errorf("%s: %d length bounds found in the fields table; name, description, displayName and shortDescription have one", packagesPage, checked)
	}
}

// Each vocabulary the page states is the oracle's, whole: every value it
// lists verifies, a value outside it does not, and the oracle knows no
// value the page leaves out.
func TestPackagesPageVocabulariesAreTheOracles(t *testing.T) {
	tab := fieldsTable(t)
	checked := 0
	for _, row := range tab.rows {
		field := fieldOf(t, tab, row)
		constraint := tab.cell(row, 2)
		if !strings.HasPrefix(constraint, "one of ") {
			continue
		}
		checked++
		listed := backticked(constraint)
		for _, v := range listed {
			if errs := fieldErrors(t, map[string]string{field: v}, field); len(errs) > 0 {
				t.Errorf("%s: %s %q, which the page lists, is refused by the oracle: %v", packagesPage, field, v, errs)
			}
		}
		errs := fieldErrors(t, map[string]string{field: "not-in-the-vocabulary"}, field)
		if len(errs) == 0 {
			t.Errorf("%s: %s takes a value the page does not list", packagesPage, field)
			continue
		}
		var known []string
		if field == "manifestVersion" {
			known = agentpkg.KnownManifestVersions()
		} else if m := vocabularyRE.FindStringSubmatch(errs[0].Message); m != nil {
			known = strings.Split(m[1], ", ")
		} else {
			t.Errorf("the oracle refuses %s without naming its vocabulary (%q), so the page's list cannot be compared", field, errs[0].Message)
			continue
		}
		if !slices.Equal(listed, known) {
			t.Errorf("%s: %s: the page lists %v; the oracle knows %v", packagesPage, field, listed, known)
		}
	}
	if checked < 3 {
		t.Errorf("%s: %d vocabularies found in the fields table; status, appType and manifestVersion have one", packagesPage, checked)
	}
}

// The fields the page marks required are exactly those the oracle reports
// missing from an empty frontmatter, and dropping any of them is refused
// as missing; dropping one the page marks optional is not.
func TestPackagesPageRequiredFieldsAreTheOracles(t *testing.T) {
	tab := fieldsTable(t)
	var required []string
	for _, row := range tab.rows {
		field := fieldOf(t, tab, row)
		errs := fieldErrors(t, map[string]string{field: dropField}, field)
		switch tab.cell(row, 1) {
		case "yes":
			required = append(required, field)
			if !hasCode(errs, agentpkg.CodeMissingField) {
				t.Errorf("%s: %s is required on the page, but the oracle accepts APP.md without it", packagesPage, field)
			}
		case "no":
			if len(errs) > 0 {
				t.Errorf("%s: %s is optional on the page, but the oracle refuses APP.md without it: %v", packagesPage, field, errs)
			}
		default:
			t.Errorf("%s: %s: Required is %q, not yes or no", packagesPage, field, tab.cell(row, 1))
		}
	}
	var missing []string
	for _, f := range load(t, "---\n---\n# empty\n").Errors() {
		if f.Code == agentpkg.CodeMissingField {
			missing = append(missing, f.Field)
		}
	}
	slices.Sort(missing)
	slices.Sort(required)
	if !slices.Equal(required, missing) {
		t.Errorf("%s marks %v required; the oracle reports %v missing from an empty frontmatter", packagesPage, required, missing)
	}
}

var limitRE = regexp.MustCompile(`^([\d,]+)(?: (MiB))?$`)

// The limits the page states are agentpkg.DefaultLimits, every one of them.
func TestPackagesPageLimitsAreTheOracles(t *testing.T) {
	tab, err := tableWithHeader(readPage(t, packagesPage), "Limit")
	if err != nil {
		t.Fatalf("%s: the limits table: %v", packagesPage, err)
	}
	limits := reflect.ValueOf(agentpkg.DefaultLimits())
	seen := map[string]bool{}
	for _, row := range tab.rows {
		names := backticked(tab.cell(row, 2))
		if len(names) != 1 {
			t.Errorf("%s: limits row %q names no one DefaultLimits field", packagesPage, strings.Join(row, " | "))
			continue
		}
		name := names[0]
		seen[name] = true
		f := limits.FieldByName(name)
		if !f.IsValid() {
			t.Errorf("%s: agentpkg.Limits has no field %s", packagesPage, name)
			continue
		}
		m := limitRE.FindStringSubmatch(tab.cell(row, 1))
		if m == nil {
			t.Errorf("%s: the value %q of %s is not a number, or a number of MiB", packagesPage, tab.cell(row, 1), name)
			continue
		}
		stated, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if m[2] == "MiB" {
			stated <<= 20
		}
		if got := f.Int(); got != stated {
			t.Errorf("%s: %s is %s on the page; agentpkg.DefaultLimits has %d", packagesPage, name, tab.cell(row, 1), got)
		}
	}
	for i := range limits.NumField() {
		if name := limits.Type().Field(i).Name; !seen[name] {
			t.Errorf("%s: the limits table leaves out DefaultLimits.%s", packagesPage, name)
		}
	}
}

// The page's layered files are the oracle's, each with the manifest key it
// provides, and no other.
func TestPackagesPageLayeredFilesAreTheOracles(t *testing.T) {
	tab, err := tableWithHeader(readPage(t, packagesPage), "File")
	if err != nil {
		t.Fatalf("%s: the layered files table: %v", packagesPage, err)
	}
	stated := map[string]string{}
	for _, row := range tab.rows {
		file, key := backticked(tab.cell(row, 0)), backticked(tab.cell(row, 1))
		if len(file) != 1 || len(key) != 1 {
			t.Errorf("%s: layered files row %q does not name one file and one key", packagesPage, strings.Join(row, " | "))
			continue
		}
		stated[file[0]] = key[0]
	}
	want := agentpkg.LayeredFiles()
	for file, key := range want {
		if stated[file] != key {
			t.Errorf("%s: the oracle loads %s as the manifest key %s; the page says %q", packagesPage, file, key, stated[file])
		}
	}
	for file := range stated {
		if _, ok := want[file]; !ok {
			t.Errorf("%s lists %s as a layered file, which the oracle does not load", packagesPage, file)
		}
	}
}

// The page's readiness tiers are the oracle's, in order, and each check
// kind it lists is one the oracle evaluates, reading the parameter the page
// names and failing with the status (and setup action) the page gives.
func TestPackagesPageReadinessIsTheOracles(t *testing.T) {
	page := readPage(t, packagesPage)
	tiers, err := tableWithHeader(page, "Tier")
	if err != nil {
		t.Fatalf("%s: the tiers table: %v", packagesPage, err)
	}
	var stated []string
	for _, row := range tiers.rows {
		stated = append(stated, backticked(tiers.cell(row, 0))...)
	}
	if want := agentpkg.ReadinessTiers(); !slices.Equal(stated, want) {
		t.Errorf("%s lists the readiness tiers %v; the oracle's are %v", packagesPage, stated, want)
	}

	kinds, err := tableWithHeader(page, "Check kind")
	if err != nil {
		t.Fatalf("%s: the check kinds table: %v", packagesPage, err)
	}
	if len(kinds.rows) < 5 {
		t.Errorf("%s lists %d readiness check kinds; the protocol names five", packagesPage, len(kinds.rows))
	}
	for _, row := range kinds.rows {
		kind, param := backticked(kinds.cell(row, 0)), backticked(kinds.cell(row, 1))
		if len(kind) != 1 || len(param) == 0 {
			t.Errorf("%s: check kinds row %q names no one kind and its parameter", packagesPage, strings.Join(row, " | "))
			continue
		}
		r, check := failingCheck(t, kind[0], param[0])
		if strings.Contains(check.Message, "is not evaluated") {
			t.Errorf("%s: the oracle does not know the check kind %s: %s", packagesPage, kind[0], check.Message)
			continue
		}
		if param[0] != "expect" && check.Key != probeValue {
			t.Errorf("%s: the oracle's %s check does not read %s (its key is %q)", packagesPage, kind[0], param[0], check.Key)
		}
		outcome := kinds.cell(row, 2)
		want := protocol.StatusReady
		if words := backticked(outcome); !strings.Contains(outcome, "never fails") && len(words) > 0 {
			want = words[0]
			if len(words) > 1 && !slices.ContainsFunc(r.SetupActions, func(a protocol.SetupAction) bool { return a.Kind == words[1] }) {
				t.Errorf("%s: a failing %s check gives no %s setup action in the oracle: %+v", packagesPage, kind[0], words[1], r.SetupActions)
			}
		}
		if r.Status != want {
			t.Errorf("%s: a failing required %s check gives %s in the oracle; the page says %s", packagesPage, kind[0], r.Status, want)
		}
	}
	// The sentinel the loop relies on: a kind the oracle does not know is
	// reported as not evaluated.
	if _, check := failingCheck(t, "no_such_check", "expect"); !strings.Contains(check.Message, "is not evaluated") {
		t.Errorf("the oracle's message for an unknown check kind changed (%q): the check kinds test cannot tell known kinds from unknown ones", check.Message)
	}
}

// probeValue is the value the readiness probes give a check's parameter.
const probeValue = "probe_value"

// failingCheck judges, with the oracle, a package whose required tier holds
// one check of kind that fails where it can: its parameter param is
// probeValue (a version range no SDK meets for expect), the host offers no
// capability and holds no secret. It returns the verdict and that check.
func failingCheck(t *testing.T, kind, param string) (protocol.ReadinessResult, protocol.ReadinessCheck) {
	t.Helper()
	value := probeValue
	if param == "expect" {
		value = ">=99.0.0"
	}
	dir := writePackage(t, appMD(nil), map[string]string{
		"evals/readiness.yaml": "readiness:\n  required:\n    - check: " + kind + "\n      " + param + ": " + strconv.Quote(value) + "\n",
	})
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		t.Fatalf("the oracle cannot load the %s probe: %v", kind, err)
	}
	r := agentpkg.Readiness(p, agentpkg.Env{Now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	for _, c := range r.Tiers["required"] {
		if c.Kind == kind {
			return r, c
		}
	}
	t.Fatalf("the oracle's readiness has no %s check in the required tier: %+v", kind, r.Tiers)
	return r, protocol.ReadinessCheck{}
}

// fieldOf returns the field a fields-table row is about.
func fieldOf(t *testing.T, tab table, row []string) string {
	t.Helper()
	names := backticked(tab.cell(row, 0))
	if len(names) != 1 {
		t.Fatalf("%s: fields row %q does not name one field", packagesPage, strings.Join(row, " | "))
	}
	return names[0]
}

// dropField, as a value, leaves the field out of APP.md.
const dropField = "\x00drop"

// appMD is the APP.md of a small valid app, each field of set replacing
// its value (dropField leaves it out; new fields are added).
func appMD(set map[string]string) string {
	fields := []string{"name", "description", "version", "status", "appType", "manifestVersion"}
	values := map[string]string{"name": "probe-app", "description": "A package the page test probes the oracle with.",
		"version": "1.0.0", "status": "ready", "appType": "agent-app", "manifestVersion": "0.10.0"}
	for k, v := range set {
		if _, ok := values[k]; !ok {
			fields = append(fields, k)
		}
		values[k] = v
	}
	var b strings.Builder
	b.WriteString("---\n")
	for _, f := range fields {
		if values[f] == dropField {
			continue
		}
		// A JSON string is a YAML double-quoted scalar: the value stays text.
		q, _ := json.Marshal(values[f])
		b.WriteString(f + ": " + string(q) + "\n")
	}
	b.WriteString("---\n# probe-app\n")
	return b.String()
}

// writePackage writes a package folder of APP.md and files and returns it.
func writePackage(t *testing.T, md string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "probe-app")
	all := map[string]string{"APP.md": md}
	maps.Copy(all, files)
	for name, body := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load loads a package holding only the given APP.md with the oracle.
func load(t *testing.T, md string) *agentpkg.Package {
	t.Helper()
	p, err := agentpkg.Load(writePackage(t, md, nil), agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		t.Fatalf("the oracle cannot load the probe package: %v", err)
	}
	return p
}

// fieldErrors returns the oracle's error findings on field for the small
// valid app with set applied.
func fieldErrors(t *testing.T, set map[string]string, field string) []protocol.Finding {
	t.Helper()
	var out []protocol.Finding
	for _, f := range load(t, appMD(set)).Errors() {
		if f.Field == field {
			out = append(out, f)
		}
	}
	return out
}

func hasCode(fs []protocol.Finding, code string) bool {
	return slices.ContainsFunc(fs, func(f protocol.Finding) bool { return f.Code == code })
}
