package hostbridge

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEnvelopeProblemNamesWhatIsWrong(t *testing.T) {
	for body, want := range map[string]string{
		`{"protocol":"lime.agentApp.bridge","version":1,"type":"app:ready","appId":"a"}`: "",
		`{"protocol":"lime.other","version":1,"type":"app:ready","appId":"a"}`:           "protocol",
		`{"protocol":"lime.agentApp.bridge","version":2,"type":"app:ready","appId":"a"}`: "version is 2",
		`{"protocol":"lime.agentApp.bridge","type":"app:ready","appId":"a"}`:             "version is missing",
		`{"protocol":"lime.agentApp.bridge","version":1,"appId":"a"}`:                    "no type",
	} {
		var m Message
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		got := m.EnvelopeProblem()
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: problem %q, want one containing %q", body, got, want)
		}
	}
}

func TestErrorOfReadsPayloadOrEnvelope(t *testing.T) {
	inPayload := Message{Payload: json.RawMessage(`{"code":"X","message":"no"}`)}
	onEnvelope := Message{Code: "Y", Message: "denied"}
	if e := ErrorOf(inPayload); e.Code != "X" || e.Message != "no" {
		t.Errorf("payload error read as %+v", e)
	}
	if e := ErrorOf(onEnvelope); e.Code != "Y" || e.Message != "denied" {
		t.Errorf("envelope error read as %+v", e)
	}
	if e := ErrorOf(Message{}); e.Code != "" || e.Message != "" {
		t.Errorf("an empty message gave %+v", e)
	}
}
