package golden

import (
	"encoding/json"
	"strings"
	"testing"
)

const task = `# one task
>> initialize {"clientInfo": {"name": "$any"}}
<< {"protocolVersion": "appserver.v0"}
>> initialized
>> agentSession/start {"appId": "$app", "workspaceId": "$re:^workspace-"}
<< {"sessionId": "s-1"}
>> agentSession/turn/start {"sessionId": "s-1", "idempotencyKey": "$capture:key"}
<< {"turnId": "t-1"}
<- agentSession/event {"turnId": "t-1", "type": "result", "subtype": "success"}
unordered {
>> agentSession/read {"sessionId": "s-1"}
>> capability/list
}
>> agentSession/turn/cancel {"idempotencyKey": "$key"}
`

func seen(lines ...string) []Seen {
	var out []Seen
	for _, l := range lines {
		m, p, _ := strings.Cut(l, " ")
		out = append(out, Seen{Method: m, Params: json.RawMessage(p)})
	}
	return out
}

func mustParse(t *testing.T, text string) *Golden {
	t.Helper()
	g, err := Parse(strings.NewReader(text), "task.io")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// The exchange as recorded: extra members, other key order, an unordered
// block in another order, a capture reused: no mismatch.
func TestAMatchingExchange(t *testing.T) {
	g := mustParse(t, task)
	b := Bindings{"app": "probe"}
	got := Check(g, seen(
		`initialize {"clientInfo":{"name":"host","version":"1"},"x":1}`,
		`initialized`,
		`agentSession/start {"workspaceId":"workspace-1","appId":"probe"}`,
		`agentSession/turn/start {"sessionId":"s-1","idempotencyKey":"k-9","input":"hi"}`,
		`capability/list {}`,
		`agentSession/read {"sessionId":"s-1"}`,
		`agentSession/turn/cancel {"idempotencyKey":"k-9"}`,
		`agentSession/read {"sessionId":"s-1"}`,
	), b, false)
	if len(got) != 0 {
		t.Fatalf("mismatches: %v", got)
	}
	if b["key"] != "k-9" {
		t.Errorf("capture key = %v", b["key"])
	}
}

// Each departure names the golden line, the host message, the path and
// both values.
func TestMismatchesSayWhere(t *testing.T) {
	g := mustParse(t, task)
	for name, tc := range map[string]struct {
		seen []Seen
		want string
	}{
		"no clientInfo.name": {seen(`initialize {"clientInfo":{}}`), "golden line 2 (>> initialize), host message 1 at params/clientInfo/name: expected a value, seen nothing (absent)"},
		"a method out of place": {seen(`initialize {"clientInfo":{"name":"h"}}`, `agentSession/start {}`),
			"golden line 4 (>> initialized), host message 2: expected >> initialized, seen >> agentSession/start"},
		"a bound value differs": {seen(`initialize {"clientInfo":{"name":"h"}}`, `initialized`, `agentSession/start {"appId":"other","workspaceId":"workspace-1"}`),
			`golden line 5 (>> agentSession/start), host message 3 at params/appId: expected $app ("probe"), seen "other"`},
		"a pattern": {seen(`initialize {"clientInfo":{"name":"h"}}`, `initialized`, `agentSession/start {"appId":"probe","workspaceId":"ws"}`),
			`at params/workspaceId: expected a string matching ^workspace-, seen "ws"`},
		"too few": {seen(`initialize {"clientInfo":{"name":"h"}}`), "golden line 4 (>> initialized), which the host never sent"},
	} {
		t.Run(name, func(t *testing.T) {
			got := Check(g, tc.seen, Bindings{"app": "probe"}, false)
			var texts []string
			for _, m := range got {
				texts = append(texts, m.String())
			}
			if !strings.Contains(strings.Join(texts, "\n"), tc.want) {
				t.Errorf("mismatches:\n%s\nwant one containing %q", strings.Join(texts, "\n"), tc.want)
			}
		})
	}
}

// Strict checks report what the host sent beyond the golden exchange.
func TestStrictReportsExtraMessages(t *testing.T) {
	g := mustParse(t, ">> initialize\n")
	got := Check(g, seen(`initialize {}`, `agentSession/start {}`), Bindings{}, true)
	if len(got) != 1 || !strings.Contains(got[0].String(), "host message 2 (agentSession/start), beyond the golden exchange") {
		t.Fatalf("got %v", got)
	}
}

// A bad file is refused naming its line.
func TestParseErrorsNameTheLine(t *testing.T) {
	for text, want := range map[string]string{
		"<< {}\n":                             "x.io:1: << answers the host request on the line before it",
		">> initialize {nope\n":               "x.io:1: not JSON",
		"?? x\n":                              "x.io:1: a line starts with",
		">> a {\"x\": \"$re:(\"}\n":           "x.io:1: the pattern",
		"unordered {\n<- a\n}\n":              "x.io:2: only host messages",
		"unordered {\n>> a\n":                 "not closed",
		">> a\n<! {\"message\": \"no code\"}": "x.io:2: <! needs",
		"# only a comment\n":                  "no message",
	} {
		if _, err := Parse(strings.NewReader(text), "x.io"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
