//go:build linux

package mockhost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The backend sandbox (docs/decisions.md, "Backend sandbox"): each
// client-local backend starts under a Landlock domain that lets it read
// and execute its own installed package and the system's programs and
// libraries, read and write its own data folder, and nothing else; with
// network deny-by-default it may neither bind nor connect TCP (spec 001,
// "Raw worker or app backend execution requires additional sandboxing:
// ... filesystem restrictions, network policy").

// sandbox says what one backend may reach.
type sandbox struct {
	readExec  []string // folders it may read and execute below
	readWrite []string // folders it may read, write, create and remove below
	denyNet   bool     // handle TCP bind and connect with no rule allowing any
	mayBind   bool     // with denyNet, leave binding unhandled (a fault)
	off       bool     // no domain at all (fault only)
}

// Landlock filesystem rights, per ABI.
const (
	llReadExec = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	llFSv1     = 1<<13 - 1 // EXECUTE through MAKE_SYM
)

// landlockABI returns the Landlock ABI version of the running kernel, or an
// error when it has none (or it is disabled).
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, fmt.Errorf("landlock is not available on this kernel: %w", errno)
	}
	return int(v), nil
}

// handledFS is every filesystem right the ABI knows: each is denied unless
// a rule allows it.
func handledFS(abi int) uint64 {
	fs := uint64(llFSv1)
	if abi >= 2 {
		fs |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		fs |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		fs |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return fs
}

// startSandboxed starts cmd under sb. The domain is put on one locked OS
// thread only, which then forks the backend (os/exec forks from the calling
// thread, so the child inherits the domain) and is discarded: the goroutine
// ends without unlocking it, so the runtime kills the thread and no other
// goroutine ever runs restricted.
func startSandboxed(cmd *exec.Cmd, sb sandbox) error {
	if sb.off {
		return cmd.Start()
	}
	abi, err := landlockABI()
	if err != nil {
		return err
	}
	if sb.denyNet && abi < 4 {
		return fmt.Errorf("landlock ABI %d cannot deny network access (ABI 4 needed)", abi)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread goes with this goroutine
		if err := restrictThread(abi, sb); err != nil {
			errc <- err
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// restrictThread puts the calling thread under a new Landlock domain.
func restrictThread(abi int, sb sandbox) error {
	handled := handledFS(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	if sb.denyNet {
		attr.Access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		if sb.mayBind {
			attr.Access_net = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		}
	}
	size := unsafe.Sizeof(attr)
	if abi < 6 { // no scoped member before ABI 6
		size = unsafe.Offsetof(attr.Scoped)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("creating the landlock ruleset: %w", errno)
	}
	ruleset := int(fd)
	defer func() { _ = unix.Close(ruleset) }()
	for _, dir := range sb.readExec {
		if err := allowBeneath(ruleset, dir, llReadExec); err != nil {
			return err
		}
	}
	for _, dir := range sb.readWrite {
		if err := allowBeneath(ruleset, dir, handled); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("restricting the backend's thread: %w", errno)
	}
	return nil
}

// allowBeneath adds a rule granting access below dir; a folder that does
// not exist (a system without /lib64) is left out.
func allowBeneath(ruleset int, dir string, access uint64) error {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s for the sandbox: %w", dir, err)
	}
	defer func() { _ = unix.Close(fd) }()
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("allowing %s in the sandbox: %w", dir, errno)
	}
	return nil
}

// Resource limits of a backend process (spec 001, Worker runtime: "Raw
// worker or app backend execution requires additional sandboxing: -
// resource limits"): open files and the size of any file it writes.
const (
	backendMaxFiles    = 256
	backendMaxFileSize = 64 << 20
)

// limitProcess puts the running process pid under the backend limits, soft
// and hard alike, so it cannot raise them again.
func limitProcess(pid int) error {
	for _, l := range []struct {
		resource int
		value    uint64
	}{{unix.RLIMIT_NOFILE, backendMaxFiles}, {unix.RLIMIT_FSIZE, backendMaxFileSize}} {
		lim := unix.Rlimit{Cur: l.value, Max: l.value}
		if err := unix.Prlimit(pid, l.resource, &lim, nil); err != nil {
			return fmt.Errorf("limiting the backend's resources: %w", err)
		}
	}
	return nil
}
