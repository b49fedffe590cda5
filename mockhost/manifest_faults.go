package mockhost

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// The manifest-rule faults: how a real host gets APP.md's field rules
// wrong (spec 000, Required fields; Version and timeline; Runtime approval).

// fieldLimits are the character limits of APP.md's string fields.
var fieldLimits = []struct {
	field string
	max   int
}{{"name", 64}, {"description", 1024}, {"displayName", 128}, {"shortDescription", 140}}

// timelineFields are APP.md's ISO 8601 date-time fields (000 Version and
// timeline).
var timelineFields = []string{"createdAt", "updatedAt", "releasedAt", "deprecatedAt", "endOfLifeAt"}

// dateTimeShape finds a quoted value shaped as a date-time in a finding's
// message, whatever its day.
var dateTimeShape = regexp.MustCompile(`"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`)

// manifestRuleFindings are the findings a host with a manifest-rule fault
// adds of its own: it refuses what the standard allows.
func (h *Host) manifestRuleFindings(m map[string]any) []protocol.Finding {
	var out []protocol.Finding
	// fault: count-bytes-not-characters — field limits are counted in UTF-8 bytes, so a valid non-ASCII value at the limit is refused.
	if h.faults.Has("count-bytes-not-characters") {
		for _, l := range fieldLimits {
			if s, ok := m[l.field].(string); ok && len(s) > l.max {
				out = append(out, protocol.Finding{Code: agentpkg.CodeInvalidField, Severity: agentpkg.SeverityError,
					File: agentpkg.ManifestFile, Field: l.field,
					Message: fmt.Sprintf("APP.md: field %s: is %d long; at most %d are allowed", l.field, len(s), l.max)})
			}
		}
	}
	// fault: list-limit-exclusive — a list's item limit is read as exclusive: keywords with exactly 32 items, or categories with exactly 8, are refused.
	if h.faults.Has("list-limit-exclusive") {
		for _, l := range []struct {
			field string
			max   int
		}{{"keywords", 32}, {"categories", 8}} {
			if items, ok := m[l.field].([]any); ok && len(items) >= l.max {
				out = append(out, protocol.Finding{Code: agentpkg.CodeInvalidField, Severity: agentpkg.SeverityError,
					File: agentpkg.ManifestFile, Field: l.field,
					Message: fmt.Sprintf("APP.md: field %s: has %d items; fewer than %d are allowed", l.field, len(items), l.max)})
			}
		}
	}
	// fault: timeline-z-only — a timeline date-time with an offset instead of Z is refused.
	if h.faults.Has("timeline-z-only") {
		for _, f := range timelineFields {
			if v, ok := m[f].(string); ok && !strings.HasSuffix(v, "Z") {
				out = append(out, protocol.Finding{Code: agentpkg.CodeInvalidField, Severity: agentpkg.SeverityError,
					File: agentpkg.ManifestFile, Field: f, Message: fmt.Sprintf("APP.md: field %s: %q is not a UTC date-time", f, v)})
			}
		}
	}
	// fault: only-current-manifest-version — any manifestVersion but the current 0.10.0 is refused.
	if v, ok := m["manifestVersion"].(string); ok && v != agentpkg.StandardVersion && h.faults.Has("only-current-manifest-version") {
		out = append(out, protocol.Finding{Code: agentpkg.CodeUnsupportedManifestVersion, Severity: agentpkg.SeverityError,
			File: agentpkg.ManifestFile, Field: "manifestVersion",
			Message: fmt.Sprintf("APP.md: field manifestVersion: %s is not supported; this host reads %s", v, agentpkg.StandardVersion)})
	}
	return out
}

// dropsFieldRule reports whether a host with a manifest-rule fault does
// not see an invalid-field finding: it accepts what the standard refuses.
func (h *Host) dropsFieldRule(f protocol.Finding) bool {
	switch {
	// fault: open-vocabularies — status and appType take any value.
	case f.Field == "status" || f.Field == "appType":
		return h.faults.Has("open-vocabularies")
	// fault: no-length-limits — field lengths are never checked.
	case strings.Contains(f.Message, "characters; at most"):
		return h.faults.Has("no-length-limits")
	// fault: timeline-unchecked — timeline fields take any text.
	case strings.Contains(f.Message, "is not an RFC 3339 date-time") && h.faults.Has("timeline-unchecked"):
		return true
	// fault: timeline-shape-only — a timeline field is checked for the shape of a date-time, not for a day of the calendar: 2026-02-30T10:00:00Z passes.
	case strings.Contains(f.Message, "is not an RFC 3339 date-time"):
		return h.faults.Has("timeline-shape-only") && dateTimeShape.MatchString(f.Message)
	// fault: list-limits-unchecked — keywords and categories take any number of items.
	case strings.Contains(f.Message, "items; at most"):
		return h.faults.Has("list-limits-unchecked")
	}
	return false
}
