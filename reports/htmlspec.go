package reports

import (
	"fmt"
	"strings"
)

// specView is how a card shows spec s; ex is its transcript excerpt (nil
// when none was read).
func specView(s SpecResult, ex *Excerpt) htmlSpec {
	v := htmlSpec{Name: s.Name, Engine: s.Engine, Outcome: s.Outcome, Duration: formatMs(s.DurationMs)}
	if s.Outcome == Passed {
		return v
	}
	v.Detail = true
	if s.Failure != nil {
		v.Message, v.Location = s.Failure.Message, s.Failure.Location
	}
	for _, a := range s.Artifacts {
		v.Artifacts = append(v.Artifacts, htmlArtifact{Artifact: a, Label: artifactLabel(a)})
	}
	if ex != nil {
		v.Excerpt = excerptView(ex, v.Message)
	}
	return v
}

// artifactLabel names an artifact by the attempt that saved it, when known.
func artifactLabel(a Artifact) string {
	if a.Attempt > 0 {
		return fmt.Sprintf("attempt %d, %s", a.Attempt, a.Kind)
	}
	return a.Kind
}

// formatMs is a duration for people: "850 ms", "7.2 s", "2 min 5 s".
func formatMs(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	}
	return fmt.Sprintf("%d min %d s", ms/60_000, ms%60_000/1000)
}

// excerptView is ex with the exchange that failed marked and why it is the
// one (failedExchange).
func excerptView(ex *Excerpt, message string) *htmlExcerpt {
	v := &htmlExcerpt{From: ex.From, To: ex.To, Omitted: ex.Omitted}
	marked, why := failedExchange(ex.Lines, message)
	for i, l := range ex.Lines {
		hl := htmlLine{Seq: l.Seq, Text: l.Text, Marked: marked[i]}
		if ex.Omitted > 0 && i == ex.OmitAt {
			hl.Omit = true
			v.OmitTo = l.Seq - 1
			if i > 0 {
				v.OmitFrom = ex.Lines[i-1].Seq + 1
			} else {
				v.OmitFrom = ex.From
			}
		}
		v.Lines = append(v.Lines, hl)
	}
	v.Mark = why
	return v
}

// exchange is a request and its answer (the lines of one connection with
// one JSON-RPC id), or a lone notification or invalid frame.
type exchange struct {
	lines    []int  // indexes into the excerpt's lines
	dir      string // of its first line: the direction of the request
	method   string
	answered bool
	failed   bool // an answer carrying an error
}

// failedExchange picks the exchange of a spec that did not pass that its
// failure is about, from what the report holds: the failure message and
// the spec's transcript lines. The report does not record which exchange
// a check judged, so it reads the message: the exchanges whose method the
// message names (a failure names the method it judged: "app/install was
// answered with an error ..."), of those the ones left unanswered or
// answered with an error, and of those the last. When the message names
// no method of the excerpt, it marks the spec's last exchange and says so.
// It returns the lines to mark (by index) and what the mark means.
func failedExchange(lines []ExcerptLine, message string) (map[int]bool, string) {
	var xs []*exchange
	byID := map[string]*exchange{}
	for i, l := range lines {
		key := fmt.Sprintf("%d %s", l.Conn, l.ID)
		x := byID[key]
		if l.ID == "" || x == nil || x.answered && l.Dir == x.dir {
			x = &exchange{dir: l.Dir}
			xs = append(xs, x)
			if l.ID != "" {
				byID[key] = x
			}
		}
		x.lines = append(x.lines, i)
		if x.method == "" {
			x.method = l.Method
		}
		if l.ID != "" && l.Dir != x.dir {
			x.answered = true
			x.failed = x.failed || l.Error
		}
	}
	if len(xs) == 0 {
		return nil, ""
	}
	var named, broken []*exchange
	for _, x := range xs {
		if x.method != "" && namesMethod(message, x.method) {
			named = append(named, x)
			if x.failed || !x.answered && len(lines[x.lines[0]].ID) > 0 {
				broken = append(broken, x)
			}
		}
	}
	pick, why := xs[len(xs)-1], "the spec's last exchange: the failure names none of the methods in this excerpt"
	switch {
	case len(broken) > 0:
		pick = broken[len(broken)-1]
		why = fmt.Sprintf("the last %s exchange, which the failure names, left unanswered or answered with an error", pick.method)
	case len(named) > 0:
		pick = named[len(named)-1]
		why = fmt.Sprintf("the last %s exchange, which the failure names", pick.method)
	}
	marked := map[int]bool{}
	for _, i := range pick.lines {
		marked[i] = true
	}
	first, last := lines[pick.lines[0]].Seq, lines[pick.lines[len(pick.lines)-1]].Seq
	if first == last {
		return marked, fmt.Sprintf("marked: #%d, %s", first, why)
	}
	return marked, fmt.Sprintf("marked: #%d to #%d, %s", first, last, why)
}

// namesMethod reports whether message names method as a word of its own:
// "app/install" is named in "app/install was answered", not in
// "app/installs" or "xapp/install".
func namesMethod(message, method string) bool {
	word := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_'
	}
	for from := 0; ; {
		i := strings.Index(message[from:], method)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(method)
		if (i == 0 || !word(message[i-1])) && (end == len(message) || !word(message[end])) {
			return true
		}
		from = i + 1
	}
}
