package mockhost

import (
	"fmt"
	"slices"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/protocol"
)

// runtimeFindings checks a runtime-backed release against the system
// lime-runtime host/configure names (spec 003, Distribution flow: "for
// runtime-backed releases, the host must verify that the system
// lime-runtime satisfies the declared version range"). Without a
// configured system runtime nothing is judged.
func (h *Host) runtimeFindings(p *agentpkg.Package) []protocol.Finding {
	cfg, _ := h.config()
	// fault: ignore-runtime-range — a runtime-backed release is installed whatever lime-runtime the system has.
	if cfg.SystemRuntime == nil || h.faults.Has("ignore-runtime-range") || h.takesNoRuntimeBacked() {
		return nil
	}
	// variant: runtime-range-at-readiness — a runtime-backed release whose lime-runtime bound the system does not meet installs; readiness blocks it naming lime-runtime.
	if h.variants.Has("runtime-range-at-readiness") {
		return nil
	}
	return agentpkg.VerifyRuntime(p, cfg.SystemRuntime.Version)
}

// takesNoRuntimeBacked reports whether this host installs no release in
// the runtime-backed mode: it has no system lime-runtime to run one on.
func (h *Host) takesNoRuntimeBacked() bool {
	// variant: no-runtime-backed — an in-Lime host with no system lime-runtime: a release offered only runtime_backed is refused with -32006 naming the mode.
	return h.variants.Has("no-runtime-backed")
}

// runtimeBackedRefusal is the -32006 such a host answers to an install of
// a release whose only mode it does not take; nil otherwise.
func (h *Host) runtimeBackedRefusal(p *agentpkg.Package) *jsonrpc2.Error {
	if !h.takesNoRuntimeBacked() || !agentpkg.RuntimeBacked(p.Manifest) {
		return nil
	}
	install, _ := p.Manifest["install"].(map[string]any)
	modes, _ := install["modes"].([]any)
	if slices.Contains(modes, any("in_lime")) {
		return nil
	}
	return rpcError(protocol.CodeUnsupported,
		fmt.Sprintf("this host runs apps in Lime only: install.modes offers %v and this host takes no %s release (no system lime-runtime)", modes, agentpkg.ModeRuntimeBacked), nil)
}
