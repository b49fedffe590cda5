package harness

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentapp/conformance/drivers/appserver"
	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	. "github.com/onsi/ginkgo/v2"
)

// WithAppServer adds the harness's App Server to p, reached over its
// loopback socket.
func (tc *TestContext) WithAppServer(p protocol.ConfigureParams) protocol.ConfigureParams {
	return tc.WithAppServerOver(p, protocol.AppServerSocket)
}

// Nonce is a fresh value for one spec's inputs and keys.
func Nonce(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// FromHost lists what the host sent the App Server with method, in order.
func FromHost(msgs []appserver.Message, method string) []appserver.Message {
	var out []appserver.Message
	for _, m := range msgs {
		if m.Dir == appserver.FromHost && m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// ContainsText reports whether raw holds s anywhere.
func ContainsText(raw json.RawMessage, s string) bool { return strings.Contains(string(raw), s) }

// InvokeAsApp calls app/invoke and decodes the bridge message it answers
// with. A host without app/invoke (-32601), or one that refuses to mount
// the entry, leaves the spec blocked: nothing was asked of the App Server.
func (tc *TestContext) InvokeAsApp(p protocol.InvokeParams) hostbridge.Message {
	GinkgoHelper()
	var r protocol.InvokeResult
	err := tc.Call(protocol.MethodInvoke, p, &r)
	if code, isErr := tc.HostErrorCode(protocol.MethodInvoke, err); isErr {
		if code == protocol.CodeMethodNotFound {
			tc.Blockedf("the host does not implement app/invoke (-32601), so no call can be made as the app without a browser")
		}
		tc.Blockedf("app/invoke of %s %s as %s/%s was refused: %v", p.Capability, p.Method, p.AppID, p.EntryKey, err)
	}
	return tc.InvokeAnswer(p, r)
}

// InvokeAnswer is the bridge message app/invoke answered p with; an
// answer that is not one is an error of the spec.
func (tc *TestContext) InvokeAnswer(p protocol.InvokeParams, r protocol.InvokeResult) hostbridge.Message {
	GinkgoHelper()
	var m hostbridge.Message
	if json.Unmarshal(r.Answer, &m) != nil || m.RequestID != p.RequestID {
		tc.Errorf("app/invoke answered %s, not the bridge message for request %s", r.Answer, p.RequestID)
	}
	return m
}

// BrowserRetry runs a browser spec that did not pass once more at once: a
// spec that then passes is reported flaky, never passed (a flake is seen,
// not hidden). Config.BrowserAttempts 1 turns the second attempt off.
func (tc *TestContext) BrowserRetry() FlakeAttempts {
	if tc.Config.BrowserAttempts > 0 {
		return FlakeAttempts(tc.Config.BrowserAttempts)
	}
	return FlakeAttempts(2)
}

// ProbeFixture is the app whose UI is the harness's probe.
const ProbeFixture = "bridge-probe"

// InstallProbe configures the host with p and installs bridge-probe.
func (tc *TestContext) InstallProbe(p protocol.ConfigureParams) string {
	GinkgoHelper()
	tc.Configure(p)
	dir := tc.Fixture(ProbeFixture)
	return tc.Install(dir, tc.ReleaseOf(dir)).AppID
}

// ProbeSurface installs bridge-probe under p and opens its main entry.
func (tc *TestContext) ProbeSurface(p protocol.ConfigureParams) *Surface {
	GinkgoHelper()
	return tc.Launch(tc.InstallProbe(p), "main")
}

// StoredValue reads lime.storage get's answer: the value, or "" for none.
func StoredValue(r *ProbeResult, requestID string) (string, bool) {
	m, ok := r.Answer(requestID)
	if !ok || m.Type != hostbridge.TypeResponse {
		return "", false
	}
	var p struct {
		Value any `json:"value"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	if p.Value == nil {
		return "", true
	}
	return fmt.Sprint(p.Value), true
}

func AnswerText(m hostbridge.Message, ok bool) string {
	if !ok {
		return "no answer within " + AnswerTimeout.String()
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func FirstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// EvidenceOf is the evidence host/observe gives for appID, by request id.
func (tc *TestContext) EvidenceOf(appID string) map[string]protocol.EvidenceRecord {
	GinkgoHelper()
	out := map[string]protocol.EvidenceRecord{}
	for _, e := range tc.Observe(appID).Evidence {
		out[e.RequestID] = e
	}
	return out
}

// StorageCall makes one lime.storage call as the probe app's main entry
// through app/invoke.
func (tc *TestContext) StorageCall(app, method string, args map[string]any) hostbridge.Message {
	GinkgoHelper()
	var raw json.RawMessage
	if args != nil {
		raw, _ = json.Marshal(args)
	}
	return tc.InvokeAsApp(protocol.InvokeParams{AppID: app, EntryKey: "main", RequestID: Nonce("storage"),
		Capability: "lime.storage", Method: method, Args: raw})
}

// WithAppServerOver adds the harness's App Server to p, reached over
// transport: its socket, or as a sidecar the host spawns (the relay).
func (tc *TestContext) WithAppServerOver(p protocol.ConfigureParams, transport string) protocol.ConfigureParams {
	GinkgoHelper()
	switch transport {
	case protocol.AppServerStdio:
		if len(tc.Config.Relay) == 0 {
			tc.Blockedf("this run has no relay command to give the host as its App Server sidecar")
		}
		p.AppServer = &protocol.AppServerConfig{Transport: transport, Command: append(append([]string(nil), tc.Config.Relay...), tc.appServer.Addr())}
	default:
		p.AppServer = &protocol.AppServerConfig{Transport: protocol.AppServerSocket, Address: tc.appServer.Addr()}
	}
	return p
}
