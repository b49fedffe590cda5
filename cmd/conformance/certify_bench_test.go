package main

import (
	"path/filepath"
	"testing"

	"github.com/agentapp/conformance/reports"
)

// BenchmarkCertifyEveryLevel is the wall time of a certification of the
// embedded mockhost at every judged level, as a user runs it (`conformance
// run`, a child process each time, its backend-probe build included), with
// the report's own spec time beside it. `make bench-certify` prints it; no
// test asserts a figure.
func BenchmarkCertifyEveryLevel(b *testing.B) {
	bin := buildBinary(b)
	out := filepath.Join(b.TempDir(), "report")
	var specMs, specs int64
	for b.Loop() {
		if code := runBinary(b, bin, "run", "--quiet", "--out", out); code != exitOK {
			b.Fatalf("exit %d", code)
		}
		rep, err := reports.Load(filepath.Join(out, reports.ReportFile))
		if err != nil {
			b.Fatal(err)
		}
		seen := map[string]bool{}
		for _, r := range rep.Requirements {
			for _, s := range r.Specs {
				if !seen[s.Name] {
					seen[s.Name] = true
					specMs += s.DurationMs
					specs++
				}
			}
		}
	}
	b.ReportMetric(float64(specMs)/1000/float64(b.N), "spec-s/op")
	b.ReportMetric(float64(specs)/float64(b.N), "specs/op")
}
