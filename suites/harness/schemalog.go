package harness

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentapp/conformance/drivers/protocol"
)

// SchemaLog keeps the schema violations of every answer of the run, once
// per method, pointer and message, with the first spec that met each.
type SchemaLog struct {
	mu    sync.Mutex
	seen  map[string]int // key -> index in found
	found []schemaFinding
}

// schemaFinding is one violation as the run met it.
type schemaFinding struct {
	method string
	v      protocol.Violation
	spec   string
	times  int
}

// maxQuotedViolations is how many violations the failure message quotes.
const maxQuotedViolations = 10

func newSchemaLog() *SchemaLog { return &SchemaLog{seen: map[string]int{}} }

// observe records the violations of one answer to method during spec.
func (l *SchemaLog) observe(method, spec string, vs []protocol.Violation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, v := range vs {
		k := method + "\x00" + v.Pointer + "\x00" + v.Message
		if i, ok := l.seen[k]; ok {
			l.found[i].times++
			continue
		}
		l.seen[k] = len(l.found)
		l.found = append(l.found, schemaFinding{method: method, v: v, spec: spec, times: 1})
	}
}

// Text renders the violations, by method and pointer, one a line; ""
// when every answer matched its schema.
func (l *SchemaLog) Text() string {
	l.mu.Lock()
	fs := append([]schemaFinding(nil), l.found...)
	l.mu.Unlock()
	if len(fs) == 0 {
		return ""
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].method != fs[j].method {
			return fs[i].method < fs[j].method
		}
		return fs[i].v.Pointer < fs[j].v.Pointer
	})
	var lines []string
	for i, f := range fs {
		if i == maxQuotedViolations {
			lines = append(lines, fmt.Sprintf("and %d more (the transcript has every answer)", len(fs)-i))
			break
		}
		lines = append(lines, fmt.Sprintf("the answer to %s: %s (%d times, first during %q)", f.method, f.v, f.times, f.spec))
	}
	return strings.Join(lines, "\n")
}
