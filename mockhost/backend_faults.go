package mockhost

// backendFaults are the faults of client-local backend services (backends.go,
// sandbox_linux.go).
func backendFaults() []Fault {
	return []Fault{
		{Name: "backend-started-at-install", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "an app's backend services start as soon as it is installed, before any entry passed its readiness gate"},
		{Name: "backend-starts-unready", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "app/launch starts the app's backends before its readiness gate, so an app that needs setup runs its backend anyway"},
		{Name: "backend-survives-disable", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "a disabled app's backends keep running"},
		{Name: "backend-survives-uninstall", Breaks: []string{"BACKEND-SUPERVISED"},
			Description: "an uninstalled app's backends keep running until host/reset"},
		{Name: "backend-crash-ignored", Breaks: []string{"BACKEND-RESTART"},
			Description: "a backend that exits on its own is neither restarted nor reported: host/observe still says it runs"},
		{Name: "backend-env-inherits-secrets", Breaks: []string{"BACKEND-ENV-CLEAN"},
			Description: "the configured secrets and session tokens are put into each backend's environment, for convenience"},
		{Name: "backend-unsandboxed", Breaks: []string{"BACKEND-NO-HOST-ACCESS"},
			Description: "backends run with the host's own rights (no Landlock): they can read the host's database and other apps' data"},
		{Name: "backend-no-resource-limits", Breaks: []string{"BACKEND-RESOURCE-LIMITS"},
			Description: "a backend runs with the host's own resource limits: as many open files and as large files as the host may have"},
		{Name: "backend-stderr-discarded", Breaks: []string{"BACKEND-LOGS-CAPTURED"},
			Description: "a backend's stderr goes nowhere: what it logs is not kept"},
		{Name: "worker-unsandboxed", Breaks: []string{"BACKEND-NO-HOST-ACCESS", "BACKEND-NETWORK-POLICY"},
			Description: "only services of kind app-backend are sandboxed: a client-local worker runs with the host's own rights, reading host databases and opening connections"},
		{Name: "backend-may-listen", Breaks: []string{"BACKEND-NETWORK-POLICY"},
			Description: "network deny-by-default stops a backend's outgoing connections only: it may still listen on a port"},
		{Name: "backend-network-open", Breaks: []string{"BACKEND-NETWORK-POLICY"},
			Description: "the filesystem sandbox is applied, but a backend declaring network deny-by-default may still connect anywhere"},
	}
}
