package reports

import (
	"strings"
	"testing"
)

// diff notes reports of different hosts or harness versions in one line;
// a new host version is what a diff compares, not another host.
func TestDiffNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(r *Report)
		says []string // "" entries: no note
	}{
		{"same host and harness", func(*Report) {}, nil},
		{"a new host version", func(r *Report) { r.Host.Version = "0.2.0" }, nil},
		{"one side without a commit", func(r *Report) { r.Harness.Commit = "" }, nil},
		{"another host", func(r *Report) { r.Host.Name = "other-host" }, []string{"of different hosts (agentapp-mockhost@0.1.0 reference, then other-host@0.1.0 reference)"}},
		{"another host kind", func(r *Report) { r.Host.Kind = "electron" }, []string{"of different hosts"}},
		{"another harness version", func(r *Report) { r.Harness.Version = "0.2.0" }, []string{"made by different harness versions (agentapp-conformance 0.1.0 commit 0123456789abcdef, then agentapp-conformance 0.2.0 commit 0123456789abcdef)"}},
		{"another harness commit", func(r *Report) { r.Harness.Commit = "fedcba-dirty" }, []string{"different harness versions", "commit fedcba-dirty"}},
		{"both", func(r *Report) { r.Host.Name = "x"; r.Harness.Version = "9" }, []string{"of different hosts", " and made by different harness versions"}},
		{"a host name that would drive the terminal", func(r *Report) { r.Host.Name = "evil\x1b[2J" }, []string{"of different hosts"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, new := testReport(t, 0), testReport(t, 1)
			tc.edit(new)
			note := DiffNote(old, new)
			if len(tc.says) == 0 {
				if note != "" {
					t.Errorf("note %q, want none", note)
				}
				return
			}
			if !strings.HasPrefix(note, "note: the two reports are ") || strings.ContainsAny(note, "\n\x1b") {
				t.Errorf("note %q is not one inert line", note)
			}
			for _, s := range tc.says {
				if !strings.Contains(note, s) {
					t.Errorf("note %q does not say %q", note, s)
				}
			}
		})
	}
}
