package harness

import (
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// The run's schema violations are kept once per method, pointer and
// message, with the first spec that met each, and quoted a bounded number.
func TestSchemaLogReportsEachViolationOnce(t *testing.T) {
	l := newSchemaLog()
	if l.Text() != "" {
		t.Fatal("an empty log describes something")
	}
	v := protocol.Violation{Pointer: "/projection/provenance", Message: "missing property 'provenance'"}
	l.observe(protocol.MethodProject, "first spec", []protocol.Violation{v})
	l.observe(protocol.MethodProject, "second spec", []protocol.Violation{v})
	got := l.Text()
	if strings.Count(got, "\n") != 0 || !strings.Contains(got, "package/project: /projection/provenance: missing property 'provenance' (2 times, first during \"first spec\")") {
		t.Errorf("describe = %q", got)
	}
	for i := range 2 * maxQuotedViolations {
		l.observe(protocol.MethodList, "s", []protocol.Violation{{Pointer: "/apps/" + string(rune('a'+i)), Message: "m"}})
	}
	if lines := strings.Split(l.Text(), "\n"); len(lines) != maxQuotedViolations+1 || !strings.HasPrefix(lines[maxQuotedViolations], "and 11 more") {
		t.Errorf("a flood of violations is not bounded: %d lines", len(lines))
	}
}
