package main

import (
	"bytes"
	"strings"
	"testing"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// invalidFixtures are rejected by `conformance validate`, with the file and
// (where the fault sits in one field) the field each message must name.
func invalidFixtures() map[string][2]string {
	return map[string][2]string{
		"no-appmd":                     {"APP.md", ""},
		"no-frontmatter":               {"APP.md", ""},
		"missing-required-fields":      {"APP.md", "field appType"},
		"unsupported-manifest-version": {"APP.md", "field manifestVersion"},
		"legacy-entry-kinds":           {"APP.md", "field entries[0].kind"},
		"parent-ref":                   {"APP.md", "field runtimePackage.ui.path"},
		"deep-nesting":                 {"APP.md", ""},
		"alias-bomb":                   {"APP.md", ""},
		"malformed-yaml":               {"APP.md", "line 3"},
		"signature-mismatch":           {"app.signature.yaml", "field signature.manifest.hash"},
		"incompatible-capability":      {"APP.md", "field requires.capabilities.lime.agent"},
		"incompatible-host-version":    {"APP.md", "field requires.lime.appRuntime"},
	}
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(&cli{stdout: &out, stderr: &errb, self: "conformance"}, args)
	return code, out.String(), errb.String()
}

func TestValidateAndProjectEveryFixture(t *testing.T) {
	for _, name := range platformconformance.Names() {
		t.Run(name, func(t *testing.T) {
			a, err := platformconformance.Materialize(name, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			b, err := platformconformance.Materialize(name, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "validate", a)
			if where, bad := invalidFixtures()[name]; bad {
				if code != exitFailed {
					t.Fatalf("validate %s: exit %d, want %d; stderr:\n%s", name, code, exitFailed, stderr)
				}
				for _, w := range where {
					if !strings.Contains(stderr, w) {
						t.Errorf("validate %s: the message does not name %q:\n%s", name, w, stderr)
					}
				}
				return
			}
			if code != exitOK {
				t.Fatalf("validate %s: exit %d; stderr:\n%s", name, code, stderr)
			}
			code, first, stderr := runCLI(t, "project", a)
			if code != exitOK {
				t.Fatalf("project %s: exit %d; stderr:\n%s", name, code, stderr)
			}
			_, again, _ := runCLI(t, "project", a)
			_, copied, _ := runCLI(t, "project", b)
			if first != again {
				t.Errorf("project %s differs between two runs", name)
			}
			if first != copied {
				t.Errorf("project %s differs between copies in two folders", name)
			}
		})
	}
}

func TestStaticToolsRejectBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"validate"},
		{"validate", "/no/such/folder"},
		{"project", "a", "b"},
		{"readiness", "--clock", "yesterday", "."},
		{"no-such-command"},
		{"run", "--level", "desktop-p9"},
		{"run", "--fault", "no-such-fault"},
		{"run", "--host-cmd", "x", "--host-addr", "127.0.0.1:1"},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr)
		}
		if strings.TrimSpace(stderr) == "" {
			t.Errorf("%v: no message", args)
		}
	}
}
