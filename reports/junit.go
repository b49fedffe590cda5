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
//	failed                              <failure type="failed|precondition">
//	error, flaky, blocked, interrupted  <error type="error|flaky|blocked|interrupted">
//	skipped, not-run, not-applicable    <skipped message="...">
//	passed                              nothing
//
// so CI shows "the host broke the clause" apart from "could not judge".
// Red (<failure>, <error>) only where run's exit code can be non-zero
// (junitRoleOf): a failed should / may is <skipped message="warning: ...">,
// a failure the baseline forgives <skipped message="expected failure:
// ...">, an error / flaky / blocked should / may <skipped>, and a stale
// baseline entry a red testcase of its own (docs/report-format.md
// "junit.xml" says why <skipped>).
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
	Body    string `xml:",cdata"`
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
	baseline := Baseline(&r.Results)
	listed := map[string]BaselineEntry{}
	for _, e := range baseline {
		listed[e.ID] = e
		if e.State == BaselineStale {
			cases = append(cases, junitStaleCase(e))
		}
	}
	for _, rr := range r.Requirements {
		if len(rr.Specs) == 0 {
			notRun = append(notRun, rr.ID)
			cases = append(cases, junitRequirementCase(r, cat, rr, listed))
		}
		for _, s := range rr.Specs {
			// A browser spec of a run over several engines is one case per engine.
			key := s.Name + "\x00" + s.Engine
			js := specs[key]
			if js == nil {
				js = &junitSpec{spec: s}
				specs[key] = js
			}
			js.reqs = append(js.reqs, rr)
		}
	}
	for _, js := range specs {
		cases = append(cases, junitSpecCase(r, cat, js, listed))
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })

	suite := junitSuite{
		Name:       "agentapp conformance: " + HostIdentity(r.Host),
		Time:       seconds(r.DurationMs),
		Timestamp:  r.StartedAt.UTC().Format(time.RFC3339),
		Properties: junitProperties(r, notRun, baseline),
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
func junitProperties(r *Report, notRun []string, baseline []BaselineEntry) []junitProperty {
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
	// The baseline (--expected-failures), by what became of each entry.
	by := map[BaselineState][]string{}
	for _, e := range baseline {
		by[e.State] = append(by[e.State], e.ID)
	}
	for _, st := range []BaselineState{BaselineStillFailing, BaselineStale, BaselineNotJudged} {
		if len(by[st]) > 0 {
			ps = append(ps, junitProperty{"expectedFailures." + string(st), strings.Join(by[st], ",")})
		}
	}
	return ps
}

// junitSpecCase renders one spec.
func junitSpecCase(r *Report, cat *levels.Catalog, js *junitSpec, listed map[string]BaselineEntry) junitCase {
	s := js.spec
	ids := make([]string, len(js.reqs))
	for i, rr := range js.reqs {
		ids[i] = rr.ID
	}
	c := junitCase{Name: junitCaseName(s), Classname: strings.Join(ids, ","), Time: seconds(s.DurationMs),
		SystemOut: junitSystemOut(r, cat, js.reqs, listed)}
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
	setOutcome(&c, s.Outcome, junitRoleOf(cat, js.reqs, s.Outcome, listed), msg, body)
	return c
}

// junitCaseName is a spec's testcase name: a browser spec's ends with the
// engine it judged in ("... [webkit]"), so each engine's case is its own.
func junitCaseName(s SpecResult) string {
	if s.Engine == "" {
		return s.Name
	}
	return s.Name + " [" + s.Engine + "]"
}

// junitRequirementCase renders a requirement no spec reported for, so CI
// sees it rather than a green run without it.
func junitRequirementCase(r *Report, cat *levels.Catalog, rr RequirementResult, listed map[string]BaselineEntry) junitCase {
	c := junitCase{Name: fmt.Sprintf("[%s] %s (no spec reported)", rr.ID, rr.Title), Classname: rr.ID,
		Time: seconds(0), SystemOut: junitSystemOut(r, cat, []RequirementResult{rr}, listed)}
	setOutcome(&c, rr.Outcome, junitRoleOf(cat, []RequirementResult{rr}, rr.Outcome, listed), rr.Reason, rr.Reason)
	return c
}

// junitStaleCase is the testcase of a baseline entry whose requirement
// passed: the entry fails the run (exit 1), so CI shows it red, once, named
// by the requirement.
func junitStaleCase(e BaselineEntry) junitCase {
	msg := fmt.Sprintf("stale expected failure: %s passes now; remove it from the expected failures", e.ID)
	return junitCase{Name: fmt.Sprintf("[%s] expected failure is stale", e.ID), Classname: e.ID, Time: seconds(0),
		Failure: &junitMessage{Message: msg, Type: "stale-expected-failure",
			Body: xmlText(msg + " (listed as: " + e.Reason + "). A baseline only shrinks: a listed requirement that passes fails the run.")}}
}

// junitRole is how a testcase that did not pass is shown. CI tools
// (Jenkins, GitLab, GitHub's reporters) show <failure> and <error> red and
// count them against the build, and <skipped> as not failing: a testcase
// is red only when its outcome can make run's exit code non-zero.
type junitRole struct {
	// red: <failure> / <error>; otherwise <skipped> opened by prefix.
	red bool
	// failType is the <failure> type of a red failed testcase: "failed"
	// (a binding requirement of the standard) or "precondition".
	failType string
	// prefix opens the <skipped> message of a testcase that is not red:
	// "warning" (a failed should / may), "expected failure" (a failure the
	// baseline forgives), or "unjudged" (a should / may not judged).
	prefix string
}

// junitRoleOf decides nothing the report has not: it reads each served
// requirement's effect (EffectOf) and the baseline (Baseline). A failure
// is red when a requirement it serves fails a level (EffectFail) or leaves
// it unjudged (a protocol precondition), unless the baseline forgives each
// such requirement (listed, still failing): then it is an expected failure.
// A failure of shoulds / mays only is a warning. Interrupted is always red
// (the run exits 130). Error, flaky and blocked are red when a requirement
// it serves is binding (exit 7, whatever the baseline says, which forgives
// failures only); of a should / may only, they change no level.
func junitRoleOf(cat *levels.Catalog, reqs []RequirementResult, o Outcome, listed map[string]BaselineEntry) junitRole {
	var role junitRole
	forgiven := 0
	for _, rr := range reqs {
		cr, ok := cat.Requirement(rr.ID)
		if !ok { // not in this catalog: shown as the worst it can be
			return junitRole{red: true, failType: "failed"}
		}
		switch eff := EffectOf(cr, o); {
		case o == Interrupted: // the run was stopped: exit 130
			role.red = true
		case eff == EffectFail, eff == EffectUnjudged:
			if o == Failed && listed[rr.ID].State == BaselineStillFailing {
				forgiven++
				continue
			}
			role.red = true
			if eff == EffectFail {
				role.failType = "failed"
			} else if role.failType == "" {
				role.failType = "precondition"
			}
		}
	}
	switch {
	case role.red:
	case forgiven > 0:
		role.prefix = "expected failure"
	case o == Failed:
		role.prefix = "warning"
	default:
		role.prefix = "unjudged"
	}
	return role
}

// flakyJUnit opens the body of a flaky spec's <error>; the message that
// follows is the failure of the run that failed. What it does to each
// level (error for a must, nothing for a should) is in system-out.
const flakyJUnit = "flaky: the spec failed, then passed when re-run at once, so nothing was judged (never reported as passed). The failure:"

// setOutcome puts outcome o on c as the schema's child for it, as role
// says (junitRoleOf).
func setOutcome(c *junitCase, o Outcome, role junitRole, msg, body string) {
	head := firstLine(strings.TrimSpace(msg))
	if head == "" {
		head = string(o)
	}
	switch o {
	case Passed:
		return
	case Skipped, NotRun, NotApplicable:
		c.Skipped = &junitSkipped{Message: string(o) + ": " + head}
		if head == string(o) {
			c.Skipped.Message = head
		}
		return
	}
	if o == Flaky {
		body = flakyJUnit + "\n" + body
	}
	switch {
	case !role.red:
		// Shown, not failing: the message says what it is; the body what
		// it does to the levels, then the whole failure.
		what := role.prefix + ": "
		if role.prefix == "unjudged" {
			what = string(o) + " (a should / may: changes no level): "
		}
		c.Skipped = &junitSkipped{Message: what + head, Body: xmlText(notRedJUnit[role.prefix] + "\n" + body)}
	case o == Failed:
		c.Failure = &junitMessage{Message: head, Type: role.failType, Body: xmlText(body)}
	default:
		c.Error = &junitMessage{Message: head, Type: string(o), Body: xmlText(body)}
	}
}

// notRedJUnit opens the body of a testcase shown as <skipped> though its
// spec did not pass: a red <failure> or <error> would fail a CI build
// that run's exit code passes.
var notRedJUnit = map[string]string{
	"warning":          "warning: a should / may failed; it fails no level and not the run. The failure:",
	"expected failure": "expected failure: listed in --expected-failures, it still fails; the run's exit code forgives it (report.json keeps the failure). The failure:",
	"unjudged":         "a should / may that could not be judged changes no level and not the run. What happened:",
}

// junitSystemOut names the requirements a testcase serves, their strength
// and outcome, and the requested levels each counts for with their verdicts.
func junitSystemOut(r *Report, cat *levels.Catalog, reqs []RequirementResult, listed map[string]BaselineEntry) *junitText {
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
		if e, ok := listed[rr.ID]; ok {
			fmt.Fprintf(&b, "expected failure %s (%s): %s\n", rr.ID, e.Reason, baselineJUnit(e))
		}
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

// baselineJUnit says what became of a baseline entry.
func baselineJUnit(e BaselineEntry) string {
	switch e.State {
	case BaselineStillFailing:
		return "still fails, as listed; it does not fail the run"
	case BaselineStale:
		return "passes now: the entry is stale and fails the run; remove it"
	}
	return fmt.Sprintf("is %s, not failed: the baseline forgives failures only, so it counts as %s", e.Outcome, e.Outcome)
}
