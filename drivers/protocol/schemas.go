package protocol

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The protocol's own JSON Schemas (draft 2020-12), one per method's params
// and result, sharing protocol.defs.json (docs/host-control-protocol.md,
// "Schemas").
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// SchemaBaseURI is the base of every schema's $id; relative $refs resolve
// against it.
const SchemaBaseURI = "https://github.com/agentapp/conformance/drivers/protocol/schemas/"

// defsFile holds the definitions every method schema refers to.
const defsFile = "protocol.defs.json"

// SchemaMethods lists the methods that have params and result schemas.
func SchemaMethods() []string {
	return []string{
		MethodHello, MethodReset, MethodConfigure, MethodVerify, MethodProject,
		MethodInstall, MethodUninstall, MethodDisable, MethodEnable, MethodUpdate, MethodRollback, MethodMigrate, MethodOverlay, MethodSecret, MethodKnowledge, MethodFile, MethodReadiness, MethodList, MethodRegistryList, MethodReview, MethodShutdownHint,
		MethodLaunch, MethodCenter, MethodObserve, MethodSet, MethodInvoke, MethodBackend, MethodEvals,
	}
}

// ResultSchemaFile names the schema file of a method's result, e.g.
// "app-list.result.json" for app/list.
func ResultSchemaFile(method string) string {
	return strings.ReplaceAll(method, "/", "-") + ".result.json"
}

// ParamsSchemaFile names the schema file of a method's params.
func ParamsSchemaFile(method string) string {
	return strings.ReplaceAll(method, "/", "-") + ".params.json"
}

// SchemaFS returns the embedded schema files (flat: schemas/<file>.json is
// served as <file>.json), for publishing them beside the protocol document.
func SchemaFS() fs.FS {
	sub, err := fs.Sub(schemaFiles, "schemas")
	if err != nil { // cannot happen: the directory is embedded
		return schemaFiles
	}
	return sub
}

// Schemas holds the compiled params and result schemas of every method.
type Schemas struct {
	results map[string]*jsonschema.Schema
	params  map[string]*jsonschema.Schema
}

