package main

import (
	"bytes"
	"strings"
	"testing"

	platformconformance "github.com/agentapp/conformance/fixtures/platform-conformance"
)

// invalidFixtures are rejected by `conformance validate`, with the file each
// message must name.
var invalidFixtures = map[string]string{
	"no-appmd":                     "APP.md",
	"no-frontmatter":               "APP.md",
	"missing-required-fields":      "APP.md",
	"unsupported-manifest-version": "APP.md",
	"legacy-entry-kinds":           "APP.md",
	"parent-ref":                   "APP.md",
	"deep-nesting":                 "APP.md",
	"alias-bomb":                   "APP.md",
	"malformed-yaml":               "APP.md",
	"signature-mismatch":           "app.signature.yaml",
	"incompatible-capability":      "APP.md",
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
			if file, bad := invalidFixtures[name]; bad {
				if code != exitFailed {
					t.Fatalf("validate %s: exit %d, want %d; stderr:\n%s", name, code, exitFailed, stderr)
				}
				if !strings.Contains(stderr, file) {
					t.Errorf("validate %s: the message does not name %s:\n%s", name, file, stderr)
				}
				if !strings.Contains(stderr, "field") && !strings.Contains(stderr, "APP.md") {
					t.Errorf("validate %s: the message names no field:\n%s", name, stderr)
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
