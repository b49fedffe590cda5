package reports

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// leafDiffs lists the JSON paths whose values differ between a and b.
func leafDiffs(p string, a, b any, out *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, p)
			return
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		for k := range keys {
			leafDiffs(p+"/"+k, av[k], bv[k], out)
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*out = append(*out, p)
			return
		}
		for i := range av {
			leafDiffs(fmt.Sprintf("%s/%d", p, i), av[i], bv[i], out)
		}
	default:
		if !reflect.DeepEqual(a, b) {
			*out = append(*out, p)
		}
	}
}

// Two runs of the same host and fixtures give predicates that differ only
// in times and durations, even when the runs list requirements and specs
// in another order and their transcripts differ in times.
func TestPredicateDeterministic(t *testing.T) {
	r1 := testReport(t, 0)
	r2 := testReport(t, 7)
	// Both runs saw the same spec flake: the flaky outcome and its level
	// counts are part of what must not vary.
	for _, r := range []*Report{r1, r2} {
		setSpec(t, r, "BRIDGE-SNAPSHOT", Flaky, "the snapshot had no host field")
		setSpec(t, r, "CAT-METADATA", Flaky, "app/list answered late")
	}
	// The second run finished its specs in another order.
	for i, j := 0, len(r2.Requirements)-1; i < j; i, j = i+1, j-1 {
		r2.Requirements[i], r2.Requirements[j] = r2.Requirements[j], r2.Requirements[i]
	}
	for i := range r2.Requirements {
		s := r2.Requirements[i].Specs
		sort.Slice(s, func(a, b int) bool { return s[a].Name > s[b].Name })
	}
	r2.Requested = []string{"desktop-p0", "executable", "installable", "catalog"}
	r1.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("transcript run 1"), Exchanges: 10}
	r2.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: sha("transcript run 2"), Exchanges: 10}

	s1, err := BuildStatements(r1, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := BuildStatements(r2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st1, st2 map[string]any
	if err := json.Unmarshal(s1.Conformance, &st1); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(s2.Conformance, &st2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s1.Conformance), `"flaky":1`) {
		t.Error("the predicate does not count the flaky requirement in its levels")
	}
	var diffs []string
	leafDiffs("", st1["predicate"], st2["predicate"], &diffs)
	if len(diffs) == 0 {
		t.Fatal("the predicates are identical: the test does not vary times")
	}
	for _, d := range diffs {
		switch path.Base(d) {
		case "startedAt", "finishedAt", "durationMs":
		default:
			t.Errorf("predicates differ at %s", d)
		}
	}
	// The subjects differ (the transcript file's digest), as they may.
	var sd []string
	leafDiffs("", st1["subject"], st2["subject"], &sd)
	if len(sd) != 1 || sd[0] != "/2/digest/sha256" {
		t.Errorf("subjects differ at %v, want only the transcript digest", sd)
	}
	// The test-result statement has no time at all.
	var a, b map[string]any
	if err := json.Unmarshal(s1.TestResult, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(s2.TestResult, &b); err != nil {
		t.Fatal(err)
	}
	var td []string
	leafDiffs("", a["predicate"], b["predicate"], &td)
	if len(td) != 0 {
		t.Errorf("test-result predicates differ at %v", td)
	}
	// The same report gives the same bytes.
	s3, err := BuildStatements(r1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(s3.Conformance) != string(s1.Conformance) {
		t.Error("the same report gave two different statements")
	}
}
