package data

import (
	"bytes"
	"encoding/json"
	"fmt"
	mathrand "math/rand/v2"
	"slices"
	"strings"

	"github.com/agentapp/conformance/suites/harness"

	"github.com/google/go-cmp/cmp"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// store sets key to value through the app's own lime.storage and reads it
// back: the positive control of every data spec.
func store(s *harness.Surface, key, value string) {
	GinkgoHelper()
	s.TC().Precondition("the app's lime.storage set "+key+" is executed and read back", func() {
		r := s.Run(
			harness.Invoke("set-"+key, "lime.storage", "set", map[string]any{"key": key, "value": value}), harness.AwaitAnswer("set-"+key),
			harness.Invoke("get-"+key, "lime.storage", "get", map[string]any{"key": key}), harness.AwaitAnswer("get-"+key))
		if v, ok := harness.StoredValue(r, "get-"+key); !ok || v != value {
			s.TC().Failf("lime.storage set %q = %q was read back as %q", key, value, v)
		}
	})
}

// read is what the app's lime.storage get of key gives ("" for nothing).
// An unanswered get judges nothing: the spec errors.
func read(s *harness.Surface, key string) string {
	GinkgoHelper()
	id := harness.Nonce("get")
	r := s.Run(harness.Invoke(id, "lime.storage", "get", map[string]any{"key": key}), harness.AwaitAnswer(id))
	v, ok := harness.StoredValue(r, id)
	if !ok {
		m, answered := r.Answer(id)
		s.TC().Errorf("lime.storage get %q, executed before, got %s", key, harness.AnswerText(m, answered))
	}
	return v
}

// keys is what the app's lime.storage list gives; ok is false when the
// host answers list with anything but host:response (list is not judged).
func keys(s *harness.Surface) (keys []string, ok bool) {
	GinkgoHelper()
	id := harness.Nonce("list")
	r := s.Run(harness.Invoke(id, "lime.storage", "list", nil), harness.AwaitAnswer(id))
	m, answered := r.Answer(id)
	if !answered || m.Type != hostbridge.TypeResponse {
		return nil, false
	}
	var p struct {
		Keys []string `json:"keys"`
	}
	return p.Keys, json.Unmarshal(m.Payload, &p) == nil
}

// setState calls app/disable or app/enable for appID and returns the state
// the host says the app is in.
func setState(tc *harness.TestContext, method, appID string) string {
	GinkgoHelper()
	tc.RequireMethod(method)
	var res protocol.AppStateResult
	tc.MustCall(method, protocol.AppIDParams{AppID: appID}, &res)
	return res.State
}

// expectState fails the spec unless app/list shows appID in state.
func expectState(tc *harness.TestContext, appID, state, after string) {
	GinkgoHelper()
	row, listed := tc.ListedApp(appID)
	if !listed {
		tc.Failf("app/list no longer shows %s after %s", appID, after)
	}
	if row.State != state {
		tc.Failf("app/list shows %s as %q after %s, not %q", appID, row.State, after, state)
	}
}

// expectDisabledReadiness judges app/readiness of the disabled appID: the
// app is disabled, and each of its entries too, in the app's answer and
// asked for by name ("app/readiness of a disabled app has status:
// "disabled" (ok: false), and each of its entries too",
// docs/host-control-protocol.md, app/disable and app/enable).
func expectDisabledReadiness(tc *harness.TestContext, appID, what string) {
	GinkgoHelper()
	r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: appID})
	if r.OK || r.Status != protocol.StatusDisabled {
		tc.Failf("app/readiness of %s, %s, is %q (ok %v), not %q: %s", appID, what, r.Status, r.OK, protocol.StatusDisabled, harness.Excerpt(raw))
	}
	for _, e := range r.Entries {
		if e.Status != protocol.StatusDisabled {
			tc.Failf("app/readiness of %s, %s, lists its entry %s as %q, not %q: %s", appID, what, e.Key, e.Status, protocol.StatusDisabled, harness.Excerpt(raw))
		}
	}
	if r, raw := tc.ReadinessOf(protocol.ReadinessParams{AppID: appID, Entry: "main"}); r.OK || r.Status != protocol.StatusDisabled {
		tc.Failf("app/readiness of %s's entry main, %s, is %q (ok %v), not %q: %s", appID, what, r.Status, r.OK, protocol.StatusDisabled, harness.Excerpt(raw))
	}
}

// newerProbe is the probe app's package as its next release: the same
// files with version 1.1.0.
func newerProbe(tc *harness.TestContext) string {
	GinkgoHelper()
	dir := tc.Fixture(harness.ProbeFixture)
	harness.SetField(dir, "version", harness.NewerProbeVersion)
	return dir
}

// AddEntry appends a page entry key (route /key, needing only lime.ui) to
// the entries of the package in dir; entries is the last frontmatter block
// of the probe app.
func AddEntry(dir, key string) {
	GinkgoHelper()
	harness.EditFrontmatter(dir, func(lines []string) []string {
		return append(lines, "  - key: "+key, "    kind: page", "    title: Probe "+key, "    route: /"+key, "    requiredCapabilities: [lime.ui]")
	})
}

// updated updates appID to the newer probe release: a precondition, judged
// by app/list showing the newer version.
func updated(tc *harness.TestContext, appID string) {
	GinkgoHelper()
	tc.UpdatedFixture(appID, harness.ProbeFixture)
}

// probeAndNeighbour installs the probe app and its neighbour (whose id
// begins with the probe's), stores key = value in the one that is not
// acted on (the neighbour, or the probe when onNeighbour), and returns what
// app/list shows of it: the baseline of every isolation spec.
func probeAndNeighbour(tc *harness.TestContext, onNeighbour bool) (acted, other string, before protocol.InstalledApp, key, value string) {
	GinkgoHelper()
	acted = tc.InstallProbe(tc.DefaultConfigure())
	other = tc.InstallNeighbour()
	if onNeighbour {
		acted, other = other, acted
	}
	key, value = harness.Nonce("neighbour"), harness.Nonce("value")
	store(tc.Launch(other, "main"), key, value)
	tc.ExpectAppReady(other)
	before, _ = tc.ListedApp(other)
	return acted, other, before, key, value
}

// probeWithDataAndNewer installs bridge-probe with key = value in its
// storage, notes its app/list row, and makes its newer release (dir, rel):
// the start of every spec that judges an update refused.
func probeWithDataAndNewer(tc *harness.TestContext) (a string, before protocol.InstalledApp, key, value, dir string, rel *protocol.Release) {
	GinkgoHelper()
	a = tc.InstallProbe(tc.DefaultConfigure())
	before, _ = tc.ListedApp(a)
	key, value = harness.Nonce("kept"), harness.Nonce("value")
	store(tc.Launch(a, "main"), key, value)
	dir = newerProbe(tc)
	return a, before, key, value, dir, tc.ReleaseOf(dir)
}

// expectUntouched fails the spec unless appID is as app/list showed it
// (before), ready, launchable and reads key = value, after what was done to
// another app.
func expectUntouched(tc *harness.TestContext, appID string, before protocol.InstalledApp, key, value, after string) {
	GinkgoHelper()
	row, listed := tc.ListedApp(appID)
	if !listed {
		tc.Failf("app/list no longer shows %s after %s", appID, after)
	}
	if diff := cmp.Diff(before, row); diff != "" {
		tc.Failf("app/list's row of %s changed after %s (-before +after):\n%s", appID, after, diff)
	}
	if r := tc.AppReadiness(appID); r.Status != protocol.StatusReady {
		tc.Failf("app/readiness of %s is %q after %s, not ready", appID, r.Status, after)
	}
	if _, err := tc.TryLaunch(appID, "main"); err != nil {
		tc.Failf("app/launch of %s is refused after %s: %v", appID, after, err)
	}
	if got := read(tc.Launch(appID, "main"), key); got != value {
		tc.Failf("%s stored %q = %q; after %s it reads %q", appID, key, value, after, got)
	}
}

