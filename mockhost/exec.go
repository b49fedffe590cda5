package mockhost

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// runSkillScripts is the bug behind the skill-scripts-run-* faults: it
// runs every shell script in the scripts folder of each bundled Skill, to
// "prepare" it, which a host must leave to the agent runtime (spec 000,
// Skills integration: "Skill execution still goes through lime.agent").
func runSkillScripts(p *agentpkg.Package) {
	skills, _ := p.Manifest["skills"].(map[string]any)
	bundled, _ := skills["bundled"].([]any)
	for _, b := range bundled {
		s, _ := b.(map[string]any)
		path, _ := s["path"].(string)
		dir := filepath.Join(p.Dir, filepath.FromSlash(path), "scripts")
		if rel, err := filepath.Rel(p.Dir, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		scripts, _ := filepath.Glob(filepath.Join(dir, "*.sh"))
		for _, script := range scripts {
			ctx, cancel := context.WithTimeout(context.Background(), workerTimeout)
			cmd := exec.CommandContext(ctx, "/bin/sh", script)
			cmd.Dir = p.Dir
			cmd.WaitDelay = time.Second
			_ = cmd.Run()
			cancel()
		}
	}
}

// srcAttr matches the absolute http(s) addresses a page's src and href
// attributes name.
var srcAttr = regexp.MustCompile(`(?:src|href)="(https?://[^"]+)"`)

// previewUI is the bug behind render-ui-on-readiness: to show a preview it
// loads the package's UI entry page as a renderer would, asking for every
// address the page names, which a Desktop P0 host must never do before
// launch (spec 002, Conformance levels: must not execute app UI). Only
// called under that fault.
func previewUI(p *agentpkg.Package) {
	rp, _ := p.Manifest["runtimePackage"].(map[string]any)
	ui, _ := rp["ui"].(map[string]any)
	path, _ := ui["path"].(string)
	entry, _ := ui["entry"].(string)
	page, err := os.ReadFile(filepath.Join(p.Dir, filepath.FromSlash(path), filepath.FromSlash(entry)))
	if entry == "" || err != nil {
		return
	}
	client := &http.Client{Timeout: workerTimeout}
	for _, m := range srcAttr.FindAllSubmatch(page, 20) {
		if resp, err := client.Get(string(m[1])); err == nil {
			_ = resp.Body.Close()
		}
	}
}
