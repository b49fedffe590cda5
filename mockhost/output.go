package mockhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentapp/conformance/drivers/hostbridge"
)

// maxValidationRetries is the most retries an app may ask for (the
// app.runtime.yaml schema's bound).
const maxValidationRetries = 10

// outputCheck is the structured output an app asked a task for (spec 000,
// Structured output): the JSON Schema its result must meet and how many
// retries a failing result may have. The host validates before it
// projects success; after the limit the task ends as
// error_max_structured_output_retries, and a natural-language summary is
// never a success.
type outputCheck struct {
	schema  *jsonschema.Schema
	retries int
	tried   int
	turn    map[string]any // the turn/start params a retry repeats
}

// parseOutputCheck reads startTask's expectedOutput {outputFormat: {type:
// json_schema, schema, maxValidationRetries}}; nil when it asks for none.
func parseOutputCheck(raw json.RawMessage) (*outputCheck, *denial) {
	if len(raw) == 0 {
		return nil, nil
	}
	var e struct {
		OutputFormat struct {
			Type                 string          `json:"type"`
			Schema               json.RawMessage `json:"schema"`
			MaxValidationRetries *int            `json:"maxValidationRetries"`
		} `json:"outputFormat"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return nil, invalidArgs("expectedOutput must be an object.")
	}
	f := e.OutputFormat
	if f.Type != "json_schema" {
		return nil, nil
	}
	if len(f.Schema) == 0 {
		return nil, invalidArgs("expectedOutput.outputFormat needs an inline schema (schemaRef is not supported by this host).")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(f.Schema))
	if err != nil {
		return nil, invalidArgs("expectedOutput.outputFormat.schema is not JSON.")
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // an app's schema reaches nothing outside itself
	if err := c.AddResource("app:///output.schema.json", doc); err != nil {
		return nil, invalidArgs("expectedOutput.outputFormat.schema is not a schema.")
	}
	sch, err := c.Compile("app:///output.schema.json")
	if err != nil {
		return nil, invalidArgs("expectedOutput.outputFormat.schema does not compile.")
	}
	oc := &outputCheck{schema: sch, retries: 2}
	if f.MaxValidationRetries != nil {
		if *f.MaxValidationRetries < 0 || *f.MaxValidationRetries > maxValidationRetries {
			return nil, invalidArgs(fmt.Sprintf("maxValidationRetries is from 0 to %d.", maxValidationRetries))
		}
		oc.retries = *f.MaxValidationRetries
	}
	return oc, nil
}

// valid reports whether a success result's payload carries an output that
// meets the schema.
func (oc *outputCheck) valid(payload json.RawMessage) bool {
	var p struct {
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(payload, &p) != nil || len(p.Output) == 0 {
		return false
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(p.Output))
	if err != nil {
		return false
	}
	return oc.schema.Validate(v) == nil
}

// checkOutput decides what becomes of a success result of t's turn that
// carries structured output: projected as it is (valid), replaced by a
// retry (invalid, retries left), or ended as
// error_max_structured_output_retries. It reports whether ev is to be
// projected, possibly changed. Called under c.mu.
func (c *agentClient) checkOutput(t *agentTaskLink, ev *appServerEvent) bool {
	oc := t.output
	if oc == nil || ev.Type != "result" || ev.Subtype != "success" {
		return true
	}
	// fault: structured-output-unchecked — a success result is projected without validating its output against the schema.
	if c.h.faults.Has("structured-output-unchecked") || oc.valid(ev.Payload) {
		return true
	}
	oc.tried++
	limit := oc.retries
	// fault: structured-output-retries-unbounded — a failing output is retried five times more than maxValidationRetries allows.
	if c.h.faults.Has("structured-output-retries-unbounded") {
		limit += 5
	}
	if oc.tried <= limit {
		t.ended = false
		go c.retryTurn(t)
		return false
	}
	ev.Subtype = "error_max_structured_output_retries"
	ev.Payload = json.RawMessage(fmt.Sprintf(`{"message":"The result did not match the expected output after %d retries."}`, oc.tried-1))
	return true
}

// retryTurn starts another turn with the same params in the task's
// session; its facts are projected to the same task.
func (c *agentClient) retryTurn(t *agentTaskLink) {
	ctx := context.Background()
	conn, err := c.connection(ctx)
	if err == nil {
		var r struct {
			TurnID string `json:"turnId"`
		}
		c.mu.Lock()
		params := t.output.turn
		c.mu.Unlock()
		if err = call(ctx, c.callTimeout(), conn, "agentSession/turn/start", params, &r); err == nil && r.TurnID != "" {
			c.register(t, r.TurnID)
			return
		}
	}
	c.h.pushTaskEvent(t, hostbridge.TaskEvent{Type: "result", Subtype: "error_during_execution",
		Payload: json.RawMessage(`{"message":"The agent runtime did not take the retry."}`)})
}
