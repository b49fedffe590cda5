package reports

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// docs/report-format.md reproduces the predicate schema and names the
// constants a registry relies on; keep them equal.
func TestDocMatchesCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	_, after, ok := strings.Cut(text, "<!-- predicate-schema:begin -->\n```json\n")
	block, _, ok2 := strings.Cut(after, "```\n<!-- predicate-schema:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/report-format.md has no predicate-schema block")
	}
	var inDoc, inCode any
	if err := json.Unmarshal([]byte(block), &inDoc); err != nil {
		t.Fatalf("schema in the doc: %v", err)
	}
	if err := json.Unmarshal(PredicateSchema(), &inCode); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inDoc, inCode) {
		t.Error("the schema in docs/report-format.md differs from reports/schema/predicate.schema.json")
	}
	for _, s := range []string{PredicateType, TestResultPredicateType, PayloadType, FormatVersion, HostIdentityAlgorithm,
		EnvelopeFile, StatementFile, TestResultEnvelopeFile, JUnitFile, HTMLFile, TranscriptFile} {
		if !strings.Contains(text, s) {
			t.Errorf("docs/report-format.md does not mention %s", s)
		}
	}
}
