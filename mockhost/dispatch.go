package mockhost

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// methods lists the methods a v1 host implements, for hello.
func methods() []string {
	return []string{
		protocol.MethodHello, protocol.MethodReset, protocol.MethodConfigure, protocol.MethodVerify,
		protocol.MethodProject, protocol.MethodInstall, protocol.MethodUninstall, protocol.MethodDisable, protocol.MethodEnable, protocol.MethodUpdate, protocol.MethodRollback,
		protocol.MethodMigrate, protocol.MethodOverlay, protocol.MethodSecret, protocol.MethodReadiness,
		protocol.MethodList, protocol.MethodRegistryList, protocol.MethodReview, protocol.MethodShutdownHint,
		protocol.MethodLaunch, protocol.MethodCenter, protocol.MethodObserve, protocol.MethodSet, protocol.MethodInvoke, protocol.MethodBackend,
	}
}

// dispatch answers one request. answered is true when the request was dealt
// with on the raw stream (hostile faults) and jsonrpc2 must not reply.
func (s *session) dispatch(ctx context.Context, req *jsonrpc2.Request) (result any, rpcErr *jsonrpc2.Error, answered bool) {
	h := s.host
	if e := h.intakeRefusal(req); e != nil {
		return nil, e, false
	}
	switch req.Method {
	case protocol.MethodHello:
		var p protocol.HelloParams
		if e := h.decodeParams(req.Method, req.Params, &p, true); e != nil {
			return nil, e, false
		}
		return h.hello(), nil, false

	case protocol.MethodReset:
		var p struct{}
		if e := h.decodeParams(req.Method, req.Params, &p, true); e != nil {
			return nil, e, false
		}
		if err := h.reset(); err != nil {
			return nil, rpcError(protocol.CodeInternalError, err.Error(), nil), false
		}
		return protocol.OK{OK: true}, nil, false

	case protocol.MethodConfigure:
		var p protocol.ConfigureParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.configure(p); e != nil {
			return nil, e, false
		}
		return protocol.OK{OK: true}, nil, false

	case protocol.MethodVerify:
		var p protocol.PackageParams
		if e := h.decodePackageParams(req.Method, req.Params, &p); e != nil {
			return nil, e, false
		}
		r, e := h.verify(p)
		if u := h.untranslatable(p.Path, e == nil && !r.OK); u != nil {
			return nil, u, false
		}
		if e == nil {
			if ve := h.verdictAsError(p.Path, r); ve != nil {
				return nil, ve, false
			}
		}
		return r, e, false

	case protocol.MethodProject:
		var p protocol.PackageParams
		if e := h.decodePackageParams(req.Method, req.Params, &p); e != nil {
			return nil, e, false
		}
		// fault: flood-on-project — the answer is a 100 MiB frame streamed until the peer gives up.
		if h.faults.Has("flood-on-project") {
			s.flood(req.ID)
			return nil, nil, true
		}
		r, e := h.project(p)
		if u := h.untranslatable(p.Path, refusedWith(e)); u != nil {
			return nil, u, false
		}
		return r, e, false

	case protocol.MethodInstall:
		var p protocol.InstallParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if p.Source != nil {
			if e := h.requireString(req.Method, "source.appId", p.Source.AppID); e != nil {
				return nil, e, false
			}
			r, e := h.installFromRegistry(p)
			return r, e, false
		}
		if e := h.requireString(req.Method, "path", p.Path); e != nil {
			return nil, e, false
		}
		r, e := h.install(p)
		if u := h.untranslatable(p.Path, refusedWith(e)); u != nil {
			return nil, u, false
		}
		return r, e, false

	case protocol.MethodUninstall:
		var p protocol.UninstallParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
		r, e := h.uninstall(p)
		// fault: backend-survives-uninstall — an uninstalled app's backends keep running (until host/reset).
		if e == nil && !h.faults.Has("backend-survives-uninstall") {
			h.stopOrphanBackends()
		}
		// fault: crash-mid-uninstall — half of the answer is written, then the host dies.
		if e == nil && h.faults.Has("crash-mid-uninstall") {
			s.crash(req.ID, r)
			return nil, nil, true
		}
		return r, e, false

	case protocol.MethodDisable, protocol.MethodEnable:
		var p protocol.AppIDParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
		r, e := h.setState(p.AppID, req.Method == protocol.MethodDisable)
		// fault: backend-survives-disable — a disabled app's backends keep running.
		if e == nil && req.Method == protocol.MethodDisable && !h.faults.Has("backend-survives-disable") {
			h.backends.stopApp(p.AppID)
		}
		return r, e, false

	case protocol.MethodUpdate:
		var p protocol.UpdateParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "path", p.Path); e != nil {
			return nil, e, false
		}
		r, e := h.update(p)
		if e == nil {
			h.backends.stopApp(p.AppID) // they start again, from the new release, at the next launch
		}
		return r, e, false

	case protocol.MethodRollback:
		var p protocol.AppIDParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
		r, e := h.rollback(p.AppID)
		if e == nil {
			h.backends.stopApp(p.AppID)
		}
		return r, e, false

	case protocol.MethodMigrate:
		var p protocol.MigrateParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
		r, e := h.migrate(p)
		return r, e, false

	case protocol.MethodSecret:
		var p protocol.SecretParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		for _, f := range []struct{ name, v string }{{"appId", p.AppID}, {"key", p.Key}, {"value", p.Value}} {
			if e := h.requireString(req.Method, f.name, f.v); e != nil {
				return nil, e, false
			}
		}
		r, e := h.bindSecret(p)
		return r, e, false

	case protocol.MethodOverlay:
		var p protocol.OverlayParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		for _, f := range []struct{ name, v string }{{"appId", p.AppID}, {"key", p.Key}, {"scope", p.Scope}} {
			if e := h.requireString(req.Method, f.name, f.v); e != nil {
				return nil, e, false
			}
		}
		if p.Values == nil {
			return nil, invalidParams(req.Method, "values", "is missing: an object of the overlay's values"), false
		}
		r, e := h.setOverlay(p)
		return r, e, false

	case protocol.MethodReadiness:
		var p protocol.ReadinessParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if p.AppID == "" && p.Path == "" {
			return nil, invalidParams(req.Method, "appId", "or params.path is required"), false
		}
		if p.AppID != "" && p.Path != "" {
			return nil, invalidParams(req.Method, "path", "cannot be given together with params.appId"), false
		}
		// fault: hang-on-readiness — app/readiness is never answered; the worker waits for the connection to end.
		if h.faults.Has("hang-on-readiness") {
			<-ctx.Done()
			return nil, nil, true
		}
		r, e := h.readiness(p)
		return r, e, false

	case protocol.MethodList:
		var p struct{}
		if e := h.decodeParams(req.Method, req.Params, &p, true); e != nil {
			return nil, e, false
		}
		// fault: garbage-on-list — app/list is answered with a well-framed body that is not JSON.
		if h.faults.Has("garbage-on-list") {
			s.garbage()
			return nil, nil, true
		}
		// fault: list-needs-registry — app/list syncs with the registry first and fails when it cannot.
		if cfg, _ := h.config(); h.faults.Has("list-needs-registry") && cfg.RegistryURL != "" {
			if _, e := h.bootstrap(); e != nil {
				return nil, e, false
			}
		}
		return h.list(), nil, false

	case protocol.MethodReview:
		var p protocol.ReviewParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if p.Source != nil {
			if e := h.requireString(req.Method, "source.appId", p.Source.AppID); e != nil {
				return nil, e, false
			}
		} else if e := h.requireString(req.Method, "path", p.Path); e != nil {
			return nil, e, false
		}
		r, e := h.review(p)
		return r, e, false

	case protocol.MethodRegistryList:
		var p struct{}
		if e := h.decodeParams(req.Method, req.Params, &p, true); e != nil {
			return nil, e, false
		}
		r, e := h.registryList()
		return r, e, false

	case protocol.MethodInvoke:
		var p protocol.InvokeParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		for _, f := range []struct{ name, v string }{{"appId", p.AppID}, {"entryKey", p.EntryKey}, {"requestId", p.RequestID}, {"capability", p.Capability}, {"method", p.Method}} {
			if e := h.requireString(req.Method, f.name, f.v); e != nil {
				return nil, e, false
			}
		}
		r, e := h.invokeAsApp(p)
		return r, e, false

	case protocol.MethodLaunch:
		var p protocol.LaunchParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "entryKey", p.EntryKey); e != nil {
			return nil, e, false
		}
		r, e := h.launch(p)
		return r, e, false

	case protocol.MethodCenter:
		var p struct{}
		if e := h.decodeParams(req.Method, req.Params, &p, true); e != nil {
			return nil, e, false
		}
		r, e := h.center()
		return r, e, false

	case protocol.MethodObserve:
		var p protocol.ObserveParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.requireString(req.Method, "appId", p.AppID); e != nil {
			return nil, e, false
		}
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
			return nil, rpcError(protocol.CodeInternalError, err.Error(), nil), false
		}
		return r, nil, false

	case protocol.MethodBackend:
		var p protocol.BackendParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		for _, f := range [][2]string{{"appId", p.AppID}, {"service", p.Service}, {"method", p.Method}} {
			if e := h.requireString(req.Method, f[0], f[1]); e != nil {
				return nil, e, false
			}
		}
		r, e := h.backendCall(p)
		return r, e, false

	case protocol.MethodSet:
		var p protocol.SetParams
		if e := h.decodeParams(req.Method, req.Params, &p, false); e != nil {
			return nil, e, false
		}
		if e := h.set(p); e != nil {
			return nil, e, false
		}
		return protocol.OK{OK: true}, nil, false

	case protocol.MethodShutdownHint:
		var p struct{}
		if e := h.decodeParams(req.Method, req.Params, &p, true); e != nil {
			return nil, e, false
		}
		return protocol.OK{OK: true}, nil, false
	}

	// fault: unknown-method-null — unknown and reserved methods get a null result instead of -32601.
	if h.faults.Has("unknown-method-null") {
		return nil, nil, false
	}
	if slices.Contains(protocol.ReservedMethods(), req.Method) {
		return nil, rpcError(protocol.CodeMethodNotFound,
			fmt.Sprintf("method %s is reserved for a later protocol version and not implemented", req.Method), nil), false
	}
	return nil, rpcError(protocol.CodeMethodNotFound, fmt.Sprintf("method %q not found", req.Method), nil), false
}

