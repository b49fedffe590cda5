package harness

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/reports"
)

// A spec ends in one of the outcomes of reports.Outcome. A plain failure
// (a Gomega assertion, ginkgo.Fail) is `failed`: the spec saw the host break
// the clause. Whether a failure is instead `blocked` or `error` is decided
// here alone, and travels to the collector as a report entry.

// outcomeEntry names the report entry that carries a non-failed outcome.
const outcomeEntry = "outcome"

// phase says what the spec is doing, and so what a failure in it means.
type phase int

const (
	// judging: a failure is evidence that the host broke the clause.
	judging phase = iota
	// precondition: the positive control on the untouched package, or a
	// step the spec needs (an install, a configuration). A failure means
	// nothing could be judged: blocked.
	precondition
)

// Precondition runs step as a named precondition of the spec: the positive
// control on the same package first, or an install the spec needs. When it
// fails, the spec is blocked, naming what, and judges nothing.
func (tc *TestContext) Precondition(what string, step func()) {
	ginkgo.GinkgoHelper()
	prev, prevWhat := tc.phase, tc.phaseWhat
	tc.phase, tc.phaseWhat = precondition, what
	defer func() { tc.phase, tc.phaseWhat = prev, prevWhat }()
	step()
}

// fail ends the spec with outcome o. Only this function and gomegaFail end
// a spec, so the outcome of every failure is decided in one place.
func (tc *TestContext) fail(o reports.Outcome, msg string) {
	ginkgo.GinkgoHelper()
	if o == reports.Failed && tc.phase == precondition {
		o = reports.Blocked
	}
	if o == reports.Blocked && tc.phaseWhat != "" {
		msg = fmt.Sprintf("precondition %q failed, so nothing was judged: %s", tc.phaseWhat, msg)
	}
	if o != reports.Failed {
		ginkgo.AddReportEntry(outcomeEntry, string(o))
	}
	ginkgo.Fail(tc.publishable(msg))
}

// publishable is what a failure message may say, decided where every
// message is built: planted secrets redacted, then cut to
// reports.MaxFailureText, so that a host's flood quoted in a message bounds
// every file of the report, Ginkgo's log and the console alike.
func (tc *TestContext) publishable(msg string) string {
	if tc.Config.Redact != nil {
		msg = string(tc.Config.Redact([]byte(msg)))
	}
	return reports.ClipFailure(msg)
}

// gomegaFail is Gomega's fail handler: an assertion that fails is a
// violation while judging, and blocks the spec in a precondition.
func (tc *TestContext) gomegaFail(message string, callerSkip ...int) {
	skip := 1
	if len(callerSkip) > 0 {
		skip += callerSkip[0]
	}
	msg := cleanMessage(message)
	if tc.phase == precondition {
		ginkgo.AddReportEntry(outcomeEntry, string(reports.Blocked))
		msg = fmt.Sprintf("precondition %q failed, so nothing was judged: %s", tc.phaseWhat, msg)
	}
	ginkgo.Fail(tc.publishable(msg), skip)
}

// Errorf ends the spec as error where no context is at hand: the harness's
// own trouble (a fixture it cannot write) or a host answer of a shape the
// check cannot use.
func Errorf(format string, args ...any) {
	ginkgo.GinkgoHelper()
	ginkgo.AddReportEntry(outcomeEntry, string(reports.Error))
	ginkgo.Fail(reports.ClipFailure(fmt.Sprintf(format, args...)))
}

// Failf ends the spec as failed: the host broke the clause.
func (tc *TestContext) Failf(format string, args ...any) {
	ginkgo.GinkgoHelper()
	tc.fail(reports.Failed, fmt.Sprintf(format, args...))
}

// Blockedf ends the spec as blocked: a named precondition failed.
func (tc *TestContext) Blockedf(format string, args ...any) {
	ginkgo.GinkgoHelper()
	tc.fail(reports.Blocked, fmt.Sprintf(format, args...))
}

// Skippedf ends the spec as skipped: it cannot apply on this machine (no
// browser), with the reason. A skipped must never lets its level pass.
func (tc *TestContext) Skippedf(format string, args ...any) {
	ginkgo.GinkgoHelper()
	tc.fail(reports.Skipped, fmt.Sprintf(format, args...))
}

// NotApplicablef ends the spec as not-applicable: the clause binds only a
// host that does what this one was seen not to do, and the message says
// what the harness saw. Only after the evidence: a host that could not be
// asked is blocked or error, never not-applicable.
func (tc *TestContext) NotApplicablef(format string, args ...any) {
	ginkgo.GinkgoHelper()
	tc.fail(reports.NotApplicable, fmt.Sprintf(format, args...))
}

