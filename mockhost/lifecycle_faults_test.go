//go:build !mutation

package mockhost

import (
	"fmt"
	"testing"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// storageGet is what the app of s reads for key through lime.storage.
func storageGet(s *surface, key string) string {
	return string(s.invoke("get-"+key, "lime.storage", "get", map[string]any{"key": key}).Payload)
}

// storageSet stores key = value through lime.storage of s's app.
func storageSet(s *surface, key, value string) {
	s.invoke("set-"+key, "lime.storage", "set", map[string]any{"key": key, "value": value})
}

// appState calls app/disable or app/enable and then reports every app's
// app/list state and the readiness status of appID.
func appState(x *harness, method, appID string) string {
	x.must(method, protocol.AppStateParams{AppID: appID}, nil)
	var l protocol.ListResult
	x.must(protocol.MethodList, struct{}{}, &l)
	var r protocol.ReadinessResult
	x.must(protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID}, &r)
	out := r.Status
	for _, a := range l.Apps {
		out += " " + a.AppID + "=" + a.State
	}
	return out
}

// reinstalled uninstalls the app of s (keeping its data or not), installs
// it again from the same folder and reads key.
func reinstalled(x *harness, s *surface, appID string, keep bool, key string) string {
	x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: appID, KeepData: keep}, nil)
	if _, err := x.install(s.dir, nil, true); err != nil {
		x.t.Fatalf("reinstalling %s: %v", appID, err)
	}
	return storageGet(x.launchEntry(appID, "main"), key)
}

func lifecycleProbes() map[string]probe {
	return map[string]probe{
		"storage-shared-namespace": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "k", "a")
			storageSet(x.mount("app-b", "main"), "k", "b")
			return storageGet(x.launchEntry("app-a", "main"), "k")
		},
		"storage-list-every-app": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "only-a", "a")
			return string(x.mount("app-b", "main").invoke("l", "lime.storage", "list", nil).Payload)
		},
		"disable-still-launches": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.must(protocol.MethodDisable, protocol.AppStateParams{AppID: "app-a"}, nil)
			return fmt.Sprint(x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "main"}, nil) == nil)
		},
		"disable-drops-data": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			storageSet(x.mount("app-a", "main"), "k", "a")
			x.must(protocol.MethodDisable, protocol.AppStateParams{AppID: "app-a"}, nil)
			x.must(protocol.MethodEnable, protocol.AppStateParams{AppID: "app-a"}, nil)
			return storageGet(x.launchEntry("app-a", "main"), "k")
		},
		"enable-stays-disabled": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.must(protocol.MethodDisable, protocol.AppStateParams{AppID: "app-a"}, nil)
			return appState(x, protocol.MethodEnable, "app-a")
		},
		"disable-affects-all": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			x.mount("app-a", "main")
			x.mount("app-b", "main")
			return appState(x, protocol.MethodDisable, "app-a")
		},
		"uninstall-keep-drops-storage": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			s := x.mount("app-a", "main")
			storageSet(s, "k", "a")
			return reinstalled(x, s, "app-a", true, "k")
		},
		"uninstall-delete-keeps-storage": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{})
			s := x.mount("app-a", "main")
			storageSet(s, "k", "a")
			return reinstalled(x, s, "app-a", false, "k")
		},
	}
}

// Disable keeps the package and the data and hides every entry; enable
// brings both back; an unknown app is -32004.
func TestDisableAndEnable(t *testing.T) {
	x := start(t)
	x.configureWith(protocol.ConfigureParams{})
	storageSet(x.mount("app-a", "main"), "k", "a")
	if got := appState(x, protocol.MethodDisable, "app-a"); got != "disabled app-a=disabled" {
		t.Errorf("after app/disable: %s", got)
	}
	err := x.call(protocol.MethodLaunch, protocol.LaunchParams{AppID: "app-a", EntryKey: "main"}, nil)
	if he, ok := err.(*control.HostError); !ok || he.Code != protocol.CodeNotReady {
		t.Errorf("launch of a disabled app: %v", err)
	}
	if got := appState(x, protocol.MethodEnable, "app-a"); got != "ready app-a=installed" {
		t.Errorf("after app/enable: %s", got)
	}
	if got := storageGet(x.launchEntry("app-a", "main"), "k"); got != `{"key":"k","value":"a"}` {
		t.Errorf("data after enable: %s", got)
	}
	err = x.call(protocol.MethodDisable, protocol.AppStateParams{AppID: "nobody"}, nil)
	if he, ok := err.(*control.HostError); !ok || he.Code != protocol.CodeAppNotFound {
		t.Errorf("app/disable of an unknown app: %v", err)
	}
}
