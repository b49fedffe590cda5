package workflows

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"
)

// Typed SDK calls (spec 000 Capability SDK: "The SDK is a typed contract";
// Executable: "typed workflows, typed SDK calls"): workflow-app's
// typed_flow declares its inputs as a JSON Schema, a non-empty string
// topic and an integer count of at least 1, and saves its input under
// typedFlowKey (docs/decisions.md "Typed SDK calls").
const (
	typedFlow    = "typed_flow"
	typedFlowKey = "typed-flow-result"
	startMethod  = "lime.workflow start"
)

func describeTypedInputs(tc *harness.TestContext) {
	DescribeTable("checks lime.workflow start's input against the inputs its workflow declares, and refuses, naming the member,",
		func(member string, input func(mark string) map[string]any) {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			good := harness.Nonce("typed")
			// An input that meets the inputs (count at its minimum 1) runs.
			expectCompletedWith(tc, app, startKeyedWith(tc, app, typedFlow, harness.Nonce("run"), good), good)
			mark := harness.Nonce("untyped")
			expectStartRefused(tc, app, member, input(mark), mark)
		},
		Entry("a required topic missing", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.EveryMember), "topic",
			func(string) map[string]any { return map[string]any{"count": 1} }),
		Entry("a required count missing", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.EveryMember), "count",
			func(mark string) map[string]any { return map[string]any{"topic": mark} }),
		Entry("a topic that is a number", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.EveryMember), "topic",
			func(string) map[string]any { return map[string]any{"topic": 7, "count": 1} }),
		Entry("a count that is a string", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.EveryMember), "count",
			func(mark string) map[string]any { return map[string]any{"topic": mark, "count": "2"} }),
		Entry("a count that is not an integer", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.RepresentationLimit), "count",
			func(mark string) map[string]any { return map[string]any{"topic": mark, "count": 1.5} }),
		Entry("a count below its minimum (0, one under the control's 1)", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.RepresentationLimit), "count",
			func(mark string) map[string]any { return map[string]any{"topic": mark, "count": 0} }),
		Entry("an empty topic (minLength 1)", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.RepresentationLimit), "topic",
			func(string) map[string]any { return map[string]any{"topic": "", "count": 1} }),
		Entry("no input at all (null against an object with required members)", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.RepresentationLimit), "input|topic",
			func(string) map[string]any { return nil }),
	)

	// The inputs checked are the installed release's: an update raising
	// count's minimum to 2 makes the count 1 the release before ran a
	// refusal (a host that compiled typed_flow's schema once, by its key,
	// would still run it).
	It("checks lime.workflow start's input against the inputs of the release installed now, after an update changed them", tc.Req("SDK-TYPED-WORKFLOW-INPUT", levels.ChangeBetweenReads), func() {
		app := installWorkflowApp(tc, tc.DefaultConfigure())
		before := harness.Nonce("typed")
		expectCompletedWith(tc, app, startKeyedWith(tc, app, typedFlow, harness.Nonce("run"), before), before)
		tc.UpdatedDir(app, func() string {
			dir := tc.Fixture(workflowFixture)
			harness.ReplaceIn(dir, "APP.md", "minimum: 1", "minimum: 2")
			return dir
		})
		after := harness.Nonce("typed")
		expectCompletedWith(tc, app, startKeyedInput(tc, app, typedFlow, harness.Nonce("run"), map[string]any{"topic": after, "count": 2}), after)
		mark := harness.Nonce("untyped")
		expectStartRefused(tc, app, "count", map[string]any{"topic": mark, "count": 1}, mark)
	})
}

// expectStartRefused judges a start of typed_flow with in (nil: no input),
// which its declared inputs do not accept, marked with mark: refused
// naming member (which may name alternatives, input|topic), or answered
// with a run that ends failed naming it; never run to its save.
func expectStartRefused(tc *harness.TestContext, app, member string, in map[string]any, mark string) {
	GinkgoHelper()
	args := map[string]any{"workflowKey": typedFlow, "idempotencyKey": harness.Nonce("run")}
	if in != nil {
		in["mark"] = mark // the declared inputs allow more members
		args["input"] = in
	}
	// An absent input is refused as such or for its first required member.
	names := strings.Split(member, "|")
	at := harness.At(startMethod, []any{"input", names[len(names)-1]})
	m := workflowCall(tc, app, "start", args)
	raw, _ := json.Marshal(in)
	namesMember := func(text string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return strings.Contains(text, n) })
	}
	switch {
	case m.Type == hostbridge.TypeResponse:
		// A run that ends failed at once, naming the member, keeps the
		// type too (docs/decisions.md "Typed SDK calls").
		var v runView
		if json.Unmarshal(m.Payload, &v) != nil || v.RunID == "" {
			tc.Failf("%s: the input %s does not meet %s's declared inputs, yet the host answered host:response %s", at, raw, typedFlow, m.Payload)
		}
		if v = settleRun(tc, app, v.RunID); v.Status != "failed" || !namesMember(v.Reason) {
			tc.Failf("%s: the input %s does not meet %s's declared inputs, yet the host ran it: %s", at, raw, typedFlow, v)
		}
		tc.Reading("Typed SDK calls", "the start is answered with a run that ends failed, naming the member")
	case m.Type != hostbridge.TypeError:
		tc.Failf("%s: the input %s got %s, neither host:response nor host:error", at, raw, harness.AnswerText(m, true))
	case !namesMember(hostbridge.ErrorOf(m).Message):
		tc.Failf("%s: the refusal of the input %s does not name %q: %s", at, raw, member, harness.AnswerText(m, true))
	}
	if v := readStored(tc, app, typedFlowKey); strings.Contains(v, mark) {
		tc.Failf("%s: the input %s was refused, yet a run saved it: %s = %s", at, raw, typedFlowKey, v)
	}
}
