package levels

// backendRequirements are the host duties around an app's client-local
// backend services: the host supervises their processes (start, stop,
// restart), builds their environment and puts them in a sandbox, so a
// backend is no way around the host (spec 000, Client-local service
// backend and stdio-jsonrpc; spec 001, Backend services; spec 002, Desktop
// P6).
func backendRequirements() []Requirement {
	return []Requirement{
		{ID: "BACKEND-SUPERVISED", BugFamilies: []BugFamily{EveryTransition}, Reading: "Backend lifecycle", Strength: Must, Levels: []string{"runtime", "desktop-p6"},
			Title: "An app's client-local backend runs only while the app may run: not after install, nor for an app that needs setup; started when an entry launches, stopped (its process gone) when the app is disabled or uninstalled, and started again after enable and launch",
			Clause: Clause{Source: SpecText, File: SpecMain, Section: "Client-local service backend; 002 Desktop P6",
				Quote: "runs in a client-host-supervised process ... The host owns lifecycle ... Desktop P6 Run app-owned backend services and app storage under host supervision."}},
		{ID: "BACKEND-RESTART", BugFamilies: []BugFamily{ChangeBetweenReads}, Reading: "Backend restart", Strength: Must, Levels: []string{"runtime", "desktop-p6"},
			Title:  "A backend that exits on its own is restarted (answering again from a new process) or reported crashed; a host never reports it running while nothing answers",
			Clause: spec(SpecRuntime, "App backend services", "host owns process, environment, stdio, cancellation, and restart policy.")},
		{ID: "BACKEND-ENV-CLEAN", BugFamilies: []BugFamily{EveryMember}, Strength: MustNot, Levels: []string{"runtime", "desktop-p6"},
			Title:  "No configured secret or session token reaches a backend or a worker service: not in its environment, its arguments, nor any file it can read",
			Clause: spec(SpecMain, "Shared host model", "The host must not expose bearer tokens, refresh tokens, provider keys, plaintext secrets ... to apps.")},
		{ID: "BACKEND-NO-HOST-ACCESS", BugFamilies: []BugFamily{EveryMember, ConfusableIdentity}, Reading: "Backend sandbox", Strength: MustNot, Levels: []string{"runtime", "desktop-p6"},
			Title: "A backend or a worker service cannot read host databases, another app's files or data, or the host's secrets: nothing it reads holds the neighbour app's stored value or a configured secret, and no SQLite database outside its own package and data folder",
			Clause: Clause{Source: SpecText, File: SpecRuntime, Section: "App backend services; 002 Desktop P6",
				Quote: "Backend services are not a loophole around the host. They must not read host databases, workspace files, secrets, model keys, or user state directly ... Desktop P6 ... Let app backends read host databases, secrets, files, or user state directly."}},
		{ID: "BACKEND-RESOURCE-LIMITS", BugFamilies: []BugFamily{EveryMember}, Reading: "Backend sandbox", Strength: Must, Levels: []string{"runtime", "desktop-p6"},
			Title:  "A backend or a worker service runs under resource limits of its own: a soft limit tighter than the host's (open files, file size, memory, CPU time, processes) or a cgroup of its own with a limit",
			Clause: spec(SpecRuntime, "Worker runtime", "Raw worker or app backend execution requires additional sandboxing: - resource limits")},
		{ID: "BACKEND-LOGS-CAPTURED", BugFamilies: []BugFamily{EveryTransition}, Strength: Must, Levels: []string{"runtime", "desktop-p6"},
			Title:  "What a backend writes to its stderr is kept by the host: host/observe shows it in the backend's log",
			Clause: spec(SpecMain, "Shared host model (backend protocols)", "stdio-jsonrpc: Cross-language local service ... Host owns process lifecycle, env, stdout/stderr capture, cancellation, and permission envelope.")},
		{ID: "PROTO-BACKEND-RELAY", BugFamilies: []BugFamily{WhoAnswers, EveryMember}, Strength: Must, Kind: Precondition, Levels: []string{"runtime", "desktop-p6"},
			Title:  "app/backend answers the backend's line carrying the request's id: never a notification (no id) nor an answer to another id the backend writes before it; a backend that answers an error, or nothing within the call timeout, is answered -32603, never a result",
			Clause: proto("app/backend", "its answer is the line on stdout with the same `id` ... A backend that answers an error, or nothing within the call timeout: -32603.")},
		{ID: "BACKEND-NETWORK-POLICY", BugFamilies: []BugFamily{EveryMember}, Reading: "Backend sandbox", Strength: Must, Levels: []string{"runtime", "desktop-p6"},
			Title:  "A backend or a worker service whose manifest declares network deny-by-default cannot open a TCP connection, even to loopback, nor listen on a port",
			Clause: spec(SpecRuntime, "Worker runtime", "Raw worker or app backend execution requires additional sandboxing: - resource limits - filesystem restrictions - network policy")},
	}
}