// recordEvidence records evidence through the app's lime.evidence under
// requestID, a precondition judged by host/observe showing the record.
func recordEvidence(s *harness.Surface, requestID string) {
	GinkgoHelper()
	s.TC().Precondition("lime.evidence record "+requestID+" is executed and host/observe shows it", func() {
		r := s.Run(harness.Invoke(requestID, "lime.evidence", "record", map[string]any{"subject": map[string]any{"id": requestID}}), harness.AwaitAnswer(requestID))
		if m, answered := r.Answer(requestID); !answered || m.Type != hostbridge.TypeResponse {
			s.TC().Failf("lime.evidence record %s got %s", requestID, harness.AnswerText(m, answered))
		}
		if _, ok := s.TC().EvidenceOf(s.AppID)[requestID]; !ok {
			s.TC().Failf("host/observe of %s shows no evidence record %s after lime.evidence record answered", s.AppID, requestID)
		}
	})
}

// storedJSON is a value other than text an app stored and read back: its
// key, its kind, its JSON text and the mark an export holding it shows.
type storedJSON struct{ key, kind, text, mark string }

// storeJSONValues stores a number, an object and a list through the app's
// own lime.storage and returns those the host took and read back holding
// their mark. The texts give lime.storage set a value, not its type
// (docs/host-control-protocol.md, Bridge payloads): a host that keeps only
// text refuses the others, which the report records as its reading and no
// spec judges.
func storeJSONValues(s *harness.Surface) []storedJSON {
	GinkgoHelper()
	number := fmt.Sprint(1_000_000_000 + mathrand.Int64N(900_000_000))
	object, list := harness.Nonce("object"), harness.Nonce("list")
	values := []struct {
		kind, mark string
		value      any
	}{
		{"a number", number, json.Number(number)},
		{"an object", object, map[string]any{"note": object, "count": 7}},
		{"a list", list, []any{list, 1, true}},
	}
	var steps []harness.Step
	marked := make([]string, len(values))
	for i, v := range values {
		marked[i] = harness.Nonce("json")
		steps = append(steps,
			harness.Invoke("set-"+marked[i], "lime.storage", "set", map[string]any{"key": marked[i], "value": v.value}), harness.AwaitAnswer("set-"+marked[i]),
			harness.Invoke("get-"+marked[i], "lime.storage", "get", map[string]any{"key": marked[i]}), harness.AwaitAnswer("get-"+marked[i]))
	}
	r := s.Run(steps...)
	var held []storedJSON
	for i, v := range values {
		m, ok := r.Answer("get-" + marked[i])
		if set, _ := r.Answer("set-" + marked[i]); set.Type != hostbridge.TypeResponse || !ok || m.Type != hostbridge.TypeResponse || !bytes.Contains(m.Payload, []byte(v.mark)) {
			s.TC().Reading("Export then delete", "lime.storage keeps text only: "+v.kind+" set was refused or not read back, and the export is judged without it")
			continue
		}
		text, _ := json.Marshal(v.value)
		held = append(held, storedJSON{marked[i], v.kind, string(text), v.mark})
	}
	return held
}

// exportThenDelete uninstalls appID with export then delete into a fresh
// folder and returns the answer and the export's content (exportText). An
// answer without files, or files the harness cannot read inside the folder,
// fails the spec.
func exportThenDelete(tc *harness.TestContext, appID string) (protocol.UninstallResult, []byte) {
	GinkgoHelper()
	dir := exportFolder(tc, "export")
	var res protocol.UninstallResult
	tc.MustCall(protocol.MethodUninstall, protocol.UninstallParams{AppID: appID, ExportTo: dir}, &res)
	if len(res.Exported) == 0 {
		tc.Failf("app/uninstall of %s with export then delete into %s answered without naming an exported file", appID, dir)
	}
	text, err := harness.ExportText(dir, res.Exported)
	if err != nil {
		tc.Failf("app/uninstall of %s with export then delete: %v", appID, err)
	}
	return res, text
}

// describeData checks the data boundary and the lifecycle after install
// (spec 000 Storage and data boundary; 002 Storage boundary, Cleanup and
// Desktop P4).
func describeData(tc *harness.TestContext) {
	Describe("Desktop P4: app storage and lifecycle", tc.BrowserRetry(), func() {
		describeStorageAndState(tc)
		describeUpdates(tc)
		describeEvidenceAndExport(tc)
		describeUninstall(tc)
	})
}

// sharedStorageNamespace is the storage namespace both apps of
// STORAGE-NAMESPACED's spec declare.
const sharedStorageNamespace = "conformance-shared-notes"

