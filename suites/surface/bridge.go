package surface

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// snapshotQuiet is the spell in which the app asks for nothing, to learn
// whether the host pushes snapshots unasked.
const snapshotQuiet = 1200 * time.Millisecond

// spoofGap is the quiet period after each spoofed message: time for the
// host to act on it (store, answer) before the next one.
const spoofGap = 150 * time.Millisecond

// toastRenderSettle is how long the toasts' markup may take to reach the
// host page's DOM after their answers.
const toastRenderSettle = 200 * time.Millisecond

// probeDeclared lists every capability bridge-probe declares (requires and
// entries); lime.billing is declared nowhere.
var probeDeclared = []string{"lime.ui", "lime.storage", "lime.cloudSession", "lime.secrets", "lime.evidence", "lime.agent", "lime.artifacts"}

// expectExecutes is the positive control of a spec that judges a refusal:
// on the same surface, a declared call the host can run is answered with
// host:response. A host that answers nothing judges nothing.
func expectExecutes(s *harness.Surface, requestID string) {
	GinkgoHelper()
	s.TC().Precondition("a declared, ready call (lime.ui getLocale) is executed on the same surface", func() {
		r := s.Run(harness.Invoke(requestID, "lime.ui", "getLocale", nil), harness.AwaitAnswer(requestID))
		m, ok := r.Answer(requestID)
		if !ok || m.Type != hostbridge.TypeResponse {
			s.TC().Failf("capability:invoke %s got %s, not host:response", requestID, harness.AnswerText(m, ok))
		}
	})
}

// expectStored is the positive control of the spoofing specs: the app's own
// lime.storage set is executed and read back.
func expectStored(s *harness.Surface, key string) {
	GinkgoHelper()
	s.TC().Precondition("the app's own lime.storage set and get are executed", func() {
		r := s.Run(
			harness.Invoke("own-set", "lime.storage", "set", map[string]any{"key": key, "value": "own"}), harness.AwaitAnswer("own-set"),
			harness.Invoke("own-get", "lime.storage", "get", map[string]any{"key": key}), harness.AwaitAnswer("own-get"))
		if v, ok := harness.StoredValue(r, "own-get"); !ok || v != "own" {
			s.TC().Failf("the app's own lime.storage set %q was not read back (got %q)", key, v)
		}
	})
}

// expectNotStored judges a spoofed write of key: the app's storage does not
// hold it and the host's record shows requestID not executed.
func expectNotStored(s *harness.Surface, key, requestID, how string) {
	GinkgoHelper()
	r := s.Run(harness.Invoke("check-get", "lime.storage", "get", map[string]any{"key": key}), harness.AwaitAnswer("check-get"))
	v, ok := harness.StoredValue(r, "check-get")
	if !ok {
		s.TC().Errorf("lime.storage get, which answered before, gave no host:response after %s", how)
	}
	if v != "" {
		s.TC().Failf("%s was executed: the app's storage now holds %q = %q", how, key, v)
	}
	if harness.Executed(s.TC().Observe(s.AppID), requestID) {
		s.TC().Failf("%s was executed: host/observe records request %s as allowed", how, requestID)
	}
}

// describeBridge checks Host Bridge v1 in a real browser against the probe
// (spec 000 Host Bridge v1; 001 UI runtime; 002 Desktop P1 and P2).
func describeBridge(tc *harness.TestContext) {
	describeLaunchAndCenter(tc)
	describeSnapshot(tc)
	describeEnvelope(tc)
	describeUntrustedMessages(tc)
	describeFailClosed(tc)
	describeFailClosedSpellings(tc)
	describeFailClosedAfterLaunch(tc)
	describePermissions(tc)
	describeNoLeak(tc)
	describeContainment(tc)
	describeStoragePartition(tc)
	describeControlledActions(tc)
	describeThemeAndVisibility(tc)
}

// describeLaunchAndCenter declares the Desktop P1 specs of app/launch, activation consent and the app center.
func describeLaunchAndCenter(tc *harness.TestContext) {
	Describe("Desktop P1: launch and the app center", tc.BrowserRetry(), func() {
		It("refuses to launch an entry that is not ready, with its readiness reasons, and launches a ready one", tc.Req("LAUNCH-GATED", levels.EveryMember), func() {
			appID := tc.InstallProbe(tc.WithCapabilityDisabled("lime.agent"))
			tc.Precondition("the ready entry main launches", func() {
				lr, err := tc.TryLaunch(appID, "main")
				if err != nil {
					tc.FailCall(protocol.MethodLaunch, err)
				}
				if lr.URL == "" && lr.DevTools == nil && lr.Window == nil {
					tc.Failf("app/launch of main gave neither a URL, a DevTools target nor a window")
				}
			})
			_, err := tc.TryLaunch(appID, "tasks")
			if err == nil {
				tc.Failf("app/launch mounted entry tasks, which needs lime.agent, disabled on this host: it is not ready")
			}
			he, ok := harness.HostError(err)
			if !ok {
				tc.Errorf("no usable answer to app/launch: %v", err)
			}
			if he.Code != protocol.CodeNotReady {
				tc.Failf("app/launch of a not-ready entry was refused with %d, not -32009 (not ready): %s", he.Code, harness.HostErrorText(he))
			}
			var data protocol.ErrorData
			_ = json.Unmarshal(he.Data, &data)
			if data.Readiness == nil || !harness.NamesFailingCheck(*data.Readiness, "lime.agent") {
				tc.Failf("app/launch refused tasks without the readiness reasons naming lime.agent in error data.readiness: %s", harness.HostErrorText(he))
			}
			// Every cause of a blocked entry, not only a capability: tenant
			// policy denies notes alone, an entry needing only what a
			// Desktop P1 host offers (lime.ui, lime.storage).
			tc.Configure(tc.DefaultConfigure())
			tc.Precondition("entry notes is ready with no policy", func() {
				if r := entryReadiness(tc, appID, "notes"); !slices.Contains(harness.Launchable(), r.Status) {
					tc.Failf("app/readiness of %s/notes is %s", appID, r.Status)
				}
			})
			p := tc.DefaultConfigure()
			p.Policy = &protocol.Policy{DeniedEntries: map[string][]string{harness.ProbeFixture: {"notes"}}}
			tc.Configure(p)
			tc.Precondition("the ready entry main launches under a policy that denies only notes", func() {
				if _, err := tc.TryLaunch(appID, "main"); err != nil {
					tc.FailCall(protocol.MethodLaunch, err)
				}
			})
			_, err = tc.TryLaunch(appID, "notes")
			if err == nil {
				tc.Failf("app/launch mounted entry notes, which tenant policy denies: it is blocked")
			}
			if he, ok = harness.HostError(err); !ok {
				tc.Errorf("no usable answer to app/launch: %v", err)
			}
			data = protocol.ErrorData{}
			_ = json.Unmarshal(he.Data, &data)
			switch {
			case he.Code == protocol.CodeConsentRequired:
				// A host may ask the tenant's consent again (ACTIVATE-CONSENT).
			case he.Code != protocol.CodeNotReady:
				tc.Failf("app/launch of an entry tenant policy denies was refused with %d, not -32009 (not ready) or -32003 (consent required): %s", he.Code, harness.HostErrorText(he))
			case data.Readiness == nil || !harness.NamesFailingCheck(*data.Readiness, "notes"):
				tc.Failf("app/launch refused notes, which tenant policy denies, without the readiness reasons naming it in error data.readiness: %s", harness.HostErrorText(he))
			}
		})

		It("activates an app only while the tenant consents: a launch after the policy withdrew the app is refused", tc.Req("ACTIVATE-CONSENT", levels.ChangeBetweenReads), func() {
			appID := tc.InstallProbe(tc.DefaultConfigure())
			tc.Precondition("the installed app launches while the tenant allows it", func() {
				if _, err := tc.TryLaunch(appID, "main"); err != nil {
					tc.FailCall(protocol.MethodLaunch, err)
				}
			})
			p := tc.DefaultConfigure()
			p.Policy = &protocol.Policy{DeniedApps: []string{harness.ProbeFixture}}
			tc.Configure(p)
			_, err := tc.TryLaunch(appID, "main")
			if err == nil {
				tc.Failf("app/launch mounted %s after the tenant policy withdrew it: activation needs the tenant's consent now, not at install", appID)
			}
			he, ok := harness.HostError(err)
			if !ok {
				tc.Errorf("no usable answer to app/launch: %v", err)
			}
			if he.Code != protocol.CodeNotReady && he.Code != protocol.CodeConsentRequired {
				tc.Failf("app/launch of an app the policy withdrew was refused with %d, not -32009 (not ready) or -32003 (consent required): %s", he.Code, harness.HostErrorText(he))
			}
			// A not-ready refusal names what was planted: the policy's
			// blocker of this app, not some other reason.
			var data protocol.ErrorData
			_ = json.Unmarshal(he.Data, &data)
			if he.Code == protocol.CodeNotReady && (data.Readiness == nil || !harness.NamesFailingCheck(*data.Readiness, harness.ProbeFixture)) {
				tc.Failf("app/launch refused %s as not ready without data.readiness naming the tenant policy's blocker of %s: %s", appID, harness.ProbeFixture, harness.HostErrorText(he))
			}
		})

		It("shows blocked and needs-setup entries in the app center with their reasons and setup actions", tc.Req("CENTER-BLOCKERS", levels.EveryMember, levels.ChangeBetweenReads), func() {
			tc.RequireMethod(protocol.MethodCenter)
			p := tc.WithCapabilityDisabled("lime.agent")
			appID := tc.InstallProbe(p)
			secretDir := tc.Fixture("secret-required-app")
			secretApp := tc.Install(secretDir, tc.ReleaseOf(secretDir)).AppID
			readyDir := tc.Fixture("minimal-app")
			tc.Install(readyDir, tc.ReleaseOf(readyDir))
			// A change between two reads: the center is opened once before
			// the policy below makes entry main blocked, so a center that
			// judged each entry once and kept it shows main as it was.
			var first protocol.CenterResult
			tc.MustCall(protocol.MethodCenter, struct{}{}, &first)
			harness.PageText(tc, first.Where())
			// Every blocker reason a Desktop P1 host is configured with, one
			// with no setup action too: tenant policy, set once the apps are
			// in, denies the probe's entry main, and tasks, which has a
			// reason already (lime.agent is off): every reason of an entry
			// is shown, not its first.
			p.Policy = &protocol.Policy{DeniedEntries: map[string][]string{harness.ProbeFixture: {"main", "tasks"}}}
			tc.Configure(p)
			denied := entryReadiness(tc, appID, "main")
			tc.Precondition("tenant policy keeps entry main of "+harness.ProbeFixture+" from ready, naming it", func() {
				if slices.Contains(harness.Launchable(), denied.Status) || !harness.NamesFailingCheck(denied, "main") {
					tc.Failf("app/readiness of %s/main under a policy denying it is %s, naming no failing check for it", appID, denied.Status)
				}
			})
			tasks := entryReadiness(tc, appID, "tasks")
			secret := tc.AppReadiness(secretApp)
			var cr protocol.CenterResult
			tc.MustCall(protocol.MethodCenter, struct{}{}, &cr)
			text := harness.PageText(tc, cr.Where())
			var missing []string
			// Every installed app is listed, a ready one too (its install
			// state), by the name app/list gives it.
			for _, a := range tc.List().Apps {
				if name := harness.FirstNonEmpty(a.DisplayName, a.AppID); !strings.Contains(text, name) {
					missing = append(missing, fmt.Sprintf("the installed app %q", name))
				}
			}
			for _, want := range []string{"lime.agent", "provider_api_key"} {
				if !strings.Contains(text, want) {
					missing = append(missing, fmt.Sprintf("the reason %q", want))
				}
			}
			for _, a := range append(tasks.SetupActions, secret.SetupActions...) {
				if a.Title != "" && !strings.Contains(text, a.Title) {
					missing = append(missing, fmt.Sprintf("the setup action %q", a.Title))
				}
			}
			if !explainsFailure(text, denied, "policy") {
				missing = append(missing, "the reason entry main is blocked (the tenant policy denies it)")
			}
			// Each cause the host's own readiness gives, in readiness's words
			// or the center's own naming the check (its kind and key): the
			// texts name no wording (docs/decisions.md, The app center's
			// reasons).
			for _, r := range []struct {
				where string
				r     protocol.ReadinessResult
			}{{appID + "/tasks", tasks}, {appID + "/main", denied}, {secretApp, secret}} {
				for _, c := range r.r.Checks {
					if (c.Blocking || c.Severity == "error") && c.Message != "" && !showsCheck(text, c) {
						missing = append(missing, fmt.Sprintf("the reason %q (check %s %s) that readiness gives for %s", c.Message, c.Kind, c.Key, r.where))
					}
				}
			}
			if len(missing) > 0 {
				tc.Failf("the app center does not show %s; readiness gives them for entry tasks (%s) and for %s (%s)",
					strings.Join(missing, ", "), tasks.Status, secretApp, secret.Status)
			}
		})
	})
}

