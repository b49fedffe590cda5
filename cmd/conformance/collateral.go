package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/agentapp/conformance/mockhost"
)

// refreshCollateral is the command that rewrites a fault's entry of
// mockhost's collateral file, for the kill matrix to name.
func refreshCollateral(fault string) string {
	return fmt.Sprintf("conformance selftest --fault %s --write-collateral (then rebuild)", fault)
}

// rewriteCollateral rewrites, in the collateral file at path, the entry of
// each fault case that wrote a report to what failed under it outside its
// Breaks (observedCollateral), sets the case's fault to it, and returns how
// many entries it rewrote. Faults not run keep their entries.
func rewriteCollateral(path string, cases []*selftestCase) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("reading %s (run selftest from the checkout's root): %w", path, err)
	}
	m, err := mockhost.DecodeCollateral(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	n := 0
	for _, k := range cases {
		if k.fault.Name == "" || k.report == nil {
			continue
		}
		k.fault.Collateral = observedCollateral(k, m[k.fault.Name])
		m[k.fault.Name] = k.fault.Collateral
		n++
	}
	if err := os.WriteFile(path, mockhost.EncodeCollateral(m), 0o644); err != nil {
		return 0, fmt.Errorf("writing %s: %w", path, err)
	}
	return n, nil
}

// observedCollateral is a fault's new collateral entry: the requirements
// that failed in its child though outside its Breaks, and those of the
// recorded entry its child did not judge (selftest --level).
func observedCollateral(k *selftestCase, recorded []string) []string {
	var out []string
	for _, id := range recorded {
		if k.judged != nil && !k.judged[id] {
			out = append(out, id)
		}
	}
	for _, r := range k.report.Requirements {
		if failedIn(r) && !slices.Contains(k.fault.Breaks, r.ID) {
			out = append(out, r.ID)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