// describeStorageAndState declares the specs of storage namespaces, disable and enable, and every transition of a pair of apps.
func describeStorageAndState(tc *harness.TestContext) {
	// Both apps declare the same storage namespace: a declared namespace
	// is the app's claim, while "the host owns the storage
	// implementation" and "apps can access only their namespace" (000
	// Storage and data boundary, rule 1), so the host keeps each app's
	// keys by the app it installed, not by the name the manifest gives. A
	// host may instead refuse the second app its namespace; the pair is
	// then judged with a neighbour declaring none (docs/decisions.md, A
	// storage namespace two apps declare).
	It("keeps each app's lime.storage in its own namespace, though both declare the same one: same key, two values, and no list names the other app's keys", tc.Req("STORAGE-NAMESPACED", levels.EveryEntryPoint, levels.ConfusableIdentity), func() {
		tc.Configure(tc.DefaultConfigure())
		declaring := func(dir string) string {
			harness.EditFrontmatter(dir, func(lines []string) []string {
				return append(lines, "storage:", "  namespace: "+sharedStorageNamespace)
			})
			return dir
		}
		probe := declaring(tc.Fixture(harness.ProbeFixture))
		a := tc.Install(probe, tc.ReleaseOf(probe)).AppID
		neighbour := declaring(tc.NeighbourPackage())
		installed, err := tc.TryInstall(neighbour, tc.ReleaseOf(neighbour), true)
		b := installed.AppID
		if err != nil {
			// A refusal is this reading only when it names the namespace:
			// the neighbour differs from a plain one by that alone.
			he, ok := harness.HostError(err)
			if !ok {
				tc.Errorf("no usable answer to app/install: %v", err)
			}
			if !strings.Contains(harness.HostErrorText(he), sharedStorageNamespace) {
				tc.Failf("app/install of %s, which declares storage namespace %s as %s does, was refused without naming the namespace: %s", harness.NeighbourProbe, sharedStorageNamespace, a, harness.HostErrorText(he))
			}
			tc.Reading("A storage namespace two apps declare", "the second app declaring it is refused at install, naming it")
			b = tc.InstallNeighbour()
		}
		shared, onlyA, onlyB := harness.Nonce("shared"), harness.Nonce("only-a"), harness.Nonce("only-b")
		va, vb := harness.Nonce("value-a"), harness.Nonce("value-b")
		sa := tc.Launch(a, "main")
		store(sa, shared, va)
		store(sa, onlyA, va)
		sb := tc.Launch(b, "main")
		store(sb, shared, vb)
		store(sb, onlyB, vb)
		if v := read(sb, onlyA); v != "" {
			tc.Failf("%s read %q = %q, a key only %s set", b, onlyA, v, a)
		}
		if ks, ok := keys(sb); ok && slices.Contains(ks, onlyA) {
			tc.Failf("lime.storage list of %s names %q, a key only %s set: %v", b, onlyA, a, ks)
		}
		sa = tc.Launch(a, "main")
		if v := read(sa, shared); v != va {
			tc.Failf("%s's %q holds %q after %s set its own %q: one app wrote another's namespace", a, shared, v, b, shared)
		}
		if v := read(sa, onlyB); v != "" {
			tc.Failf("%s read %q = %q, a key only %s set", a, onlyB, v, b)
		}
		if ks, ok := keys(sa); ok && slices.Contains(ks, onlyB) {
			tc.Failf("lime.storage list of %s names %q, a key only %s set: %v", a, onlyB, b, ks)
		}
	})

	It("hides every entry of a disabled app and keeps its data; enabled again, the app launches and finds the same data", tc.Req("APP-DISABLE", levels.EveryTransition, levels.EveryEntryPoint, levels.EveryMember), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		// Updated first, so that the app disabled below has a release to
		// roll back to.
		updated(tc, a)
		key, value := harness.Nonce("kept"), harness.Nonce("value")
		open := tc.Launch(a, "main")
		store(open, key, value)
		if got := setState(tc, protocol.MethodDisable, a); got != protocol.StateDisabled {
			tc.Failf("app/disable of %s answered state %q, not %q", a, got, protocol.StateDisabled)
		}
		expectState(tc, a, protocol.StateDisabled, "app/disable")
		expectDisabledReadiness(tc, a, "disabled")
		// The transitions in between: a rollback and an update keep the
		// app's state ("disabled stays disabled"). A host may refuse either
		// for a disabled app; either way it stays disabled.
		_ = tc.Call(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &protocol.RollbackResult{})
		expectState(tc, a, protocol.StateDisabled, "app/rollback of the disabled app")
		expectDisabledReadiness(tc, a, "disabled and then rolled back")
		newer := newerProbe(tc)
		// An update taken answers the app as it is after it: disabled.
		if res, err := tc.TryUpdate(a, newer, tc.ReleaseOf(newer)); err == nil && res.App.State != protocol.StateDisabled {
			tc.Failf("app/update of the disabled %s answered the app in state %q, not %q: the answer gives the app as it is after the update", a, res.App.State, protocol.StateDisabled)
		}
		expectState(tc, a, protocol.StateDisabled, "app/update of the disabled app")
		expectDisabledReadiness(tc, a, "disabled and then updated")
		// The entry open when the app was disabled is hidden as well:
		// its calls pass the readiness gate afresh (spec 001, UI
		// runtime), so a storage write is not executed (what the app
		// reads once enabled again shows it).
		id := harness.Nonce("set-disabled")
		r := open.Run(harness.Invoke(id, "lime.storage", "set", map[string]any{"key": key, "value": harness.Nonce("after-disable")}), harness.AwaitAnswer(id))
		if m, ok := r.Answer(id); ok && m.Type == hostbridge.TypeResponse {
			tc.Failf("the entry of %s open when it was disabled still ran lime.storage set (answered %s): the disabled app's calls must be refused", a, m.Type)
		}
		_, err := tc.TryLaunch(a, "main")
		if err == nil {
			tc.Failf("app/launch mounted an entry of the disabled %s", a)
		}
		he, ok := harness.HostError(err)
		if !ok {
			tc.Errorf("no usable answer to app/launch: %v", err)
		}
		// The refusal names what was planted: the entry is disabled.
		var data protocol.ErrorData
		_ = json.Unmarshal(he.Data, &data)
		if he.Code != protocol.CodeNotReady || data.Readiness == nil || data.Readiness.Status != protocol.StatusDisabled {
			tc.Failf("app/launch of the disabled %s was not refused as -32009 with data.readiness status disabled: %s", a, harness.HostErrorText(he))
		}
		if got := setState(tc, protocol.MethodEnable, a); got != protocol.StateInstalled {
			tc.Failf("app/enable of %s answered state %q, not %q", a, got, protocol.StateInstalled)
		}
		expectState(tc, a, protocol.StateInstalled, "app/enable")
		if _, err := tc.TryLaunch(a, "main"); err != nil {
			tc.Failf("app/launch of %s is refused after app/enable: %v", a, err)
		}
		if got := read(tc.Launch(a, "main"), key); got != value {
			tc.Failf("%s stored %q = %q before it was disabled; enabled again it reads %q", a, key, value, got)
		}
	})

	// A disabled app "stays installed ... its package and data stay
	// where they are", and a binding is the app's data
	// (docs/host-control-protocol.md, app/disable and app/secret): once
	// enabled, its readiness is judged again and the binding counts.
	It("keeps a secret bound to an app across disable and enable: enabled again, the app is ready", tc.Req("APP-DISABLE", levels.EveryTransition, levels.EveryMember), func() {
		app := tc.InstallBoundSecretApp()
		if got := setState(tc, protocol.MethodDisable, app); got != protocol.StateDisabled {
			tc.Failf("app/disable of %s answered state %q, not %q", app, got, protocol.StateDisabled)
		}
		if r := tc.AppReadiness(app); r.Status != protocol.StatusDisabled {
			tc.Failf("app/readiness of the disabled %s is %q, not %q", app, r.Status, protocol.StatusDisabled)
		}
		if got := setState(tc, protocol.MethodEnable, app); got != protocol.StateInstalled {
			tc.Failf("app/enable of %s answered state %q, not %q", app, got, protocol.StateInstalled)
		}
		if r := tc.AppReadiness(app); !harness.ReadyStatus(r.Status) {
			tc.Failf("after app/disable and app/enable %s is %q: the secret bound to its slot %s before no longer counts", app, r.Status, harness.SecretSlot)
		}
	})

	// Each call once more in the state it leads to: "Calling either on an
	// app already in that state is no error: the answer gives the state"
	// (docs/host-control-protocol.md, app/disable and app/enable).
	It("answers app/disable of a disabled app and app/enable of an enabled one with the state, as no error", tc.Req("APP-DISABLE", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		for _, step := range []struct{ method, state, what string }{
			{protocol.MethodDisable, protocol.StateDisabled, "app/disable"},
			{protocol.MethodDisable, protocol.StateDisabled, "app/disable of the disabled app"},
			{protocol.MethodEnable, protocol.StateInstalled, "app/enable"},
			{protocol.MethodEnable, protocol.StateInstalled, "app/enable of the enabled app"},
		} {
			tc.RequireMethod(step.method)
			var res protocol.AppStateResult
			if err := tc.Call(step.method, protocol.AppIDParams{AppID: a}, &res); err != nil {
				tc.Failf("%s of %s answered %s, not ok with state %q", step.what, a, harness.AnswerOf(err), step.state)
			}
			if res.State != step.state {
				tc.Failf("%s of %s answered state %q, not %q", step.what, a, res.State, step.state)
			}
			expectState(tc, a, step.state, step.what)
		}
	})

	// Each transition the clause names, done to either app of a pair
	// whose ids prefix each other (bridge-probe, bridge-probe-b): a host
	// that matches app ids by prefix shows on one side only.
	DescribeTable("leaves the other app as it was, ready, launchable and with its data, when",
		func(method string, onNeighbour bool) {
			a, b, before, key, value := probeAndNeighbour(tc, onNeighbour)
			switch method {
			case protocol.MethodDisable:
				tc.Precondition("app/disable of "+a+" is done", func() {
					if got := setState(tc, protocol.MethodDisable, a); got != protocol.StateDisabled {
						tc.Failf("app/disable of %s answered state %q", a, got)
					}
				})
			case protocol.MethodUpdate:
				tc.UpdatedDir(a, func() string {
					if !onNeighbour {
						return tc.Fixture(harness.ProbeFixture)
					}
					dir := tc.FixtureAs(harness.ProbeFixture, harness.NeighbourProbe)
					harness.SetField(dir, "name", harness.NeighbourProbe)
					return dir
				})
			}
			expectUntouched(tc, b, before, key, value, method+" of "+a)
		},
		Entry("disabling one (bridge-probe; bridge-probe-b is judged)", tc.Req("LIFECYCLE-ISOLATED", levels.EveryTransition, levels.ConfusableIdentity), protocol.MethodDisable, false),
		Entry("disabling one (bridge-probe-b; bridge-probe is judged)", tc.Req("LIFECYCLE-ISOLATED", levels.EveryTransition, levels.ConfusableIdentity), protocol.MethodDisable, true),
		Entry("updating one (bridge-probe; bridge-probe-b is judged)", tc.Req("LIFECYCLE-ISOLATED", levels.EveryTransition, levels.ConfusableIdentity), protocol.MethodUpdate, false),
		Entry("updating one (bridge-probe-b; bridge-probe is judged)", tc.Req("LIFECYCLE-ISOLATED", levels.EveryTransition, levels.ConfusableIdentity), protocol.MethodUpdate, true),
	)

	// Every lifecycle call names its app by id ("Both answer -32004 for an
	// app id that is not installed, and change no other app"): an id that
	// only case-folds onto, pads, extends or cuts short an installed one's
	// is no installed app, and a package of another app is no release of
	// the one named. Both apps of the confusable pair are judged after.
	It("answers every lifecycle call naming an id that only looks like an installed app's as for no app, refuses another app's package as a release, and changes neither app",
		tc.Req("LIFECYCLE-ISOLATED", levels.ConfusableIdentity, levels.EveryEntryPoint), func() {
			a, b, beforeB, key, value := probeAndNeighbour(tc, false)
			keyA, valueA := harness.Nonce("probe"), harness.Nonce("value")
			store(tc.Launch(a, "main"), keyA, valueA)
			beforeA, _ := tc.ListedApp(a)
			newer := newerProbe(tc)
			confusable := append(harness.ConfusableSpellings(a), strings.ToUpper(b), b[:len(b)-1])
			calls := []struct {
				method string
				params func(id string) any
			}{
				{protocol.MethodReadiness, func(id string) any { return protocol.ReadinessParams{AppID: id} }},
				{protocol.MethodDisable, func(id string) any { return protocol.AppIDParams{AppID: id} }},
				{protocol.MethodEnable, func(id string) any { return protocol.AppIDParams{AppID: id} }},
				{protocol.MethodRollback, func(id string) any { return protocol.AppIDParams{AppID: id} }},
				{protocol.MethodUpdate, func(id string) any {
					return protocol.UpdateParams{AppID: id, Path: newer, Release: tc.ReleaseOf(newer), Consent: protocol.Consent{Granted: true, By: "user", Migrations: true}}
				}},
				{protocol.MethodUninstall, func(id string) any { return protocol.UninstallParams{AppID: id, KeepData: false} }},
			}
			var wrong []string
			for _, c := range calls {
				tc.RequireMethod(c.method)
				for _, id := range confusable {
					err := tc.Call(c.method, c.params(id), nil)
					code, _ := tc.HostErrorCode(c.method, err)
					// A host may refuse an id no app could have as malformed
					// (-32602 naming appId), and an update may name the
					// package's app first (-32602 naming path): as true as
					// -32004, as long as no app is taken for it.
					asNoApp := code == protocol.CodeAppNotFound || harness.InvalidParamsNaming(err, "appId") ||
						c.method == protocol.MethodUpdate && harness.InvalidParamsNaming(err, "path")
					if !asNoApp {
						wrong = append(wrong, fmt.Sprintf("%s of %q answered %s", c.method, id, harness.AnswerOf(err)))
					}
				}
			}
			// The other direction: the package holds bridge-probe-b, whose
			// id begins with bridge-probe's.
			other := tc.FixtureAs(harness.ProbeFixture, harness.NeighbourProbe)
			harness.SetField(other, "name", harness.NeighbourProbe)
			harness.SetField(other, "version", harness.NewerProbeVersion)
			_, err := tc.TryUpdate(a, other, tc.ReleaseOf(other))
			if !harness.InvalidParamsNaming(err, "path") {
				wrong = append(wrong, fmt.Sprintf("app/update of %s with a package of %s answered %s, not -32602 naming path", a, b, harness.AnswerOf(err)))
			}
			if len(wrong) > 0 {
				tc.Failf("calls naming an app that is not installed, or a release of another app, were taken: %s", strings.Join(wrong, "; "))
			}
			expectUntouched(tc, a, beforeA, keyA, valueA, "calls naming ids that only look like "+a+"'s")
			expectUntouched(tc, b, beforeB, key, value, "calls naming ids that only look like "+b+"'s")
		})
}

