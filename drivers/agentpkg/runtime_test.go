package agentpkg

import (
	"slices"
	"testing"
)

func TestVerifyRuntime(t *testing.T) {
	manifest := func(modes []any, install map[string]any) map[string]any {
		install["modes"] = modes
		return map[string]any{"install": install}
	}
	backed := []any{"runtime_backed"}
	for _, tc := range []struct {
		name   string
		m      map[string]any
		system string
		want   []string // fields named
	}{
		{"equal bound is met", manifest(backed, map[string]any{"runtimeBacked": map[string]any{"minVersion": "1.10.0"}}), "1.10.0", nil},
		{"SemVer order, not string order", manifest(backed, map[string]any{"runtimeBacked": map[string]any{"minVersion": "1.9.0"}}), "1.10.0", nil},
		{"a patch above", manifest(backed, map[string]any{"runtimeBacked": map[string]any{"minVersion": "1.10.1"}}), "1.10.0", []string{"install.runtimeBacked.minVersion"}},
		{"current asks for none", manifest(backed, map[string]any{"runtime": map[string]any{"minVersion": "current"}}), "0.1.0", nil},
		{"every member", manifest(backed, map[string]any{
			"runtime": map[string]any{"minVersion": "2.0.0", "distribution": map[string]any{"runtimeBacked": map[string]any{"minVersion": "3.0.0"}}}}),
			"1.0.0", []string{"install.runtime.minVersion", "install.runtime.distribution.runtimeBacked.minVersion"}},
		{"not a version", manifest(backed, map[string]any{"runtimeBacked": map[string]any{"minVersion": "soon"}}), "1.0.0", []string{"install.runtimeBacked.minVersion"}},
		{"not runtime-backed", manifest([]any{"in_lime"}, map[string]any{"runtimeBacked": map[string]any{"minVersion": "9.0.0"}}), "1.0.0", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range VerifyRuntime(&Package{Manifest: tc.m}, tc.system) {
				if f.Code != CodeIncompatibleRuntime || f.File != ManifestFile {
					t.Errorf("finding %+v: want code %s in %s", f, CodeIncompatibleRuntime, ManifestFile)
				}
				got = append(got, f.Field)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("fields named %v, want %v", got, tc.want)
			}
		})
	}
}
