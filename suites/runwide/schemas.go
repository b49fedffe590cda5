package runwide

import (
	"github.com/agentapp/conformance/suites/harness"
	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/levels"
)

// A result that breaks its method's schema breaks a rule of the control
// protocol. A check that reads the offending member cannot use the answer
// and ends as error; every other check judges what it reads
// (control.Client.CallReading). The violation itself is reported once,
// under PROTO-RESULT-SCHEMA, whichever spec met it: a projection without
// provenance must not turn the checks that never read provenance into
// errors and so hide the gap (issue 23 §3).

// describeResultSchemas judges the answers of the whole run against their
// methods' result schemas (docs/host-control-protocol.md, "Schemas"). It
// runs last, so that it judges every answer before it.
func describeResultSchemas(tc *harness.TestContext) {
	ginkgo.Describe("Control protocol: every answer", func() {
		ginkgo.It("answers every call of the run with a result that matches its method's schema", tc.Req("PROTO-RESULT-SCHEMA", levels.EveryEntryPoint), func() {
			if d := tc.Schemas().Text(); d != "" {
				tc.Failf("answers of this run break their result schemas (drivers/protocol/schemas):\n%s", d)
			}
		})
	})
}