// expectNoRollback fails the spec unless app/rollback of appID, which has
// no release before the one it runs, is refused and app/list still shows
// that release (row): "An app with no earlier release is answered with
// -32602 naming appId; so is a second rollback". Any refusal is taken;
// an answer claiming a rollback that changed nothing is not.
func expectNoRollback(tc *harness.TestContext, appID string, row protocol.InstalledApp, when string) {
	GinkgoHelper()
	var res protocol.RollbackResult
	err := tc.Call(protocol.MethodRollback, protocol.AppIDParams{AppID: appID}, &res)
	if _, refused := tc.HostErrorCode(protocol.MethodRollback, err); !refused {
		tc.Failf("app/rollback of %s %s, with no earlier release to go back to, answered ok (app at %s): it must be refused", appID, when, res.App.Version)
	}
	if now, _ := tc.ListedApp(appID); now.Version != row.Version || !strings.EqualFold(now.PackageHash, row.PackageHash) {
		tc.Failf("after app/rollback of %s %s app/list shows %s (packageHash %s), not %s (%s), the release it ran, with none before it",
			appID, when, now.Version, now.PackageHash, row.Version, row.PackageHash)
	}
}

// expectUpdateRefused fails the spec unless app/update of appID to the
// release in dir is refused with one of codes, naming what was planted, as
// app/install refuses it ("The newer package is verified exactly as
// app/install verifies a package").
func expectUpdateRefused(tc *harness.TestContext, appID, dir string, rel *protocol.Release, planted harness.Planted, codes ...int64) {
	GinkgoHelper()
	_, err := tc.TryUpdate(appID, dir, rel)
	if err == nil {
		tc.Failf("app/update installed a newer release of %s with %s", appID, planted.What)
	}
	he, ok := harness.HostError(err)
	if !ok {
		tc.Errorf("no usable answer to app/update: %v", err)
	}
	tc.ExpectRefused(harness.Refusal{Refused: slices.Contains(codes, he.Code), Code: he.Code, Message: he.Message,
		Findings: harness.FindingsOfError(he)}, planted)
}

