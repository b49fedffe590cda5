package mockhost

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentapp/conformance/drivers/protocol"
)

func TestRedactJSONReplacesSecretsInStringsAndNames(t *testing.T) {
	secrets := []string{"tok-1", "tok-1-long"}
	raw := json.RawMessage(`{"a":"Bearer tok-1-long","tok-1":["x tok-1 y",3,{"b":"tok-1"}],"n":null}`)
	cfg := protocol.ConfigureParams{Secrets: map[string]string{"short": secrets[0]}, SessionTokens: map[string]string{"long": secrets[1]}}
	got := string(redactJSON(raw, secretValues(cfg), redactionGaps{}))
	if strings.Contains(got, "tok-1") {
		t.Fatalf("redacted document still holds a secret: %s", got)
	}
	if !strings.Contains(got, `"Bearer [redacted]"`) || !strings.Contains(got, `"x [redacted] y"`) {
		t.Fatalf("redaction lost the text around the secret: %s", got)
	}
	if same := redactJSON(json.RawMessage(`not json tok-1`), secrets, redactionGaps{}); string(same) != `not json tok-1` {
		t.Fatalf("a document that is not JSON changed: %s", same)
	}
}
