// Package procs keeps what a run starts from outliving it: host process
// trees (stopped whole, with the processes that left the host's process
// group reported), host children that die with the harness, and temp
// folders that carry an owner lock so a later run can sweep the ones a
// killed run left behind.
//
// On Linux the harness becomes a child subreaper (PR_SET_CHILD_SUBREAPER),
// so a host's orphans are re-parented to the harness rather than to init,
// and every process of a host is found by its process group, its parent
// chain or the marker its environment inherits. A cgroup would catch more
// (a process that both scrubs its environment and double-forks), but
// creating one needs a delegated cgroup subtree, which CI runners and
// containers rarely give; a subreaper needs no privilege. Elsewhere the
// host's process group is killed and no escape is detected.
package procs

// Prefix begins the name of every temp folder this package makes.
const Prefix = "agentapp-"

// EnvHost is the environment variable a host process is started with: the
// host's own temp folder, which every process of the host inherits unless
// it scrubs its environment. It marks the host's processes.
const EnvHost = "AGENTAPP_CONFORMANCE_HOST"

// EnvBrowserProfile marks the environment of a browser the harness
// launched with its profile folder (drivers/browser).
const EnvBrowserProfile = "AGENTAPP_BROWSER_PROFILE"

// Escape is a process of a host that was found outside the host's process
// group when the host stopped (and was killed then).
type Escape struct {
	PID     int
	Command string // its command line, space-separated, at most 200 bytes
	// NewSession says it made a session of its own (setsid), not only a
	// process group.
	NewSession bool
}

// Host names the processes of one host.
type Host struct {
	// PID is the host process, leader of its own process group; whoever
	// started it reaps it.
	PID int
	// Markers are environment entries ("NAME=value") a process of the host
	// carries.
	Markers []string
}