// describeUpdates declares the specs of update and rollback.
func describeUpdates(tc *harness.TestContext) {
	It("keeps what the app stored across an update to its newer release", tc.Req("UPDATE-KEEPS-DATA", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		key, value := harness.Nonce("kept"), harness.Nonce("value")
		store(tc.Launch(a, "main"), key, value)
		updated(tc, a)
		if got := read(tc.Launch(a, "main"), key); got != value {
			tc.Failf("%s stored %q = %q; after app/update to %s it reads %q", a, key, value, harness.NewerProbeVersion, got)
		}
	})

	It("verifies an update as an install: a newer release changed after hashing is refused for it, and the installed release stays with its data", tc.Req("UPDATE-VERIFIED", levels.EveryEntryPoint), func() {
		a, before, key, value, dir, rel := probeWithDataAndNewer(tc)
		tc.ExpectVerifies(dir, rel)
		harness.AppendFile(dir, harness.TamperTarget(tc, dir), []byte("\n<!-- changed after hashing -->\n"))
		expectUpdateRefused(tc, a, dir, rel, harness.Planted{What: "a file changed after hashing", Codes: []string{"package-hash-mismatch"}, Field: "packageHash"},
			protocol.CodeVerificationFailed, protocol.CodePackageInvalid)
		expectUntouched(tc, a, before, key, value, "a refused app/update")
	})

	// Step 3 of the verification order on the second entry point: the
	// newer package is "verified exactly as app/install verifies a
	// package" (docs/host-control-protocol.md, app/update), so the host
	// asks revocation.checkUrl about it though the app is installed.
	It("asks revocation.checkUrl about the newer release of an installed app: a revoked one is refused for it, and the installed release stays with its data", tc.Req("UPDATE-VERIFIED", levels.EveryEntryPoint), func() {
		// The control first, before the app is installed: package/verify
		// of the newer release asks about it (cacheSeconds 0: no answer
		// may be kept for the update).
		dir := newerProbe(tc)
		tc.NameRevocation(dir, 0)
		rel := tc.ReleaseOf(dir)
		tc.ExpectVerifies(dir, rel)
		if len(tc.Revocation().Requests(rel.PackageHash)) == 0 {
			tc.Blockedf("package/verify of the newer release never asked revocation.checkUrl (VERIFY-REVOCATION judges that), so an update's check cannot be seen")
		}
		a, before, key, value, _, _ := probeWithDataAndNewer(tc)
		tc.RequireMethod(protocol.MethodUpdate)
		tc.Revocation().Revoke(rel.PackageHash, "the newer release was withdrawn by its publisher")
		expectUpdateRefused(tc, a, dir, rel, harness.RevokedPlanted, protocol.CodeVerificationFailed)
		expectUntouched(tc, a, before, key, value, "a refused app/update")
	})

	// The policy gate of POLICY-INSTALL is on every call that installs a
	// release: app/update installs the newer one (spec 003, Release and
	// distribution: the host "still performs ... policy checks"), whatever
	// the policy was when the app came in.
	It("checks tenant policy on an update as on an install: an app the policy now denies is not updated (-32007 naming it), and the installed release stays with its data", tc.Req("UPDATE-VERIFIED", levels.EveryEntryPoint, levels.EveryTransition), func() {
		a, before, key, value, dir, rel := probeWithDataAndNewer(tc)
		tc.RequireMethod(protocol.MethodUpdate)
		tc.Configure(tc.WithPolicy(protocol.Policy{DeniedApps: []string{a}}))
		_, err := tc.TryUpdate(a, dir, rel)
		if err == nil {
			tc.Failf("app/update installed %s %s, an app tenant policy denies since it was installed", a, harness.NewerProbeVersion)
		}
		he, ok := harness.HostError(err)
		if !ok {
			tc.Errorf("no usable answer to app/update: %v", err)
		}
		if he.Code != protocol.CodePolicyDenied || !strings.Contains(harness.HostErrorText(he), a) {
			tc.Failf("app/update of %s, which tenant policy denies, was answered with error %d %s; the protocol names %d (denied by policy), naming the app",
				a, he.Code, harness.HostErrorText(he), protocol.CodePolicyDenied)
		}
		tc.Configure(tc.DefaultConfigure())
		expectUntouched(tc, a, before, key, value, "an app/update tenant policy denied")
		tc.Precondition("the same update, the policy lifted, is done", func() {
			if _, err := tc.TryUpdate(a, dir, rel); err != nil {
				tc.FailCall(protocol.MethodUpdate, err)
			}
		})
	})

	// The consent gate of INSTALL-CONSENT is on every call that installs
	// a release: app/update installs the newer one (spec 000, Runtime
	// contract 3), whatever consent the first install had.
	DescribeTable("updates an app only after user, tenant or workspace consent: without it the newer release is refused with -32003 and the installed one stays, with its data",
		func(consent protocol.Consent) {
			a, before, key, value, dir, rel := probeWithDataAndNewer(tc)
			tc.RequireMethod(protocol.MethodUpdate)
			var res protocol.UpdateResult
			err := tc.Call(protocol.MethodUpdate, protocol.UpdateParams{AppID: a, Path: dir, Release: rel, Consent: consent}, &res)
			code, isHostErr := tc.HostErrorCode(protocol.MethodUpdate, err)
			if !isHostErr {
				tc.Failf("app/update of %s to %s without consent (%s) succeeded: app/list shows %s", a, harness.NewerProbeVersion, consentText(consent), res.App.Version)
			}
			if code != protocol.CodeConsentRequired {
				tc.Failf("app/update of %s without consent (%s) was refused with error %d; the protocol names %d (consent required) for it",
					a, consentText(consent), code, protocol.CodeConsentRequired)
			}
			expectUntouched(tc, a, before, key, value, "app/update without consent")
			tc.Precondition("the same update with the user's consent is done", func() {
				if _, err := tc.TryUpdate(a, dir, rel); err != nil {
					tc.FailCall(protocol.MethodUpdate, err)
				}
			})
		},
		Entry("consent refused, its migrations approved", tc.Req("UPDATE-CONSENT", levels.EveryEntryPoint, levels.EveryMember), protocol.Consent{Granted: false, By: "user", Migrations: true}),
		Entry("no consent given at all", tc.Req("UPDATE-CONSENT", levels.EveryEntryPoint, levels.EveryMember), protocol.Consent{}),
	)

	It("rolls back to the release before the update and keeps what the app stored before and after it", tc.Req("ROLLBACK-KEEPS-DATA", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		first, _ := tc.ListedApp(a)
		k1, v1 := harness.Nonce("before-update"), harness.Nonce("value")
		store(tc.Launch(a, "main"), k1, v1)
		// Before any update there is no release to go back to: a rollback
		// is refused, never answered as done.
		tc.RequireMethod(protocol.MethodRollback)
		expectNoRollback(tc, a, first, "before any update")
		updated(tc, a)
		k2, v2 := harness.Nonce("after-update"), harness.Nonce("value")
		store(tc.Launch(a, "main"), k2, v2)
		tc.RequireMethod(protocol.MethodRollback)
		var res protocol.RollbackResult
		tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &res)
		row, _ := tc.ListedApp(a)
		if row.Version != first.Version || !strings.EqualFold(row.PackageHash, first.PackageHash) {
			tc.Failf("after app/rollback app/list shows %s at %s (packageHash %s), not the release before the update, %s (%s)",
				a, row.Version, row.PackageHash, first.Version, first.PackageHash)
		}
		s := tc.Launch(a, "main")
		for _, kv := range [][2]string{{k1, v1}, {k2, v2}} {
			if got := read(s, kv[0]); got != kv[1] {
				tc.Failf("%s stored %q = %q; after app/rollback it reads %q", a, kv[0], kv[1], got)
			}
		}
		// The same check after the transition again: a second rollback
		// has no earlier release to go back to; it is refused, and never
		// goes forward to the release rolled back from.
		expectNoRollback(tc, a, first, "a second time, after the first brought the release before the update back")
	})

	// The rollback target is the release an update replaced
	// (docs/host-control-protocol.md, app/update and app/rollback); an
	// uninstall takes the app's releases with it, and what a keep-data
	// uninstall keeps for a reinstall is the app's data, nothing else
	// (app/install, hasData). So the reinstalled release, which replaced
	// none, has no earlier release: a rollback is refused (docs/decisions.md,
	// "Update and rollback").
	DescribeTable("refuses a rollback of an app reinstalled after an uninstall: the release before the uninstall left with it",
		func(keep bool) {
			a := tc.InstallProbe(tc.DefaultConfigure())
			updated(tc, a)
			tc.RequireMethod(protocol.MethodRollback)
			tc.Uninstall(a, keep)
			dir := newerProbe(tc)
			tc.Install(dir, tc.ReleaseOf(dir))
			row, _ := tc.ListedApp(a)
			how := map[bool]string{true: "keeping data", false: "deleting data"}[keep]
			expectNoRollback(tc, a, row, "after an update, an uninstall "+how+" and a reinstall of "+harness.NewerProbeVersion)
		},
		Entry("uninstalled keeping data", tc.Req("ROLLBACK-KEEPS-DATA", levels.EveryTransition), true),
		Entry("uninstalled deleting data", tc.Req("ROLLBACK-KEEPS-DATA", levels.EveryTransition), false),
	)

	// The same check as at install, after the transition: the catalogs
	// hold the newer release's objects, not the first install's.
	It("registers the newer release's objects into the host's catalogs at update", tc.Req("UPDATE-REGISTERS", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		dir := newerProbe(tc)
		AddEntry(dir, "extra")
		tc.Precondition("app/update of "+a+" to a newer release with an entry extra", func() {
			if _, err := tc.TryUpdate(a, dir, tc.ReleaseOf(dir)); err != nil {
				tc.FailCall(protocol.MethodUpdate, err)
			}
		})
		tc.ExpectRegistered(a, dir, "app/update")
	})

	It("retires the entries only the newer release had when it rolls back, from its launches and its catalogs, and launches the older release's entries", tc.Req("ROLLBACK-RETIRES-ENTRIES", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		dir := newerProbe(tc)
		AddEntry(dir, "extra")
		tc.Precondition("app/update of "+a+" to a newer release with an entry extra, which launches", func() {
			if _, err := tc.TryUpdate(a, dir, tc.ReleaseOf(dir)); err != nil {
				tc.FailCall(protocol.MethodUpdate, err)
			}
			if _, err := tc.TryLaunch(a, "extra"); err != nil {
				tc.Failf("app/launch of %s's entry extra is refused after app/update: %v", a, err)
			}
		})
		tc.Precondition("app/rollback of "+a+" is done", func() {
			tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &protocol.RollbackResult{})
		})
		_, err := tc.TryLaunch(a, "extra")
		if err == nil {
			tc.Failf("app/launch mounted extra after app/rollback, an entry only the release rolled back from has")
		}
		he, ok := harness.HostError(err)
		if !ok {
			tc.Errorf("no usable answer to app/launch: %v", err)
		}
		// The refusal names what was planted: the entry is unknown, or disabled.
		var data protocol.ErrorData
		_ = json.Unmarshal(he.Data, &data)
		unknown := he.Code == protocol.CodeInvalidParams && strings.Contains(he.Message, "entryKey")
		disabled := he.Code == protocol.CodeNotReady && data.Readiness != nil && data.Readiness.Status == protocol.StatusDisabled
		if !unknown && !disabled {
			tc.Failf("app/launch of extra after app/rollback was refused, but not as -32602 naming entryKey nor as -32009 with readiness disabled: %s", harness.HostErrorText(he))
		}
		if _, err := tc.TryLaunch(a, "main"); err != nil {
			tc.Failf("app/launch of %s's entry main is refused after app/rollback: %v", a, err)
		}
		// The same check as after the update, after the rollback: the
		// host's catalogs hold what the older release's projection holds
		// (docs/host-control-protocol.md, app/list `registered`), not what
		// the release it left registered; an entry the host retired as
		// disabled (the reading of variant retired-entry-disabled) may stay.
		var kept map[string][]string
		if disabled {
			kept = map[string][]string{"entries": {"extra"}}
		}
		tc.ExpectRegisteredBeside(a, tc.Fixture(harness.ProbeFixture), "app/rollback", kept)
	})
}

