package main

import (
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/agentapp/conformance/levels"
)

// TestParseShardTakesIOverNWithIFrom1ToN: I/N with 1 <= I <= N; anything
// else is an error naming --shard.
func TestParseShardTakesIOverNWithIFrom1ToN(t *testing.T) {
	for in, want := range map[string]shard{"1/1": {1, 1}, "2/3": {2, 3}, "3/3": {3, 3}, " 1 / 2 ": {1, 2}} {
		got, err := parseShard(in)
		if err != nil || got == nil || *got != want {
			t.Errorf("parseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if got, err := parseShard(""); got != nil || err != nil {
		t.Errorf(`parseShard("") = %v, %v; want no shard`, got, err)
	}
	for _, in := range []string{"0/3", "4/3", "1/0", "-1/2", "1", "a/b", "1/2/3", "/", "2/"} {
		if _, err := parseShard(in); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("parseShard(%q): error %v, want one naming --shard", in, err)
		}
	}
}

// TestEveryRequirementIsInExactlyOneShard: for N = 1..5, the shards of
// every judged level's requirements partition them, in catalog order, and
// each shard's label filter parses.
func TestEveryRequirementIsInExactlyOneShard(t *testing.T) {
	cat := levels.Default()
	for _, want := range [][]string{{"installable"}, cat.JudgedLevels()} {
		all := cat.ForLevels(want)
		for n := 1; n <= 5; n++ {
			in := map[string]int{}
			for i := 1; i <= n; i++ {
				s := &shard{index: i, total: n}
				for _, id := range s.requirementIDs(cat, want) {
					in[id]++
				}
				if _, err := types.ParseLabelFilter(s.labelFilter(cat, want, "catalog || installable")); err != nil {
					t.Errorf("shard %d/%d: label filter does not parse: %v", i, n, err)
				}
			}
			for k, r := range all {
				if in[r.ID] != 1 {
					t.Errorf("%v, N=%d: %s is in %d shards, want 1", want, n, r.ID, in[r.ID])
				}
				if s := (&shard{index: k%n + 1, total: n}); !s.owns(k) {
					t.Errorf("N=%d: requirement %d is not in shard %d", n, k, k%n+1)
				}
			}
			if len(in) != len(all) {
				t.Errorf("%v, N=%d: shards hold %d requirements, want %d", want, n, len(in), len(all))
			}
		}
	}
}

// TestAShardOfNothingSelectsNoSpec: with more shards than requirements a
// shard owns none, and its filter is still valid and selects nothing.
func TestAShardOfNothingSelectsNoSpec(t *testing.T) {
	cat := levels.Default()
	want := []string{"catalog"}
	n := len(cat.ForLevels(want)) + 1
	s := &shard{index: n, total: n}
	if ids := s.requirementIDs(cat, want); len(ids) != 0 {
		t.Fatalf("shard %d/%d owns %v, want nothing", n, n, ids)
	}
	f := s.labelFilter(cat, want, "")
	lf, err := types.ParseLabelFilter(f)
	if err != nil {
		t.Fatalf("filter %q: %v", f, err)
	}
	for _, r := range cat.ForLevels(want) {
		if lf(append([]string{r.ID}, r.Levels...)) {
			t.Errorf("filter %q selects a spec of %s", f, r.ID)
		}
	}
}
