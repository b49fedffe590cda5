package suites

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/levels"
	. "github.com/onsi/ginkgo/v2"
)

// leakLog keeps the planted secrets seen in any frame the host sent during
// the run (the transcript's OnReceive), whatever spec was running: a leak
// is evidence for HOST-NO-SECRET-LEAK wherever it shows. It keeps the first
// maxQuotedLeaks and counts the rest: a host that echoes secrets in 50,000
// answers is failed in a message of a few lines, not megabytes.
type leakLog struct {
	forms []secretForm

	mu      sync.Mutex
	leaks   []leak          // the first maxQuotedLeaks seen
	total   int             // every leak seen
	secrets map[string]bool // every secret seen leaked
}

// maxQuotedLeaks is how many leaks the failure message quotes.
const maxQuotedLeaks = 10

// secretForm is one form of one planted secret.
type secretForm struct {
	secret, form string
	text         []byte
}

// leak is one planted secret seen in one frame.
type leak struct {
	seq                  int
	spec, method, secret string
	form                 string
}

func newLeakLog(c Canaries) *leakLog {
	l := &leakLog{secrets: map[string]bool{}}
	for name, v := range c.named() {
		if v == "" {
			continue
		}
		for _, f := range canaryForms(v) {
			l.forms = append(l.forms, secretForm{secret: name, form: f.name, text: []byte(f.text)})
		}
	}
	return l
}

// observe searches one received frame; each secret is logged once per frame.
func (l *leakLog) observe(f control.ReceivedFrame) {
	found := map[string]bool{}
	for _, sf := range l.forms {
		if found[sf.secret] || !bytes.Contains(f.Body, sf.text) {
			continue
		}
		found[sf.secret] = true
		l.mu.Lock()
		l.total++
		l.secrets[sf.secret] = true
		if len(l.leaks) < maxQuotedLeaks {
			l.leaks = append(l.leaks, leak{seq: f.Seq, spec: f.Spec, method: f.Method, secret: sf.secret, form: sf.form})
		}
		l.mu.Unlock()
	}
}

// describe renders what the log holds, one leak per line, in transcript
// order, then how many more it did not quote and of which secrets; "" when
// nothing leaked.
func (l *leakLog) describe() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := append([]leak(nil), l.leaks...)
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].seq != ls[j].seq {
			return ls[i].seq < ls[j].seq
		}
		return ls[i].secret < ls[j].secret
	})
	lines := make([]string, 0, len(ls)+1)
	for _, k := range ls {
		method := k.method
		if method == "" {
			method = "a frame"
		}
		lines = append(lines, fmt.Sprintf("transcript line %d (the answer to %s, during %q) carries the value of %s (%s)",
			k.seq, method, k.spec, k.secret, k.form))
	}
	if more := l.total - len(ls); more > 0 {
		secrets := make([]string, 0, len(l.secrets))
		for s := range l.secrets {
			secrets = append(secrets, s)
		}
		sort.Strings(secrets)
		lines = append(lines, fmt.Sprintf("and %d more not quoted here (%d leaks in all, of %s; the transcript has every one)",
			more, l.total, strings.Join(secrets, ", ")))
	}
	return strings.Join(lines, "; ")
}

// describeSecretsEverywhere checks every surface of the control protocol
// for planted secrets (spec 000, Shared host model). It runs last, so that
// its search of the run's frames covers every spec before it.
func describeSecretsEverywhere(tc *TestContext) {
	Describe("Secrets in every answer", func() {
		It("never puts a secret or session-token value in any answer, errors and app/list included", tc.Req("HOST-NO-SECRET-LEAK", levels.EveryEntryPoint), func() {
			tc.Configure(tc.WithSecret())
			tc.expectHoldsSecret()
			dir := tc.Fixture("secret-required-app")
			rel := tc.ReleaseOf(dir)
			tampered := tc.Fixture("secret-required-app")
			AppendFile(tampered, "APP.md", []byte("\n"))
			consent := protocol.Consent{Granted: true, By: "user"}
			type call struct {
				what, method string
				params       any
			}
			ask := func(calls ...call) {
				for _, c := range calls {
					tc.ExpectNoCanaryIn(c.what, c.method, c.params)
				}
			}
			ask(
				call{"package/verify of the package", protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}},
				call{"package/verify of the package changed after hashing", protocol.MethodVerify, protocol.PackageParams{Path: tampered, Release: rel}},
				call{"package/project of the package", protocol.MethodProject, protocol.PackageParams{Path: dir}},
				call{"app/install without consent", protocol.MethodInstall,
					protocol.InstallParams{Path: dir, Release: rel, Consent: protocol.Consent{Granted: false, By: "user"}}},
				call{"app/install of the package changed after hashing", protocol.MethodInstall, protocol.InstallParams{Path: tampered, Release: rel, Consent: consent}},
				call{"app/install of the package", protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: rel, Consent: consent}},
			)
			// What follows asks about an installed app: without one, the
			// answers show nothing of it.
			tc.Precondition("the package installed", func() {
				if _, listed := FindApp(tc.List(), "secret-required-app"); !listed {
					tc.Blockedf("app/list does not show secret-required-app after its app/install")
				}
			})
			ask(
				call{"app/list with the app installed", protocol.MethodList, struct{}{}},
				call{"app/readiness of the installed app", protocol.MethodReadiness, protocol.ReadinessParams{AppID: "secret-required-app"}},
				call{"app/readiness of an app that is not installed", protocol.MethodReadiness, protocol.ReadinessParams{AppID: "no-such-app"}},
				call{"app/uninstall keeping data", protocol.MethodUninstall, protocol.UninstallParams{AppID: "secret-required-app", KeepData: true}},
				call{"app/list with the app's data retained", protocol.MethodList, struct{}{}},
				call{"app/uninstall of an app that is not installed", protocol.MethodUninstall, protocol.UninstallParams{AppID: "no-such-app"}},
			)
			if leaks := tc.leaks.describe(); leaks != "" {
				tc.Failf("the host revealed secrets it holds in its answers: %s", leaks)
			}
		})
	})
}