// describeEvidenceAndExport declares the specs of evidence across an update and of export.
func describeEvidenceAndExport(tc *harness.TestContext) {
	It("keeps the evidence recorded before an update, and the evidence of both releases after a rollback", tc.Req("UPDATE-KEEPS-EVIDENCE", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		before, after := harness.Nonce("evidence-v1"), harness.Nonce("evidence-v2")
		recordEvidence(tc.Launch(a, "main"), before)
		updated(tc, a)
		if _, ok := tc.EvidenceOf(a)[before]; !ok {
			tc.Failf("host/observe of %s no longer shows the evidence record %s, made before app/update", a, before)
		}
		recordEvidence(tc.Launch(a, "main"), after)
		tc.Precondition("app/rollback of "+a+" is done", func() {
			tc.MustCall(protocol.MethodRollback, protocol.AppIDParams{AppID: a}, &protocol.RollbackResult{})
		})
		ev := tc.EvidenceOf(a)
		for _, id := range []string{before, after} {
			if _, ok := ev[id]; !ok {
				tc.Failf("host/observe of %s no longer shows the evidence record %s after app/rollback", a, id)
			}
		}
	})

	It("names in each evidence record the release that made it, across an update", tc.Req("EVIDENCE-RELEASE-PROVENANCE", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		first, _ := tc.ListedApp(a)
		older, newer := harness.Nonce("evidence-v1"), harness.Nonce("evidence-v2")
		recordEvidence(tc.Launch(a, "main"), older)
		updated(tc, a)
		recordEvidence(tc.Launch(a, "main"), newer)
		ev := tc.EvidenceOf(a)
		if _, ok := ev[older]; !ok {
			tc.Blockedf("host/observe of %s no longer shows the evidence record %s made before app/update (UPDATE-KEEPS-EVIDENCE), so its release cannot be judged", a, older)
		}
		if ev[older].Version != first.Version || ev[newer].Version != harness.NewerProbeVersion {
			tc.Failf("host/observe of %s gives the evidence made at %s with version %q and the one made at %s with version %q: each must name the release that made it",
				a, first.Version, ev[older].Version, harness.NewerProbeVersion, ev[newer].Version)
		}
	})

	// Either app of a pair whose ids prefix each other is exported: a
	// host that collects an app's storage by prefix shows on one side.
	DescribeTable("exports only the app's own storage: an export of one app holds nothing another app stored under the same key:",
		func(onNeighbour bool) {
			a := tc.InstallProbe(tc.DefaultConfigure())
			b := tc.InstallNeighbour()
			if onNeighbour {
				a, b = b, a
			}
			key, va, vb := harness.Nonce("shared"), harness.Nonce("value-a"), harness.Nonce("value-b")
			store(tc.Launch(a, "main"), key, va)
			store(tc.Launch(b, "main"), key, vb)
			var text []byte
			tc.Precondition("the export of "+a+" holds what "+a+" stored", func() {
				_, text = exportThenDelete(tc, a)
				if !bytes.Contains(text, []byte(va)) {
					tc.Failf("the export of %s does not hold %q = %q, which it stored", a, key, va)
				}
			})
			if bytes.Contains(text, []byte(vb)) {
				tc.Failf("the export of %s holds %q, which only %s stored (under the same key %q)", a, vb, b, key)
			}
		},
		Entry("bridge-probe exported, bridge-probe-b stored too", tc.Req("STORAGE-NAMESPACED", levels.EveryEntryPoint, levels.ConfusableIdentity), false),
		Entry("bridge-probe-b exported, bridge-probe stored too", tc.Req("STORAGE-NAMESPACED", levels.EveryEntryPoint, levels.ConfusableIdentity), true),
	)
}

