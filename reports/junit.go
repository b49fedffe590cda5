package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentapp/conformance/levels"
)

// JUnit XML in the structure Jenkins' junit-10.xsd states and CI consumers
// (Jenkins, GitLab, GitHub) accept: one testsuites holding one testsuite for
// the run; one testcase per spec, and one per requirement no spec reported
// for. A testcase names the requirements it serves in classname (ids joined
// by ",") and in system-out with the requested levels they count for; the
// schema allows no properties inside a testcase. A spec's artifacts follow
// in its system-out, one "[[ATTACHMENT|path]]" line each (the Jenkins
// junit-attachments convention), path relative to the report folder.
//
// The outcome lattice maps onto the schema's three children:
//
//	failed                              <failure type="failed|warning|precondition">
//	error, flaky, blocked, interrupted  <error type="error|flaky|blocked|interrupted">
//	skipped, not-run                    <skipped message="...">
//	passed                              nothing
//
// so CI shows "the host broke the clause" apart from "could not judge".
// A flaky spec is an error, not Surefire's <flakyFailure>: junit-10.xsd has
// no such element (junit_schema_test.go), and a consumer that knows only
// the schema must still see that the spec did not pass.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

// junitSuite's fields are in the schema's order: properties, testcase*.
type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitCase's children are in the schema's order: skipped?, error*,
// failure*, system-out*.
type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

// junitText is multi-line text kept readable in the file: a CDATA section
// (encoding/xml splits a "]]>" inside it), with the characters XML 1.0
// cannot carry replaced.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

// xmlText replaces what XML 1.0 cannot carry (control characters, invalid
// UTF-8) with U+FFFD; CDATA sections, unlike escaped text, carry no escapes.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == utf8.RuneError, r >= 0xD800 && r <= 0xDFFF, r == 0xFFFE, r == 0xFFFF:
			return utf8.RuneError
		}
		return r
	}, s)
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// junitSpec gathers one spec's results across the requirements it serves.
type junitSpec struct {
	spec SpecResult
	reqs []RequirementResult
}

// WriteJUnit writes junit.xml for r. It renders r's settled outcomes and
// verdicts (Settle) and decides none.
func WriteJUnit(w io.Writer, r *Report, cat *levels.Catalog) error {
	if cat == nil {
		cat = levels.Default()
	}
	specs := map[string]*junitSpec{}
	var notRun []string
	var cases []junitCase
	for _, rr := range r.Requirements {
		if len(rr.Specs) == 0 {
			notRun = append(notRun, rr.ID)
			cases = append(cases, junitRequirementCase(r, cat, rr))
		}
		for _, s := range rr.Specs {
			js := specs[s.Name]
			if js == nil {
				js = &junitSpec{spec: s}
				specs[s.Name] = js
			}
			js.reqs = append(js.reqs, rr)
		}
	}
	for _, js := range specs {
		cases = append(cases, junitSpecCase(r, cat, js))
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })

	suite := junitSuite{
		Name:       "agentapp conformance: " + HostIdentity(r.Host),
		Time:       seconds(r.DurationMs),
		Timestamp:  r.StartedAt.UTC().Format(time.RFC3339),
		Properties: junitProperties(r, notRun),
		Cases:      cases,
	}
	for _, c := range cases {
		suite.Tests++
		switch {
		case c.Failure != nil:
			suite.Failures++
		case c.Error != nil:
			suite.Errors++
		case c.Skipped != nil:
			suite.Skipped++
		}
	}
	doc := junitSuites{Name: "agentapp-conformance", Tests: suite.Tests, Failures: suite.Failures,
		Errors: suite.Errors, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("writing junit.xml: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing junit.xml: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("writing junit.xml: %w", err)
	}
	return nil
}

// junitProperties are the run's: who was judged against what, how the run
// ended, and the verdict of every requested level this harness can judge
// (a not-judged level says nothing about the host, so CI is not shown one).
func junitProperties(r *Report, notRun []string) []junitProperty {
	ps := []junitProperty{
		{"host", HostIdentity(r.Host)},
		{"host.kind", r.Host.Kind},
		{"harness", r.Harness.Name + " " + r.Harness.Version},
		{"standard", r.Standard.Name + " " + r.Standard.Version},
		{"run.status", r.Run.Status},
	}
	if r.Run.Reason != "" {
		ps = append(ps, junitProperty{"run.reason", r.Run.Reason})
	}
	for _, l := range r.Levels {
		if l.Verdict != LevelNotJudged {
			ps = append(ps, junitProperty{"level." + l.ID, string(l.Verdict)})
		}
	}
	if len(notRun) > 0 {
		ps = append(ps, junitProperty{"requirements.notRun", strings.Join(notRun, ",")})
	}
	return ps
}

