package hostbridge

import _ "embed"

// ProbeJS is the harness's Host Bridge v1 probe (probe.js). The harness
// installs it in an isolated world of the app's frame under ProbeWorld and
// calls ProbeRun there; the page's own scripts cannot reach that world, so
// nothing the host serves can write what the probe reports.
//
//go:embed probe.js
var ProbeJS string

// ProbeWorld names the isolated world the probe runs in.
const ProbeWorld = "agentapp-bridge-probe"

// ProbeReady is true in ProbeWorld once the probe runs there.
const ProbeReady = "typeof globalThis.__agentappProbe === 'object'"

// ProbeInstance names the document the probe runs in: a new value in each
// document the frame loads (a reload loses what the probe recorded).
const ProbeInstance = "globalThis.__agentappProbe.instance"

// ProbeRun is the expression that runs a scenario (its JSON follows) and
// gives back what the probe saw, as a JSON string.
const ProbeRun = "globalThis.__agentappProbe.run"
