package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentapp/conformance/suites/harness"

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

// snapshotFields reads the named fields of a snapshot payload: each at
// the top level or in a group object under it (theme.themeMode,
// entry.route), the shallowest occurrence winning; lists (the capability
// summary) are not searched, so a field one capability row carries is not
// the snapshot's. A field given twice at its shallowest depth with
// different values is ambiguous and reported in conflicts
// (docs/decisions.md, "Host Bridge payloads").
func snapshotFields(raw json.RawMessage, names []string) (found map[string]any, conflicts []string) {
	var top map[string]any
	found = map[string]any{}
	if json.Unmarshal(raw, &top) != nil {
		return found, nil
	}
	for _, name := range names {
		level := []map[string]any{top}
		for depth := 0; depth <= 2 && len(level) > 0; depth++ {
			var values []any
			var next []map[string]any
			for _, obj := range level {
				if v, ok := obj[name]; ok {
					values = append(values, v)
				}
				keys := make([]string, 0, len(obj))
				for k := range obj {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					if child, ok := obj[k].(map[string]any); ok {
						next = append(next, child)
					}
				}
			}
			if len(values) > 0 {
				found[name] = values[0]
				for _, v := range values[1:] {
					if fmt.Sprint(v) != fmt.Sprint(values[0]) {
						conflicts = append(conflicts, fmt.Sprintf("%s is both %q and %q", name, fmt.Sprint(values[0]), fmt.Sprint(v)))
						break
					}
				}
				break
			}
			level = next
		}
	}
	return found, conflicts
}

// themeTokens reads the CSS variables (members named --*) of a theme
// payload: at its top level or in a group object at most two levels down
// (theme.variables), never inside a list; the shallowest wins.
func themeTokens(raw json.RawMessage) map[string]string {
	var top map[string]any
	out := map[string]string{}
	if json.Unmarshal(raw, &top) != nil {
		return out
	}
	level := []map[string]any{top}
	for depth := 0; depth <= 2 && len(level) > 0; depth++ {
		var next []map[string]any
		for _, obj := range level {
			for k, v := range obj {
				if str, ok := v.(string); ok && strings.HasPrefix(k, "--") {
					if _, seen := out[k]; !seen {
						out[k] = str
					}
				}
				if child, ok := v.(map[string]any); ok {
					next = append(next, child)
				}
			}
		}
		if len(out) > 0 {
			return out
		}
		level = next
	}
	return out
}

