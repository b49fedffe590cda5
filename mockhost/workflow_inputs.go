package mockhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// maxInputProblems is how many of an input's problems a refusal names.
const maxInputProblems = 5

// compileInputs compiles a workflow's declared inputs, read as the JSON
// Schema of lime.workflow start's input (spec 000 Capability SDK: "The SDK
// is a typed contract, not only a list of capability names"; the manifest
// schema's workflow.inputs; docs/decisions.md "Typed SDK calls"). A
// workflow without inputs has none to check (nil); one whose inputs do not
// compile cannot be started with a checked input.
func compileInputs(inputs map[string]any) (*jsonschema.Schema, error) {
	if inputs == nil {
		return nil, nil
	}
	raw, err := json.Marshal(inputs)
	if err != nil {
		return nil, fmt.Errorf("encoding inputs: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reading inputs: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // an app's schema reaches nothing outside itself
	if err := c.AddResource("app:///workflow-inputs.schema.json", doc); err != nil {
		return nil, fmt.Errorf("adding inputs: %w", err)
	}
	sch, err := c.Compile("app:///workflow-inputs.schema.json")
	if err != nil {
		return nil, fmt.Errorf("compiling inputs: %w", err)
	}
	return sch, nil
}

// checkInput checks a start's input against the workflow's declared
// inputs; a refusal names each member that does not meet them by its JSON
// pointer under /input.
func (h *Host) checkInput(d workflowDef, input json.RawMessage) *denial {
	// fault: workflow-input-unchecked — a workflow's declared inputs are not checked: a start whose input lacks or mistypes a member runs.
	if d.inputs == nil || h.faults.Has("workflow-input-unchecked") {
		return nil
	}
	sch, err := compileInputs(d.inputs)
	// fault: workflow-inputs-cached-by-key — a workflow's inputs are compiled once and kept by its key: after an update changes them, starts are still checked against the release before's.
	if h.faults.Has("workflow-inputs-cached-by-key") {
		if old, ok := h.inputSchemas.LoadOrStore(d.key, sch); ok {
			sch = old.(*jsonschema.Schema)
		}
	}
	if err != nil {
		return invalidArgs(fmt.Sprintf("Workflow %s declares inputs this host cannot read, so it cannot be started.", d.key))
	}
	if len(bytes.TrimSpace(input)) == 0 {
		// fault: workflow-absent-input-unchecked — a start that gives no input is not checked against the declared inputs: the run starts.
		if h.faults.Has("workflow-absent-input-unchecked") {
			return nil
		}
		input = json.RawMessage("null")
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return invalidArgs(fmt.Sprintf("The input of workflow %s is not JSON.", d.key))
	}
	// fault: workflow-input-required-only — only the presence of the declared inputs' required members is checked: a member of the wrong type or out of bounds runs.
	if h.faults.Has("workflow-input-required-only") {
		return requiredOnly(d, v)
	}
	err = sch.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return invalidArgs(fmt.Sprintf("The input of workflow %s cannot be checked.", d.key))
	}
	var problems []string
	p := message.NewPrinter(language.English)
	for _, leaf := range leaves(ve) {
		at := "/input" + protocol.JSONPointer(leaf.InstanceLocation)
		if r, isReq := leaf.ErrorKind.(*kind.Required); isReq {
			for _, m := range r.Missing {
				problems = append(problems, fmt.Sprintf("%s/%s is missing", at, m))
			}
			continue
		}
		problems = append(problems, fmt.Sprintf("%s: %s", at, leaf.ErrorKind.LocalizedString(p)))
	}
	slices.Sort(problems)
	problems = slices.Compact(problems)
	if len(problems) > maxInputProblems {
		problems = problems[:maxInputProblems]
	}
	return invalidArgs(clip(fmt.Sprintf("The input of workflow %s does not meet its declared inputs: %s.", d.key, strings.Join(problems, "; ")), 1000))
}

// requiredOnly is the fault workflow-input-required-only's check.
func requiredOnly(d workflowDef, v any) *denial {
	obj, _ := v.(map[string]any)
	for _, m := range stringList(d.inputs["required"]) {
		if _, ok := obj[m]; !ok {
			return invalidArgs(fmt.Sprintf("The input of workflow %s does not meet its declared inputs: /input/%s is missing.", d.key, m))
		}
	}
	return nil
}

// leaves are the innermost errors of ve.
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}