// describeSnapshot declares the specs of host:snapshot and the capabilities it offers.
func describeSnapshot(tc *harness.TestContext) {
	Describe("Desktop P2: the host snapshot", tc.BrowserRetry(), func() {
		It("answers app:ready and host:getSnapshot with a host:snapshot of the launched app and entry", tc.Req("BRIDGE-SNAPSHOT", levels.EveryEntryPoint, levels.WhoAnswers), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			r := s.Run(harness.Request(hostbridge.TypeReady, "ready-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
			if r.StepFailed(1) {
				tc.Failf("no host:snapshot reached the app after app:ready within %s", harness.AnswerTimeout)
			}
			// A snapshot after a request answers it only if the host does
			// not push snapshots unasked: count those in a quiet spell.
			before := len(r.OfType(hostbridge.TypeSnapshot))
			quiet := s.Run(harness.Sleep(snapshotQuiet))
			unasked := len(quiet.OfType(hostbridge.TypeSnapshot)) - before
			steps := []harness.Step{harness.Request(hostbridge.TypeGetSnapshot, "get-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false)}
			if unasked > 0 {
				// An unasked snapshot may come first: the answer is the one
				// naming the request, so wait for that too.
				steps = append(steps, harness.AwaitAnswer("get-1"))
			}
			// Who answers: a host:getSnapshot whose envelope names another
			// entry of the app is answered, if at all, with the snapshot of
			// the entry the host mounted: the host's record of the surface
			// decides, not the app's claim (spec 000, Host Bridge v1: "The
			// host remains the only decision maker"). Every snapshot the
			// frame gets is judged below.
			claim := harness.Request(hostbridge.TypeGetSnapshot, "get-as-"+otherEntry("main"), nil)
			claim["send"].(map[string]any)["entryKey"] = otherEntry("main")
			steps = append(steps, claim, harness.AwaitAnswer("get-as-"+otherEntry("main")))
			r = s.Run(steps...)
			if r.StepFailed(1) {
				tc.Failf("no host:snapshot reached the app after host:getSnapshot within %s", harness.AnswerTimeout)
			}
			if unasked > 0 {
				var unanswered []string
				for _, id := range []string{"ready-1", "get-1"} {
					if _, ok := r.Answer(id); !ok {
						unanswered = append(unanswered, id)
					}
				}
				if len(unanswered) > 0 {
					tc.Errorf("could not judge whether app:ready and host:getSnapshot are answered: the host pushed %d host:snapshot in %d ms while the app asked for none, and no snapshot names the requestId of %s; a snapshot after a request is then no evidence it was answered",
						unasked, snapshotQuiet, strings.Join(unanswered, ", "))
				}
				tc.Reading("Unasked snapshots", "the host pushes snapshots unasked and names the request each answer is for")
			}
			for _, m := range r.OfType(hostbridge.TypeSnapshot) {
				// The payload's own appId and entryKey, read where the
				// snapshot fields are (a group may hold them), or the
				// envelope's.
				snap, _ := snapshotFields(m.Payload, []string{"appId", "entryKey"})
				appID, entry := fieldText(snap, "appId"), fieldText(snap, "entryKey")
				if appID != s.AppID && m.AppID != s.AppID {
					tc.Failf("a host:snapshot names app %q, not the launched %s", harness.FirstNonEmpty(appID, m.AppID), s.AppID)
				}
				if entry != "main" && m.EntryKey != "main" {
					tc.Failf("a host:snapshot names entry %q, not the launched main", harness.FirstNonEmpty(entry, m.EntryKey))
				}
			}
		})

		It("carries the fields the first snapshot should include", tc.Req("BRIDGE-SNAPSHOT-FIELDS", levels.EveryMember), func() {
			p := tc.DefaultConfigure()
			p.Locale, p.Timezone = "zh-CN", "Asia/Shanghai"
			s := tc.ProbeSurface(p)
			r := s.Run(harness.Request(hostbridge.TypeReady, "ready-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
			snaps := r.OfType(hostbridge.TypeSnapshot)
			if len(snaps) == 0 {
				tc.Blockedf("no host:snapshot reached the app after app:ready")
			}
			fields := []string{"appId", "entryKey", "route", "runtimeOrigin", "themeMode", "effectiveThemeMode", "colorSchemeId", "locale", "timezone", "workspaceId", "tenantId", "capabilities"}
			keys, conflicts := snapshotFields(snaps[0].Payload, fields)
			if len(conflicts) > 0 {
				tc.Failf("the first host:snapshot is ambiguous: %s", strings.Join(conflicts, "; "))
			}
			var missing []string
			for _, k := range fields {
				if _, ok := keys[k]; !ok {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				tc.Failf("the first host:snapshot has no %s (spec 001 says it should include at least these)", strings.Join(missing, ", "))
			}
			for k, want := range map[string]string{"locale": "zh-CN", "timezone": "Asia/Shanghai", "workspaceId": harness.WorkspaceID, "tenantId": harness.TenantID, "runtimeOrigin": s.Launch.RuntimeOrigin} {
				if got := fmt.Sprint(keys[k]); got != want {
					tc.Failf("the snapshot's %s is %q; the host was configured (or launched) with %q", k, got, want)
				}
			}
		})

		It("offers only the capabilities the manifest declares, naming why a declared one is unavailable", tc.Req("BRIDGE-CAPS-DECLARED", levels.EveryMember, levels.ChangeBetweenReads), func() {
			s := tc.ProbeSurface(tc.WithCapabilityDisabled("lime.agent"))
			r := s.Run(harness.Request(hostbridge.TypeReady, "ready-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
			snaps := r.OfType(hostbridge.TypeSnapshot)
			if len(snaps) == 0 {
				tc.Blockedf("no host:snapshot reached the app after app:ready")
			}
			caps, ok := capabilitySummary(snaps[0].Payload)
			if !ok {
				// A summary the harness cannot find is no evidence of what
				// the host offers; a missing summary fails
				// BRIDGE-SNAPSHOT-FIELDS, the should that asks for it.
				tc.Errorf("the harness reads the capability summary from %s; the host's first host:snapshot had none: %s", capabilityMembers, snaps[0].Payload)
			}
			var undeclared []string
			for _, c := range caps {
				if !slices.Contains(probeDeclared, c.Name) {
					undeclared = append(undeclared, c.Name)
				}
				if c.Name == "lime.agent" && c.Available {
					tc.Failf("the snapshot offers lime.agent as available; it is disabled on this host")
				}
				if c.Name == "lime.agent" && c.Reason == "" {
					tc.Failf("the snapshot lists lime.agent as unavailable without a reason")
				}
			}
			if len(undeclared) > 0 {
				sort.Strings(undeclared)
				tc.Failf("the snapshot offers %s, which %s does not declare", strings.Join(undeclared, ", "), harness.ProbeFixture)
			}
			// A change between two reads: host/configure switches
			// lime.storage off as well, and the next snapshot on the same
			// surface says so (a host that kept the first summary offers
			// what it now refuses).
			off := tc.WithCapabilityDisabled("lime.agent")
			off.Capabilities["lime.storage"] = protocol.Capability{Version: "0.10.0", Enabled: false}
			tc.Configure(off)
			r = s.Run(harness.Request(hostbridge.TypeGetSnapshot, "get-2", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
			snaps = r.OfType(hostbridge.TypeSnapshot)
			if len(snaps) == 0 {
				tc.Blockedf("no host:snapshot reached the app after host:getSnapshot, once host/configure switched lime.storage off")
			}
			after := snaps[len(snaps)-1]
			// A host that pushes snapshots unasked names the request its
			// answer is for (docs/decisions.md, "Unasked snapshots"): a push
			// under way when host/configure returned is not the answer, so
			// before it is held against the host, the answer is awaited.
			if m, ok := r.Answer("get-2"); ok && m.Type == hostbridge.TypeSnapshot {
				after = m
			} else if offersStorage(after.Payload) {
				if m, ok := s.Run(harness.AwaitAnswer("get-2")).Answer("get-2"); ok && m.Type == hostbridge.TypeSnapshot {
					after = m
				}
			}
			if offersStorage(after.Payload) {
				tc.Failf("after host/configure switched lime.storage off, the snapshot lists it available, or unavailable with no reason: %s", after.Payload)
			}
		})
	})
}

// offersStorage reports whether a snapshot's capability summary lists
// lime.storage available, or unavailable without a reason.
func offersStorage(payload json.RawMessage) bool {
	caps, _ := capabilitySummary(payload)
	for _, c := range caps {
		if c.Name == "lime.storage" && (c.Available || c.Reason == "") {
			return true
		}
	}
	return false
}

// describeEnvelope declares the specs of the envelope and request ids of every message.
func describeEnvelope(tc *harness.TestContext) {
	Describe("Desktop P2: the envelope", tc.BrowserRetry(), func() {
		It("sends every message with protocol lime.agentApp.bridge and version 1", tc.Req("BRIDGE-ENVELOPE", levels.EveryMember), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			r := s.Run(
				harness.Request(hostbridge.TypeReady, "ready-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false),
				harness.Invoke("ok-1", "lime.ui", "getLocale", nil), harness.AwaitAnswer("ok-1"),
				harness.Invoke("no-1", "lime.billing", "getStatus", nil), harness.AwaitAnswer("no-1"))
			// Every kind of message, the ones the host pushes too: a theme
			// change and the surface hidden.
			tc.HostSet(protocol.SetParams{Theme: &protocol.Theme{Mode: "dark", ColorSchemeID: "envelope-dark",
				Tokens: map[string]string{"--lime-color-bg": "#101010"}}})
			tc.HostSet(protocol.SetParams{Visibility: "hidden"})
			pushed := s.Run(harness.AwaitType(hostbridge.TypeThemeUpdate, true), harness.AwaitCount(hostbridge.TypeVisibility, 1), harness.Sleep(harness.PushSettle))
			n := 0
			for _, rc := range append(r.Received, pushed.Received...) {
				if !rc.FromParent {
					continue
				}
				n++
				if p := envelopeProblem(rc.Data); p != "" {
					tc.Failf("the host sent a message whose %s: %s", p, rc.Data)
				}
			}
			if n == 0 {
				tc.Blockedf("the host sent the app no message at all")
			}
		})

		It("answers every request with its requestId, and host:error with a stable code and a message", tc.Req("BRIDGE-REQUESTID", levels.EveryMember, levels.ConfusableIdentity, levels.RepresentationLimit), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			r := s.Run(
				harness.Invoke("ok-1", "lime.ui", "getLocale", nil), harness.AwaitAnswer("ok-1"),
				harness.Invoke("no-1", "lime.billing", "getStatus", nil), harness.AwaitAnswer("no-1"))
			for _, id := range []string{"ok-1", "no-1"} {
				if _, ok := r.Answer(id); !ok {
					var types []string
					for _, m := range r.FromHost() {
						types = append(types, fmt.Sprintf("%s(requestId %q)", m.Type, m.RequestID))
					}
					tc.Failf("no answer carries requestId %s; the host sent %s", id, orNothing(types))
				}
			}
			m, _ := r.Answer("no-1")
			if m.Type != hostbridge.TypeError {
				tc.Failf("a call to undeclared lime.billing was answered with %s, not host:error", m.Type)
			}
			if e := hostbridge.ErrorOf(m); e.Code == "" || e.Message == "" {
				raw, _ := json.Marshal(m)
				tc.Failf("host:error lacks a stable code or a user-readable message; the answer: %s", harness.Excerpt(raw))
			}
			// Request ids that extend, prefix or case-fold onto the ones
			// answered above are other requests: each answer carries its
			// own request's id, and is the answer that request gets. The
			// standard sets no length: an id of 100 bytes, past a 64-byte
			// column a host might clip it to, comes back whole.
			confusable := []struct {
				id         string
				executable bool
			}{{"ok-10", false}, {"ok-1.", true}, {"OK-1", false}, {"no", true}, {"ok-1-" + strings.Repeat("0123456789", 9) + "long.", true}}
			var steps []harness.Step
			for _, c := range confusable {
				if c.executable {
					steps = append(steps, harness.Invoke(c.id, "lime.ui", "getLocale", nil), harness.AwaitAnswer(c.id))
				} else {
					steps = append(steps, harness.Invoke(c.id, "lime.billing", "getStatus", nil), harness.AwaitAnswer(c.id))
				}
			}
			r = s.Run(steps...)
			var wrong []string
			for _, c := range confusable {
				want := hostbridge.TypeError
				if c.executable {
					want = hostbridge.TypeResponse
				}
				m, ok := r.Answer(c.id)
				switch {
				case !ok:
					var sent []string
					for _, m := range r.FromHost() {
						sent = append(sent, fmt.Sprintf("%s(requestId %q)", m.Type, m.RequestID))
					}
					wrong = append(wrong, fmt.Sprintf("no answer carries requestId %q (the host sent %s)", c.id, orNothing(sent)))
				case m.Type != want:
					wrong = append(wrong, fmt.Sprintf("request %q got %s, not %s: the answer of another request", c.id, m.Type, want))
				}
			}
			if len(wrong) > 0 {
				tc.Failf("after requests ok-1 and no-1, requests whose ids extend, prefix or case-fold onto theirs, or run to 100 bytes, were answered as others or not at all: %s", strings.Join(wrong, "; "))
			}
		})

		DescribeTable("answers an invalid request from the app's frame with host:error, not silence",
			func(send map[string]any, requestID string) {
				s := tc.ProbeSurface(tc.DefaultConfigure())
				expectExecutes(s, "control-1")
				r := s.Run(harness.Send(send), harness.AwaitType(hostbridge.TypeError, false))
				errs := r.OfType(hostbridge.TypeError)
				if len(errs) == 0 {
					tc.Failf("the host answered the invalid request with silence, not host:error")
				}
				if requestID != "" && !slices.ContainsFunc(errs, func(m hostbridge.Message) bool { return m.RequestID == requestID }) {
					tc.Failf("host:error did not carry the invalid request's requestId %s", requestID)
				}
			},
			Entry("a request without a requestId", tc.Req("BRIDGE-INVALID-ANSWERED", levels.EveryMember),
				map[string]any{"type": hostbridge.TypeInvoke, "payload": map[string]any{"capability": "lime.ui", "method": "getLocale"}}, ""),
			Entry("a request with version 2", tc.Req("BRIDGE-INVALID-ANSWERED", levels.EveryMember),
				map[string]any{"type": hostbridge.TypeInvoke, "version": 2, "requestId": "v2-1", "payload": map[string]any{"capability": "lime.ui", "method": "getLocale"}}, "v2-1"),
			Entry("a request with another protocol", tc.Req("BRIDGE-INVALID-ANSWERED", levels.EveryMember),
				map[string]any{"type": hostbridge.TypeInvoke, "protocol": "lime.other.bridge", "requestId": "p-1", "payload": map[string]any{"capability": "lime.ui", "method": "getLocale"}}, "p-1"),
		)
	})
}

// describeUntrustedMessages declares the specs of messages the host must never execute: another frame, origin, protocol, version or app.
func describeUntrustedMessages(tc *harness.TestContext) {
	Describe("Desktop P2: untrusted messages are never executed", tc.BrowserRetry(), func() {
		spoof := func(key, requestID string) map[string]any {
			return map[string]any{
				"protocol": hostbridge.Protocol, "version": 1, "type": hostbridge.TypeInvoke, "requestId": requestID,
				"payload": map[string]any{"capability": "lime.storage", "method": "set", "args": map[string]any{"key": key, "value": "spoofed"}},
			}
		}

		It("ignores a message from a frame nested in the app's, of the app's own origin", tc.Req("BRIDGE-SOURCE", levels.ConfusableIdentity), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			expectStored(s, "own-source")
			msg := spoof("spoofed-source", "spoof-source")
			msg["appId"], msg["entryKey"] = s.AppID, s.Entry
			s.Run(harness.Step{"nested": map[string]any{"mode": "same-origin", "message": msg}}, harness.Sleep(harness.RefusalQuiet))
			expectNotStored(s, "spoofed-source", "spoof-source", "a capability:invoke posted by a frame nested in the app's")
		})

		It("ignores a message from the app's frame after it navigated to another origin", tc.Req("BRIDGE-ORIGIN", levels.ChangeBetweenReads), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			expectStored(s, "own-origin")
			msg := spoof("spoofed-origin", "spoof-origin")
			msg["appId"], msg["entryKey"] = s.AppID, s.Entry
			if !navigateFrameToSpoofer(s, msg) {
				return // no page of another origin can speak from the app's frame
			}
			again := tc.Launch(s.AppID, "main")
			expectNotStored(again, "spoofed-origin", "spoof-origin", "a capability:invoke posted from the app's frame at another origin")
		})

		// Each member of the envelope the host checks, and the values
		// beside the right one: version 1 is the JSON number (a string "1"
		// is another value), the protocol name is exact.
		It("never executes a message of another protocol or version", tc.Req("BRIDGE-ENVELOPE-CHECKED", levels.EveryMember, levels.RepresentationLimit), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			expectStored(s, "own-envelope")
			wrong := []struct {
				what, key string
				member    string
				value     any
			}{
				{"version 2", "spoof-version", "version", 2},
				{`version "1" (a string)`, "spoof-version-text", "version", "1"},
				{"protocol lime.other.bridge", "spoof-protocol", "protocol", "lime.other.bridge"},
				{"the protocol's name in capitals", "spoof-protocol-case", "protocol", strings.ToUpper(hostbridge.Protocol)},
			}
			// Every other look-alike of the protocol's name: padded, cut
			// short, extended (a prefix match takes the last).
			for i, p := range harness.ConfusableSpellings(hostbridge.Protocol)[1:] {
				wrong = append(wrong, struct {
					what, key string
					member    string
					value     any
				}{fmt.Sprintf("protocol %q", p), fmt.Sprintf("spoof-protocol-%d", i), "protocol", p})
			}
			var steps []harness.Step
			for _, w := range wrong {
				msg := spoof("spoofed-"+w.key, w.key)
				msg[w.member] = w.value
				steps = append(steps, harness.Send(msg), harness.Sleep(spoofGap))
			}
			s.Run(append(steps, harness.Sleep(spoofGap))...)
			for _, w := range wrong {
				expectNotStored(s, "spoofed-"+w.key, w.key, "a capability:invoke with "+w.what)
			}
		})

		It("never executes a message carrying another app's appId as that app's", tc.Req("BRIDGE-APPID", levels.ConfusableIdentity), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			expectExecutes(s, "control-1")
			// The app's own id spelled otherwise names no app: a host that
			// folds case or trims runs it as the app's own. Judged first: a
			// host that opens apps in one page of its own leaves this frame
			// when the other app is launched below.
			var steps []harness.Step
			spellings := harness.ConfusableSpellings(s.AppID)
			for i, id := range spellings {
				msg := spoof(fmt.Sprintf("spoofed-own-%d", i), fmt.Sprintf("own-%d", i))
				msg["appId"] = id
				steps = append(steps, harness.Send(msg), harness.Sleep(spoofGap))
			}
			s.Run(append(steps, harness.Sleep(spoofGap))...)
			for i, id := range spellings {
				expectNotStored(s, fmt.Sprintf("spoofed-own-%d", i), fmt.Sprintf("own-%d", i), fmt.Sprintf("a capability:invoke from %s's frame carrying appId %q", s.AppID, id))
			}
			// The other app declares what the message asks (a storage write),
			// so executing it as that app's would leave the value in its
			// storage, which its own surface then reads.
			other := tc.InstallNeighbour()
			msg := spoof("spoofed-as-other", "as-other")
			msg["appId"] = other
			s.Run(harness.Send(msg), harness.Sleep(harness.RefusalQuiet))
			if harness.Executed(tc.Observe(s.AppID), "as-other") {
				tc.Failf("a capability:invoke from %s's frame carrying appId %s was executed (host/observe of %s records it allowed)", s.AppID, other, s.AppID)
			}
			expectNotStored(tc.Launch(other, "main"), "spoofed-as-other", "as-other",
				"a capability:invoke from "+s.AppID+"'s frame carrying appId "+other+" (as "+other+"'s)")
		})

		// Every message the app sends carries its appId, the handshake
		// too: an app:ready or host:getSnapshot naming another app (or the
		// app's own id in capitals) is not the app's, and no snapshot
		// answers it (spec 000, Standard message envelope: appId).
		It("answers no app:ready or host:getSnapshot that carries another app's appId", tc.Req("BRIDGE-APPID", levels.EveryEntryPoint, levels.ConfusableIdentity), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			tc.Precondition("host:getSnapshot carrying the app's own appId is answered with a host:snapshot", func() {
				if r := s.Run(harness.Request(hostbridge.TypeGetSnapshot, "own-snap", nil), harness.AwaitType(hostbridge.TypeSnapshot, false)); r.StepFailed(1) {
					tc.Failf("no host:snapshot reached the app after host:getSnapshot within %s", harness.AnswerTimeout)
				}
			})
			// Snapshots the host pushes unasked, counted in a quiet spell.
			before := len(s.Run(harness.Sleep(harness.PushSettle)).OfType(hostbridge.TypeSnapshot))
			quiet := s.Run(harness.Sleep(snapshotQuiet))
			unasked := len(quiet.OfType(hostbridge.TypeSnapshot)) - before
			var steps []harness.Step
			var sent []string
			for _, t := range []string{hostbridge.TypeReady, hostbridge.TypeGetSnapshot} {
				for _, id := range []string{harness.NeighbourProbe, strings.ToUpper(s.AppID)} {
					rid := fmt.Sprintf("foreign-%d", len(sent))
					steps = append(steps, harness.Send(map[string]any{"type": t, "requestId": rid, "appId": id}), harness.Sleep(spoofGap))
					sent = append(sent, fmt.Sprintf("%s carrying appId %q (%s)", t, id, rid))
				}
			}
			r := s.Run(append(steps, harness.Sleep(snapshotQuiet))...)
			for i, what := range sent {
				if m, ok := r.Answer(fmt.Sprintf("foreign-%d", i)); ok && m.Type != hostbridge.TypeError {
					tc.Failf("%s from %s's frame was answered %s: it is not the app's message", what, s.AppID, m.Type)
				}
			}
			if got := len(r.OfType(hostbridge.TypeSnapshot)) - len(quiet.OfType(hostbridge.TypeSnapshot)); unasked == 0 && got > 0 {
				tc.Failf("%d host:snapshot reached %s's frame after it sent only app:ready and host:getSnapshot carrying another app's appId (%s)", got, s.AppID, strings.Join(sent, "; "))
			}
		})
	})
}

// describeFailClosed declares the specs of blocked calls answered host:error, never a mock success.
func describeFailClosed(tc *harness.TestContext) {
	Describe("Desktop P2: blocked calls fail closed", tc.BrowserRetry(), func() {
		DescribeTable("answers host:error with a stable code, never a mock success",
			func(cfg func() protocol.ConfigureParams, capability, method, gate string) {
				s := tc.ProbeSurface(cfg())
				expectExecutes(s, "control-1")
				r := s.Run(harness.Invoke("blocked-1", capability, method, nil), harness.AwaitAnswer("blocked-1"),
					harness.Invoke("blocked-2", capability, method, nil), harness.AwaitAnswer("blocked-2"))
				var codes []string
				for _, id := range []string{"blocked-1", "blocked-2"} {
					m, ok := r.Answer(id)
					if !ok {
						tc.Failf("%s.%s (%s) got no answer: a blocked call must get host:error", capability, method, gate)
					}
					if m.Type != hostbridge.TypeError {
						tc.Failf("%s.%s, blocked by %s, was answered with %s: %s", capability, method, gate, m.Type, m.Payload)
					}
					e := hostbridge.ErrorOf(m)
					if e.Code == "" || e.Message == "" {
						tc.Failf("host:error for %s.%s lacks a stable code or a message", capability, method)
					}
					codes = append(codes, e.Code)
				}
				if codes[0] != codes[1] {
					tc.Failf("the same blocked call got two codes, %s then %s: a code must be stable", codes[0], codes[1])
				}
				// Gates run in order (allowlist, readiness, policy): a
				// capability the host does not offer is stopped at readiness
				// before policy is read (a Desktop P2 host need not offer the
				// platform capabilities of P3).
				if gate == protocol.GatePolicy && !tc.OfferedEnabled()[capability] {
					gate = protocol.GateReadiness
				}
				o := tc.Observe(s.AppID)
				c, ok := harness.CallOf(o, "blocked-1")
				switch {
				case !ok:
					tc.Failf("host/observe has no record of the blocked call")
				case c.Decision != protocol.DecisionDenied:
					tc.Failf("host/observe records the blocked call %s as %q", capability, c.Decision)
				case c.Gate != gate:
					tc.Failf("host/observe says gate %q denied %s; this call can only be denied at %s", c.Gate, capability, gate)
				}
			},
			Entry("an undeclared capability (allowlist)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember),
				tc.DefaultConfigure, "lime.billing", "getStatus", protocol.GateAllowlist),
			Entry("a declared capability the host has disabled (readiness)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember),
				func() protocol.ConfigureParams { return tc.WithCapabilityDisabled("lime.agent") }, "lime.agent", "startTask", protocol.GateReadiness),
			// Each list names the called capability first, before one the
			// app does not declare: every member counts, not the last.
			Entry("a capability policy denies (policy)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember),
				func() protocol.ConfigureParams {
					return tc.WithPolicy(protocol.Policy{DeniedCapabilities: []string{"lime.storage", "lime.billing"}})
				}, "lime.storage", "list", protocol.GatePolicy),
			// A name with capitals, as the standard spells it.
			Entry("a capability policy denies, whose name has capitals (policy)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember, levels.RepresentationLimit),
				func() protocol.ConfigureParams {
					return tc.WithPolicy(protocol.Policy{DeniedCapabilities: []string{"lime.cloudSession"}})
				}, "lime.cloudSession", "getSnapshot", protocol.GatePolicy),
			Entry("a capability that needs the user's approval (approval)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember),
				func() protocol.ConfigureParams {
					return tc.WithPolicy(protocol.Policy{ApprovalRequired: []string{"lime.evidence", "lime.billing"}})
				}, "lime.evidence", "record", protocol.GateApproval),
		)
	})
}

// describeFailClosedAfterLaunch declares the specs of calls from an entry
// that stopped being ready after it opened.
func describeFailClosedAfterLaunch(tc *harness.TestContext) {
	Describe("Desktop P2: blocked calls fail closed after launch", tc.BrowserRetry(), func() {
		// Each call passes the readiness gate afresh, of the entry the
		// surface runs (spec 000, Readiness: "policy allows the requested
		// entry"; spec 001, UI runtime: calls "must still pass readiness
		// ... and policy"): an entry tenant policy denies once it is open
		// runs no more calls, though the app's other entries stay ready.
		// Both ways an open entry stops being ready: blocked (tenant policy
		// denies it) and needs-setup (a secret it requires is withdrawn).
		// Neither is ready, so neither runs a call (spec 001, UI runtime:
		// calls "must still pass readiness").
		DescribeTable("answers host:error to a call from an open entry that stopped being ready after it opened:",
			func(open func() *harness.Surface, stop func(s *harness.Surface)) {
				s := open()
				expectExecutes(s, "control-1")
				stop(s)
				// The verdict rests on the call, not on readiness: the host's
				// own readiness of the entry says it is no longer ready.
				tc.Precondition("app/readiness of entry "+s.Entry+" is no longer ready", func() {
					if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: s.AppID, Entry: s.Entry}); harness.IsLaunchable(r.Status) {
						tc.Failf("app/readiness of %s entry %s is %q; the answer: %s", s.AppID, s.Entry, r.Status, harness.Excerpt(raw))
					}
				})
				// The same call whose envelope names another entry of the
				// app, one tenant policy leaves ready: the gate is the
				// host's record of the surface, never the app's claim
				// (spec 000, Host Bridge v1: "The host remains the only
				// decision maker"). Sent first, so that its answer, if any,
				// comes before the one awaited.
				other := otherEntry(s.Entry)
				claim := harness.Invoke("after-stop-as-"+other, "lime.ui", "getLocale", nil)
				claim["send"].(map[string]any)["entryKey"] = other
				r, err := s.TryRun([]harness.Step{claim, harness.Invoke("after-stop", "lime.ui", "getLocale", nil),
					harness.AwaitAnswer("after-stop"), harness.AwaitAnswerWithin("after-stop-as-"+other, harness.RefusalQuiet)})
				if err != nil {
					// The host closed or replaced the entry's frame: it runs
					// no more calls, which is what the clause asks.
					return
				}
				if m, ok := r.Answer("after-stop"); !ok || m.Type != hostbridge.TypeError {
					tc.Failf("lime.ui getLocale from entry %s of %s, no longer ready, got %s, not host:error", s.Entry, s.AppID, harness.AnswerText(m, ok))
				}
				if m, ok := r.Answer("after-stop-as-" + other); ok && m.Type == hostbridge.TypeResponse {
					tc.Failf("lime.ui getLocale from entry %s of %s, no longer ready, whose envelope named its entry %s, was run (host:response): the call was judged as the entry the app claimed", s.Entry, s.AppID, other)
				}
			},
			Entry("tenant policy denied the entry (blocked)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember, levels.ChangeBetweenReads, levels.WhoAnswers),
				func() *harness.Surface { return tc.ProbeSurface(tc.DefaultConfigure()) },
				func(s *harness.Surface) {
					tc.Configure(tc.WithPolicy(protocol.Policy{DeniedEntries: map[string][]string{harness.ProbeFixture: {s.Entry}}}))
				}),
			Entry("the secret the app requires was withdrawn (needs setup)", tc.Req("BRIDGE-FAIL-CLOSED", levels.EveryMember, levels.ChangeBetweenReads, levels.WhoAnswers),
				func() *harness.Surface {
					p := tc.DefaultConfigure()
					p.Secrets = maps.Clone(p.Secrets)
					p.Secrets[gateSecret] = harness.Nonce("gate")
					tc.Configure(p)
					dir := tc.Fixture(harness.ProbeFixture)
					harness.EditFrontmatter(dir, func(lines []string) []string {
						return append(lines, "secrets:", "  - key: "+gateSecret, "    required: true", "    scope: workspace")
					})
					return tc.Launch(tc.Install(dir, tc.ReleaseOf(dir)).AppID, "main")
				},
				func(*harness.Surface) { tc.Configure(tc.DefaultConfigure()) }),
		)
	})
}

// otherEntry is an entry of bridge-probe other than entry that a host
// offering lime.ui and lime.storage keeps ready (notes, else main).
func otherEntry(entry string) string {
	if entry == "notes" {
		return "main"
	}
	return "notes"
}

// gateSecret is the secret bridge-probe requires in the fail-closed spec
// whose entry falls to needs-setup once it is withdrawn.
const gateSecret = "gate_token"

// describeFailClosedSpellings declares the specs of blocked calls under every spelling of a capability's name.
func describeFailClosedSpellings(tc *harness.TestContext) {
	Describe("Desktop P2: blocked calls fail closed under every spelling", tc.BrowserRetry(), func() {
		// Policy names a capability once; a call that names it padded or in
		// another case is the same capability or none the app declares:
		// either way it must not run.
		It("answers host:error, never a result, to a capability policy denies or needs approval for, whatever spelling of its name the call uses", tc.Req("BRIDGE-FAIL-CLOSED", levels.ConfusableIdentity), func() {
			s := tc.ProbeSurface(tc.WithPolicy(protocol.Policy{DeniedCapabilities: []string{"lime.storage"}, ApprovalRequired: []string{"lime.evidence"}}))
			expectExecutes(s, "control-1")
			calls := []struct{ capability, method string }{{"lime.storage", "set"}, {"lime.evidence", "record"}}
			args := map[string]any{"lime.storage": map[string]any{"key": "spelling-probe", "value": "v"},
				"lime.evidence": map[string]any{"subject": map[string]any{"id": "spelling-probe"}}}
			tc.Precondition("lime.storage set and lime.evidence record, as policy names them, get host:error", func() {
				var steps []harness.Step
				for i, c := range calls {
					steps = append(steps, harness.Invoke(fmt.Sprintf("exact-%d", i), c.capability, c.method, args[c.capability]), harness.AwaitAnswer(fmt.Sprintf("exact-%d", i)))
				}
				r := s.Run(steps...)
				for i, c := range calls {
					if m, ok := r.Answer(fmt.Sprintf("exact-%d", i)); !ok || m.Type != hostbridge.TypeError {
						tc.Failf("%s.%s under the policy got %s, not host:error", c.capability, c.method, harness.AnswerText(m, ok))
					}
				}
			})
			type spelled struct{ id, name, method string }
			var sent []spelled
			var steps []harness.Step
			for _, c := range calls {
				for _, name := range []string{" " + c.capability, c.capability + " ", "\t" + c.capability, strings.ToUpper(c.capability), strings.ToUpper(c.capability[:1]) + c.capability[1:]} {
					id := fmt.Sprintf("spelled-%d", len(sent))
					sent = append(sent, spelled{id, name, c.method})
					steps = append(steps, harness.Invoke(id, name, c.method, args[c.capability]), harness.AwaitAnswer(id))
				}
			}
			r := s.Run(steps...)
			o := tc.Observe(s.AppID)
			var ran []string
			for _, c := range sent {
				m, ok := r.Answer(c.id)
				switch {
				case ok && m.Type == hostbridge.TypeResponse:
					ran = append(ran, fmt.Sprintf("%q.%s answered host:response", c.name, c.method))
				case harness.Executed(o, c.id):
					ran = append(ran, fmt.Sprintf("%q.%s recorded allowed by host/observe", c.name, c.method))
				case !ok || m.Type != hostbridge.TypeError:
					ran = append(ran, fmt.Sprintf("%q.%s got %s, not host:error", c.name, c.method, harness.AnswerText(m, ok)))
				}
			}
			if len(ran) > 0 {
				tc.Failf("policy denies lime.storage and needs approval for lime.evidence, yet under another spelling of the name: %s", strings.Join(ran, "; "))
			}
		})
	})
}

// describeNoLeak declares the spec of what the app's frame must never hold.
func describeNoLeak(tc *harness.TestContext) {
	Describe("Desktop P2: nothing secret reaches the frame", tc.BrowserRetry(), func() {
		It("keeps session tokens, secrets, the billing ledger and host paths out of everything the frame observes", tc.Req("BRIDGE-NO-LEAK", levels.EveryMember, levels.EveryEntryPoint), func() {
			// The tenant's billing state as Lime Cloud gives it, its raw
			// ledger and payment credential included (002, Minimum host
			// snapshot fields: "must not contain ... raw billing ledgers").
			cfg := tc.WithSecret()
			billing := &protocol.Billing{Plan: harness.Nonce("plan"), Quota: protocol.QuotaOK, Ledger: harness.Nonce("ledger"), PaymentCredential: harness.Nonce("card")}
			cfg.Billing = billing
			s := tc.ProbeSurface(cfg)
			// A must-not is judged on what the host was seen to hand the
			// frame: a host that answers nothing leaks nothing through
			// answers it never gave.
			first := s.Run(harness.Request(hostbridge.TypeReady, "ready-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
			tc.Precondition("the host answers app:ready with a snapshot", func() {
				if len(first.OfType(hostbridge.TypeSnapshot)) == 0 {
					tc.Failf("no host:snapshot reached the app after app:ready")
				}
			})
			r := s.Run(
				harness.Request(hostbridge.TypeGetSnapshot, "get-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false),
				harness.Invoke("session-1", "lime.cloudSession", "getSnapshot", nil), harness.AwaitAnswer("session-1"),
				harness.Invoke("secret-1", "lime.secrets", "status", map[string]any{"key": "provider_api_key"}), harness.AwaitAnswer("secret-1"),
				harness.Invoke("secret-2", "lime.secrets", "status", map[string]any{"key": "unrelated_token"}), harness.AwaitAnswer("secret-2"),
				harness.Invoke("no-1", "lime.billing", "getStatus", nil), harness.AwaitAnswer("no-1"),
				harness.Invoke("store-1", "lime.storage", "set", map[string]any{"key": "leak-check", "value": "v"}), harness.AwaitAnswer("store-1"),
				harness.Invoke("store-2", "lime.storage", "get", map[string]any{"key": "leak-check"}), harness.AwaitAnswer("store-2"),
				harness.Invoke("store-3", "lime.storage", "get", map[string]any{"key": strings.Repeat("k", 300)}), harness.AwaitAnswer("store-3"),
				harness.Step{"page": true})
			tc.Precondition("the host answered the frame's capability requests", func() {
				for _, id := range []string{"session-1", "secret-1", "secret-2", "no-1", "store-1", "store-2", "store-3"} {
					if m, ok := r.Answer(id); !ok {
						tc.Failf("request %s got %s", id, harness.AnswerText(m, ok))
					}
				}
			})
			var console []string
			for _, l := range s.Session().Console() {
				console = append(console, l.Text)
			}
			for _, seen := range []struct {
				what string
				text []byte
			}{
				{"what the app's frame received and holds (messages, URL, DOM, cookies, storage)", r.Raw},
				{"the host page's URL", []byte(s.HostURL)},
				{"the browser console", []byte(strings.Join(console, "\n"))},
			} {
				tc.ExpectNoCanary(seen.what, seen.text)
				tc.ExpectNoHostPath(seen.what, seen.text)
				for _, held := range []struct{ name, value string }{{"the billing ledger", billing.Ledger}, {"the payment credential", billing.PaymentCredential}} {
					if form := harness.FindCanary(seen.text, held.value); form != "" {
						tc.Failf("%s carries %s host/configure's billing gave the host (%s), which no app may see", seen.what, held.name, form)
					}
				}
			}
		})
	})
}

// describeContainment declares the spec of the frame's containment.
func describeContainment(tc *harness.TestContext) {
	Describe("Desktop P2: the frame is contained", tc.BrowserRetry(), func() {
		It("reaches no host DOM, Node, Electron or Tauri API, host storage or host endpoint", tc.Req("BRIDGE-CONTAINMENT", levels.EveryMember), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			own := s.FrameFile("download.txt")
			r := s.Run(harness.Step{"contain": map[string]any{"hostURLs": []string{own, s.HostURL, s.HostOrigin() + "/"}}})
			if r.Containment == nil || len(r.Containment.Fetches) != 3 {
				tc.Errorf("the probe did not report its containment attempts")
			}
			var reached []string
			for name, a := range r.Containment.Attempts {
				if a.Reached {
					reached = append(reached, fmt.Sprintf("%s (%s)", name, a.Detail))
				}
			}
			for _, f := range r.Containment.Fetches[1:] {
				if f.Reached {
					reached = append(reached, fmt.Sprintf("a readable answer from host address %s (status %d)", f.URL, f.Status))
				}
			}
			if len(reached) > 0 {
				sort.Strings(reached)
				tc.Failf("the app's frame reached %s", strings.Join(reached, "; "))
			}
			// The positive control of the fetches: the frame can fetch a
			// file of its own; else host addresses it failed to fetch
			// prove nothing.
			if f := r.Containment.Fetches[0]; !f.Reached || f.Status != 200 {
				tc.Blockedf("the app's frame could not fetch a file of its own UI (%s: status %d %s), so its failed fetches of host addresses judge nothing",
					own, f.Status, f.Detail)
			}
		})
	})
}

// describeStoragePartition declares the spec of the browser storage kept
// by app (spec 002, Required desktop host behavior: "Namespace app data
// ... by app"; Electron relationship: "host-owned session partitions";
// docs/decisions.md "Browser storage by app").
func describeStoragePartition(tc *harness.TestContext) {
	Describe("Desktop P2: each app's browser storage is its own", tc.BrowserRetry(), func() {
		DescribeTable("one app's frame reads nothing another app's frame kept in localStorage, IndexedDB or a cookie",
			func(writerIsNeighbour, sameNamespace bool) {
				probe := tc.InstallProbe(tc.DefaultConfigure())
				dir := tc.NeighbourPackage()
				if sameNamespace {
					// The neighbour declares the probe's id as its storage
					// namespace: browser storage is kept by app, never by a
					// name an app declares (spec 002: "by app").
					harness.EditFrontmatter(dir, func(lines []string) []string {
						return append(lines, "storage:", "  namespace: "+harness.ProbeFixture)
					})
				}
				var neighbour string
				if !sameNamespace {
					neighbour = tc.Install(dir, tc.ReleaseOf(dir)).AppID
				} else if installed, err := tc.TryInstall(dir, tc.ReleaseOf(dir), true); err != nil {
					tc.RefusalError(protocol.MethodInstall, err) // no usable answer is an error
					// A host may refuse a package declaring an installed
					// app's namespace (docs/decisions.md, "A storage
					// namespace two apps declare"): then no two apps share it.
					tc.Reading("A storage namespace two apps declare", "the neighbour declaring "+harness.ProbeFixture+" as its namespace is refused at install: "+harness.AnswerOf(err))
					return
				} else {
					neighbour = installed.AppID
				}
				writer, reader := probe, neighbour
				if writerIsNeighbour {
					writer, reader = neighbour, probe
				}
				name, value := harness.Nonce("kept"), harness.Nonce("v")
				w := tc.Launch(writer, "main")
				// Seen holding it: the writer's frame reads back what it kept.
				held, unused := harness.Holding(w.Keep(name, value), value)
				if len(unused) > 0 {
					By(fmt.Sprintf("%s's frame keeps nothing in %s: nothing there to share", writer, strings.Join(unused, ", ")))
				}
				if len(held) == 0 {
					// A frame with no browser storage (an opaque origin)
					// has nothing another app could read.
					return
				}
				r := tc.LaunchBeside(w, reader, "main")
				leaked, _ := harness.Holding(r.Recall(name), value)
				if len(leaked) > 0 {
					tc.Failf("%s's frame read, in %s, the value %s's frame kept there under %s: the two apps share one browser storage",
						reader, strings.Join(leaked, " and "), writer, name)
				}
			},
			Entry("bridge-probe keeps, bridge-probe-b reads", tc.Req("BRIDGE-STORAGE-PARTITIONED", levels.EveryMember, levels.ConfusableIdentity), false, false),
			Entry("bridge-probe-b keeps, bridge-probe reads", tc.Req("BRIDGE-STORAGE-PARTITIONED", levels.EveryMember, levels.ConfusableIdentity), true, false),
			Entry("bridge-probe-b, declaring bridge-probe as its storage namespace, keeps, bridge-probe reads", tc.Req("BRIDGE-STORAGE-PARTITIONED", levels.EveryMember, levels.ConfusableIdentity), true, true),
		)
	})
}

// describeControlledActions declares the specs of openExternal, navigate, download and toast.
func describeControlledActions(tc *harness.TestContext) {
	Describe("Desktop P2: controlled actions", tc.BrowserRetry(), func() {
		DescribeTable("host:openExternal refuses what the app may not open",
			func(target string) {
				s := tc.ProbeSurface(tc.DefaultConfigure())
				expectAllowed(s, hostbridge.TypeOpenExternal, "https://probe.conformance.example.org/docs")
				expectRefusedURL(s, hostbridge.TypeOpenExternal, target)
			},
			Entry("a javascript: URL", tc.Req("BRIDGE-OPEN-EXTERNAL", levels.EveryMember), "javascript:alert(document.domain)"),
			Entry("a file: URL", tc.Req("BRIDGE-OPEN-EXTERNAL", levels.EveryMember), "file:///etc/passwd"),
			Entry("a data: URL", tc.Req("BRIDGE-OPEN-EXTERNAL", levels.EveryMember), "data:text/html,<script>alert(1)</script>"),
			Entry("an https origin the app does not declare", tc.Req("BRIDGE-OPEN-EXTERNAL", levels.EveryMember), "https://undeclared.example.net/"),
		)

		// An origin is scheme, host and port, matched whole: a name that
		// merely ends, starts or is spelled like the declared one is
		// another site.
		// Schemes are allowed, not refused: a scheme spelled in capitals,
		// or one no list of bad ones names, is not http(s) either.
		It("host:openExternal refuses every look-alike of the origin the app declares, and every spelling of a refused scheme", tc.Req("BRIDGE-OPEN-EXTERNAL", levels.ConfusableIdentity, levels.RepresentationLimit), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			expectAllowed(s, hostbridge.TypeOpenExternal, "https://probe.conformance.example.org/docs")
			expectRefusedEach(s, hostbridge.TypeOpenExternal, []refusedURL{
				{"a host that ends with the declared one", "https://evilprobe.conformance.example.org/docs"},
				{"a host that starts with the declared one", "https://probe.conformance.example.org.evil.example/docs"},
				{"the declared host on another port", "https://probe.conformance.example.org:8443/docs"},
				{"the declared host under another scheme", "http://probe.conformance.example.org/docs"},
				{"the declared host as user info of another", "https://probe.conformance.example.org@evil.example/docs"},
				{"the declared host under ftp:", "ftp://probe.conformance.example.org/docs"},
				{"a javascript: URL in capitals", "JavaScript:alert(document.domain)"},
				{"a file: URL in capitals", "FILE:///etc/passwd"},
				{"a vbscript: URL", "vbscript:msgbox(1)"},
			}, "the app declares https://probe.conformance.example.org, and host:openExternal must validate the protocol and the origin")
		})

		DescribeTable("host:navigate goes only to the app's own entries and routes",
			func(payload map[string]any) {
				s := tc.ProbeSurface(tc.DefaultConfigure())
				expectNavigates(s, "host:navigate to the app's entry main", "nav-entry-1", map[string]any{"entryKey": "main"})
				expectNavigates(s, "host:navigate to the app-local route /settings", "nav-route-1", map[string]any{"route": "/settings"})
				b, _ := json.Marshal(payload)
				expectRefused(s, hostbridge.TypeNavigate, "host:navigate to "+string(b), payload,
					"host:navigate goes to an entry of this app or an app-local route")
			},
			Entry("an entry the app does not have", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember), map[string]any{"entryKey": "no-such-entry"}),
			Entry("an https URL", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember), map[string]any{"route": "https://evil.example/"}),
			Entry("a scheme-relative URL", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember), map[string]any{"route": "//evil.example/x"}),
			Entry("a javascript: URL", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember), map[string]any{"route": "javascript:alert(document.domain)"}),
			Entry("a relative path that is not app-local", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember), map[string]any{"route": "../../host"}),
			// Both members at once: an entry the app has does not make a
			// route that leaves the app its own (every entry point).
			Entry("an entry the app has with a scheme-relative URL", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember, levels.EveryEntryPoint), map[string]any{"entryKey": "main", "route": "//evil.example/x"}),
			Entry("an entry the app has with an https URL", tc.Req("BRIDGE-NAVIGATE", levels.EveryMember, levels.EveryEntryPoint), map[string]any{"entryKey": "main", "route": "https://evil.example/"}),
		)

		// A route is what a browser makes of it against the app's frame
		// (docs/decisions.md, Navigation requests): the URL parser reads a
		// backslash as a slash and drops tabs, newlines and the spaces
		// around it, so each of these is "//evil.example/x", another host.
		It("host:navigate refuses every route a browser reads as another host", tc.Req("BRIDGE-NAVIGATE", levels.RepresentationLimit), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			expectNavigates(s, "host:navigate to the app-local route /settings", "nav-route-1", map[string]any{"route": "/settings"})
			expectRefusedEachIn(s, hostbridge.TypeNavigate, "route", []refusedURL{
				{"a slash and a backslash", "/\\evil.example/x"},
				{"a tab between its slashes", "/\t/evil.example/x"},
				{"a newline between its slashes", "/\n/evil.example/x"},
				{"a carriage return between its slashes", "/\r/evil.example/x"},
				{"a tab before its slashes", "\t//evil.example/x"},
				{"a space before its slashes", " //evil.example/x"},
			}, "host:navigate goes to an entry of this app or an app-local route")
		})

		DescribeTable("host:download refuses what is not the app's own runtime artifact",
			func(target func(s *harness.Surface) string) {
				s := tc.ProbeSurface(tc.DefaultConfigure())
				expectAllowed(s, hostbridge.TypeDownload, s.FrameFile("download.txt"))
				expectRefusedURL(s, hostbridge.TypeDownload, target(s))
			},
			Entry("another origin", tc.Req("BRIDGE-DOWNLOAD", levels.EveryMember), func(*harness.Surface) string { return tc.ThirdParty().SpoofURL() }),
			Entry("a file: URL", tc.Req("BRIDGE-DOWNLOAD", levels.EveryMember), func(*harness.Surface) string { return "file:///etc/passwd" }),
			Entry("a data: URL", tc.Req("BRIDGE-DOWNLOAD", levels.EveryMember), func(*harness.Surface) string { return "data:text/plain,probe" }),
		)

		// The runtime origin may serve more than this app's files (other
		// apps' folders): same origin is not the app's own artifact, and an
		// address that only looks like it is another origin.
		It("host:download refuses every address at or beside the runtime origin that is not the app's own file", tc.Req("BRIDGE-DOWNLOAD", levels.EveryMember, levels.ConfusableIdentity), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			own := s.FrameFile("download.txt")
			expectAllowed(s, hostbridge.TypeDownload, own)
			u, err := url.Parse(own)
			if err != nil {
				tc.Errorf("the app's own file %q: %v", own, err)
			}
			otherPort, userInfo := *u, *u
			otherPort.Host = u.Hostname() + ":" + fmt.Sprint(portOf(u)+1)
			userInfo.User = url.User(harness.ProbeFixture)
			expectRefusedEach(s, hostbridge.TypeDownload, []refusedURL{
				{"a path of the runtime origin outside the app's folder", s.FrameFile("../download.txt")},
				{"a file of another app's folder at the runtime origin", s.FrameFile("../another-app/download.txt")},
				{"the runtime origin's root", u.Scheme + "://" + u.Host + "/"},
				{"the app's file on another port of the runtime host", otherPort.String()},
				{"the app's file with user info before the runtime host", userInfo.String()},
				{"a javascript: URL", "javascript:alert(document.domain)"},
			}, "host:download takes only a same-origin runtime artifact of the app")
		})

		It("shows a toast's markup as text, never as host DOM", tc.Req("BRIDGE-TOAST-TEXT", levels.EveryMember), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			tc.Precondition("a plain toast is shown in the host page", func() {
				s.Run(harness.Request(hostbridge.TypeToast, "toast-1", map[string]any{"message": "probe toast 7f3a"}), harness.AwaitAnswer("toast-1"), harness.Sleep(harness.PushSettle))
				var shown bool
				s.Host("document.body.innerText.includes('probe toast 7f3a')", &shown)
				if !shown {
					tc.Failf("the host page does not show the toast's text")
				}
			})
			// The same markup at every level a toast may have (and none): a
			// host may render one level through another component.
			var steps []harness.Step
			for i, level := range []string{"", "info", "success", "warning", "error"} {
				mark := harness.FirstNonEmpty(level, "none")
				ran := `document.documentElement.setAttribute('data-probe-toast-ran-` + mark + `','1')`
				payload := map[string]any{"message": `<img src="data:," data-probe-toast="` + mark + `" onerror="` + ran + `" onload="` + ran + `"><b data-probe-toast="` + mark + `">bold</b>`}
				if level != "" {
					payload["level"] = level
				}
				id := fmt.Sprintf("toast-markup-%d", i)
				steps = append(steps, harness.Request(hostbridge.TypeToast, id, payload), harness.AwaitAnswer(id))
			}
			s.Run(append(steps, harness.Sleep(toastRenderSettle))...)
			var injected struct {
				Elements []string `json:"elements"`
				Ran      []string `json:"ran"`
			}
			s.Host(`({elements: Array.from(document.querySelectorAll('[data-probe-toast]'), e => e.getAttribute('data-probe-toast')),
				ran: Array.from(document.documentElement.attributes, a => a.name).filter(n => n.startsWith('data-probe-toast-ran-'))})`, &injected)
			if len(injected.Elements) > 0 || len(injected.Ran) > 0 {
				tc.Failf("a toast's markup became host DOM (elements of the toasts at level %s; handlers ran: %s)", orNothing(injected.Elements), orNothing(injected.Ran))
			}
		})
	})
}

