package catalog

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentapp/conformance/suites/harness"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/levels"
)

// knownManifestVersionEntries is one entry per manifestVersion the
// standard knows (spec 000 Version and timeline; the manifest schema's enum).
func knownManifestVersionEntries(tc *harness.TestContext) []ginkgo.TableEntry {
	var es []ginkgo.TableEntry
	for _, v := range agentpkg.KnownManifestVersions() {
		// The current version is minimal-app's own: the table's
		// positive control verifies it. 0.3.0 to 0.9.0 sort after 0.10.0
		// as text: a host comparing versions as text refuses them.
		if v == agentpkg.StandardVersion {
			continue
		}
		es = append(es, ginkgo.Entry(v, tc.Req("CAT-MANIFEST-VERSION", levels.EveryMember, levels.RepresentationLimit), v))
	}
	return es
}

// fieldConstraintEntries are the two sides of every APP.md field
// constraint (spec 000, Required fields; Identity and presentation): the
// value at the bound and every vocabulary value verify; one past the bound,
// an empty value and a value outside the vocabulary do not. Lengths use a
// two-byte character, so a host counting bytes refuses a valid value.
func fieldConstraintEntries(tc *harness.TestContext) []ginkgo.TableEntry {
	var es []ginkgo.TableEntry
	// A length at or past its bound, an empty value and a value outside the
	// vocabulary are representation boundaries; each vocabulary value is a
	// member of what the clause lists.
	add := func(field, value string, valid bool, family levels.BugFamily) {
		side := "refused"
		if valid {
			side = "accepted"
		}
		es = append(es, ginkgo.Entry(valueText(field, value)+" is "+side, tc.Req("CAT-FIELD-CONSTRAINTS", family), field, value, valid))
	}
	for _, l := range []struct {
		field, char string
		max         int
	}{{"name", "a", 64}, {"description", "é", 1024}, {"displayName", "é", 128}, {"shortDescription", "é", 140}} {
		add(l.field, strings.Repeat(l.char, l.max), true, levels.RepresentationLimit)
		add(l.field, strings.Repeat(l.char, l.max+1), false, levels.RepresentationLimit)
	}
	// Lists: keywords at most 32, categories at most 8 (000 Identity and
	// presentation), on both sides of each bound.
	for _, l := range []struct {
		field string
		max   int
	}{{"keywords", 32}, {"categories", 8}} {
		add(l.field, flowList(l.field, l.max), true, levels.RepresentationLimit)
		add(l.field, flowList(l.field, l.max+1), false, levels.RepresentationLimit)
	}
	// Timeline fields are ISO 8601 date-times (000 Version and timeline):
	// with Z, an offset or fractional seconds they verify; an impossible
	// day, or words, do not. A date alone, ISO 8601 too, is not judged.
	for _, v := range []string{"2026-01-05T10:00:00Z", "2026-01-05T10:00:00+08:00", "2026-01-05T10:00:00.250Z"} {
		add("releasedAt", v, true, levels.RepresentationLimit)
	}
	add("releasedAt", "next-tuesday", false, levels.RepresentationLimit)
	for _, f := range []string{"createdAt", "updatedAt", "releasedAt", "deprecatedAt", "endOfLifeAt"} {
		add(f, "2026-02-30T10:00:00Z", false, levels.EveryMember)
	}
	add("description", `""`, false, levels.RepresentationLimit)
	for _, s := range []string{"draft", "ready", "needs-review", "deprecated", "archived"} {
		add("status", s, true, levels.EveryMember)
	}
	add("status", "published", false, levels.RepresentationLimit)
	add("status", "Ready", false, levels.RepresentationLimit)
	for _, t := range []string{"agent-app", "workflow-app", "domain-app", "customer-app", "custom"} {
		add("appType", t, true, levels.EveryMember)
	}
	add("appType", "plugin", false, levels.RepresentationLimit)
	return es
}

// flowList is a YAML flow sequence of n distinct items named after field.
func flowList(field string, n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = field + "-" + strconv.Itoa(i+1)
	}
	return "[" + strings.Join(items, ", ") + "]"
}

// valueText names a field's value for spec names and messages: a list by
// its number of items, short values whole, long ones by their length in
// characters.
func valueText(field, value string) string {
	if strings.HasSuffix(field, "At") {
		return field + " " + value
	}
	if strings.HasPrefix(value, "[") {
		return field + " with " + strconv.Itoa(strings.Count(value, ",")+1) + " items"
	}
	if n := utf8.RuneCountInString(value); n > 16 {
		return field + " of " + strconv.Itoa(n) + " characters (" + abbreviate(value) + ")"
	}
	return field + " " + value
}

// abbreviate shortens a long value for a spec name or a message.
func abbreviate(s string) string {
	if utf8.RuneCountInString(s) <= 12 {
		return s
	}
	r := []rune(s)
	return string(r[:3]) + "…" + string(r[len(r)-3:])
}
