package mockhost

import (
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

// The host's own waits on the peers it talks to. host/configure timeouts
// may set each lower or higher (docs/host-control-protocol.md, "Peer
// timeouts"); mockhost honours them, as a host may.
const (
	// agentCallTimeout bounds one App Server call: a hung App Server fails
	// the task closed instead of holding the app.
	agentCallTimeout = 3 * time.Second
	// registryTimeout bounds one registry request: well inside the
	// harness's call timeout.
	registryTimeout = time.Second
	// revocationTimeout bounds one revocation check: well inside the
	// harness's call timeout.
	revocationTimeout = time.Second
	// backendCallTimeout bounds one relayed request to an app's backend:
	// under the harness's 5 s call timeout.
	backendCallTimeout = 4 * time.Second
)

// peerTimeouts are the waits in force: the host's own unless configured.
type peerTimeouts struct {
	appServer, registry, revocation, backend time.Duration
}

// timeoutsOf reads host/configure timeouts over the host's own waits.
func timeoutsOf(cfg protocol.ConfigureParams) peerTimeouts {
	t := peerTimeouts{appServer: agentCallTimeout, registry: registryTimeout, revocation: revocationTimeout, backend: backendCallTimeout}
	if c := cfg.Timeouts; c != nil {
		set := func(d *time.Duration, ms int) {
			if ms > 0 {
				*d = time.Duration(ms) * time.Millisecond
			}
		}
		set(&t.appServer, c.AppServerMs)
		set(&t.registry, c.RegistryMs)
		set(&t.revocation, c.RevocationMs)
		set(&t.backend, c.BackendMs)
	}
	return t
}

// timeouts are the host's waits under its current configuration.
func (h *Host) timeouts() peerTimeouts {
	cfg, _ := h.config()
	return timeoutsOf(cfg)
}
