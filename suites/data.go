package suites

import (
	"encoding/json"
	"slices"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// neighbourProbe is the folder and name of the second probe app: the same
// package as bridge-probe under another name, so the two share every key
// name the specs use.
const neighbourProbe = "bridge-probe-b"

// installNeighbour installs the probe app a second time as neighbourProbe.
func (tc *TestContext) installNeighbour() string {
	GinkgoHelper()
	dir := tc.FixtureAs(probeFixture, neighbourProbe)
	SetField(dir, "name", neighbourProbe)
	return tc.Install(dir, tc.ReleaseOf(dir)).AppID
}

// store sets key to value through the app's own lime.storage and reads it
// back: the positive control of every data spec.
func (s *Surface) store(key, value string) {
	GinkgoHelper()
	s.tc.Precondition("the app's lime.storage set "+key+" is executed and read back", func() {
		r := s.Run(
			Invoke("set-"+key, "lime.storage", "set", map[string]any{"key": key, "value": value}), AwaitAnswer("set-"+key),
			Invoke("get-"+key, "lime.storage", "get", map[string]any{"key": key}), AwaitAnswer("get-"+key))
		if v, ok := storedValue(r, "get-"+key); !ok || v != value {
			s.tc.Failf("lime.storage set %q = %q was read back as %q", key, value, v)
		}
	})
}

// read is what the app's lime.storage get of key gives ("" for nothing).
// An unanswered get judges nothing: the spec errors.
func (s *Surface) read(key string) string {
	GinkgoHelper()
	id := nonce("get")
	r := s.Run(Invoke(id, "lime.storage", "get", map[string]any{"key": key}), AwaitAnswer(id))
	v, ok := storedValue(r, id)
	if !ok {
		m, answered := r.Answer(id)
		s.tc.Errorf("lime.storage get %q, executed before, got %s", key, describeAnswer(m, answered))
	}
	return v
}

// keys is what the app's lime.storage list gives; ok is false when the
// host answers list with anything but host:response (list is not judged).
func (s *Surface) keys() (keys []string, ok bool) {
	GinkgoHelper()
	id := nonce("list")
	r := s.Run(Invoke(id, "lime.storage", "list", nil), AwaitAnswer(id))
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
func (tc *TestContext) setState(method, appID string) string {
	GinkgoHelper()
	tc.requireMethod(method)
	var res protocol.AppStateResult
	tc.MustCall(method, protocol.AppStateParams{AppID: appID}, &res)
	return res.State
}

// expectState fails the spec unless app/list shows appID in state.
func (tc *TestContext) expectState(appID, state, after string) {
	GinkgoHelper()
	row, listed := tc.ListedApp(appID)
	if !listed {
		tc.Failf("app/list no longer shows %s after %s", appID, after)
	}
	if row.State != state {
		tc.Failf("app/list shows %s as %q after %s, not %q", appID, row.State, after, state)
	}
}

// describeData checks the data boundary and the lifecycle after install
// (spec 000 Storage and data boundary; 002 Storage boundary, Cleanup and
// Desktop P4).
func describeData(tc *TestContext) {
	Describe("Desktop P4: app storage and lifecycle", browserRetry, func() {
		It("keeps each app's lime.storage in its own namespace: same key, two values, and no list names the other app's keys", tc.Req("STORAGE-NAMESPACED"), func() {
			a := tc.installProbe(tc.DefaultConfigure())
			b := tc.installNeighbour()
			shared, onlyA, onlyB := nonce("shared"), nonce("only-a"), nonce("only-b")
			va, vb := nonce("value-a"), nonce("value-b")
			sa := tc.Launch(a, "main")
			sa.store(shared, va)
			sa.store(onlyA, va)
			sb := tc.Launch(b, "main")
			sb.store(shared, vb)
			sb.store(onlyB, vb)
			if v := sb.read(onlyA); v != "" {
				tc.Failf("%s read %q = %q, a key only %s set", b, onlyA, v, a)
			}
			if ks, ok := sb.keys(); ok && slices.Contains(ks, onlyA) {
				tc.Failf("lime.storage list of %s names %q, a key only %s set: %v", b, onlyA, a, ks)
			}
			sa = tc.Launch(a, "main")
			if v := sa.read(shared); v != va {
				tc.Failf("%s's %q holds %q after %s set its own %q: one app wrote another's namespace", a, shared, v, b, shared)
			}
			if v := sa.read(onlyB); v != "" {
				tc.Failf("%s read %q = %q, a key only %s set", a, onlyB, v, b)
			}
			if ks, ok := sa.keys(); ok && slices.Contains(ks, onlyB) {
				tc.Failf("lime.storage list of %s names %q, a key only %s set: %v", a, onlyB, b, ks)
			}
		})

		It("hides every entry of a disabled app and keeps its data; enabled again, the app launches and finds the same data", tc.Req("APP-DISABLE"), func() {
			a := tc.installProbe(tc.DefaultConfigure())
			key, value := nonce("kept"), nonce("value")
			tc.Launch(a, "main").store(key, value)
			if got := tc.setState(protocol.MethodDisable, a); got != protocol.StateDisabled {
				tc.Failf("app/disable of %s answered state %q, not %q", a, got, protocol.StateDisabled)
			}
			tc.expectState(a, protocol.StateDisabled, "app/disable")
			if r := tc.AppReadiness(a); r.OK || r.Status != protocol.StatusDisabled {
				tc.Failf("app/readiness of the disabled %s is %q (ok %v), not %q", a, r.Status, r.OK, protocol.StatusDisabled)
			}
			_, err := tc.TryLaunch(a, "main")
			if err == nil {
				tc.Failf("app/launch mounted an entry of the disabled %s", a)
			}
			he, ok := hostError(err)
			if !ok {
				tc.Errorf("no usable answer to app/launch: %v", err)
			}
			// The refusal names what was planted: the entry is disabled.
			var data protocol.ErrorData
			_ = json.Unmarshal(he.Data, &data)
			if he.Code != protocol.CodeNotReady || data.Readiness == nil || data.Readiness.Status != protocol.StatusDisabled {
				tc.Failf("app/launch of the disabled %s was not refused as -32009 with data.readiness status disabled: %s", a, describeHostError(he))
			}
			if got := tc.setState(protocol.MethodEnable, a); got != protocol.StateInstalled {
				tc.Failf("app/enable of %s answered state %q, not %q", a, got, protocol.StateInstalled)
			}
			tc.expectState(a, protocol.StateInstalled, "app/enable")
			if _, err := tc.TryLaunch(a, "main"); err != nil {
				tc.Failf("app/launch of %s is refused after app/enable: %v", a, err)
			}
			if got := tc.Launch(a, "main").read(key); got != value {
				tc.Failf("%s stored %q = %q before it was disabled; enabled again it reads %q", a, key, value, got)
			}
		})

		It("leaves other apps ready, launchable and with their data when disabling one", tc.Req("DISABLE-ISOLATED"), func() {
			a := tc.installProbe(tc.DefaultConfigure())
			b := tc.installNeighbour()
			key, value := nonce("neighbour"), nonce("value")
			tc.Launch(b, "main").store(key, value)
			tc.ExpectAppReady(b)
			tc.Precondition("app/disable of "+a+" is done", func() {
				if got := tc.setState(protocol.MethodDisable, a); got != protocol.StateDisabled {
					tc.Failf("app/disable of %s answered state %q", a, got)
				}
			})
			tc.expectState(b, protocol.StateInstalled, "app/disable of "+a)
			if r := tc.AppReadiness(b); r.Status != protocol.StatusReady {
				tc.Failf("app/readiness of %s is %q after app/disable of %s, not ready", b, r.Status, a)
			}
			if _, err := tc.TryLaunch(b, "main"); err != nil {
				tc.Failf("app/launch of %s is refused after app/disable of %s: %v", b, a, err)
			}
			if got := tc.Launch(b, "main").read(key); got != value {
				tc.Failf("%s stored %q = %q; after app/disable of %s it reads %q", b, key, value, a, got)
			}
		})

		It("finds what an app stored again after uninstall keeping data and a reinstall", tc.Req("UNINSTALL-APP-STORAGE"), func() {
			a := tc.installProbe(tc.DefaultConfigure())
			key, value := nonce("kept"), nonce("value")
			tc.Launch(a, "main").store(key, value)
			tc.Uninstall(a, true)
			tc.installProbe(tc.DefaultConfigure())
			if got := tc.Launch(a, "main").read(key); got != value {
				tc.Failf("%s stored %q = %q; after uninstall keeping data and a reinstall it reads %q", a, key, value, got)
			}
		})

		It("finds nothing an app stored after uninstall deleting data and a reinstall", tc.Req("UNINSTALL-APP-STORAGE"), func() {
			a := tc.installProbe(tc.DefaultConfigure())
			key, value := nonce("deleted"), nonce("value")
			tc.Launch(a, "main").store(key, value)
			tc.Uninstall(a, false)
			tc.installProbe(tc.DefaultConfigure())
			s := tc.Launch(a, "main")
			if got := s.read(key); got != "" {
				tc.Failf("%s stored %q = %q; after uninstall deleting data and a reinstall it still reads %q", a, key, value, got)
			}
			if ks, ok := s.keys(); ok && slices.Contains(ks, key) {
				tc.Failf("lime.storage list of the reinstalled %s still names %q after uninstall deleting data: %v", a, key, ks)
			}
		})
	})
}
