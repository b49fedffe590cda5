package reports

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyArrays is a report.json (or statement) of n empty arrays: a few
// bytes each, far more memory each once parsed.
func manyArrays(head string, n int) []byte {
	return []byte(head + `"requirements":[` + strings.Repeat("[],", n-1) + "[]]}")
}

// Reading a report is bounded: report.json over MaxInputBytes, or within
// it but past MaxInputValues (a million empty arrays in under 3 MB), is
// refused before it is parsed, with one line naming the file and the
// limit; so are a statement and an envelope payload of the same shape.
func TestOversizedReportIsRefused(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge", ReportFile)
	if err := os.MkdirAll(filepath.Dir(huge), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxInputBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	flood := filepath.Join(dir, "flood", ReportFile)
	if err := os.MkdirAll(filepath.Dir(flood), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flood, manyArrays(`{"format":"`+FormatVersion+`",`, 1_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(dir, "deep", ReportFile)
	if err := os.MkdirAll(filepath.Dir(deep), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(deep, []byte(`{"format":"`+FormatVersion+`","requirements":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)+"}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, limit string }{
		{huge, fmt.Sprintf("over the limit of %d", MaxInputBytes)},
		{flood, fmt.Sprintf("limit of %d JSON values", MaxInputValues)},
		{deep, fmt.Sprintf("limit of %d levels", MaxInputDepth)},
	} {
		for name, load := range map[string]func(string) error{
			"Load":        func(p string) error { _, err := Load(p); return err },
			"LoadForDiff": func(p string) error { _, err := LoadForDiff(p); return err },
		} {
			err := load(c.path)
			if err == nil || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.limit) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s of %s: %v; want one line naming the file and %q", name, c.path, err, c.limit)
			}
		}
	}

	stmt := manyArrays(`{"_type":"https://in-toto.io/Statement/v1","predicateType":"`+PredicateType+`","predicate":{},`, 1_000_000)
	if _, err := ParseForDiff(stmt); err == nil || !strings.Contains(err.Error(), "JSON values") {
		t.Errorf("diff of a statement of a million arrays: %v", err)
	}
	k := testKey(t, Ed25519)
	env, err := SignPayload(context.Background(), stmt, k)
	if err != nil {
		t.Fatal(err)
	}
	err = verifyWith(env, VerifyOptions{Keys: []*Key{publicOnly(t, k)}})
	wantKind(t, err, KindMalformed)
	if !strings.Contains(err.Error(), "JSON values") {
		t.Errorf("verify of a statement of a million arrays: %v", err)
	}
	sigs := strings.Repeat(`[],`, 1_000_000)
	bad := []byte(`{"payloadType":"x","payload":"` + base64.StdEncoding.EncodeToString([]byte("{}")) + `","signatures":[` + sigs + `[]]}`)
	if _, err := ParseEnvelope(bad); err == nil || !strings.Contains(err.Error(), "JSON values") {
		t.Errorf("an envelope of a million signatures: %v", err)
	}
	// A real report stays far inside the limits.
	full, err := json.Marshal(testReport(t, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkJSONBounds(full); err != nil {
		t.Errorf("a full report: %v", err)
	}
}
