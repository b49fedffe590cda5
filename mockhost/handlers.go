package mockhost

import (
	"context"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// The handlers of the dispatch table (routes): each gets its method's
// params decoded and their required members checked (handle).

func (s *session) onHello(context.Context, *jsonrpc2.Request, protocol.HelloParams) (any, *jsonrpc2.Error) {
	return s.host.hello(), nil
}

func (s *session) onReset(context.Context, *jsonrpc2.Request, struct{}) (any, *jsonrpc2.Error) {
	if err := s.host.reset(); err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	return protocol.OK{OK: true}, nil
}

func (s *session) onConfigure(_ context.Context, _ *jsonrpc2.Request, p protocol.ConfigureParams) (any, *jsonrpc2.Error) {
	if e := s.host.configure(p); e != nil {
		return nil, e
	}
	return protocol.OK{OK: true}, nil
}

func (s *session) onVerify(_ context.Context, _ *jsonrpc2.Request, p protocol.PackageParams) (any, *jsonrpc2.Error) {
	h := s.host
	r, e := h.verify(p)
	// fault: verify-asks-the-agent — verification asks the App Server to describe the app: an agent session and a turn per package verified.
	if h.faults.Has("verify-asks-the-agent") {
		h.askAgentAbout(p.Path)
	}
	if u := h.untranslatable(p.Path, e == nil && !r.OK); u != nil {
		return nil, u
	}
	if e == nil {
		if ve := h.verdictAsError(p.Path, r); ve != nil {
			return nil, ve
		}
	}
	return r, e
}

func (s *session) onProject(_ context.Context, req *jsonrpc2.Request, p protocol.PackageParams) (any, *jsonrpc2.Error) {
	h := s.host
	// fault: flood-on-project — the answer is a 100 MiB frame streamed until the peer gives up.
	if h.faults.Has("flood-on-project") {
		s.flood(req.ID)
		return answeredOnStream{}, nil
	}
	r, e := h.project(p)
	// fault: project-asks-the-agent — projection asks the App Server to describe the app: an agent session and a turn per package projected.
	if e == nil && h.faults.Has("project-asks-the-agent") {
		h.askAgentAbout(p.Path)
	}
	return h.unlessUntranslatable(p.Path, r, e)
}

func (s *session) onInstall(_ context.Context, req *jsonrpc2.Request, p protocol.InstallParams) (any, *jsonrpc2.Error) {
	h := s.host
	if p.Source != nil {
		if e := h.requireString(req.Method, "source.appId", p.Source.AppID); e != nil {
			return nil, e
		}
		return h.installFromRegistry(p)
	}
	if e := h.requireString(req.Method, "path", p.Path); e != nil {
		return nil, e
	}
	r, e := h.install(p)
	return h.unlessUntranslatable(p.Path, r, e)
}

func (s *session) onUninstall(_ context.Context, req *jsonrpc2.Request, p protocol.UninstallParams) (any, *jsonrpc2.Error) {
	h := s.host
	r, e := h.uninstall(p)
	// fault: backend-survives-uninstall — an uninstalled app's backends keep running (until host/reset).
	if e == nil && !h.faults.Has("backend-survives-uninstall") {
		h.stopOrphanBackends()
	}
	// fault: crash-mid-uninstall — half of the answer is written, then the host dies.
	if e == nil && h.faults.Has("crash-mid-uninstall") {
		s.crash(req.ID, r)
		return answeredOnStream{}, nil
	}
	return r, e
}

// onSetState answers app/disable and app/enable.
func (s *session) onSetState(_ context.Context, req *jsonrpc2.Request, p protocol.AppIDParams) (any, *jsonrpc2.Error) {
	h := s.host
	disable := req.Method == protocol.MethodDisable
	r, e := h.setState(p.AppID, disable)
	// fault: backend-survives-disable — a disabled app's backends keep running.
	if e == nil && disable && !h.faults.Has("backend-survives-disable") {
		h.backends.stopApp(p.AppID)
	}
	return r, e
}

func (s *session) onUpdate(_ context.Context, _ *jsonrpc2.Request, p protocol.UpdateParams) (any, *jsonrpc2.Error) {
	r, e := s.host.update(p)
	if e == nil {
		s.host.backends.stopApp(p.AppID) // they start again, from the new release, at the next launch
	}
	return r, e
}

func (s *session) onRollback(_ context.Context, _ *jsonrpc2.Request, p protocol.RollbackParams) (any, *jsonrpc2.Error) {
	r, e := s.host.rollback(p)
	if e == nil {
		s.host.backends.stopApp(p.AppID)
	}
	return r, e
}

func (s *session) onMigrate(_ context.Context, _ *jsonrpc2.Request, p protocol.MigrateParams) (any, *jsonrpc2.Error) {
	return s.host.migrate(p)
}

func (s *session) onEvals(_ context.Context, _ *jsonrpc2.Request, p protocol.AppIDParams) (any, *jsonrpc2.Error) {
	return s.host.runEvals(p.AppID)
}

func (s *session) onSecret(_ context.Context, _ *jsonrpc2.Request, p protocol.SecretParams) (any, *jsonrpc2.Error) {
	return s.host.bindSecret(p)
}

func (s *session) onKnowledge(_ context.Context, _ *jsonrpc2.Request, p protocol.KnowledgeParams) (any, *jsonrpc2.Error) {
	return s.host.bindKnowledge(p)
}

func (s *session) onFile(_ context.Context, _ *jsonrpc2.Request, p protocol.FileParams) (any, *jsonrpc2.Error) {
	return s.host.workspaceFile(p)
}

func (s *session) onOverlay(_ context.Context, req *jsonrpc2.Request, p protocol.OverlayParams) (any, *jsonrpc2.Error) {
	if p.Values == nil {
		return nil, invalidParams(req.Method, "values", "is missing: an object of the overlay's values")
	}
	return s.host.setOverlay(p)
}

func (s *session) onReadiness(ctx context.Context, req *jsonrpc2.Request, p protocol.ReadinessParams) (any, *jsonrpc2.Error) {
	if p.AppID == "" && p.Path == "" {
		return nil, invalidParams(req.Method, "appId", "or params.path is required")
	}
	if p.AppID != "" && p.Path != "" {
		return nil, invalidParams(req.Method, "path", "cannot be given together with params.appId")
	}
	// fault: hang-on-readiness — app/readiness is never answered; the worker waits for the connection to end.
	if s.host.faults.Has("hang-on-readiness") {
		<-ctx.Done()
		return answeredOnStream{}, nil
	}
	// fault: readiness-asks-the-agent — a readiness check of a package folder asks the App Server to describe the app first.
	if p.Path != "" && s.host.faults.Has("readiness-asks-the-agent") {
		s.host.askAgentAbout(p.Path)
	}
	return s.host.readiness(p)
}

func (s *session) onList(context.Context, *jsonrpc2.Request, struct{}) (any, *jsonrpc2.Error) {
	h := s.host
	// fault: garbage-on-list — app/list is answered with a well-framed body that is not JSON.
	if h.faults.Has("garbage-on-list") {
		s.garbage()
		return answeredOnStream{}, nil
	}
	// fault: list-needs-registry — app/list syncs with the registry first and fails when it cannot.
	if cfg, _ := h.config(); h.faults.Has("list-needs-registry") && cfg.RegistryURL != "" {
		if _, e := h.bootstrap(); e != nil {
			return nil, e
		}
	}
	return h.list(), nil
}

func (s *session) onReview(_ context.Context, req *jsonrpc2.Request, p protocol.ReviewParams) (any, *jsonrpc2.Error) {
	h := s.host
	if p.Source != nil {
		if e := h.requireString(req.Method, "source.appId", p.Source.AppID); e != nil {
			return nil, e
		}
	} else if e := h.requireString(req.Method, "path", p.Path); e != nil {
		return nil, e
	}
	return h.review(p)
}

func (s *session) onRegistryList(context.Context, *jsonrpc2.Request, struct{}) (any, *jsonrpc2.Error) {
	return s.host.registryList()
}

func (s *session) onInvoke(_ context.Context, _ *jsonrpc2.Request, p protocol.InvokeParams) (any, *jsonrpc2.Error) {
	return s.host.invokeAsApp(p)
}

func (s *session) onLaunch(_ context.Context, _ *jsonrpc2.Request, p protocol.LaunchParams) (any, *jsonrpc2.Error) {
	return s.host.launch(p)
}

func (s *session) onCenter(context.Context, *jsonrpc2.Request, struct{}) (any, *jsonrpc2.Error) {
	return s.host.center()
}

func (s *session) onObserve(_ context.Context, _ *jsonrpc2.Request, p protocol.ObserveParams) (any, *jsonrpc2.Error) {
	h := s.host
	r := h.observe(p.AppID)
	r.Overlay = h.effectiveOverlay(p.AppID)
	r.Backends = h.backends.observe(p.AppID)
	r.Artifacts = h.workflows.observe(p.AppID)
	// fault: artifacts-stamped-current — every artifact record names the release installed now, not the one that made it.
	if h.faults.Has("artifacts-stamped-current") {
		h.mu.Lock()
		if a, ok := h.apps[p.AppID]; ok {
			for i := range r.Artifacts {
				r.Artifacts[i].Version = a.row.Version
			}
		}
		h.mu.Unlock()
	}
	if err := h.observeStorage(p.AppID, &r); err != nil {
		return nil, rpcError(protocol.CodeInternalError, err.Error(), nil)
	}
	return r, nil
}

func (s *session) onBackend(_ context.Context, _ *jsonrpc2.Request, p protocol.BackendParams) (any, *jsonrpc2.Error) {
	return s.host.backendCall(p)
}

func (s *session) onSet(_ context.Context, _ *jsonrpc2.Request, p protocol.SetParams) (any, *jsonrpc2.Error) {
	if e := s.host.set(p); e != nil {
		return nil, e
	}
	return protocol.OK{OK: true}, nil
}

func (s *session) onShutdownHint(context.Context, *jsonrpc2.Request, struct{}) (any, *jsonrpc2.Error) {
	return protocol.OK{OK: true}, nil
}

// unlessUntranslatable answers r and e, unless e refuses a package the host
// cannot take in its intake form (untranslatable): then -32006.
func (h *Host) unlessUntranslatable(path string, r any, e *jsonrpc2.Error) (any, *jsonrpc2.Error) {
	if u := h.untranslatable(path, refusedWith(e)); u != nil {
		return nil, u
	}
	return r, e
}
