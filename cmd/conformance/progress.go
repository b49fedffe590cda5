package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
	"github.com/agentapp/conformance/suites"
)

// progress prints a line per requirement as it settles, and under a
// requirement that did not pass its whole failure message, redacted like
// the report (console logs of CI runs are often public) and made inert for
// the terminal (reports.ForTerminalLines): what the host wrote never moves
// the cursor or starts a row of its own.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	cat   *levels.Catalog
	quiet bool
	red   *control.Redactor // nil: print messages as they are
}

func newProgress(w io.Writer, cat *levels.Catalog, quiet bool, red *control.Redactor) *progress {
	return &progress{w: w, cat: cat, quiet: quiet, red: red}
}

func (p *progress) settled(e suites.RequirementSettled) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	r, _ := p.cat.Requirement(e.ID)
	mark := strings.ToUpper(string(e.Outcome))
	if reports.EffectOf(r, e.Outcome) == reports.EffectWarn {
		mark = "WARN"
	}
	fmt.Fprintf(p.w, "%-7s %-24s %s\n", mark, e.ID, r.Title)
	if e.Outcome != reports.Passed {
		msg := e.Failure
		if e.Spec != "" && e.Outcome != reports.NotRun {
			// Which spec, a table's case included: a requirement has many.
			msg = "in: " + e.Spec + "\n" + msg
		}
		if p.red != nil {
			msg = string(p.red.Redact([]byte(msg)))
		}
		// The whole message, diffs included: it is what a user fixes the
		// host from. Every line is indented, so none starts a row.
		msg = strings.ReplaceAll(msg, "\r\n", "\n")
		fmt.Fprint(p.w, indentLines(reports.ForTerminalLines(msg), "        "))
	}
}

// indentLines puts prefix before every non-blank line of s and ends each
// line with a newline; blank lines stay empty. It returns "" for a blank s.
func indentLines(s, prefix string) string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString(prefix)
			b.WriteString(strings.TrimRight(line, " \t"))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// printSummary ends a run: how the run ended, a per-level table with every
// outcome of the lattice, and where the report is.
func printSummary(w io.Writer, rep *reports.Report, out string, written reports.Written) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, runLine(rep.Run))
	for _, e := range rep.Run.EscapedProcesses {
		how := "a process group"
		if e.NewSession {
			how = "a session (setsid)"
		}
		fmt.Fprintf(w, "host finding: %d process(es) escaped the host's process group into %s of their own, killed when the host stopped: %s\n",
			e.Count, how, e.Command)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tVERDICT\tPASSED\tFAILED\tERRORS\tFLAKY\tBLOCKED\tINTERRUPTED\tWARNINGS\tSKIPPED\tNOT RUN\tNOT APPLICABLE")
	for _, l := range rep.Levels {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", l.ID, l.Verdict,
			l.Passed, l.Failed, l.Errors, l.Flaky, l.Blocked, l.Interrupted, l.Warnings, l.Skipped, l.NotRun, l.NotApplicable)
	}
	_ = tw.Flush()
	how := rep.Host.Transport
	if rep.Host.Kind != "" {
		how = rep.Host.Kind + ", " + how
	}
	// The host named itself in its hello: its words are quoted when they
	// are not plain text.
	fmt.Fprintf(w, "\nhost: %s %s (%s)\n", reports.ForTerminal(rep.Host.Name), reports.ForTerminal(rep.Host.Version), reports.ForTerminal(how))
	if written.Signed {
		fmt.Fprintf(w, "report: %s (signed, key %s)\n", out, written.KeyID)
	} else {
		fmt.Fprintf(w, "report: %s (unsigned: pass --sign-key to sign it)\n", out)
	}
}

// runLine says in one line how the run ended and, when it did not complete
// or judged only a selection, why.
func runLine(r reports.RunStatus) string {
	line := "run: " + r.Status
	if r.Reason != "" {
		line += ": " + reports.ForTerminal(r.Reason)
	}
	var sel []string
	if len(r.Focus) > 0 {
		sel = append(sel, "focus "+strings.Join(r.Focus, ", "))
	}
	if r.LabelFilter != "" {
		sel = append(sel, "label filter "+r.LabelFilter)
	}
	if len(sel) > 0 {
		line += " (selected by " + strings.Join(sel, "; ") + ": the rest is not-run)"
	}
	return line
}

// maxInertLine is the longest line an inertWriter holds back waiting for
// its end; a longer one is passed on in pieces.
const maxInertLine = 64 << 10

// inertWriter passes what a host writes to its stderr on to the console a
// line at a time, redacted and made inert (reports.ForTerminalLines): the
// host's words reach the terminal but never control it, and a planted
// secret never reaches it.
type inertWriter struct {
	mu     sync.Mutex
	w      io.Writer
	redact func([]byte) []byte // nil: none
	buf    []byte
}

func newInertWriter(w io.Writer, redact func([]byte) []byte) *inertWriter {
	return &inertWriter{w: w, redact: redact}
}

func (t *inertWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		switch {
		case i >= 0:
			t.line(t.buf[:i])
			t.buf = t.buf[i+1:]
		case len(t.buf) >= maxInertLine:
			t.line(t.buf[:maxInertLine])
			t.buf = t.buf[maxInertLine:]
		default:
			return len(p), nil
		}
	}
}

// Flush passes on a last line the host did not end.
func (t *inertWriter) Flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > 0 {
		t.line(t.buf)
		t.buf = nil
	}
}

func (t *inertWriter) line(b []byte) {
	b = bytes.TrimSuffix(b, []byte("\r")) // a CRLF line ending
	if t.redact != nil {
		b = t.redact(b)
	}
	_, _ = io.WriteString(t.w, reports.ForTerminalLines(string(b))+"\n")
}
