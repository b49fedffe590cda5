package workflows

import (
	"encoding/json"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// describeIdempotentStart declares the specs of a start that repeats an
// idempotency key the app already used (spec 001 Minimum contract: a start
// "includes app id, entry key, idempotency key"; docs/decisions.md
// "Workflow runtime": the key's common meaning, one request, one run).
func describeIdempotentStart(tc *harness.TestContext) {
	DescribeTable("starts no second run for a start repeating an idempotency key the app used, with another input,",
		func(flow, when string, reached func(app, run, topic string)) {
			app := installWorkflowApp(tc, tc.DefaultConfigure())
			key, topic := harness.Nonce("idem"), harness.Nonce("first")
			first := startKeyedWith(tc, app, flow, key, topic)
			reached(app, first, topic)
			// Both sides of the boundary: a new key is a new request.
			tc.Precondition("a start of "+flow+" with a new idempotency key starts a run of its own", func() {
				if other := startRunKeyed(tc, app, flow, harness.Nonce("idem")); other == first {
					tc.Failf("lime.workflow start with a new idempotency key answered the run %s of the key %s", first, key)
				}
			})
			second := harness.Nonce("second")
			m := workflowCall(tc, app, "start", map[string]any{"workflowKey": flow, "input": typedInput(second), "idempotencyKey": key})
			var v runView
			switch {
			case m.Type == hostbridge.TypeError:
				// The error's message, wherever the host puts it (payload or
				// envelope: docs/decisions.md "Host Bridge payloads").
				if why := hostbridge.ErrorOf(m).Message; !strings.Contains(why, key) && !strings.Contains(why, first) {
					tc.Blockedf("the start repeating the idempotency key %s was refused without naming the key or its run %s, so whether the host held the key is not seen: %s",
						key, first, harness.AnswerText(m, true))
				}
			case m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil || v.RunID == "":
				tc.Failf("the start repeating the idempotency key %s got %s, neither its run %s nor a refusal", key, harness.AnswerText(m, true), first)
			case v.RunID != first:
				tc.Failf("the start repeating the idempotency key %s of run %s (%s) started another run: %s", key, first, when, v)
			}
			if flow == typedFlow {
				if stored := readStored(tc, app, typedFlowKey); strings.Contains(stored, second) {
					tc.Failf("after the start repeating the idempotency key %s, the app's storage holds %s = %s, the input of that start", key, typedFlowKey, stored)
				}
			}
		},
		Entry("the first run still waiting at its review", tc.Req("WORKFLOW-IDEMPOTENT-START", levels.EveryTransition), reviewFlow, "waiting at its review",
			func(app, run, _ string) { expectRunAt(tc, app, run, "waiting", "review") }),
		Entry("the first run completed, its input stored", tc.Req("WORKFLOW-IDEMPOTENT-START", levels.EveryTransition, levels.ChangeBetweenReads), typedFlow, "completed",
			func(app, run, topic string) { expectCompletedWith(tc, app, run, topic) }),
	)

	// Two requests confusable by their key alone: the key the app used to
	// start one workflow, reused to start another, is not a repeat of
	// that start (the protocol: "a start of the same workflow repeating an
	// idempotencyKey"). The other workflow's run, still waiting, must not
	// answer for it; a refusal naming the key is a host that keys by app.
	It("never answers a start of one workflow with the run of another the app started with the same idempotency key", tc.Req("WORKFLOW-IDEMPOTENT-START", levels.ConfusableIdentity), func() {
		app := installWorkflowApp(tc, tc.DefaultConfigure())
		key := harness.Nonce("idem")
		first := startKeyedWith(tc, app, reviewFlow, key, harness.Nonce("first"))
		expectRunAt(tc, app, first, "waiting", "review")
		topic := harness.Nonce("second")
		m := workflowCall(tc, app, "start", map[string]any{"workflowKey": typedFlow, "input": typedInput(topic), "idempotencyKey": key})
		var v runView
		switch {
		case m.Type == hostbridge.TypeError:
			if why := hostbridge.ErrorOf(m).Message; !strings.Contains(why, key) {
				tc.Blockedf("the start of %s with the idempotency key %s of a run of %s was refused without naming the key, so why is not seen: %s",
					typedFlow, key, reviewFlow, harness.AnswerText(m, true))
			}
			tc.Reading("a start of another workflow reusing an idempotency key", "refused naming the key")
		case m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil || v.RunID == "":
			tc.Failf("the start of %s with the idempotency key %s of a run of %s got %s, neither a run nor a refusal", typedFlow, key, reviewFlow, harness.AnswerText(m, true))
		case v.RunID == first:
			tc.Failf("the start of %s with the idempotency key %s answered the run %s of %s, which the app started with that key: %s", typedFlow, key, first, reviewFlow, v)
		}
	})

	// Keys confusable by their spelling alone: an idempotency key is the
	// app's string, matched as it is (docs/decisions.md "Workflow
	// runtime"), so a key differing from one the app used only in the
	// case of its letters is a new request. A host folding keys (taking
	// them for UUIDs) answers it with the run of the other. The control:
	// the key repeated exactly gets its run.
	It("starts a run of its own for a start whose idempotency key differs from one the app used only in the case of its letters", tc.Req("WORKFLOW-IDEMPOTENT-START", levels.ConfusableIdentity), func() {
		app := installWorkflowApp(tc, tc.DefaultConfigure())
		key := "Order-" + harness.Nonce("idem")
		first := startRunKeyed(tc, app, reviewFlow, key)
		tc.Precondition("a start of "+reviewFlow+" repeating the idempotency key "+key+" exactly answers its run "+first+" or a refusal naming the key", func() {
			m := workflowCall(tc, app, "start", map[string]any{"workflowKey": reviewFlow, "input": typedInput(harness.Nonce("again")), "idempotencyKey": key})
			var v runView
			held := m.Type == hostbridge.TypeResponse && json.Unmarshal(m.Payload, &v) == nil && v.RunID == first ||
				m.Type == hostbridge.TypeError && strings.Contains(hostbridge.ErrorOf(m).Message, key)
			if !held {
				tc.Failf("the start repeating the idempotency key %s of run %s got %s", key, first, harness.AnswerText(m, true))
			}
		})
		var taken []string
		for _, other := range []string{strings.ToUpper(key), strings.ToLower(key)} {
			m := workflowCall(tc, app, "start", map[string]any{"workflowKey": reviewFlow, "input": typedInput(harness.Nonce("other")), "idempotencyKey": other})
			var v runView
			if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil || v.RunID == "" || v.RunID == first {
				taken = append(taken, fmt.Sprintf("%q got %s", other, harness.AnswerText(m, true)))
			}
		}
		if len(taken) > 0 {
			tc.Failf("starts of %s whose idempotency keys only look like %s (the key of run %s) were not each given a run of their own: %s",
				reviewFlow, key, first, strings.Join(taken, "; "))
		}
	})
}

// expectCompletedWith is a positive control: typed_flow's run completes
// and stores its input, marked topic.
func expectCompletedWith(tc *harness.TestContext, app, run, topic string) {
	GinkgoHelper()
	tc.Precondition("the run of "+typedFlow+" completes and stores its input", func() {
		if v := settleRun(tc, app, run); v.Status != "completed" {
			tc.Failf("the run of %s is %s, not completed", typedFlow, v)
		}
		if v := readStored(tc, app, typedFlowKey); !strings.Contains(v, topic) {
			tc.Failf("the completed run of %s saved %s = %s, not its input", typedFlow, typedFlowKey, v)
		}
	})
}

// typedInput is an input typed_flow's declared inputs accept (review_flow
// declares none), its topic marked.
func typedInput(topic string) map[string]any {
	return map[string]any{"topic": topic, "count": 1}
}

// startKeyedWith starts a run of flow with the idempotency key idem and
// typedInput(topic): a host that will not start one leaves the spec
// blocked.
func startKeyedWith(tc *harness.TestContext, app, flow, idem, topic string) string {
	GinkgoHelper()
	return startKeyedInput(tc, app, flow, idem, typedInput(topic))
}

// startKeyedInput is startKeyedWith with the input given.
func startKeyedInput(tc *harness.TestContext, app, flow, idem string, input map[string]any) string {
	GinkgoHelper()
	var v runView
	tc.Precondition("lime.workflow start of "+flow+" is answered with a run", func() {
		m := workflowCall(tc, app, "start", map[string]any{"workflowKey": flow, "input": input, "idempotencyKey": idem})
		if m.Type != hostbridge.TypeResponse || json.Unmarshal(m.Payload, &v) != nil || v.RunID == "" {
			tc.Failf("lime.workflow start of %s got %s, not host:response with a runId", flow, harness.AnswerText(m, true))
		}
	})
	return v.RunID
}
