package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// JUnit XML (the common Jenkins / GitLab / GitHub dialect): one testsuite
// for the run, one testcase per spec, with the requirement ids and levels
// the spec counts for as properties.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name       string          `xml:"name,attr"`
	Classname  string          `xml:"classname,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Failure    *junitMessage   `xml:"failure,omitempty"`
	Skipped    *junitMessage   `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// junitSpec gathers one spec's results across the requirements it serves.
type junitSpec struct {
	spec   SpecResult
	reqs   []RequirementResult
	levels map[string]bool
}

// WriteJUnit writes junit.xml for r.
func WriteJUnit(w io.Writer, r *Report, cat *levels.Catalog) error {
	if cat == nil {
		cat = levels.Default()
	}
	specs := map[string]*junitSpec{}
	var notRun []string
	for _, rr := range r.Requirements {
		if len(rr.Specs) == 0 {
			notRun = append(notRun, rr.ID)
		}
		lv := rr.Levels
		if cr, ok := cat.Requirement(rr.ID); ok {
			lv = cat.LevelLabels(cr)
		}
		for _, s := range rr.Specs {
			js := specs[s.Name]
			if js == nil {
				js = &junitSpec{spec: s, levels: map[string]bool{}}
				specs[s.Name] = js
			}
			js.reqs = append(js.reqs, rr)
			for _, l := range lv {
				js.levels[l] = true
			}
		}
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	suite := junitSuite{
		Name:      "agentapp conformance: " + HostIdentity(r.Host),
		Time:      seconds(r.DurationMs),
		Timestamp: r.StartedAt.UTC().Format("2006-01-02T15:04:05"),
		Properties: []junitProperty{
			{"host", HostIdentity(r.Host)},
			{"host.kind", r.Host.Kind},
			{"harness", r.Harness.Name + " " + r.Harness.Version},
			{"standard", r.Standard.Name + " " + r.Standard.Version},
			{"levels.requested", strings.Join(r.Requested, ",")},
			{"levels.passed", strings.Join(r.LevelsPassed, ",")},
			{"requirements.notRun", strings.Join(notRun, ",")},
		},
	}
	for _, n := range names {
		js := specs[n]
		c := junitCase{Name: n, Time: seconds(js.spec.DurationMs)}
		ids := make([]string, len(js.reqs))
		for i, rr := range js.reqs {
			ids[i] = rr.ID
			c.Properties = append(c.Properties, junitProperty{"requirement", rr.ID})
		}
		c.Classname = strings.Join(ids, ",")
		lv := make([]string, 0, len(js.levels))
		for l := range js.levels {
			lv = append(lv, l)
		}
		sort.Strings(lv)
		for _, l := range lv {
			c.Properties = append(c.Properties, junitProperty{"level", l})
		}
		msg := ""
		if js.spec.Failure != nil {
			msg = js.spec.Failure.Message
		}
		switch js.spec.Outcome {
		case Failed:
			body := msg
			if js.spec.Failure != nil && js.spec.Failure.Location != "" {
				body += "\nat " + js.spec.Failure.Location
			}
			for _, rr := range js.reqs {
				body += fmt.Sprintf("\n%s cites %s §%s: %q", rr.ID, rr.Clause.File, rr.Clause.Section, rr.Clause.Quote)
			}
			c.Failure = &junitMessage{Message: firstLine(msg), Type: "failed", Body: body}
			suite.Failures++
		case Skipped, NotRun:
			if msg == "" {
				msg = string(js.spec.Outcome)
			}
			c.Skipped = &junitMessage{Message: msg}
			suite.Skipped++
		}
		suite.Tests++
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{Name: "agentapp-conformance", Tests: suite.Tests, Failures: suite.Failures,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite}}
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
