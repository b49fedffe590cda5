package reports

import (
	"strings"
	"testing"
)

// A string from the host reaches the terminal inert: every control
// character, escape, bidi override and invalid byte is quoted, and a
// printable string is left as it is.
func TestForTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"agentapp-mockhost":                 "agentapp-mockhost",
		"Ünïcødé 名前 (ok)":                   "Ünïcødé 名前 (ok)",
		"evil\r\x1b[2K desktop-p0 passed\n": `"evil\r\x1b[2K desktop-p0 passed\n"`,
		"file\xffname":                      `"file\xffname"`,
		"abc\u202edcba":                     `"abc\u202edcba"`,
		"isolate\u2066x\u2069":              `"isolate\u2066x\u2069"`,
		"tab\there":                         `"tab\there"`,
		"bell\a":                            `"bell\a"`,
		"next\u0085line":                    `"next\u0085line"`,
		"line\u2028separator":               `"line\u2028separator"`,
		"zero\u200bwidth":                   `"zero\u200bwidth"`,
	} {
		if got := ForTerminal(in); got != want {
			t.Errorf("ForTerminal(%q) = %s, want %s", in, got, want)
		}
	}
	got := ForTerminalLines("Expected\n\t<string>: ok\nhost said: \x1b]0;pwned\a\nend")
	want := "Expected\n\t<string>: ok\n\"host said: \\x1b]0;pwned\\a\"\nend"
	if got != want {
		t.Errorf("ForTerminalLines = %q, want %q", got, want)
	}
	if strings.ContainsAny(ForTerminalLines("a\rb\x1bc\u202e"), "\r\x1b\u202e") {
		t.Error("ForTerminalLines let a control character through")
	}
}
