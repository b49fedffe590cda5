package install

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
)

// sentinelFile is what the sentinel-worker fixture's worker writes at the
// package root if anything executes it.
const sentinelFile = "SENTINEL-EXECUTED"

// skillSentinelFile is what the sentinel-worker fixture's bundled Skill's
// script writes at the package root if anything runs it.
const skillSentinelFile = "SKILL-SENTINEL-EXECUTED"

// afterAnswerQuiet is how long a no-execution check waits after the host
// answered before it looks for the sentinels: code a host starts in the
// background shows within it.
const afterAnswerQuiet = 150 * time.Millisecond

// sentinelPage records what the sentinel-worker page asks the harness for.
type sentinelPage struct {
	mu    sync.Mutex
	paths []string
}

func (p *sentinelPage) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.paths)
}

// uiSentinel rewrites the page of the sentinel-worker copy at dir so that
// loading it (an image, a script) or running its script (a fetch) asks a
// loopback server of the harness's, and returns what that server records.
// The package has no signature, so its hashes stay the host's to compute.
func uiSentinel(tc *harness.TestContext, dir string) *sentinelPage {
	GinkgoHelper()
	page := &sentinelPage{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page.mu.Lock()
		page.paths = append(page.paths, r.URL.Path)
		page.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if strings.HasSuffix(r.URL.Path, ".js") {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, "fetch(%q);\n", "http://"+r.Host+"/script-ran")
		}
	}))
	DeferCleanup(srv.Close)
	html := fmt.Sprintf("<!doctype html>\n<title>Sentinel Page</title>\n<img src=%q alt=\"\">\n<script src=%q></script>\n<script>fetch(%q);</script>\n",
		srv.URL+"/image-loaded", srv.URL+"/script.js", srv.URL+"/inline-script-ran")
	harness.WriteFile(dir, "dist/ui/index.html", []byte(html))
	return page
}

// describeNoCodeExecution checks that nothing in the package runs before
// launch (spec 002, Desktop P0 "Must not: Execute app UI, workers, or
// workflows"; checklist "Verification, projection, and readiness finish
// before app code executes"): each member the clause lists that the
// package can show, the worker by a file it writes and the UI by what its
// page asks the harness for. A workflow's steps run through the host's
// runtime (agent tasks, tools, storage), which a P0 host does not have.
func describeNoCodeExecution(tc *harness.TestContext) {
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
				harness.AppendFile(dir, "dist/worker/run.sh", []byte("touch '"+outside+"'\n"))
				// Its page asks the harness for what it links: a host that
				// loads or renders the UI (a preview, a warm-up) is seen.
				page := uiSentinel(tc, dir)
				_, err := callAndSettle(tc, method, params(dir))
				for _, p := range []string{filepath.Join(dir, sentinelFile), outside} {
					if _, serr := os.Stat(p); !os.IsNotExist(serr) {
						tc.Failf("the package's worker ran during %s: it created %s", method, filepath.Base(p))
					}
				}
				if asked := page.asked(); len(asked) > 0 {
					tc.Failf("the package's UI was loaded during %s: its page asked the harness for %s", method, strings.Join(asked, ", "))
				}
				he, isHostErr := harness.HostError(err)
				if err != nil && !isHostErr && !harness.IsSchemaError(err) {
					tc.Errorf("no usable answer to %s, so the harness cannot tell whether the worker would have run: %v", method, err)
				}
				// A host that did not take the package in (-32006) had
				// nothing to run: no evidence it holds back.
				if isHostErr && he.Code == protocol.CodeUnsupported {
					tc.Blockedf("the host did not take sentinel-worker in at %s (-32006 unsupported): %s", method, harness.HostErrorText(he))
				}
			},
			Entry("during package/verify", tc.Req("P0-NO-APP-CODE", levels.EveryMember, levels.EveryEntryPoint), protocol.MethodVerify,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during package/project", tc.Req("P0-NO-APP-CODE", levels.EveryMember, levels.EveryEntryPoint), protocol.MethodProject,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during app/readiness", tc.Req("P0-NO-APP-CODE", levels.EveryMember, levels.EveryEntryPoint), protocol.MethodReadiness,
				func(dir string) any { return protocol.ReadinessParams{Path: dir} }),
		)

		// Spec 000, Skills integration: "Skill execution still goes through
		// lime.agent"; a host step that runs a bundled Skill's scripts
		// itself bypasses readiness, policy and evidence. Judged only on a
		// host seen taking the package in: its answer is a success.
		DescribeTable("leaves the scripts of the package's bundled Skill unrun",
			func(method string, params func(dir string) any) {
				dir := tc.Fixture("sentinel-worker")
				outside := filepath.Join(filepath.Dir(dir), skillSentinelFile)
				harness.AppendFile(dir, "skills/sentinel_skill/scripts/setup.sh", []byte("touch '"+outside+"'\n"))
				raw, err := callAndSettle(tc, method, params(dir))
				for _, p := range []string{filepath.Join(dir, skillSentinelFile), outside} {
					if _, serr := os.Stat(p); !os.IsNotExist(serr) {
						tc.Failf("the script of the package's bundled Skill ran during %s: it created %s", method, filepath.Base(p))
					}
				}
				if he, isHostErr := harness.HostError(err); isHostErr {
					tc.Blockedf("the host did not take sentinel-worker in at %s, so whether it would run its Skill's script is not seen: %s", method, harness.HostErrorText(he))
				}
				if err != nil {
					tc.Errorf("no usable answer to %s, so the harness cannot tell whether the Skill's script would have run: %v", method, err)
				}
				var verdict struct {
					OK *bool `json:"ok"`
				}
				if method == protocol.MethodVerify && json.Unmarshal(raw, &verdict) == nil && verdict.OK != nil && !*verdict.OK {
					tc.Blockedf("package/verify refused sentinel-worker, so whether the host would run its Skill's script is not seen: %s", harness.Truncate(string(raw), 300))
				}
			},
			Entry("during package/verify", tc.Req("SKILL-SCRIPTS-NOT-RUN", levels.EveryEntryPoint), protocol.MethodVerify,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during package/project", tc.Req("SKILL-SCRIPTS-NOT-RUN", levels.EveryEntryPoint), protocol.MethodProject,
				func(dir string) any { return protocol.PackageParams{Path: dir} }),
			Entry("during app/readiness", tc.Req("SKILL-SCRIPTS-NOT-RUN", levels.EveryEntryPoint), protocol.MethodReadiness,
				func(dir string) any { return protocol.ReadinessParams{Path: dir} }),
		)
	})
}

// callAndSettle asks the host method with params and gives code the host
// started in the background afterAnswerQuiet to show.
func callAndSettle(tc *harness.TestContext, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	err := tc.Call(method, params, &raw)
	time.Sleep(afterAnswerQuiet)
	return raw, err
}
