package reports

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schema/predicate.schema.json
var predicateSchema []byte

// PredicateSchema returns the JSON Schema (draft 2020-12) of the predicate,
// published in docs/report-format.md.
func PredicateSchema() []byte { return bytes.Clone(predicateSchema) }

const predicateSchemaURL = "https://agentapp.dev/conformance/report/v1/predicate.schema.json"

// compilePredicateSchema compiles the embedded schema; formats (date-time)
// are asserted. The compiler never fetches anything.
func compilePredicateSchema() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(predicateSchema))
	if err != nil {
		return nil, fmt.Errorf("predicate schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(predicateSchemaURL, doc); err != nil {
		return nil, fmt.Errorf("predicate schema: %w", err)
	}
	s, err := c.Compile(predicateSchemaURL)
	if err != nil {
		return nil, fmt.Errorf("predicate schema: %w", err)
	}
	return s, nil
}

// validatePredicateJSON checks raw predicate JSON against the schema.
func validatePredicateJSON(s *jsonschema.Schema, raw []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("predicate is not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("predicate does not match its schema: %w", err)
	}
	return nil
}

// ValidatePredicate checks a predicate against the schema, as verify will.
func ValidatePredicate(p *Predicate) error {
	s, err := compilePredicateSchema()
	if err != nil {
		return err
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encoding predicate: %w", err)
	}
	return validatePredicateJSON(s, raw)
}
