package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/reports"
)

// shard is one slice of a run split across CI jobs (--shard I/N). A CI
// system's own matrix runs the shards; `conformance merge` joins them.
type shard struct {
	index, total int // 1 <= index <= total
}

// parseShard reads --shard's I/N. The empty string is no shard (the whole run).
func parseShard(s string) (*shard, error) {
	if s == "" {
		return nil, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(strings.TrimSpace(is))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || ierr != nil || nerr != nil {
		return nil, fmt.Errorf("--shard %q: want I/N, e.g. 2/3", s)
	}
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("--shard %q: want 1 <= I <= N", s)
	}
	return &shard{index: i, total: n}, nil
}

// owns reports whether the k-th (0-based) item of a stable list belongs to
// the shard: items are dealt round robin, so every shard gets a like share
// of each part of the catalog (the slow levels are not all in one shard).
func (s *shard) owns(k int) bool {
	return s == nil || k%s.total == s.index-1
}

// requirementIDs are the ids of the requirements of want that the shard
// runs, in catalog order. Slicing by requirement, not by spec, keeps a
// requirement's specs in one shard, so its outcome is decided whole there.
func (s *shard) requirementIDs(cat *levels.Catalog, want []string) []string {
	var ids []string
	for k, r := range cat.ForLevels(want) {
		if s.owns(k) {
			ids = append(ids, r.ID)
		}
	}
	return ids
}

// noSpec is a label no spec carries: the filter of a shard that owns no
// requirement (more shards than requirements) selects nothing.
const noSpec = "conformance-shard-owns-nothing"

// labelFilter is the run's Ginkgo label filter restricted to the shard's
// requirements: specs are labelled with their requirement ids (suites).
func (s *shard) labelFilter(cat *levels.Catalog, want []string, extra string) string {
	if s == nil {
		return extra
	}
	ids := s.requirementIDs(cat, want)
	mine := noSpec
	if len(ids) > 0 {
		mine = strings.Join(ids, " || ")
	}
	if strings.TrimSpace(extra) == "" {
		return "(" + mine + ")"
	}
	return "(" + extra + ") && (" + mine + ")"
}

// status is the shard as report.json records it (run.shard).
func (s *shard) status() *reports.Shard {
	if s == nil {
		return nil
	}
	return &reports.Shard{Index: s.index, Total: s.total}
}
