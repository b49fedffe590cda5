package surface

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
	. "github.com/onsi/ginkgo/v2"
)

// probePermissions replaces bridge-probe's permissions with one optional
// permission per scope a spec withholds (docs/decisions.md, "Permissions
// at call time"): readiness never waits for an optional permission, so a
// refusal of a call needing one is the host intercepting it at call time.
// Storage has two, one reading and one reading and writing: a grant of
// the first covers no write.
const probePermissions = "permissions:\n" +
	"  - key: app-records-read\n    scope: storage\n    access: read\n    required: false\n" +
	"    reason: The permission specs read the app's own records.\n" +
	"  - key: app-records\n    scope: storage\n    access: read-write\n    required: false\n" +
	"    reason: The permission specs store and read the app's own records.\n" +
	"  - key: secret-status\n    scope: secret\n    access: read\n    required: false\n" +
	"    reason: The permission specs ask whether a secret is configured.\n" +
	"  - key: save-files\n    scope: export\n    access: write\n    required: false\n" +
	"    reason: The download specs save a file of the app's own UI.\n" +
	"  - key: open-docs\n    scope: network\n    domains: [probe.conformance.example.org]\n    required: false\n" +
	"    reason: The openExternal specs open the app's documentation site.\n"

// probePermissionKeys are the keys probePermissions declares.
var probePermissionKeys = []string{"app-records-read", "app-records", "secret-status", "save-files", "open-docs"}

// withGrants is the default configuration with bridge-probe granted
// exactly keys (and, when p is set, under tenant policy p).
func withGrants(tc *harness.TestContext, p *protocol.Policy, keys ...string) protocol.ConfigureParams {
	c := tc.DefaultConfigure()
	c.Grants = map[string][]string{harness.ProbeFixture: keys}
	c.Policy = p
	return c
}

// grantsWithout is every key of probePermissions but key.
func grantsWithout(key string) []string {
	return slices.DeleteFunc(slices.Clone(probePermissionKeys), func(k string) bool { return k == key })
}

// permittedSurface configures the host with cfg, installs bridge-probe
// declaring probePermissions, and opens its main entry.
func permittedSurface(tc *harness.TestContext, cfg protocol.ConfigureParams) *harness.Surface {
	GinkgoHelper()
	tc.Configure(cfg)
	dir := tc.Fixture(harness.ProbeFixture)
	harness.RewriteAppMD(dir, func(md []byte) []byte {
		start, end := bytes.Index(md, []byte("\npermissions:\n")), bytes.Index(md, []byte("\nruntimePackage:"))
		if start < 0 || end < start {
			tc.Errorf("bridge-probe's APP.md has no permissions block before runtimePackage to replace")
		}
		return slices.Concat(md[:start+1], []byte(probePermissions), md[end+1:])
	})
	return tc.Launch(tc.Install(dir, tc.ReleaseOf(dir)).AppID, "main")
}

// permissionCall is one call of the app that needs one of its declared
// permissions: the request it sends, and what it is.
type permissionCall struct {
	what, permission string
	step             func(s *harness.Surface, requestID string) harness.Step
	// writes says the call stores its requestId under permissionProbeKey:
	// a refused one must leave no trace a later read finds.
	writes bool
}

// permissionProbeKey is the storage key the permission specs write.
const permissionProbeKey = "permission-probe"

// permissionCalls are the calls, one per permission scope the probe can
// exercise (spec 001: "Intercept file, network, secret, tool, agent,
// storage, and export permissions"): a storage write, a secret's status,
// a download of the app's own file, opening its documentation site.
func permissionCalls() []permissionCall {
	return []permissionCall{
		{"lime.storage set (scope storage)", "app-records", func(_ *harness.Surface, id string) harness.Step {
			return harness.Invoke(id, "lime.storage", "set", map[string]any{"key": permissionProbeKey, "value": id})
		}, true},
		{"lime.secrets status (scope secret)", "secret-status", func(_ *harness.Surface, id string) harness.Step {
			return harness.Invoke(id, "lime.secrets", "status", map[string]any{"key": "provider_api_key"})
		}, false},
		{"host:download of the app's own file (scope export)", "save-files", func(s *harness.Surface, id string) harness.Step {
			return harness.Request(hostbridge.TypeDownload, id, map[string]any{"url": s.FrameFile("download.txt")})
		}, false},
		{"host:openExternal of the app's documentation site (scope network)", "open-docs", func(_ *harness.Surface, id string) harness.Step {
			return harness.Request(hostbridge.TypeOpenExternal, id, map[string]any{"url": "https://probe.conformance.example.org/docs"})
		}, false},
	}
}

// callAnswer sends c as requestID and returns the answer.
func callAnswer(s *harness.Surface, c permissionCall, requestID string) (hostbridge.Message, bool) {
	GinkgoHelper()
	return s.Run(c.step(s, requestID), harness.AwaitAnswer(requestID)).Answer(requestID)
}