// capabilitySummary reads the snapshot's capability summary: a member
// capabilities at the top of the payload or in a group object at most two
// levels down (entry.capabilities), found as snapshotFields finds a field,
// holding a list of {name, available, reason} or a map from name to
// {available, reason} or to a boolean. ok is false when no such member is
// there (or it holds neither shape, or two groups disagree): the harness
// could not read a summary, which says nothing of what the host offers.
func capabilitySummary(raw json.RawMessage) (caps []hostbridge.CapabilityState, ok bool) {
	found, conflicts := snapshotFields(raw, []string{"capabilities"})
	v, present := found["capabilities"]
	if !present || len(conflicts) > 0 {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var list []hostbridge.CapabilityState
	if json.Unmarshal(b, &list) == nil {
		return list, true
	}
	var byName map[string]json.RawMessage
	if json.Unmarshal(b, &byName) != nil {
		return nil, false
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := hostbridge.CapabilityState{Name: name}
		if json.Unmarshal(byName[name], &c.Available) != nil {
			if json.Unmarshal(byName[name], &c) != nil {
				return nil, false
			}
			c.Name = name
		}
		caps = append(caps, c)
	}
	return caps, true
}

// capabilityMembers says where capabilitySummary looks, for an error that
// says it found nothing there.
const capabilityMembers = "a member capabilities (a list of {name, available, reason} or a map by name) at the payload's top level or in a group object at most two levels down"

// visibilityMembers are the payload members visibilityOf reads.
const visibilityMembers = "visible (a boolean), visibility or state (a word)"

// visibilityOf reads host:visibility's payload: {visible: bool}, or a
// visibility / state word ("" when it has none of these members; the
// harness then cannot tell what the host said).
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

// fieldText is the text of a field snapshotFields found ("" when it found
// none, or one that is not a string).
func fieldText(found map[string]any, name string) string {
	s, _ := found[name].(string)
	return s
}

func orNothing(ss []string) string {
	if len(ss) == 0 {
		return "nothing"
	}
	return strings.Join(ss, ", ")
}

// expectAllowed is the positive control of a URL check: the host accepts
// a URL the app may use.
func expectAllowed(s *harness.Surface, t, target string) {
	ginkgo.GinkgoHelper()
	expectAccepted(s, t, t+" of "+target, map[string]any{"url": target})
}

// expectAccepted is the positive control of a request check: the host
// answers request t with payload (what describes it) with host:response.
func expectAccepted(s *harness.Surface, t, what string, payload map[string]any) {
	ginkgo.GinkgoHelper()
	s.TC().Precondition(what+" (one the app may ask for) is allowed", func() {
		r := s.Run(harness.Request(t, "allowed-1", payload), harness.AwaitAnswer("allowed-1"))
		m, ok := r.Answer("allowed-1")
		if !ok || m.Type != hostbridge.TypeResponse {
			s.TC().Failf("%s got %s, not host:response", what, harness.AnswerText(m, ok))
		}
	})
}

// expectNavigates is the positive control of BRIDGE-NAVIGATE: the host
// accepts host:navigate with payload (what describes it). A host may carry
// out a navigation by loading the entry or route in the app's frame as a
// new document (docs/decisions.md, Navigation requests): from then on a
// scenario the reload cuts short runs again (Surface.AllowReload), and an
// answer that left with the old document is read from host/observe, which
// must record the request allowed.
func expectNavigates(s *harness.Surface, what, requestID string, payload map[string]any) {
	ginkgo.GinkgoHelper()
	s.AllowReload("Navigation requests", "the host loads the entry or route in the app's frame as a new document")
	s.TC().Precondition(what+" (one the app may ask for) is allowed", func() {
		// A navigation that reloads the frame may cut its own scenario
		// short, or one asked from a document the last navigation was
		// already leaving: the request is then asked once more.
		for range 2 {
			r, err := s.TryRun([]harness.Step{harness.Request(hostbridge.TypeNavigate, requestID, payload), harness.AwaitAnswer(requestID)})
			if err != nil && !s.Reloaded() {
				s.TC().Errorf("the harness's probe could not run its scenario in the app's frame: %v", err)
			}
			var m hostbridge.Message
			ok := false
			if err == nil {
				m, ok = r.Answer(requestID)
			}
			switch {
			case ok && m.Type == hostbridge.TypeResponse:
				return
			case ok:
				s.TC().Failf("%s got %s, not host:response", what, harness.AnswerText(m, ok))
			case harness.Executed(s.TC().Observe(s.AppID), requestID):
				return // answered in a document the frame has left since
			case err == nil:
				s.TC().Failf("%s got %s, and host/observe does not record it allowed", what, harness.AnswerText(m, ok))
			}
		}
		s.TC().Failf("%s was neither answered nor recorded as allowed, asked twice while the app's frame loaded new documents", what)
	})
}

// expectRefusedURL judges that the host refuses t of target: host:error
// and a denied record, never host:response.
func expectRefusedURL(s *harness.Surface, t, target string) {
	ginkgo.GinkgoHelper()
	expectRefused(s, t, t+" of "+target, map[string]any{"url": target}, "the host must validate the URL")
}

// expectRefused judges that the host refuses request t with payload (what
// describes it; why says what the host must do): host:error and no
// allowed record, never host:response.
func expectRefused(s *harness.Surface, t, what string, payload map[string]any, why string) {
	ginkgo.GinkgoHelper()
	r := s.Run(harness.Request(t, "refused-1", payload), harness.AwaitAnswer("refused-1"))
	m, ok := r.Answer("refused-1")
	if ok && m.Type == hostbridge.TypeResponse {
		s.TC().Failf("%s was allowed (host:response): %s", what, why)
	}
	if harness.Executed(s.TC().Observe(s.AppID), "refused-1") {
		s.TC().Failf("%s was allowed: host/observe records it so", what)
	}
	if !ok || m.Type != hostbridge.TypeError {
		s.TC().Failf("%s got %s, not host:error", what, harness.AnswerText(m, ok))
	}
}

// navigateFrameToSpoofer sends the app's own frame to the third-origin page,
// which posts msg to the host from there, and waits for it to report. It
// returns false when the host kept its frame from leaving the runtime
// origin (the frame still runs the probe): then no page of another origin
// can speak from the app's frame at all.
func navigateFrameToSpoofer(s *harness.Surface, msg map[string]any) bool {
	ginkgo.GinkgoHelper()
	b, _ := json.Marshal(msg)
	target := s.TC().ThirdParty().SpoofURL() + "#" + url.PathEscape(string(b))
	js, _ := json.Marshal(target)
	ctx, cancel := context.WithTimeout(s.TC().Context(), 5*time.Second)
	defer cancel()
	if err := s.Session().Eval(ctx, s.Frame(), "location.href = "+string(js)+"; true", nil); err != nil {
		s.TC().Errorf("sending the app's frame to another origin: %v", err)
	}
	var out struct {
		Posted bool   `json:"posted"`
		Error  string `json:"error"`
	}
	if err := s.Session().AwaitResult(ctx, s.TC().ThirdParty().Origin()+"/", &out); err != nil {
		still, cancel := context.WithTimeout(s.TC().Context(), 2*time.Second)
		defer cancel()
		if s.ProbeRuns(still) {
			s.TC().Reading("Which origin check a spoofer meets", "the host keeps its app frame from navigating to another origin")
			return false
		}
		s.TC().Errorf("the app's frame left for the page of another origin but that page never ran: %v", err)
	}
	if !out.Posted {
		s.TC().Errorf("the third-origin page could not post its message: %s", out.Error)
	}
	time.Sleep(harness.RefusalQuiet)
	return true
}

// entryReadiness asks the host for one entry's readiness.
func entryReadiness(tc *harness.TestContext, appID, entry string) protocol.ReadinessResult {
	ginkgo.GinkgoHelper()
	var r protocol.ReadinessResult
	tc.MustCall(protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID, Entry: entry}, &r)
	return r
}

