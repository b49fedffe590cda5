package suites

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/control"
)

// TestLeakLogFindsSecretsInAnyFrame: the run-wide search finds a planted
// value in any form, in a frame of any spec, names the transcript line, the
// method and the secret, and never quotes the value.
func TestLeakLogFindsSecretsInAnyFrame(t *testing.T) {
	c := Canaries{ProviderKey: "canary-0123456789abcdef0123456789abcdef", OtherSecret: "canary-other", SessionToken: "canary-session"}
	l := newLeakLog(c)
	l.observe(control.ReceivedFrame{Seq: 3, Spec: "clean", Method: "app/list", Body: []byte(`{"apps":[]}`)})
	if got := l.describe(); got != "" {
		t.Fatalf("a clean frame logged %q", got)
	}
	enc := base64.StdEncoding.EncodeToString([]byte(`{"cloud":"` + c.SessionToken + `"}`))
	l.observe(control.ReceivedFrame{Seq: 7, Spec: "installs", Method: "app/install",
		Body: []byte(`{"error":{"code":-32003,"data":{"debugContext":"` + enc + `"}}}`)})
	l.observe(control.ReceivedFrame{Seq: 9, Spec: "lists", Method: "app/list", Body: []byte(c.ProviderKey + " and " + c.ProviderKey)})
	got := l.describe()
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
