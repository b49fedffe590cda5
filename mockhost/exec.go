package mockhost

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentapp/conformance/drivers/agentpkg"
)

// workerTimeout bounds one run of a package's worker under the exec faults.
const workerTimeout = 5 * time.Second

// runWorker is the bug behind exec-worker-on-project and
// exec-worker-on-readiness: it runs the package's declared worker
// (runtimePackage.worker path + entry) with /bin/sh, synchronously, which a
// Desktop P0 host must never do (spec 002, Conformance levels). It is only
// called under those faults; a worker outside the package is not run.
func runWorker(p *agentpkg.Package) {
	rp, _ := p.Manifest["runtimePackage"].(map[string]any)
	w, _ := rp["worker"].(map[string]any)
	path, _ := w["path"].(string)
	entry, _ := w["entry"].(string)
	if entry == "" {
		return
	}
	script := filepath.Join(p.Dir, filepath.FromSlash(path), filepath.FromSlash(entry))
	if rel, err := filepath.Rel(p.Dir, script); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), workerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", script)
	cmd.Dir = p.Dir
	cmd.WaitDelay = time.Second
	_ = cmd.Run()
}