// describeThemeAndVisibility declares the specs of theme and visibility updates.
func describeThemeAndVisibility(tc *harness.TestContext) {
	Describe("Desktop P2: theme and visibility", tc.BrowserRetry(), func() {
		// 000 i18n configuration: "Hosts surface the active locale through
		// lime.ui.getLocale(); apps stop guessing the host language". The
		// answer's shape is not given: the locale tag as the answer or as a
		// string member of it, compared as BCP 47 does (case-insensitively).
		It("answers lime.ui getLocale with the host's active locale, and with the new one once the user changes it", tc.Req("BRIDGE-LOCALE", levels.ChangeBetweenReads), func() {
			p := tc.DefaultConfigure()
			p.Locale = "zh-CN"
			s := tc.ProbeSurface(p)
			read := func(id, want string) {
				GinkgoHelper()
				r := s.Run(harness.Invoke(id, "lime.ui", "getLocale", nil), harness.AwaitAnswer(id))
				m, ok := r.Answer(id)
				if !ok || m.Type != hostbridge.TypeResponse {
					tc.Blockedf("lime.ui getLocale got %s, not host:response, so no locale is surfaced to judge", harness.AnswerText(m, ok))
				}
				if !namesLocale(m.Payload, want) {
					tc.Failf("lime.ui getLocale answered %s; the host's active locale is %s", harness.Excerpt(m.Payload), want)
				}
			}
			read("locale-1", "zh-CN")
			// A host may apply a new locale by loading the app's frame
			// afresh (variant locale-reloads-frame): the read then runs
			// in the new document.
			s.AllowReload("The active locale", "the host loads the app's frame as a new document when the locale changes")
			tc.HostSet(protocol.SetParams{Locale: "ja-JP"})
			read("locale-2", "ja-JP")
			// The snapshot is the app's other source of the locale (spec
			// 001, UI runtime: "treat host snapshots as refreshable
			// facts"; its locale summary): one asked for after the change
			// names no other locale than getLocale now does.
			r := s.Run(harness.Request(hostbridge.TypeGetSnapshot, "snapshot-2", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
			snaps := r.OfType(hostbridge.TypeSnapshot)
			for _, m := range snaps {
				if m.RequestID == "snapshot-2" {
					snaps = []hostbridge.Message{m}
				}
			}
			if len(snaps) > 0 {
				if f, _ := snapshotFields(snaps[len(snaps)-1].Payload, []string{"locale"}); f["locale"] != nil && !strings.EqualFold(fmt.Sprint(f["locale"]), "ja-JP") {
					tc.Failf("after the user changed the locale to ja-JP, lime.ui getLocale names it but a host:snapshot asked for then says locale %q: %s", fmt.Sprint(f["locale"]), harness.Excerpt(snaps[len(snaps)-1].Payload))
				}
			}
		})

		It("sends theme:update with the new tokens when the host's theme changes, a host/set that sets the visibility as well too", tc.Req("BRIDGE-THEME-UPDATE", levels.EveryMember, levels.ChangeBetweenReads), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			seen := 0 // theme:update messages the frame has had so far
			tc.Precondition("the app has its first snapshot", func() {
				r := s.Run(harness.Request(hostbridge.TypeReady, "ready-1", nil), harness.AwaitType(hostbridge.TypeSnapshot, false))
				if r.StepFailed(1) {
					tc.Failf("no host:snapshot after app:ready")
				}
				seen = len(r.OfType(hostbridge.TypeThemeUpdate))
			})
			// Dark, then light by a host/set that names the visibility too:
			// each change one host/set carries is told (host/set), not the
			// first.
			for _, set := range []protocol.SetParams{
				{Theme: &protocol.Theme{Mode: "dark", ColorSchemeID: "probe-dark", Tokens: map[string]string{"--lime-color-bg": "#0b0e14", "--lime-color-fg": "#e6e1cf"}}},
				{Theme: &protocol.Theme{Mode: "light", ColorSchemeID: "probe-light", Tokens: map[string]string{"--lime-color-bg": "#fafafa", "--lime-color-fg": "#1f2328"}}, Visibility: "visible"},
			} {
				how := "host/set theme " + set.Theme.Mode
				if set.Visibility != "" {
					how += " (with visibility " + set.Visibility + ")"
				}
				tc.HostSet(set)
				r := s.Run(harness.AwaitCount(hostbridge.TypeThemeUpdate, seen+1), harness.Sleep(harness.PushSettle))
				ups := r.OfType(hostbridge.TypeThemeUpdate)
				if len(ups) <= seen {
					tc.Failf("no theme:update reached the app within %s of %s", harness.AnswerTimeout, how)
				}
				seen = len(ups)
				last := ups[len(ups)-1].Payload
				tokens := themeTokens(last)
				var wrong []string
				for name, want := range set.Theme.Tokens {
					if got, ok := tokens[name]; !ok || !strings.EqualFold(strings.TrimSpace(got), want) {
						wrong = append(wrong, fmt.Sprintf("%s is %q, not %q", name, got, want))
					}
				}
				if len(wrong) > 0 {
					sort.Strings(wrong)
					tc.Failf("theme:update after %s does not carry the new theme's tokens (%s): %s", how, strings.Join(wrong, "; "), last)
				}
				// A mode it names is the new one: a stale mode beside new
				// tokens tells the app the wrong light/dark.
				mode, _ := snapshotFields(last, []string{"themeMode", "effectiveThemeMode"})
				for _, k := range []string{"themeMode", "effectiveThemeMode"} {
					if v, ok := mode[k]; ok && fmt.Sprint(v) != set.Theme.Mode {
						tc.Failf("theme:update says %s %q after %s: %s", k, fmt.Sprint(v), how, last)
					}
				}
			}
		})

		It("sends host:visibility when the surface is hidden and shown, a host/set that changes the theme as well too", tc.Req("BRIDGE-VISIBILITY", levels.EveryMember), func() {
			s := tc.ProbeSurface(tc.DefaultConfigure())
			// Hidden, shown, then hidden by a host/set that carries a new
			// theme too: each change it carries is told (host/set), not
			// the first.
			for i, set := range []protocol.SetParams{{Visibility: "hidden"}, {Visibility: "visible"}, {Visibility: "hidden", Theme: &protocol.Theme{Mode: "dark"}}} {
				state, how := set.Visibility, "the surface becoming "+set.Visibility
				if set.Theme != nil {
					how += " by a host/set that changed the theme too"
				}
				tc.HostSet(set)
				r := s.Run(harness.AwaitCount(hostbridge.TypeVisibility, i+1), harness.Sleep(harness.PushSettle))
				vs := r.OfType(hostbridge.TypeVisibility)
				if len(vs) <= i {
					tc.Failf("no host:visibility reached the app within %s of %s", harness.AnswerTimeout, how)
				}
				got := visibilityOf(vs[len(vs)-1].Payload)
				if got == "" {
					tc.Errorf("the harness reads the visibility from members %s; the host's host:visibility had none of them: %s", visibilityMembers, vs[len(vs)-1].Payload)
				}
				if got != state {
					tc.Failf("host:visibility says %q after %s: %s", got, how, vs[len(vs)-1].Payload)
				}
			}
		})
	})
}

// namesLocale reports whether a getLocale answer names the locale tag,
// compared case-insensitively (BCP 47 tags are): the answer itself when it
// is a string; else its members locale, activeLocale or currentLocale,
// each of which must name it; else, with none such, one of its string
// members (a defaultLocale beside them names no active one). A list (the
// supported locales) names no active one.
func namesLocale(raw json.RawMessage, tag string) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return strings.EqualFold(x, tag)
	case map[string]any:
		named, some := 0, false
		for k, e := range x {
			str, ok := e.(string)
			if !ok {
				continue
			}
			if slices.Contains([]string{"locale", "activelocale", "currentlocale"}, strings.ToLower(k)) {
				if !strings.EqualFold(str, tag) {
					return false
				}
				named++
			}
			some = some || strings.EqualFold(str, tag)
		}
		return named > 0 || some
	}
	return false
}
