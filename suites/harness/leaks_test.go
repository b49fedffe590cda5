package harness

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/reports"
)

// TestLeakLogFindsSecretsInAnyFrame: the run-wide search finds a planted
// value in any form, in a frame of any spec, names the transcript line, the
// method and the secret, and never quotes the value.
func TestLeakLogFindsSecretsInAnyFrame(t *testing.T) {
	c := Canaries{ProviderKey: "canary-0123456789abcdef0123456789abcdef", OtherSecret: "canary-other", SessionToken: "canary-session"}
	l := newLeakLog(c)
	l.observe(control.ReceivedFrame{Seq: 3, Spec: "clean", Method: "app/list", Body: []byte(`{"apps":[]}`)})
	if got := l.Text(); got != "" {
		t.Fatalf("a clean frame logged %q", got)
	}
	enc := base64.StdEncoding.EncodeToString([]byte(`{"cloud":"` + c.SessionToken + `"}`))
	l.observe(control.ReceivedFrame{Seq: 7, Spec: "installs", Method: "app/install",
		Body: []byte(`{"error":{"code":-32003,"data":{"debugContext":"` + enc + `"}}}`)})
	l.observe(control.ReceivedFrame{Seq: 9, Spec: "lists", Method: "app/list", Body: []byte(c.ProviderKey + " and " + c.ProviderKey)})
	got := l.Text()
	for _, want := range []string{
		`transcript line 7 (the answer to app/install, during "installs") carries the value of the session token cloud (base64-encoded)`,
		`transcript line 9 (the answer to app/list, during "lists") carries the value of the secret provider_api_key (as it is)`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log does not say %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "transcript line 9") != 1 {
		t.Errorf("a secret twice in one frame is one leak: %s", got)
	}
	if strings.Contains(got, c.ProviderKey) || strings.Contains(got, c.SessionToken) {
		t.Errorf("the log quotes a secret value: %s", got)
	}
}

// A host that echoes every planted secret in 50,000 answers is failed in a
// bounded message: the first maxQuotedLeaks leaks, then how many more and
// of which secrets.
func TestLeakLogQuotesTheFirstLeaksAndCountsTheRest(t *testing.T) {
	c := Canaries{ProviderKey: "canary-0123456789abcdef0123456789abcdef", OtherSecret: "canary-other", SessionToken: "canary-session"}
	l := newLeakLog(c)
	body := []byte(`{"echo":"` + c.ProviderKey + " " + c.OtherSecret + " " + c.SessionToken + `"}`)
	const frames = 50_000
	for seq := 1; seq <= frames; seq++ {
		l.observe(control.ReceivedFrame{Seq: seq, Spec: "floods", Method: "host/notify", Body: body})
	}
	got := l.Text()
	if n := strings.Count(got, "transcript line "); n != maxQuotedLeaks {
		t.Errorf("%d leaks quoted, want %d", n, maxQuotedLeaks)
	}
	if !strings.HasPrefix(got, "transcript line 1 (") {
		t.Errorf("the first leak is not quoted first: %.200s", got)
	}
	want := "and 149990 more not quoted here (150000 leaks in all, of the secret provider_api_key, the secret unrelated_token, the session token cloud; the transcript has every one)"
	if !strings.HasSuffix(got, want) {
		t.Errorf("the message does not end %q:\n%s", want, got)
	}
	if len(got) > 4<<10 {
		t.Errorf("the message of %d leaks is %d bytes", 3*frames, len(got))
	}
	t.Logf("%d leaks described in %d bytes", 3*frames, len(got))
}

// Every failure message goes through publishable: planted secrets are
// redacted before it is cut to reports.MaxFailureText, so the cut never
// leaves part of a secret behind, and a cut message is not cut again.
func TestPublishableRedactsThenCuts(t *testing.T) {
	secret := "canary-0123456789abcdef0123456789abcdef"
	tc := &TestContext{Config: Config{Redact: func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(secret), []byte("[canary]"))
	}}}
	// The secret straddles the cut.
	msg := strings.Repeat("x", reports.MaxFailureText-40) + secret + strings.Repeat("y", 1<<20)
	got := tc.publishable(msg)
	if len(got) > reports.MaxFailureText || !strings.Contains(got, "more bytes)") {
		t.Errorf("a message of %d bytes became %d bytes: %q", len(msg), len(got), got[len(got)-80:])
	}
	if strings.Contains(got, "canary-0123") {
		t.Error("the cut left part of a secret")
	}
	if again := tc.publishable(got); again != got {
		t.Error("a cut message was cut again")
	}
}
