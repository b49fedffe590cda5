package protocol

import "encoding/json"

// MethodBackend relays one JSON-RPC request to an installed app's running
// client-local backend service and answers the backend's result: a
// conformance hook, as installedPath is, so the harness can speak to the
// backend it handed the host (docs/host-control-protocol.md, app/backend).
const MethodBackend = "app/backend"

// Backend states host/observe reports of an app's backend services.
const (
	BackendRunning = "running"
	BackendStopped = "stopped"
	BackendCrashed = "crashed"
)

// BackendParams names the app, its service (the manifest's services[].key)
// and the request to relay.
type BackendParams struct {
	AppID   string          `json:"appId"`
	Service string          `json:"service"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// BackendResult is the backend's own result, as it answered.
type BackendResult struct {
	Result json.RawMessage `json:"result"`
}

// BackendState is what host/observe shows of one backend service of the
// app: its state, the process id of the running process, and how often the
// host restarted it since it first started.
type BackendState struct {
	Service  string `json:"service"`
	State    string `json:"state"`
	PID      int    `json:"pid,omitempty"`
	Restarts int    `json:"restarts,omitempty"`
	// Log is what the host kept of the backend's stderr (its latest
	// process), at most 64 KiB.
	Log string `json:"log,omitempty"`
}