// decodePackageParams decodes package/verify and package/project params.
func (h *Host) decodePackageParams(method string, raw *json.RawMessage, p *protocol.PackageParams) *jsonrpc2.Error {
	if e := h.decodeParams(method, raw, p, false); e != nil {
		return e
	}
	return h.requireString(method, "path", p.Path)
}

// hello is the host's self-description.
func (h *Host) hello() protocol.HelloResult {
	r := protocol.HelloResult{
		Host:            protocol.HostIdentity{Name: Name, Version: Version, Kind: Kind},
		ProtocolVersion: protocol.Version,
		Capabilities:    h.profile(),
		Levels:          ClaimedLevels(),
		Methods:         methods(),
	}
	if h.desktopP0Only() {
		r.Levels = []string{"catalog", "desktop-p0"}
	}
	if root, err := h.dataRoot(); err == nil {
		r.DataPaths = []string{root}
	}
	// fault: hello-wrong-protocol — protocol version 0 and a host kind outside the protocol's list.
	if h.faults.Has("hello-wrong-protocol") {
		r.ProtocolVersion = "0"
		r.Host.Kind = "mock"
	}
	return r
}

// configure stores the profile the following specs run under.
func (h *Host) configure(p protocol.ConfigureParams) *jsonrpc2.Error {
	clock, e := parseClock(protocol.MethodConfigure, p.Clock)
	if e != nil {
		return e
	}
	for name := range p.Capabilities {
		if name == "" {
			return invalidParams(protocol.MethodConfigure, "capabilities", "has an empty capability name")
		}
	}
	if p.AppServer != nil && h.desktopP0Only() {
		return rpcError(protocol.CodeUnsupported, "this host has no agent runtime: it cannot reach an App Server", nil)
	}
	// fault: holds-no-secrets — the host has no place for secrets: those host/configure names are dropped.
	if h.faults.Has("holds-no-secrets") {
		p.Secrets = nil
	}
	// fault: holds-no-platform-credentials — the host has no place for the platform's credentials: the provider key, routing table, ledger, payment credential and session tokens host/configure names are dropped.
	if h.faults.Has("holds-no-platform-credentials") {
		dropPlatformCredentials(&p)
	}
	h.agent.configure(p.AppServer, secretValues(p), timeoutsOf(p).appServer)
	h.mu.Lock()
	defer h.mu.Unlock()
	// fault: configure-merges-capabilities — a later host/configure changes only the capability overrides it names and keeps those of the earlier one.
	if h.faults.Has("configure-merges-capabilities") && h.cfg != nil {
		merged := maps.Clone(h.cfg.Capabilities)
		if merged == nil {
			merged = map[string]protocol.Capability{}
		}
		maps.Copy(merged, p.Capabilities)
		p.Capabilities = merged
	}
	h.cfg = &p
	h.clock = clock
	return nil
}