// LoadSchemas compiles every embedded schema.
func LoadSchemas() (*Schemas, error) {
	c, err := newCompiler()
	if err != nil {
		return nil, err
	}
	s := &Schemas{results: map[string]*jsonschema.Schema{}, params: map[string]*jsonschema.Schema{}}
	for _, m := range SchemaMethods() {
		if s.results[m], err = compile(c, ResultSchemaFile(m)); err != nil {
			return nil, err
		}
		if s.params[m], err = compile(c, ParamsSchemaFile(m)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// ResultSchema compiles the result schema of method; false when the method
// has none (reserved or unknown methods). It compiles on every call: hold a
// *Schemas from LoadSchemas when validating often.
func ResultSchema(method string) (*jsonschema.Schema, bool) {
	return compileOne(method, ResultSchemaFile)
}

// ParamsSchema compiles the params schema of method; false when it has none.
func ParamsSchema(method string) (*jsonschema.Schema, bool) {
	return compileOne(method, ParamsSchemaFile)
}

func compileOne(method string, file func(string) string) (*jsonschema.Schema, bool) {
	if !hasSchema(method) {
		return nil, false
	}
	c, err := newCompiler()
	if err != nil {
		return nil, false
	}
	sch, err := compile(c, file(method))
	if err != nil {
		return nil, false
	}
	return sch, true
}

func hasSchema(method string) bool {
	for _, m := range SchemaMethods() {
		if m == method {
			return true
		}
	}
	return false
}

// newCompiler returns a compiler that knows every embedded schema by its $id
// and asserts formats (date-time, uri).
func newCompiler() (*jsonschema.Compiler, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	entries, err := fs.ReadDir(schemaFiles, "schemas")
	if err != nil {
		return nil, fmt.Errorf("reading embedded schemas: %w", err)
	}
	for _, e := range entries {
		raw, err := schemaFiles.ReadFile("schemas/" + e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading schema %s: %w", e.Name(), err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("parsing schema %s: %w", e.Name(), err)
		}
		if err := c.AddResource(SchemaBaseURI+e.Name(), doc); err != nil {
			return nil, fmt.Errorf("adding schema %s: %w", e.Name(), err)
		}
	}
	return c, nil
}

func compile(c *jsonschema.Compiler, file string) (*jsonschema.Schema, error) {
	sch, err := c.Compile(SchemaBaseURI + file)
	if err != nil {
		return nil, fmt.Errorf("compiling schema %s: %w", file, err)
	}
	return sch, nil
}

// Result returns the compiled result schema of method.
func (s *Schemas) Result(method string) (*jsonschema.Schema, bool) {
	sch, ok := s.results[method]
	return sch, ok
}

// Params returns the compiled params schema of method.
func (s *Schemas) Params(method string) (*jsonschema.Schema, bool) {
	sch, ok := s.params[method]
	return sch, ok
}

// ValidateResult checks a method's raw result against its schema. The error
// is a *SchemaError naming the JSON pointer of the first offending value.
func (s *Schemas) ValidateResult(method string, raw json.RawMessage) error {
	sch, ok := s.results[method]
	if !ok {
		return fmt.Errorf("no result schema for method %q", method)
	}
	return validate(sch, method, "result", raw)
}

// ValidateParams checks a method's raw params against its schema; absent
// params (empty raw) count as null.
func (s *Schemas) ValidateParams(method string, raw json.RawMessage) error {
	sch, ok := s.params[method]
	if !ok {
		return fmt.Errorf("no params schema for method %q", method)
	}
	return validate(sch, method, "params", raw)
}

// SchemaError is a value that does not match its schema, reduced to one line:
// the first offending value (by JSON pointer order) and how many more there are.
type SchemaError struct {
	Method  string
	Part    string // "params" or "result"
	Pointer string // JSON pointer of the offending value; "" is the whole value
	Message string // what is wrong there, e.g. "value must be one of ..."
	More    int    // further offending values not described
	// Violations are every offending value, the first included, in
	// pointer order: what a check that reads only some members sorts
	// (Reads.Covers).
	Violations []Violation
}

// Violation is one place where a value breaks its schema.
type Violation struct {
	// Pointer is the JSON pointer of the offending member; for a required
	// member that is missing, the pointer it would have.
	Pointer string
	Message string
}

func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}

// Only returns the error narrowed to the violations keep accepts, or nil
// when it accepts none.
func (e *SchemaError) Only(keep func(Violation) bool) *SchemaError {
	var vs []Violation
	for _, v := range e.Violations {
		if keep(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	n := *e
	n.Violations = vs
	n.Pointer, n.Message, n.More = vs[0].Pointer, vs[0].Message, len(vs)-1
	return &n
}

func (e *SchemaError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	s := p + ": " + e.Message
	if e.More > 0 {
		s += fmt.Sprintf(" (and %d more)", e.More)
	}
	return s
}

func validate(sch *jsonschema.Schema, method, part string, raw json.RawMessage) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return rootError(method, part, "not JSON: "+err.Error())
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return rootError(method, part, err.Error())
	}
	return firstLeaf(ve, method, part)
}

// rootError is a SchemaError about the value as a whole: every reader
// reads it.
func rootError(method, part, msg string) *SchemaError {
	return &SchemaError{Method: method, Part: part, Message: msg, Violations: []Violation{{Message: msg}}}
}

type leaf struct {
	ptr, msg string
	// members are the pointers of the members a leaf is about: the
	// missing ones of a required rule, else the offending value itself.
	members []string
}

// firstLeaf flattens a validation error tree to its leaves and reports the
// first one in pointer order, so the message is stable across runs.
func firstLeaf(ve *jsonschema.ValidationError, method, part string) *SchemaError {
	printer := message.NewPrinter(language.English)
	var leaves []leaf
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		switch e.ErrorKind.(type) {
		case *kind.Group, *kind.Schema, *kind.Reference:
			return
		}
		l := leaf{ptr: JSONPointer(e.InstanceLocation), msg: e.ErrorKind.LocalizedString(printer)}
		l.members = []string{l.ptr}
		if r, ok := e.ErrorKind.(*kind.Required); ok && len(r.Missing) > 0 {
			l.members = nil
			for _, m := range r.Missing {
				l.members = append(l.members, JSONPointer(append(append([]string(nil), e.InstanceLocation...), m)))
			}
		}
		leaves = append(leaves, l)
	}
	walk(ve)
	if len(leaves) == 0 {
		return rootError(method, part, ve.Error())
	}
	sort.SliceStable(leaves, func(i, j int) bool {
		if leaves[i].ptr != leaves[j].ptr {
			return leaves[i].ptr < leaves[j].ptr
		}
		return leaves[i].msg < leaves[j].msg
	})
	se := &SchemaError{Method: method, Part: part, Pointer: leaves[0].ptr, Message: leaves[0].msg, More: len(leaves) - 1}
	for _, l := range leaves {
		for _, m := range l.members {
			se.Violations = append(se.Violations, Violation{Pointer: m, Message: l.msg})
		}
	}
	return se
}

// JSONPointer renders instance location tokens as a JSON pointer (RFC 6901).
func JSONPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
