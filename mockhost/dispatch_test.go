//go:build !mutation

package mockhost

import (
	"slices"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

// hello's methods are the dispatch table's, in its order, each once, and
// each is answered by its handler: never -32601 (host-control-protocol.md,
// Errors).
func TestHelloListsTheDispatchTable(t *testing.T) {
	x := start(t)
	var h protocol.HelloResult
	x.must(protocol.MethodHello, protocol.HelloParams{HarnessName: "t", ProtocolVersion: protocol.Version}, &h)
	if !slices.Equal(h.Methods, methods()) {
		t.Fatalf("hello lists %v, the table holds %v", h.Methods, methods())
	}
	if len(slices.Compact(slices.Sorted(slices.Values(h.Methods)))) != len(h.Methods) {
		t.Errorf("hello lists a method twice: %v", h.Methods)
	}
	for _, m := range h.Methods {
		if m == protocol.MethodShutdownHint {
			continue // it ends the connection
		}
		if err := x.call(m, map[string]any{}, nil); code(err) == protocol.CodeMethodNotFound {
			t.Errorf("%s is listed but not dispatched: %v", m, err)
		}
	}
}