// describeUninstall declares the specs of uninstall and reinstall.
func describeUninstall(tc *harness.TestContext) {
	It("writes a complete export of what the app stored before export then delete removes it, and a reinstall finds none of it", tc.Req("UNINSTALL-EXPORT", levels.EveryMember, levels.RepresentationLimit), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		stored := map[string]string{harness.Nonce("first"): harness.Nonce("value"), harness.Nonce("second"): harness.Nonce("value")}
		s := tc.Launch(a, "main")
		for k, v := range stored {
			store(s, k, v)
		}
		// Every member of the app's data: what it stored in another
		// workspace of the same host is the app's too, and the export
		// holds it though that workspace is not the current one.
		elsewhere := tc.DefaultConfigure()
		elsewhere.WorkspaceID = "workspace-elsewhere"
		otherKey, otherValue := harness.Nonce("elsewhere"), harness.Nonce("value")
		tc.Configure(elsewhere)
		store(tc.Launch(a, "main"), otherKey, otherValue)
		tc.Configure(tc.DefaultConfigure())
		// Every kind of JSON value the app may store, not text alone: a
		// number, an object and a list, each found by a mark of its own.
		held := storeJSONValues(tc.Launch(a, "main"))
		res, text := exportThenDelete(tc, a)
		for k, v := range stored {
			if !bytes.Contains(text, []byte(v)) {
				tc.Failf("the export of %s (%v) does not hold %q = %q, which the app stored", a, res.Exported, k, v)
			}
		}
		for _, v := range held {
			if !bytes.Contains(text, []byte(v.mark)) {
				tc.Failf("the export of %s (%v) does not hold %q = %s, %s the app stored and read back", a, res.Exported, v.key, v.text, v.kind)
			}
		}
		if !bytes.Contains(text, []byte(otherValue)) {
			tc.Failf("the export of %s (%v) does not hold %q = %q, which the app stored in workspace %s: the export must hold all the app's data before it is deleted",
				a, res.Exported, otherKey, otherValue, elsewhere.WorkspaceID)
		}
		if !res.DataRemoved {
			tc.Failf("app/uninstall of %s with export then delete answered dataRemoved false", a)
		}
		tc.InstallProbe(tc.DefaultConfigure())
		s = tc.Launch(a, "main")
		for k, v := range stored {
			if got := read(s, k); got != "" {
				tc.Failf("%s stored %q = %q; after export then delete and a reinstall it still reads %q", a, k, v, got)
			}
		}
		tc.Configure(elsewhere)
		if got := read(tc.Launch(a, "main"), otherKey); got != "" {
			tc.Failf("%s stored %q = %q in workspace %s; after export then delete and a reinstall it still reads %q there", a, otherKey, otherValue, elsewhere.WorkspaceID, got)
		}
	})

	// Export then delete deletes: asked together with keepData the two
	// contradict, and the host refuses the call naming exportTo
	// (docs/host-control-protocol.md, app/uninstall), keeping the app.
	It("refuses export then delete asked with keepData, naming exportTo, and keeps the app installed", tc.Req("UNINSTALL-EXPORT", levels.EveryMember), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		tc.Precondition("export then delete of "+a+" is done, and "+a+" installed again", func() {
			exportThenDelete(tc, a)
			tc.InstallProbe(tc.DefaultConfigure())
		})
		dir := exportFolder(tc, "export-kept")
		err := tc.Call(protocol.MethodUninstall, protocol.UninstallParams{AppID: a, KeepData: true, ExportTo: dir}, nil)
		if !harness.InvalidParamsNaming(err, "exportTo") {
			tc.Failf("app/uninstall of %s with keepData true and exportTo answered %s, not -32602 naming exportTo", a, harness.AnswerOf(err))
		}
		if _, ok := tc.ListedApp(a); !ok {
			tc.Failf("app/uninstall of %s with keepData true and exportTo was refused, but app/list no longer shows %s", a, a)
		}
	})

	It("leaves a cleanup record of each uninstall naming the mode it was asked for", tc.Req("UNINSTALL-CLEANUP-RECORD", levels.EveryMember), func() {
		tc.RequireMethod(protocol.MethodObserve)
		a := tc.InstallProbe(tc.DefaultConfigure())
		dir := tc.Fixture(harness.ProbeFixture)
		tc.Precondition("uninstalls of "+a+" keeping data, deleting data and exporting then deleting, with a reinstall between, are done", func() {
			tc.Uninstall(a, true)
			tc.Install(dir, tc.ReleaseOf(dir))
			tc.Uninstall(a, false)
			tc.Install(dir, tc.ReleaseOf(dir))
			exportThenDelete(tc, a)
		})
		var o protocol.ObserveResult
		tc.MustCall(protocol.MethodObserve, protocol.ObserveParams{AppID: a}, &o)
		var modes []string
		for _, c := range o.Cleanup {
			if c.AppID == a {
				modes = append(modes, c.Mode)
			}
		}
		slices.Sort(modes)
		want := []string{protocol.ModeDeleteData, protocol.ModeExportThenDelete, protocol.ModeKeepData}
		if !slices.Equal(modes, want) {
			tc.Failf("after one uninstall of %s in each mode host/observe gives cleanup records with the modes %v, not one each of %v: %+v", a, modes, want, o.Cleanup)
		}
	})

	It("finds what an app stored again after uninstall keeping data and a reinstall", tc.Req("UNINSTALL-APP-STORAGE", levels.EveryMember), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		key, value := harness.Nonce("kept"), harness.Nonce("value")
		store(tc.Launch(a, "main"), key, value)
		tc.Uninstall(a, true)
		tc.InstallProbe(tc.DefaultConfigure())
		if got := read(tc.Launch(a, "main"), key); got != value {
			tc.Failf("%s stored %q = %q; after uninstall keeping data and a reinstall it reads %q", a, key, value, got)
		}
	})

	// A surface left open across the uninstall: its calls pass readiness
	// afresh (spec 001, UI runtime: "storage writes must still pass
	// readiness"), and an app no longer installed has none, so a write
	// from it is refused, or never answered when the host closed the
	// frame; either way the next install starts empty
	// (docs/host-control-protocol.md, app/uninstall: "a later install
	// starts empty").
	It("takes no write from a surface left open across an uninstall deleting data: a reinstall finds nothing of it", tc.Req("UNINSTALL-APP-STORAGE", levels.EveryTransition), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		open := tc.Launch(a, "main")
		store(open, harness.Nonce("before"), harness.Nonce("value"))
		tc.Uninstall(a, false)
		key, id := harness.Nonce("after-uninstall"), harness.Nonce("set-after-uninstall")
		if r, err := open.TryRun([]harness.Step{harness.Invoke(id, "lime.storage", "set", map[string]any{"key": key, "value": id}), harness.AwaitAnswer(id)}); err == nil {
			if m, ok := r.Answer(id); ok && m.Type == hostbridge.TypeResponse {
				tc.Failf("the surface of %s left open across app/uninstall ran lime.storage set (answered %s): an app no longer installed has no readiness to pass", a, m.Type)
			}
		}
		tc.InstallProbe(tc.DefaultConfigure())
		if got := read(tc.Launch(a, "main"), key); got != "" {
			tc.Failf("a write from the surface of %s left open across app/uninstall (deleting data) is there after a reinstall: %q = %q", a, key, got)
		}
	})

	// Kept data goes to an install of its own app id only: an app whose id
	// the kept one's begins with (bridge-probe, with bridge-probe-b's data
	// kept) finds none of it (docs/host-control-protocol.md, app/uninstall).
	It("gives the data an uninstall kept to an install of the same app id only, not to an app whose id begins the kept one's", tc.Req("UNINSTALL-APP-STORAGE", levels.ConfusableIdentity), func() {
		tc.Configure(tc.DefaultConfigure())
		nb := tc.NeighbourPackage()
		b := tc.Install(nb, tc.ReleaseOf(nb)).AppID
		// The control: the data an uninstall kept goes to the same app's
		// reinstall, which says so; a host that never says hasData shows
		// nothing by the false it answers another app.
		tc.Precondition(b+" is uninstalled keeping its data, app/list shows its data retained, and its reinstall answers hasData", func() {
			tc.Uninstall(b, true)
			if _, ok := harness.FindRetained(tc.List(), b); !ok {
				tc.Failf("after app/uninstall of %s keeping data app/list's retained does not name it", b)
			}
			if again := tc.Install(nb, tc.ReleaseOf(nb)); !again.HasData {
				tc.Failf("the reinstall of %s, whose data the uninstall kept, answered hasData false", b)
			}
			tc.Uninstall(b, true)
			if _, ok := harness.FindRetained(tc.List(), b); !ok {
				tc.Failf("after a second app/uninstall of %s keeping data app/list's retained does not name it", b)
			}
		})
		dir := tc.Fixture(harness.ProbeFixture)
		a := tc.Install(dir, tc.ReleaseOf(dir))
		if a.HasData {
			tc.Failf("app/install of %s answered hasData true: the only data kept is %s's", a.AppID, b)
		}
		if _, ok := harness.FindRetained(tc.List(), b); !ok {
			tc.Failf("after app/install of %s, app/list's retained no longer names %s: its kept data went to another app id", a.AppID, b)
		}
	})

	// A pair whose ids prefix each other, both holding the same key:
	// uninstall deleting the data of either leaves the other's (a host
	// that deletes by prefix shows on one side only).
	DescribeTable("keeps what the other app stored when uninstalling one of a pair whose ids prefix each other, deleting its data or exporting then deleting it:",
		func(export, onNeighbour bool) {
			a := tc.InstallProbe(tc.DefaultConfigure())
			b := tc.InstallNeighbour()
			if onNeighbour {
				a, b = b, a
			}
			key, va, vb := harness.Nonce("shared"), harness.Nonce("value-a"), harness.Nonce("value-b")
			tc.Precondition("both apps keep "+key+" through lime.storage (app/invoke)", func() {
				expectStoredAsApp(tc, a, key, va)
				expectStoredAsApp(tc, b, key, vb)
			})
			mode := "deleting data"
			if export {
				mode = "export then delete"
				res, text := exportThenDelete(tc, a)
				if !bytes.Contains(text, []byte(va)) {
					tc.Failf("the export of %s (%v) does not hold %q = %q, which the app stored", a, res.Exported, key, va)
				}
			} else {
				tc.Uninstall(a, false)
			}
			if _, listed := tc.ListedApp(b); !listed {
				tc.Failf("app/list no longer shows %s after uninstall of %s (%s)", b, a, mode)
			}
			if m := tc.StorageCall(b, "get", map[string]any{"key": key}); m.Type != hostbridge.TypeResponse || !harness.ContainsText(m.Payload, vb) {
				tc.Failf("%s stored %q = %q; after uninstall of %s (%s) it reads %s", b, key, vb, a, mode, harness.AnswerText(m, true))
			}
		},
		Entry("bridge-probe uninstalled, bridge-probe-b judged", tc.Req("UNINSTALL-APP-STORAGE", levels.ConfusableIdentity), false, false),
		Entry("bridge-probe-b uninstalled, bridge-probe judged", tc.Req("UNINSTALL-APP-STORAGE", levels.ConfusableIdentity), false, true),
		Entry("bridge-probe exported then deleted, bridge-probe-b judged", tc.Req("UNINSTALL-EXPORT", levels.ConfusableIdentity), true, false),
		Entry("bridge-probe-b exported then deleted, bridge-probe judged", tc.Req("UNINSTALL-EXPORT", levels.ConfusableIdentity), true, true),
	)

	It("finds nothing an app stored after uninstall deleting data and a reinstall", tc.Req("UNINSTALL-APP-STORAGE", levels.EveryMember), func() {
		a := tc.InstallProbe(tc.DefaultConfigure())
		key, value := harness.Nonce("deleted"), harness.Nonce("value")
		store(tc.Launch(a, "main"), key, value)
		tc.Uninstall(a, false)
		tc.InstallProbe(tc.DefaultConfigure())
		s := tc.Launch(a, "main")
		if got := read(s, key); got != "" {
			tc.Failf("%s stored %q = %q; after uninstall deleting data and a reinstall it still reads %q", a, key, value, got)
		}
		if ks, ok := keys(s); ok && slices.Contains(ks, key) {
			tc.Failf("lime.storage list of the reinstalled %s still names %q after uninstall deleting data: %v", a, key, ks)
		}
	})

	// What the app's frame kept in the browser is its data too (docs/decisions.md
	// "Browser storage by app"): the launches are shown one after the other
	// in one browser session, as one user would see them.
	DescribeTable("finds nothing the app's frame kept in the browser after uninstall deleting its data and a reinstall:",
		func(export bool) {
			a := tc.InstallProbe(tc.DefaultConfigure())
			name, value := harness.Nonce("kept"), harness.Nonce("v")
			first := tc.Launch(a, "main")
			first.Keep(name, value)
			// Seen holding it: a second launch of the app finds it. What the
			// host does not keep from one launch to the next it cannot
			// leave behind an uninstall.
			again := tc.LaunchBeside(first, a, "main")
			held, others := harness.Holding(again.Recall(name), value)
			if len(others) > 0 {
				By(fmt.Sprintf("a second launch of %s finds nothing of what its frame kept in %s: nothing there to leave behind", a, strings.Join(others, ", ")))
			}
			if len(held) == 0 {
				return
			}
			mode := "deleting data"
			if export {
				mode = "exporting then deleting data"
				exportThenDelete(tc, a)
			} else {
				tc.Uninstall(a, false)
			}
			tc.InstallProbe(tc.DefaultConfigure())
			after := tc.LaunchBeside(again, a, "main")
			if left, _ := harness.Holding(after.Recall(name), value); len(left) > 0 {
				tc.Failf("after uninstall of %s %s and a reinstall, its frame still finds in %s the value it kept there under %s before",
					a, mode, strings.Join(left, " and "), name)
			}
		},
		Entry("deleting data", tc.Req("UNINSTALL-BROWSER-STORAGE", levels.EveryEntryPoint, levels.EveryMember), false),
		Entry("exporting then deleting data", tc.Req("UNINSTALL-BROWSER-STORAGE", levels.EveryEntryPoint, levels.EveryMember), true),
	)
}

// consentText says what consent an update carried, for a failure message.
func consentText(c protocol.Consent) string {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("%+v", c)
	}
	return string(b)
}