// expectCallRuns is the positive control: c, with its permission granted,
// is answered host:response.
func expectCallRuns(s *harness.Surface, c permissionCall, requestID, under string) {
	GinkgoHelper()
	s.TC().Precondition(c.what+" runs "+under, func() {
		if m, ok := callAnswer(s, c, requestID); !ok || m.Type != hostbridge.TypeResponse {
			s.TC().Failf("%s %s got %s, not host:response", c.what, under, harness.AnswerText(m, ok))
		}
	})
}

// describePermissions declares the specs of permissions at call time: interception, the permission order, deny over allow.
func describePermissions(tc *harness.TestContext) {
	Describe("Capability, Desktop P2: permissions intercepted at call time", tc.BrowserRetry(), func() {
		DescribeTable("refuses a call whose declared permission is not granted, naming it, and runs it once granted",
			append([]any{func(i int) { expectIntercepted(tc, permissionCalls()[i]) }}, permissionEntries(tc)...)...)

		It("refuses a write whose only granted permission of its scope reads, naming the one that writes, and runs the read that one covers",
			tc.Req("BRIDGE-PERMISSION-INTERCEPTED", levels.ConfusableIdentity), func() {
				s := permittedSurface(tc, withGrants(tc, nil, grantsWithout("app-records")...))
				read := permissionCall{what: "lime.storage get (scope storage, access read)", permission: "app-records-read", step: func(_ *harness.Surface, id string) harness.Step {
					return harness.Invoke(id, "lime.storage", "get", map[string]any{"key": permissionProbeKey})
				}}
				expectCallRuns(s, read, "read-1", "with the storage permission that reads granted")
				expectWithheld(tc, s, permissionCalls()[0], "write-1", "app-records-read, which reads only,")
				expectNoTrace(s, permissionCalls()[0], "write-1", "read-2")
			})

		DescribeTable("refuses a call several gates stop at the earliest gate of the permission order",
			func(cfg func() protocol.ConfigureParams, capability, method string, args any, earliest []string) {
				s := permittedSurface(tc, cfg())
				expectExecutes(s, "control-1")
				r := s.Run(harness.Invoke("gated-1", capability, method, args), harness.AwaitAnswer("gated-1"))
				m, ok := r.Answer("gated-1")
				if !ok || m.Type != hostbridge.TypeError {
					tc.Failf("%s.%s, stopped by several gates, got %s, not host:error", capability, method, harness.AnswerText(m, ok))
				}
				c, ok := harness.CallOf(tc.Observe(s.AppID), "gated-1")
				switch {
				case !ok:
					tc.Failf("host/observe has no record of %s.%s", capability, method)
				case c.Decision != protocol.DecisionDenied:
					tc.Failf("host/observe records %s.%s, which several gates stop, as %q", capability, method, c.Decision)
				case !slices.Contains(earliest, c.Gate):
					tc.Failf("host/observe says gate %q refused %s.%s; the earliest gate that stops it in the permission order is %s", c.Gate, capability, method, strings.Join(earliest, " or "))
				}
			},
			Entry("an undeclared capability policy also denies and needs approval for: allowlist", tc.Req("BRIDGE-PERMISSION-ORDER", levels.EveryMember),
				func() protocol.ConfigureParams {
					return tc.WithPolicy(protocol.Policy{DeniedCapabilities: []string{"lime.billing"}, ApprovalRequired: []string{"lime.billing"}})
				}, "lime.billing", "getStatus", nil, []string{protocol.GateAllowlist}),
			Entry("a disabled capability policy also denies and needs approval for: readiness", tc.Req("BRIDGE-PERMISSION-ORDER", levels.EveryMember),
				func() protocol.ConfigureParams {
					p := tc.WithPolicy(protocol.Policy{DeniedCapabilities: []string{"lime.agent"}, ApprovalRequired: []string{"lime.agent"}})
					p.Capabilities = tc.WithCapabilityDisabled("lime.agent").Capabilities
					return p
				}, "lime.agent", "startTask", nil, []string{protocol.GateReadiness}),
			Entry("a capability policy denies and that needs approval: policy", tc.Req("BRIDGE-PERMISSION-ORDER", levels.EveryMember),
				func() protocol.ConfigureParams {
					return tc.WithPolicy(protocol.Policy{DeniedCapabilities: []string{"lime.storage"}, ApprovalRequired: []string{"lime.storage"}})
				}, "lime.storage", "list", nil, []string{protocol.GatePolicy}),
			// An ungranted permission is a deny rule, or (a reading) part of
			// readiness or policy: each comes before runtime approval.
			Entry("a call whose permission is not granted, to a capability that needs approval: not approval", tc.Req("BRIDGE-PERMISSION-ORDER", levels.EveryMember),
				func() protocol.ConfigureParams {
					return withGrants(tc, &protocol.Policy{ApprovalRequired: []string{"lime.storage"}}, grantsWithout("app-records")...)
				}, "lime.storage", "set", map[string]any{"key": "order-probe", "value": "v"},
				[]string{protocol.GateReadiness, protocol.GatePolicy, protocol.GatePermission}),
		)

		DescribeTable("refuses a call tenant policy denies though the user granted its permission (deny wins over allow)",
			func(i int, capability string) {
				c := permissionCalls()[i]
				s := permittedSurface(tc, withGrants(tc, nil, probePermissionKeys...))
				expectCallRuns(s, c, "granted-1", "with its permission granted")
				tc.Configure(withGrants(tc, &protocol.Policy{DeniedCapabilities: []string{capability}}, probePermissionKeys...))
				m, ok := callAnswer(s, c, "denied-1")
				if !ok || m.Type != hostbridge.TypeError {
					tc.Failf("%s, granted by the user and denied by tenant policy, got %s, not host:error: deny wins over allow", c.what, harness.AnswerText(m, ok))
				}
				switch rec, ok := harness.CallOf(tc.Observe(s.AppID), "denied-1"); {
				case !ok:
					tc.Failf("host/observe has no record of %s", c.what)
				case rec.Decision != protocol.DecisionDenied || rec.Gate != protocol.GatePolicy:
					tc.Failf("host/observe records %s, which tenant policy denies, as %q at gate %q, not denied by policy", c.what, rec.Decision, rec.Gate)
				}
			},
			Entry("lime.storage set", tc.Req("BRIDGE-DENY-WINS", levels.ChangeBetweenReads), 0, "lime.storage"),
			Entry("lime.secrets status", tc.Req("BRIDGE-DENY-WINS", levels.ChangeBetweenReads), 1, "lime.secrets"),
		)
	})
}

