package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// envelopeProblem says what is wrong with the envelope of a raw host
// message ("" when nothing is): version must be the number 1, not "1".
func envelopeProblem(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return "body is not a JSON object"
	}
	if p, _ := m["protocol"].(string); p != hostbridge.Protocol {
		return fmt.Sprintf("protocol is %v, not %q", m["protocol"], hostbridge.Protocol)
	}
	if v, ok := m["version"].(json.Number); !ok || v.String() != "1" {
		return fmt.Sprintf("version is %#v, not the number 1", m["version"])
	}
	if t, _ := m["type"].(string); t == "" {
		return "type is missing"
	}
	return ""
}

// collectKeys gathers every member name of a JSON document, at any depth,
// with the first value seen: snapshot fields are found wherever the host
// nests them (docs/decisions.md, "Host Bridge payloads").
func collectKeys(raw json.RawMessage, into map[string]any) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if _, seen := into[k]; !seen {
					into[k] = e
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// capabilitySummary reads the snapshot's capability summary: a list of
// {name, available, reason} or a map from name to {available, reason} or
// to a boolean.
func capabilitySummary(raw json.RawMessage) ([]hostbridge.CapabilityState, bool) {
	var p struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(raw, &p) != nil || len(p.Capabilities) == 0 {
		return nil, false
	}
	var list []hostbridge.CapabilityState
	if json.Unmarshal(p.Capabilities, &list) == nil {
		return list, true
	}
	var byName map[string]json.RawMessage
	if json.Unmarshal(p.Capabilities, &byName) != nil {
		return nil, false
	}
	for name, v := range byName {
		c := hostbridge.CapabilityState{Name: name}
		if json.Unmarshal(v, &c.Available) != nil {
			_ = json.Unmarshal(v, &c)
			c.Name = name
		}
		list = append(list, c)
	}
	return list, true
}

// visibilityOf reads host:visibility's payload: {visible: bool}, or a
// visibility / state word.
func visibilityOf(raw json.RawMessage) string {
	var p map[string]any
	if json.Unmarshal(raw, &p) != nil {
		return ""
	}
	if v, ok := p["visible"].(bool); ok {
		if v {
			return "visible"
		}
		return "hidden"
	}
	for _, k := range []string{"visibility", "state"} {
		if s, ok := p[k].(string); ok {
			return s
		}
	}
	return ""
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func orNothing(ss []string) string {
	if len(ss) == 0 {
		return "nothing"
	}
	return strings.Join(ss, ", ")
}

// frameFile is the address of a file of the app's UI, beside its entry.
func (s *Surface) frameFile(name string) string {
	ginkgo.GinkgoHelper()
	r := s.Run(Step{"page": true})
	if r.Page == nil {
		s.tc.Errorf("the probe did not report its page")
	}
	base, err := url.Parse(r.Page.Href)
	if err != nil {
		s.tc.Errorf("the app frame's address %q: %v", r.Page.Href, err)
	}
	ref, _ := url.Parse(name)
	return base.ResolveReference(ref).String()
}

// expectAllowed is the positive control of a URL check: the host accepts
// a URL the app may use.
func (s *Surface) expectAllowed(t, target string) {
	ginkgo.GinkgoHelper()
	s.tc.Precondition(t+" of "+target+" (one the app may use) is allowed", func() {
		r := s.Run(Request(t, "allowed-1", map[string]any{"url": target}), AwaitAnswer("allowed-1"))
		m, ok := r.Answer("allowed-1")
		if !ok || m.Type != hostbridge.TypeResponse {
			s.tc.Failf("%s of %s got %s, not host:response", t, target, describeAnswer(m, ok))
		}
	})
}

// expectRefusedURL judges that the host refuses t of target: host:error
// and a denied record, never host:response.
func (s *Surface) expectRefusedURL(t, target string) {
	ginkgo.GinkgoHelper()
	r := s.Run(Request(t, "refused-1", map[string]any{"url": target}), AwaitAnswer("refused-1"))
	m, ok := r.Answer("refused-1")
	if ok && m.Type == hostbridge.TypeResponse {
		s.tc.Failf("%s of %s was allowed (host:response): the host must validate the URL", t, target)
	}
	if executed(s.tc.Observe(s.AppID), "refused-1") {
		s.tc.Failf("%s of %s was allowed: host/observe records it so", t, target)
	}
	if !ok || m.Type != hostbridge.TypeError {
		s.tc.Failf("%s of %s got %s, not host:error", t, target, describeAnswer(m, ok))
	}
}

// navigateFrameToSpoofer sends the app's own frame to the third-origin page,
// which posts msg to the host from there, and waits for it to report. It
// returns false when the host kept its frame from leaving the runtime
// origin (the frame still runs the probe): then no page of another origin
// can speak from the app's frame at all.
func (s *Surface) navigateFrameToSpoofer(msg map[string]any) bool {
	ginkgo.GinkgoHelper()
	b, _ := json.Marshal(msg)
	target := s.tc.thirdParty.SpoofURL() + "#" + url.PathEscape(string(b))
	js, _ := json.Marshal(target)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.sess.Eval(ctx, s.frame(), "location.href = "+string(js)+"; true", nil); err != nil {
		s.tc.Errorf("sending the app's frame to another origin: %v", err)
	}
	var out struct {
		Posted bool   `json:"posted"`
		Error  string `json:"error"`
	}
	if err := s.sess.AwaitResult(ctx, s.tc.thirdParty.Origin()+"/", &out); err != nil {
		still, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var ok bool
		if s.sess.Eval(still, s.frame(), "typeof window.__probe === 'object'", &ok) == nil && ok {
			s.tc.Reading("Which origin check a spoofer meets", "the host keeps its app frame from navigating to another origin")
			return false
		}
		s.tc.Errorf("the app's frame left for the page of another origin but that page never ran: %v", err)
	}
	if !out.Posted {
		s.tc.Errorf("the third-origin page could not post its message: %s", out.Error)
	}
	time.Sleep(300 * time.Millisecond)
	return true
}

// entryReadiness asks the host for one entry's readiness.
func (tc *TestContext) entryReadiness(appID, entry string) protocol.ReadinessResult {
	ginkgo.GinkgoHelper()
	var r protocol.ReadinessResult
	tc.MustCall(protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID, Entry: entry}, &r)
	return r
}

// pageText opens the page the host named (address, or a DevTools target)
// and returns the text a user sees there.
func (tc *TestContext) pageText(address string, dt *protocol.DevToolsTarget) string {
	ginkgo.GinkgoHelper()
	sess := tc.openPage(address, dt, "the page")
	ctx, cancel := context.WithTimeout(context.Background(), surfaceLoadTimeout)
	defer cancel()
	var text string
	if err := sess.Eval(ctx, "", "document.body ? document.body.innerText : ''", &text); err != nil {
		tc.Errorf("reading the page %s: %v", firstNonEmpty(address, "of DevTools target "+dt.TargetID), err)
	}
	return text
}