// Errorf ends the spec as error: the harness got no usable answer.
func (tc *TestContext) Errorf(format string, args ...any) {
	ginkgo.GinkgoHelper()
	tc.fail(reports.Error, fmt.Sprintf(format, args...))
}

// FailCall ends the spec for a call to method that did not give the result
// the spec needs. No usable answer (timeout, crash, malformed frame, an
// answer that fails its schema) is an error; a host that says it cannot
// take the package (-32006 unsupported) blocks the spec; any other error
// answer fails it while judging and blocks it in a precondition.
func (tc *TestContext) FailCall(method string, err error) {
	ginkgo.GinkgoHelper()
	var he *control.HostError
	if errors.As(err, &he) {
		if he.Code == protocol.CodeUnsupported {
			tc.Blockedf("the host cannot do %s here (-32006 unsupported): %s", method, HostErrorText(he))
		}
		tc.Failf("%s was answered with an error where a result was expected: %s", method, HostErrorText(he))
	}
	tc.Errorf("no usable answer to %s: %v", method, err)
}

// HostError returns the host's error answer in err, if err is one.
func HostError(err error) (*control.HostError, bool) {
	var he *control.HostError
	return he, errors.As(err, &he)
}

// IsSchemaError reports whether err is an answer that came whole but fails
// its schema: the raw answer is there for checks that need no parsed value.
func IsSchemaError(err error) bool {
	var te *control.TransportError
	return errors.As(err, &te) && te.Kind == control.KindSchema
}

// HostErrorText renders a host's error answer with the findings of its data.
func HostErrorText(he *control.HostError) string {
	s := fmt.Sprintf("%d %s", he.Code, he.Message)
	if fs := FindingsOfError(he); len(fs) > 0 {
		s += "; " + findingsText(fs)
	}
	return s
}

// cleanMessage turns a Gomega failure into words for a host engineer. Specs
// pass the host's value to Expect and the harness's expectation to the
// matcher, so Gomega's "Expected <value> to <match> <value>" reads as what
// the host answered and what the harness expected; the Go type annotations
// and the booleans of BeTrue / BeFalse say nothing and go. A value is
// quoted as an excerpt (valueExcerpt): a message says which member was
// wrong, it never dumps a whole answer.
func cleanMessage(m string) string {
	for _, noise := range []string{
		"Expected\n    <bool>: false\nto be true",
		"Expected\n    <bool>: true\nto be false",
	} {
		m = strings.Replace(m, noise, "", 1)
	}
	lines := strings.Split(strings.TrimSpace(m), "\n")
	for i, l := range lines {
		switch {
		case l == "Expected":
			lines[i] = "the host answered:"
		case strings.HasPrefix(l, "to ") || strings.HasPrefix(l, "not to "):
			lines[i] = "where the harness expected it " + l + ":"
		default:
			lines[i] = typeAnnotation.ReplaceAllString(l, "$1")
			if typeAnnotation.MatchString(l) && strings.TrimSpace(lines[i]) == "" {
				lines[i] += `"" (empty)`
			}
		}
	}
	return strings.TrimSpace(strings.Join(valueExcerpts(lines), "\n"))
}

// maxValueLines is how many lines of one value a failure message quotes.
const maxValueLines = 12

// valueExcerpts cuts each quoted value (the indented lines after "the host
// answered:" or "where the harness expected it ...:") to maxValueLines, and
// says "nothing" for a member the host left out.
func valueExcerpts(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); {
		out = append(out, lines[i])
		quotes := lines[i] == "the host answered:" || strings.HasPrefix(lines[i], "where the harness expected it ")
		i++
		if !quotes {
			continue
		}
		j := i
		for j < len(lines) && strings.HasPrefix(lines[j], "    ") {
			j++
		}
		value := lines[i:j]
		switch {
		case len(value) == 1 && strings.TrimSpace(value[0]) == "nil":
			out = append(out, "    nothing (the member is absent or null)")
		case len(value) > maxValueLines:
			out = append(out, value[:maxValueLines-2]...)
			out = append(out, fmt.Sprintf("    … (%d more lines)", len(value)-(maxValueLines-2)))
		default:
			out = append(out, value...)
		}
		i = j
	}
	return out
}

// typeAnnotation is Gomega's "<type>: " before a formatted value.
var typeAnnotation = regexp.MustCompile(`^(\s*)<[^<>]*(?:<[^<>]*>[^<>]*)*>:? ?`)
