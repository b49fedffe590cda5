package main

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "run", 3},
		{"run", "run", 0},
		{"rn", "run", 1},
		{"levle", "level", 1}, // a swap is one edit
		{"kitten", "sitting", 3},
		{"host", "out", 2},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

// An unknown flag or command is one line on stderr that suggests the
// nearest of the command's own flags (or of the commands), and exits 2.
func TestUnknownFlagsAndCommandsSuggestTheNearest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the whole line
	}{
		{[]string{"run", "--levle", "catalog"}, "conformance run: unknown flag --levle; did you mean --level?"},
		{[]string{"run", "--qiet"}, "conformance run: unknown flag --qiet; did you mean --quiet?"},
		{[]string{"run", "--call-timout", "1s"}, "conformance run: unknown flag --call-timout; did you mean --call-timeout?"},
		{[]string{"run", "--host", "x"}, "conformance run: unknown flag --host; did you mean --host-addr, --host-artifact or --host-cmd?"},
		{[]string{"verify", "--ky", "k", "e"}, "conformance verify: unknown flag --ky; did you mean --key?"},
		// verify's own flags, not run's: --level is run's.
		{[]string{"verify", "--require-levle", "x"}, "conformance verify: unknown flag --require-levle; did you mean --require-level?"},
		{[]string{"diff", "--jsn", "a", "b"}, "conformance diff: unknown flag --jsn; did you mean --json?"},
		{[]string{"mockhost", "--stido"}, "conformance mockhost: unknown flag --stido; did you mean --stdio?"},
		{[]string{"levels", "--zzzzzz"}, "conformance levels: unknown flag --zzzzzz (`conformance help levels` lists its flags)"},
		{[]string{"levles"}, "conformance: unknown command \"levles\"; did you mean levels? (`conformance help` lists them)"},
		{[]string{"sefltest"}, "conformance: unknown command \"sefltest\"; did you mean selftest? (`conformance help` lists them)"},
		{[]string{"ver"}, "conformance: unknown command \"ver\"; did you mean verify or version? (`conformance help` lists them)"},
		{[]string{"xyzzy"}, "conformance: unknown command \"xyzzy\" (`conformance help` lists them)"},
		{[]string{"help", "rn"}, "conformance help: unknown command \"rn\"; did you mean run? (`conformance help` lists them)"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != exitUsage || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q; want %d and nothing", tc.args, code, stdout, exitUsage)
		}
		if stderr != tc.want+"\n" {
			t.Errorf("%v: stderr\n%q\nwant\n%q", tc.args, stderr, tc.want+"\n")
		}
	}
}

// --clock's error says the format in the user's terms, with an example,
// never Go's reference layout.
func TestClockErrorsSayRFC3339WithAnExample(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"tomorrow", "2026-03-01", "2026-03-01 12:00:00", "2026-03-01T12:00:00", "2026-13-01T12:00:00Z"} {
		code, _, stderr := runCLI(t, "readiness", "--clock", v, dir)
		if code != exitUsage {
			t.Errorf("--clock %q: exit %d, want %d", v, code, exitUsage)
		}
		for _, layout := range []string{"2006", "15:04:05", "Z07:00", "parsing time"} {
			if strings.Contains(stderr, layout) {
				t.Errorf("--clock %q: %q quotes Go's time layout (%s)", v, stderr, layout)
			}
		}
		if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "RFC 3339") || !strings.Contains(stderr, "2026-03-01T12:00:00Z") {
			t.Errorf("--clock %q: %q, want one line naming RFC 3339 with an example", v, stderr)
		}
	}
	if _, err := parseClock("2026-03-01T13:00:00+01:00"); err != nil {
		t.Errorf("parseClock refuses an RFC 3339 instant with an offset: %v", err)
	}
}
