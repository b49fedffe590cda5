package mockhost

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/sourcegraph/jsonrpc2"
)

// handler answers one request of its method.
type handler func(s *session, ctx context.Context, req *jsonrpc2.Request) (any, *jsonrpc2.Error)

// route is a method a v1 host implements and its handler.
type route struct {
	method string
	handle handler
}

// answeredOnStream is the result of a handler that dealt with the request
// on the raw stream (hostile faults): jsonrpc2 must not reply.
type answeredOnStream struct{}

// member is a required string member of a method's params (requireString).
type member struct{ name, value string }

// Whether a method's params may be absent or null (decodeParams).
const (
	paramsOptional = true
	paramsRequired = false
)

// handle is the handler that decodes the params of its method into P
// (decodeParams: -32602 naming the member on bad params), checks the
// string members required names (nil: none), then calls fn.
func handle[P any](optional bool, required func(P) []member, fn func(*session, context.Context, *jsonrpc2.Request, P) (any, *jsonrpc2.Error)) handler {
	return func(s *session, ctx context.Context, req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
		var p P
		if e := s.host.decodeParams(req.Method, req.Params, &p, optional); e != nil {
			return nil, e
		}
		if required != nil {
			if e := s.host.requireMembers(req.Method, required(p)...); e != nil {
				return nil, e
			}
		}
		return fn(s, ctx, req, p)
	}
}

// routes are the methods a v1 host implements, in the order hello lists
// them, each with its handler.
func routes() []route {
	appID := func(id string) []member { return []member{{"appId", id}} }
	return []route{
		{protocol.MethodHello, handle(paramsOptional, nil, (*session).onHello)},
		{protocol.MethodReset, handle(paramsOptional, nil, (*session).onReset)},
		{protocol.MethodConfigure, handle(paramsRequired, nil, (*session).onConfigure)},
		{protocol.MethodVerify, handle(paramsRequired, pathMember, (*session).onVerify)},
		{protocol.MethodProject, handle(paramsRequired, pathMember, (*session).onProject)},
		{protocol.MethodInstall, handle(paramsRequired, nil, (*session).onInstall)},
		{protocol.MethodUninstall, handle(paramsRequired, func(p protocol.UninstallParams) []member { return appID(p.AppID) }, (*session).onUninstall)},
		{protocol.MethodDisable, handle(paramsRequired, appIDMember, (*session).onSetState)},
		{protocol.MethodEnable, handle(paramsRequired, appIDMember, (*session).onSetState)},
		{protocol.MethodUpdate, handle(paramsRequired, func(p protocol.UpdateParams) []member { return []member{{"appId", p.AppID}, {"path", p.Path}} }, (*session).onUpdate)},
		{protocol.MethodRollback, handle(paramsRequired, rollbackMember, (*session).onRollback)},
		{protocol.MethodMigrate, handle(paramsRequired, func(p protocol.MigrateParams) []member { return appID(p.AppID) }, (*session).onMigrate)},
		{protocol.MethodOverlay, handle(paramsRequired, func(p protocol.OverlayParams) []member {
			return []member{{"appId", p.AppID}, {"key", p.Key}, {"scope", p.Scope}}
		}, (*session).onOverlay)},
		{protocol.MethodSecret, handle(paramsRequired, func(p protocol.SecretParams) []member {
			return []member{{"appId", p.AppID}, {"key", p.Key}, {"value", p.Value}}
		}, (*session).onSecret)},
		{protocol.MethodKnowledge, handle(paramsRequired, func(p protocol.KnowledgeParams) []member {
			return []member{{"appId", p.AppID}, {"template", p.Template}}
		}, (*session).onKnowledge)},
		{protocol.MethodFile, handle(paramsRequired, func(p protocol.FileParams) []member {
			return []member{{"appId", p.AppID}, {"path", p.Path}}
		}, (*session).onFile)},
		{protocol.MethodReadiness, handle(paramsRequired, nil, (*session).onReadiness)},
		{protocol.MethodList, handle(paramsOptional, nil, (*session).onList)},
		{protocol.MethodRegistryList, handle(paramsOptional, nil, (*session).onRegistryList)},
		{protocol.MethodReview, handle(paramsRequired, nil, (*session).onReview)},
		{protocol.MethodShutdownHint, handle(paramsOptional, nil, (*session).onShutdownHint)},
		{protocol.MethodLaunch, handle(paramsRequired, func(p protocol.LaunchParams) []member {
			return []member{{"appId", p.AppID}, {"entryKey", p.EntryKey}}
		}, (*session).onLaunch)},
		{protocol.MethodCenter, handle(paramsOptional, nil, (*session).onCenter)},
		{protocol.MethodObserve, handle(paramsRequired, func(p protocol.ObserveParams) []member { return appID(p.AppID) }, (*session).onObserve)},
		{protocol.MethodSet, handle(paramsRequired, nil, (*session).onSet)},
		{protocol.MethodInvoke, handle(paramsRequired, func(p protocol.InvokeParams) []member {
			return []member{{"appId", p.AppID}, {"entryKey", p.EntryKey}, {"requestId", p.RequestID}, {"capability", p.Capability}, {"method", p.Method}}
		}, (*session).onInvoke)},
		{protocol.MethodBackend, handle(paramsRequired, func(p protocol.BackendParams) []member {
			return []member{{"appId", p.AppID}, {"service", p.Service}, {"method", p.Method}}
		}, (*session).onBackend)},
		{protocol.MethodEvals, handle(paramsRequired, appIDMember, (*session).onEvals)},
	}
}

