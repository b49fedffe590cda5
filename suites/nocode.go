package suites

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

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
		DescribeTable("leaves the package's worker unexecuted",
			func(step func(tc *TestContext, dir string)) {
				dir := tc.Fixture("sentinel-worker")
				// The worker also marks a place outside the package, so that a
				// host running it from its own copy of the package is caught too.
				outside := filepath.Join(filepath.Dir(dir), sentinelFile)
				AppendFile(dir, "dist/worker/run.sh", []byte("touch '"+outside+"'\n"))
				step(tc, dir)
				for _, p := range []string{filepath.Join(dir, sentinelFile), outside} {
					_, err := os.Stat(p)
					Expect(os.IsNotExist(err)).To(BeTrue(), "the package's worker ran: it created %s", filepath.Base(p))
				}
			},
			Entry("during package/verify", tc.Req("P0-NO-APP-CODE"), func(tc *TestContext, dir string) {
				tc.Verify(dir, nil)
			}),
			Entry("during package/project", tc.Req("P0-NO-APP-CODE"), func(tc *TestContext, dir string) {
				tc.Project(dir)
			}),
			Entry("during app/readiness", tc.Req("P0-NO-APP-CODE"), func(tc *TestContext, dir string) {
				tc.MustCall(protocol.MethodReadiness, protocol.ReadinessParams{Path: dir}, &protocol.ReadinessResult{})
			}),
		)
	})
}
