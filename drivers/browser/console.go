package browser

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/runtime"
)

// ConsoleLine is one thing a page said: a console call, an uncaught
// exception, a browser log entry, a dialog it opened or a crash.
type ConsoleLine struct {
	// Level is the console method ("log", "info", "warning", "error",
	// "debug", ...), "exception" for an uncaught exception or rejection,
	// "verbose"/"info"/"warning"/"error" for a browser log entry, "dialog"
	// for an alert, confirm, prompt or beforeunload (dismissed), "crash"
	// for a renderer that died.
	Level string
	// Text is the message, at most maxLineBytes long.
	Text string
	// FrameURL is the URL of the frame the line came from, when known.
	FrameURL string
}

const (
	// maxConsoleLines is how many lines a session keeps; later ones are
	// counted, not stored, so a flooding page cannot exhaust memory.
	maxConsoleLines = 1000
	// maxLineBytes caps the text of one line.
	maxLineBytes = 4096
)

// consoleLog is a session's capped console record. Its owner locks it.
type consoleLog struct {
	lines   []ConsoleLine
	dropped int
}

// full reports whether add would only count.
func (c *consoleLog) full() bool { return len(c.lines) >= maxConsoleLines }

// add records l, or counts it when the log is full.
func (c *consoleLog) add(l ConsoleLine) {
	if c.full() {
		c.dropped++
		return
	}
	l.Text = truncate(l.Text, maxLineBytes)
	c.lines = append(c.lines, l)
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// argsText renders console arguments the way a console shows them, simply:
// strings as they are, other values as JSON or their description.
func argsText(args []*runtime.RemoteObject) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(objectText(a))
		if b.Len() > maxLineBytes {
			break
		}
	}
	return b.String()
}

// objectText renders one remote value.
func objectText(o *runtime.RemoteObject) string {
	switch {
	case o == nil:
		return ""
	case o.Type == runtime.RemoteObjectTypeString && len(o.Value) > 0:
		var s string
		if err := json.Unmarshal(o.Value, &s); err == nil {
			return s
		}
		return string(o.Value)
	case len(o.Value) > 0:
		return string(o.Value)
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	case o.Description != "":
		return o.Description
	}
	return string(o.Type)
}

// exceptionText renders an uncaught exception: "Uncaught Error: boom".
func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return ""
	}
	text := d.Text
	if d.Exception != nil {
		desc := objectText(d.Exception)
		desc, _, _ = strings.Cut(desc, "\n")
		if desc != "" && !strings.Contains(text, desc) {
			text = strings.TrimSpace(text + " " + desc)
		}
	}
	return text
}
