package surface

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentapp/conformance/drivers/hostbridge"
)

// A snapshot field is read at the top level or in a group under it, the
// shallowest winning; never from a list (a capability row); twice at one
// depth with different values is ambiguous.
func TestSnapshotFields(t *testing.T) {
	for _, tc := range []struct {
		name, payload string
		want          map[string]any
		conflicts     []string
	}{
		{"top level", `{"locale":"zh-CN","timezone":"Asia/Shanghai"}`,
			map[string]any{"locale": "zh-CN", "timezone": "Asia/Shanghai"}, nil},
		{"in a group", `{"theme":{"themeMode":"dark"},"entry":{"route":"/"}}`,
			map[string]any{"themeMode": "dark", "route": "/"}, nil},
		{"the shallowest wins", `{"locale":"en-US","user":{"locale":"zh-CN","timezone":"Asia/Shanghai"},"timezone":"UTC"}`,
			map[string]any{"locale": "en-US", "timezone": "UTC"}, nil},
		{"never from a list", `{"capabilities":[{"name":"lime.ui","locale":"zh-CN"}]}`,
			map[string]any{"capabilities": []any{map[string]any{"name": "lime.ui", "locale": "zh-CN"}}}, nil},
		{"three groups down is too deep", `{"a":{"b":{"c":{"locale":"zh-CN"}}}}`,
			map[string]any{}, nil},
		{"two groups disagree", `{"host":{"locale":"en-US"},"user":{"locale":"zh-CN"}}`,
			map[string]any{"locale": "en-US"}, []string{`locale is both "en-US" and "zh-CN"`}},
		{"two groups agree", `{"host":{"locale":"zh-CN"},"user":{"locale":"zh-CN"}}`,
			map[string]any{"locale": "zh-CN"}, nil},
		{"not an object", `[1,2]`, map[string]any{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, conflicts := snapshotFields(json.RawMessage(tc.payload), []string{"locale", "timezone", "themeMode", "route", "capabilities"})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("fields (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.conflicts, conflicts); d != "" {
				t.Errorf("conflicts (-want +got):\n%s", d)
			}
		})
	}
}

// Theme tokens are the --* members of the payload or of a group in it,
// never of a list.
func TestThemeTokens(t *testing.T) {
	for payload, want := range map[string]map[string]string{
		`{"variables":{"--a":"1","--b":"2"},"themeMode":"dark"}`: {"--a": "1", "--b": "2"},
		`{"--a":"1","nested":{"--a":"2"}}`:                       {"--a": "1"},
		`{"theme":{"tokens":{"--a":"1"}}}`:                       {"--a": "1"},
		`{"list":[{"--a":"1"}]}`:                                 {},
		`{"a":{"b":{"c":{"--a":"1"}}}}`:                          {},
	} {
		if d := cmp.Diff(want, themeTokens(json.RawMessage(payload))); d != "" {
			t.Errorf("%s (-want +got):\n%s", payload, d)
		}
	}
}

// The capability summary is a list or a map by name, at the top of the
// payload or in a group (entry.capabilities); nothing else is one.
func TestCapabilitySummary(t *testing.T) {
	agentOff := []hostbridge.CapabilityState{{Name: "lime.agent", Reason: "off"}, {Name: "lime.ui", Available: true}}
	for _, tc := range []struct {
		name, payload string
		want          []hostbridge.CapabilityState
		ok            bool
	}{
		{"a list", `{"capabilities":[{"name":"lime.agent","available":false,"reason":"off"},{"name":"lime.ui","available":true}]}`, agentOff, true},
		{"a map of rows", `{"capabilities":{"lime.ui":{"available":true},"lime.agent":{"available":false,"reason":"off"}}}`, agentOff, true},
		{"a map of booleans", `{"capabilities":{"lime.ui":true,"lime.agent":false}}`,
			[]hostbridge.CapabilityState{{Name: "lime.agent"}, {Name: "lime.ui", Available: true}}, true},
		{"in a group", `{"entry":{"capabilities":[{"name":"lime.agent","available":false,"reason":"off"},{"name":"lime.ui","available":true}]}}`, agentOff, true},
		{"none", `{"appId":"a"}`, nil, false},
		{"neither shape", `{"capabilities":"lime.ui"}`, nil, false},
		{"two groups disagree", `{"a":{"capabilities":[]},"b":{"capabilities":{"lime.ui":true}}}`, nil, false},
	} {
		got, ok := capabilitySummary(json.RawMessage(tc.payload))
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.name, ok, tc.ok)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// host:visibility is read from visible, visibility or state; a payload
// with none of them reads as "" (the harness cannot tell what it says).
func TestVisibilityOf(t *testing.T) {
	for payload, want := range map[string]string{
		`{"visible":false}`:       "hidden",
		`{"visible":true}`:        "visible",
		`{"visibility":"hidden"}`: "hidden",
		`{"state":"visible"}`:     "visible",
		`{"shown":true}`:          "",
		`"hidden"`:                "",
	} {
		if got := visibilityOf(json.RawMessage(payload)); got != want {
			t.Errorf("%s: %q, want %q", payload, got, want)
		}
	}
}
