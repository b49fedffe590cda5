//go:build !mutation

package mockhost

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// BenchmarkTaskEventProjection measures the whole path of a task's facts:
// the harness's App Server streams one turn of b.N deltas with no pause,
// mockhost projects each into the task event envelope and pushes it to the
// app's surface, and the benchmark reads them off the surface's event
// stream. A stream too slow for the host loses events (the host never
// blocks on an app): "lost" reports how many did not arrive.
func BenchmarkTaskEventProjection(b *testing.B) {
	x := start(b)
	sc := appserver.NewScript()
	sc.EventGap = 0
	sc.Turn = make([]appserver.Event, 0, b.N+1)
	for range b.N {
		sc.Turn = append(sc.Turn, appserver.Event{Type: "assistant:delta", Payload: map[string]any{"text": "x"}})
	}
	sc.Turn = append(sc.Turn, appserver.Event{Type: "result", Subtype: "success"})
	appServerFor(b, x, sc, protocol.ConfigureParams{})
	s := x.mount("tiny-app", "main")
	ev := s.events()
	b.ResetTimer()
	s.invoke("r1", "lime.agent", "startTask", map[string]any{"input": "x", "idempotencyKey": "k"})
	got := 0
	for {
		m := next(ev, 2*time.Second)
		if m.Type == "" {
			break
		}
		if m.Type != hostbridge.TypeEvent {
			continue
		}
		got++
		var e hostbridge.TaskEvent
		if json.Unmarshal(m.Payload, &e) == nil && e.Type == "result" {
			break
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(got)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(len(sc.Turn)-got), "lost")
}