// refusedURL is a URL a check of host:openExternal or host:download must
// refuse, and what makes it one.
type refusedURL struct{ what, url string }

// expectRefusedEach judges, in one scenario on s, that the host refuses t
// of every URL in cases: host:error, and no record in host/observe of the
// request allowed (a host that answers host:error and opens the URL all the
// same is judged by what it did); why says what the host must do. The
// request ids prefix none of each other.
func expectRefusedEach(s *harness.Surface, t string, cases []refusedURL, why string) {
	ginkgo.GinkgoHelper()
	expectRefusedEachIn(s, t, "url", cases, why)
}

// expectRefusedEachIn is expectRefusedEach with each case's URL sent as
// the payload's member (host:navigate's "route").
func expectRefusedEachIn(s *harness.Surface, t, member string, cases []refusedURL, why string) {
	ginkgo.GinkgoHelper()
	id := func(i int) string { return fmt.Sprintf("url-%02d", i) }
	var steps []harness.Step
	for i, c := range cases {
		steps = append(steps, harness.Request(t, id(i), map[string]any{member: c.url}), harness.AwaitAnswer(id(i)))
	}
	r := s.Run(steps...)
	o := s.TC().Observe(s.AppID)
	var allowed []string
	for i, c := range cases {
		m, ok := r.Answer(id(i))
		switch {
		case ok && m.Type == hostbridge.TypeResponse:
			allowed = append(allowed, fmt.Sprintf("%q (%s) was allowed (host:response)", c.url, c.what))
		case harness.Executed(o, id(i)):
			allowed = append(allowed, fmt.Sprintf("%q (%s) was allowed: host/observe records it so", c.url, c.what))
		case !ok || m.Type != hostbridge.TypeError:
			allowed = append(allowed, fmt.Sprintf("%q (%s) got %s, not host:error", c.url, c.what, harness.AnswerText(m, ok)))
		}
	}
	if len(allowed) > 0 {
		s.TC().Failf("%s of each: %s: %s", t, why, strings.Join(allowed, "; "))
	}
}

// explainsFailure reports whether text a user sees explains why r is not
// ready: it names word (case aside) or shows the message of a failing check
// of r.
func explainsFailure(text string, r protocol.ReadinessResult, word string) bool {
	if strings.Contains(strings.ToLower(text), strings.ToLower(word)) {
		return true
	}
	for _, c := range r.Checks {
		if (c.Severity == "error" || c.Blocking) && c.Message != "" && strings.Contains(text, c.Message) {
			return true
		}
	}
	return false
}

// showsCheck reports whether text a user sees shows the failing check c:
// readiness's message, or a line naming the check's kind and key both (a
// center that words its reasons itself still names what failed, where it
// failed).
func showsCheck(text string, c protocol.ReadinessCheck) bool {
	if strings.Contains(text, c.Message) {
		return true
	}
	if c.Kind == "" || c.Key == "" {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, c.Kind) && strings.Contains(line, c.Key) {
			return true
		}
	}
	return false
}

// portOf is the port of u, or its scheme's default.
func portOf(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}