// methods lists the methods a v1 host implements, for hello: the table's
// methods, in its order.
func methods() []string {
	rs := routes()
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.method
	}
	return out
}

func pathMember(p protocol.PackageParams) []member { return []member{{"path", p.Path}} }

func appIDMember(p protocol.AppIDParams) []member { return []member{{"appId", p.AppID}} }

func rollbackMember(p protocol.RollbackParams) []member { return []member{{"appId", p.AppID}} }

// dispatch answers one request. answered is true when the request was dealt
// with on the raw stream (hostile faults) and jsonrpc2 must not reply.
func (s *session) dispatch(ctx context.Context, req *jsonrpc2.Request) (result any, rpcErr *jsonrpc2.Error, answered bool) {
	h := s.host
	if e := h.intakeRefusal(req); e != nil {
		return nil, e, false
	}
	rs := routes()
	if i := slices.IndexFunc(rs, func(r route) bool { return r.method == req.Method }); i >= 0 {
		result, rpcErr = rs[i].handle(s, ctx, req)
		if _, ok := result.(answeredOnStream); ok {
			return nil, nil, true
		}
		return result, rpcErr, false
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

// hello is the host's self-description.
func (h *Host) hello() protocol.HelloResult {
	r := protocol.HelloResult{
		Host:            protocol.HostIdentity{Name: Name, Version: Version, Kind: Kind},
		ProtocolVersion: protocol.Version,
		Capabilities:    h.profile(),
		Levels:          ClaimedLevels(),
		Methods:         methods(),
	}
	switch {
	case h.desktopP0Only():
		r.Levels = []string{"catalog", "desktop-p0"}
	case h.variants.Has("desktop-p2-without-agent"):
		r.Levels = desktopP2WithoutAgentLevels()
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
	// fault: clock-offset-dropped — the clock's date and time are read as UTC, its offset dropped.
	if !clock.IsZero() && h.faults.Has("clock-offset-dropped") {
		clock = time.Date(clock.Year(), clock.Month(), clock.Day(), clock.Hour(), clock.Minute(), clock.Second(), 0, time.UTC)
	}
	for name := range p.Capabilities {
		if name == "" {
			return invalidParams(protocol.MethodConfigure, "capabilities", "has an empty capability name")
		}
	}
	if p.AppServer != nil && h.noAgentRuntime() {
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
	secrets := secretValues(p)
	// fault: redaction-stale-after-configure — the credentials kept out of the App Server's answers are the ones the host held when it first had them: a provider key a later host/configure gives reaches the app.
	if h.faults.Has("redaction-stale-after-configure") {
		if held := h.agent.heldSecrets(); len(held) > 0 {
			secrets = held
		}
	}
	h.agent.configure(p.AppServer, secrets, timeoutsOf(p).appServer)
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
	// fault: configure-keeps-policy — a host/configure naming no policy keeps the policy of the one before.
	if p.Policy == nil && h.cfg != nil && h.faults.Has("configure-keeps-policy") {
		p.Policy = h.cfg.Policy
	}
	// fault: configure-keeps-secrets — a host/configure naming no secrets keeps the secrets of the one before, as a keychain would.
	if p.Secrets == nil && h.cfg != nil && h.faults.Has("configure-keeps-secrets") {
		p.Secrets = h.cfg.Secrets
	}
	h.cfg = &p
	// fault: configure-keeps-clock — a host/configure naming no clock keeps the clock of the one before, not the wall clock.
	if !clock.IsZero() || !h.faults.Has("configure-keeps-clock") {
		h.clock = clock
	}
	return nil
}