// junitSpecCase renders one spec.
func junitSpecCase(r *Report, cat *levels.Catalog, js *junitSpec) junitCase {
	s := js.spec
	ids := make([]string, len(js.reqs))
	for i, rr := range js.reqs {
		ids[i] = rr.ID
	}
	c := junitCase{Name: s.Name, Classname: strings.Join(ids, ","), Time: seconds(s.DurationMs),
		SystemOut: junitSystemOut(r, cat, js.reqs)}
	for _, a := range s.Artifacts {
		c.SystemOut.Text += xmlText(junitAttachment(a.Path)) + "\n"
	}
	msg, loc := "", ""
	if s.Failure != nil {
		msg, loc = s.Failure.Message, s.Failure.Location
	}
	body := msg
	if loc != "" {
		body += "\nat " + loc
	}
	for _, rr := range js.reqs {
		body += fmt.Sprintf("\n%s (%s) cites %s §%s: %q", rr.ID, rr.Strength, rr.Clause.File, rr.Clause.Section, rr.Clause.Quote)
	}
	setOutcome(&c, s.Outcome, failureType(cat, js.reqs, s.Outcome), msg, body)
	return c
}

// junitRequirementCase renders a requirement no spec reported for, so CI
// sees it rather than a green run without it.
func junitRequirementCase(r *Report, cat *levels.Catalog, rr RequirementResult) junitCase {
	c := junitCase{Name: fmt.Sprintf("[%s] %s (no spec reported)", rr.ID, rr.Title), Classname: rr.ID,
		Time: seconds(0), SystemOut: junitSystemOut(r, cat, []RequirementResult{rr})}
	setOutcome(&c, rr.Outcome, string(rr.Outcome), rr.Reason, rr.Reason)
	return c
}

// flakyJUnit opens the body of a flaky spec's <error>; the message that
// follows is the failure of the run that failed. What it does to each
// level (error for a must, nothing for a should) is in system-out.
const flakyJUnit = "flaky: the spec failed, then passed when re-run at once, so nothing was judged (never reported as passed). The failure:"

// setOutcome puts outcome o on c as the schema's child for it.
func setOutcome(c *junitCase, o Outcome, failType, msg, body string) {
	head := firstLine(strings.TrimSpace(msg))
	if head == "" {
		head = string(o)
	}
	switch o {
	case Passed:
	case Failed:
		c.Failure = &junitMessage{Message: head, Type: failType, Body: xmlText(body)}
	case Error, Flaky, Blocked, Interrupted:
		if o == Flaky {
			body = flakyJUnit + "\n" + body
		}
		c.Error = &junitMessage{Message: head, Type: string(o), Body: xmlText(body)}
	default: // skipped, not-run
		c.Skipped = &junitSkipped{Message: string(o) + ": " + head}
		if head == string(o) {
			c.Skipped.Message = head
		}
	}
}

// failureType says what a failed spec does (EffectOf): "failed" when a
// binding requirement of the standard failed, else "precondition" for a
// broken protocol precondition (its levels are error, not failed), else
// "warning" (a should or may).
func failureType(cat *levels.Catalog, reqs []RequirementResult, o Outcome) string {
	typ := ""
	for _, rr := range reqs {
		cr, ok := cat.Requirement(rr.ID)
		if !ok {
			return "failed"
		}
		switch EffectOf(cr, o) {
		case EffectFail:
			return "failed"
		case EffectUnjudged:
			typ = "precondition"
		case EffectWarn:
			if typ == "" {
				typ = "warning"
			}
		}
	}
	if typ == "" {
		typ = "failed"
	}
	return typ
}

// junitSystemOut names the requirements a testcase serves, their strength
// and outcome, and the requested levels each counts for with their verdicts.
func junitSystemOut(r *Report, cat *levels.Catalog, reqs []RequirementResult) *junitText {
	verdict := map[string]Verdict{}
	for _, l := range r.Levels {
		verdict[l.ID] = l.Verdict
	}
	var b strings.Builder
	for _, rr := range reqs {
		var lv []string
		if cr, ok := cat.Requirement(rr.ID); ok {
			for _, id := range r.Requested {
				if cat.InLevel(cr, id) {
					lv = append(lv, fmt.Sprintf("%s (%s)", id, verdict[id]))
				}
			}
		} else {
			lv = rr.Levels
		}
		fmt.Fprintf(&b, "requirement %s (%s): %s; levels: %s\n", rr.ID, rr.Strength, rr.Outcome, strings.Join(lv, ", "))
	}
	return &junitText{Text: xmlText(b.String())}
}

// junitAttachment is the line that attaches the file at p to a testcase in
// Jenkins' junit-attachments plugin (and the CI tools that read the same
// convention): alone on its line, nothing before or after it.
func junitAttachment(p string) string { return "[[ATTACHMENT|" + p + "]]" }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
