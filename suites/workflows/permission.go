package workflows

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/suites/harness"
)

// workflowPermission is the optional permission of scope workflow the
// permission spec gives workflow-app: readiness never waits for it, so a
// refusal of a call needing it is the host's interception at call time
// (docs/decisions.md, "Permissions at call time").
const workflowPermission = "run-workflows"

// describeWorkflowPermission declares the spec of lime.workflow's calls
// under the app's own permission of scope workflow (spec 000 fields:
// permissions are "Permission requests that the host must authorize
// before install or runtime"): each call that acts on a run is refused
// while it is not granted, and runs once it is granted again.
func describeWorkflowPermission(tc *harness.TestContext) {
	It("refuses lime.workflow start and respond, naming the app's workflow permission, while the user has not granted it, and starts a run once granted again",
		tc.Req("WORKFLOW-PERMISSION-INTERCEPTED", levels.EveryEntryPoint, levels.ChangeBetweenReads), func() {
			dir := tc.Fixture(workflowFixture)
			harness.EditFrontmatter(dir, func(lines []string) []string {
				return append(lines, "permissions:", "  - key: "+workflowPermission, "    scope: workflow", "    access: read-write",
					"    required: false", "    reason: The workflow permission spec starts and answers runs.")
			})
			granted := func(keys ...string) {
				p := tc.DefaultConfigure()
				p.Grants = map[string][]string{workflowFixture: append([]string{}, keys...)}
				tc.Configure(withTools(tc.WithAppServer(p), toolOfReview))
			}
			granted(workflowPermission)
			app := tc.Install(dir, tc.ReleaseOf(dir)).AppID
			// The control: granted, a run starts and waits at its review.
			run := startRun(tc, app, reviewFlow)
			expectRunAt(tc, app, run, "waiting", "review")
			granted()
			var taken []string
			for _, c := range []struct {
				what string
				m    hostbridge.Message
			}{
				{"start of " + reviewFlow, workflowCall(tc, app, "start", map[string]any{"workflowKey": reviewFlow, "input": map[string]any{}, "idempotencyKey": harness.Nonce("idem")})},
				{"respond approving run " + run, decide(tc, app, run, "respond", map[string]any{"decision": "approve"})},
			} {
				if text := harness.AnswerText(c.m, true); c.m.Type != hostbridge.TypeError || !strings.Contains(text, workflowPermission) {
					taken = append(taken, fmt.Sprintf("%s got %s", c.what, text))
				}
			}
			if len(taken) > 0 {
				tc.Failf("with %s's permission %s (scope workflow) withdrawn, lime.workflow calls were not refused with host:error naming it: %s", app, workflowPermission, strings.Join(taken, "; "))
			}
			// Read once the grant is back: a read needs the permission too.
			granted(workflowPermission)
			if v := readRun(tc, app, run); v.Status != "waiting" || v.State != "review" {
				tc.Failf("the respond refused while %s was not granted moved run %s on: it is %s", workflowPermission, run, v)
			}
			if m := workflowCall(tc, app, "start", map[string]any{"workflowKey": reviewFlow, "input": map[string]any{}, "idempotencyKey": harness.Nonce("idem")}); m.Type != hostbridge.TypeResponse {
				tc.Failf("lime.workflow start of %s with %s granted again got %s, not host:response: a grant must decide the next call", reviewFlow, workflowPermission, harness.AnswerText(m, true))
			}
		})
}
