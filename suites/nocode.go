package suites

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
)

// sentinelFile is what the sentinel-worker fixture's worker writes at the
// package root if anything executes it.
const sentinelFile = "SENTINEL-EXECUTED"

// describeNoCodeExecution checks that nothing in the package runs before
// launch (spec 002, Desktop P0 "Must not: Execute app UI, workers, or
// workflows"; checklist "Verification, projection, and readiness finish
// before app code executes").
func describeNoCodeExecution(tc *TestContext) {
	Describe("Desktop P0: no package code runs", func() {
		// The evidence is the sentinel, not the answer: a host that refuses
		// the package, or answers in the wrong shape, is still judged; one
		// that says it cannot take the package in (-32006) is not.
		DescribeTable("leaves the package's worker unexecuted",
			func(method string, params func(dir string) any) {
				dir := tc.Fixture("sentinel-worker")
				// The worker also marks a place outside the package, so that a
				// host running it from its own copy of the package is caught too.
				outside := filepath.Join(filepath.Dir(dir), sentinelFile)
				AppendFile(dir, "dist/worker/run.sh", []byte("touch '"+outside+"'\n"))
				var raw json.RawMessage
				err := tc.Call(method, params(dir), &raw)
				for _, p := range []string{filepath.Join(dir, sentinelFile), outside} {
					if _, serr := os.Stat(p); !os.IsNotExist(serr) {
						tc.Failf("the package's worker ran during %s: it created %s", method, filepath.Base(p))
					}
				}
				he, isHostErr := hostError(err)
				if err != nil && !isHostErr && !isSchemaError(err) {
					tc.Errorf("no usable answer to %s, so the harness cannot tell whether the worker would have run: %v", method, err)
				}
				// A host that did not take the package in (-32006) had
				// nothing to run: no evidence it holds back.
				if isHostErr && he.Code == protocol.CodeUnsupported {
					tc.Blockedf("the host did not take sentinel-worker in at %s (-32006 unsupported): %s", method, describeHostError(he))
				}
			},
			Entry("during package/verify", tc.Req("P0-NO-APP-CODE"), protocol.MethodVerify,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during package/project", tc.Req("P0-NO-APP-CODE"), protocol.MethodProject,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during app/readiness", tc.Req("P0-NO-APP-CODE"), protocol.MethodReadiness,
				func(dir string) any { return protocol.ReadinessParams{Path: dir} }),
		)
	})
}
