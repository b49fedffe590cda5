package reports

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ForTerminal makes one host- or package-supplied string safe to print on a
// terminal or in a log a person reads there: the string as it is when it is
// valid UTF-8 and every rune is printable (strconv.IsPrint), else the whole
// string Go-quoted (strconv.Quote). Quoted, a carriage return, a newline,
// an ANSI escape, a bidi override (U+202A-U+202E, U+2066-U+2069) or any
// other control or format character shows as its escape and does nothing:
// the string can neither start a line, move the cursor, recolour nor
// reorder what the console shows. report.html and junit.xml escape the same
// strings for their own formats.
func ForTerminal(s string) string { return forTerminal(s, false) }

// ForTerminalLines is ForTerminal for a text of several lines (a failure
// message with a diff): each line on its own, a tab allowed within one. The
// caller indents every line, so that no line of a host's text starts where
// the console's own rows start.
func ForTerminalLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = forTerminal(l, true)
	}
	return strings.Join(lines, "\n")
}

func forTerminal(s string, tabs bool) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !strconv.IsPrint(r) && (r != '\t' || !tabs) {
			return strconv.Quote(s)
		}
	}
	return s
}