// permissionEntries are the interception table's rows, one per call.
func permissionEntries(tc *harness.TestContext) []any {
	var out []any
	for i, c := range permissionCalls() {
		out = append(out, Entry(fmt.Sprintf("%s needing %s", c.what, c.permission),
			tc.Req("BRIDGE-PERMISSION-INTERCEPTED", levels.EveryMember, levels.ChangeBetweenReads), i))
	}
	return out
}

// expectIntercepted judges c on a surface of the app with every permission
// granted: c runs (the control), is refused naming its permission once the
// grant is withdrawn, and runs again once it is given back (spec 000,
// Capability level: the host "intercepts permissions").
func expectIntercepted(tc *harness.TestContext, c permissionCall) {
	GinkgoHelper()
	s := permittedSurface(tc, withGrants(tc, nil, probePermissionKeys...))
	expectCallRuns(s, c, "granted-1", "with every permission of the app granted")
	tc.Configure(withGrants(tc, nil, grantsWithout(c.permission)...))
	expectWithheld(tc, s, c, "withheld-1", "")
	tc.Configure(withGrants(tc, nil, probePermissionKeys...))
	expectNoTrace(s, c, "withheld-1", "read-1")
	if m, ok := callAnswer(s, c, "regranted-1"); !ok || m.Type != hostbridge.TypeResponse {
		tc.Failf("%s, with %s granted again, got %s, not host:response: a grant must decide the next call", c.what, c.permission, harness.AnswerText(m, ok))
	}
}

// expectWithheld judges c, sent as requestID while c.permission is not
// granted (only what granted says is), refused: host:error naming
// c.permission, and not recorded allowed.
func expectWithheld(tc *harness.TestContext, s *harness.Surface, c permissionCall, requestID, granted string) {
	GinkgoHelper()
	without := "after the user's grant of " + c.permission + " was withdrawn"
	if granted != "" {
		without = "with " + granted + " granted and " + c.permission + " not"
	}
	m, ok := callAnswer(s, c, requestID)
	switch {
	case ok && m.Type == hostbridge.TypeResponse:
		tc.Failf("%s ran (host:response) %s: the host must intercept the permission at call time", c.what, without)
	case harness.Executed(tc.Observe(s.AppID), requestID):
		tc.Failf("%s ran %s: host/observe records it allowed", c.what, without)
	case !ok || m.Type != hostbridge.TypeError:
		tc.Failf("%s %s got %s, not host:error", c.what, without, harness.AnswerText(m, ok))
	case !strings.Contains(harness.AnswerText(m, ok), c.permission):
		tc.Failf("%s %s got host:error that does not name the permission %s: %s", c.what, without, c.permission, harness.AnswerText(m, ok))
	}
}

// expectNoTrace judges a write c refused as refusedID: a read (readID, its
// permission granted) finds another value than the one it carried
// (spec 001, UI runtime: storage writes "must still pass ... permission";
// a refusal that stores the value anyway executed the call).
func expectNoTrace(s *harness.Surface, c permissionCall, refusedID, readID string) {
	GinkgoHelper()
	if !c.writes {
		return
	}
	r := s.Run(harness.Invoke(readID, "lime.storage", "get", map[string]any{"key": permissionProbeKey}), harness.AwaitAnswer(readID))
	got, ok := harness.StoredValue(r, readID)
	if !ok {
		s.TC().Blockedf("lime.storage get of %s, its permission granted, got no host:response, so what the refused %s left cannot be read", permissionProbeKey, c.what)
	}
	if got == refusedID {
		s.TC().Failf("%s was answered host:error while %s was not granted, yet a later lime.storage get reads the value it carried (%q): the refused write was executed", c.what, c.permission, got)
	}
}
