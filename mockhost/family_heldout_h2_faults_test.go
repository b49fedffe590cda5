//go:build !mutation

package mockhost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/telemetry"
)

// heldOutH2Probes observe the faults of heldOutH2Faults (TestEveryFaultChangesTheAnswer).
func heldOutH2Probes() map[string]probe {
	return map[string]probe{
		// the scope tone comes from after a workspace overlay set between
		// an update and the rollback
		"rollback-restores-old-overlays": func(t *testing.T, x *harness) string {
			setOverlays(t, x, protocol.ScopeUser)
			newer := pkg(t, "tiny-app", map[string]string{"APP.md": strings.Replace(manifest(withDefaults(overlayApp)), "version: 1.0.0", "version: 1.1.0", 1)})
			x.must(protocol.MethodUpdate, protocol.UpdateParams{AppID: "tiny-app", Path: newer, Release: releaseOf(t, newer),
				Consent: protocol.Consent{Granted: true, By: "user"}}, &protocol.UpdateResult{})
			x.must(protocol.MethodOverlay, protocol.OverlayParams{AppID: "tiny-app", Key: "workspace_rules", Scope: protocol.ScopeWorkspace,
				Values: map[string]json.RawMessage{"tone": json.RawMessage(`"workspace"`)}}, &protocol.OK{})
			x.must(protocol.MethodRollback, protocol.AppIDParams{AppID: "tiny-app"}, &protocol.RollbackResult{})
			return toneInEffect(x)
		},
		// whether a task's prompt reaches the collector after a
		// host/configure turned content export off, having been on
		"telemetry-content-opt-in-latched": func(t *testing.T, x *harness) string {
			col, err := telemetry.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer col.Close()
			optIn := func(on bool) protocol.ConfigureParams {
				return protocol.ConfigureParams{Telemetry: &protocol.Telemetry{Endpoint: col.URL(), ExportContent: on}}
			}
			srv := appServerFor(t, x, appserver.NewScript(), optIn(true))
			s := x.mount("tiny-app", "main")
			s.invoke("r1", "lime.agent", "startTask", map[string]any{"idempotencyKey": "k1", "input": map[string]any{"text": "opted-in-prompt"}})
			off := optIn(false)
			off.AppServer = &protocol.AppServerConfig{Transport: protocol.AppServerSocket, Address: srv.Addr()}
			x.configureWith(off)
			mark := time.Now()
			s.invoke("r2", "lime.agent", "startTask", map[string]any{"idempotencyKey": "k2", "input": map[string]any{"text": "opted-out-prompt"}})
			body := exportedSince(col, mark)
			return fmt.Sprintf("opted in %v, opted out %v", strings.Contains(body, "opted-in-prompt"), strings.Contains(body, "opted-out-prompt"))
		},
		// whether a task's prompt reaches a collector the host was
		// configured with, content export off, from the start
		"telemetry-content-opt-in-on-change": func(t *testing.T, x *harness) string {
			col, err := telemetry.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer col.Close()
			appServerFor(t, x, appserver.NewScript(), protocol.ConfigureParams{Telemetry: &protocol.Telemetry{Endpoint: col.URL()}})
			s := x.mount("tiny-app", "main")
			mark := time.Now()
			s.invoke("r1", "lime.agent", "startTask", map[string]any{"idempotencyKey": "k1", "input": map[string]any{"text": "never-opted-in-prompt"}})
			body := exportedSince(col, mark)
			return fmt.Sprintf("prompt exported %v", strings.Contains(body, "never-opted-in-prompt"))
		},
	}
}

// exportedSince waits for an export to col after mark, and a batch more,
// and answers every body col received.
func exportedSince(col *telemetry.Collector, mark time.Time) string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	col.WaitSince(ctx, mark)
	time.Sleep(2 * otelBatchDelay)
	var body strings.Builder
	for _, e := range col.Exports() {
		body.Write(e.Body)
	}
	return body.String()
}
