package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorded writes a transcript.jsonl holding the host's App Server
// messages (method and params) of one spec.
func recorded(t *testing.T, msgs ...[2]string) string {
	t.Helper()
	var b strings.Builder
	for i, m := range msgs {
		text, _ := json.Marshal(map[string]any{"conn": 1, "dir": "host->appserver", "method": m[0], "params": json.RawMessage(m[1])})
		line, _ := json.Marshal(map[string]any{"seq": i + 1, "spec": "a task", "dir": "peer", "method": "appserver", "text": string(text)})
		b.Write(line)
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func goldenFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "task.io")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// transcript diff: 0 when the host's side follows the golden exchange, 1
// with where it departs, 2 for a golden file that does not parse.
func TestTranscriptDiff(t *testing.T) {
	g := goldenFile(t, ">> initialize {\"clientInfo\": {\"name\": \"$any\"}}\n<< {}\n>> initialized\n>> agentSession/start {\"workspaceId\": \"$ws\"}\n")
	good := recorded(t, [2]string{"initialize", `{"clientInfo":{"name":"h"}}`}, [2]string{"initialized", `{}`}, [2]string{"agentSession/start", `{"workspaceId":"w1","appId":"a"}`})
	if code, out, errs := runCLI(t, "transcript", "diff", "--bind", "ws=w1", g, good); code != exitOK || !strings.Contains(out, "follow") {
		t.Errorf("matching exchange: exit %d\n%s%s", code, out, errs)
	}
	bad := recorded(t, [2]string{"initialize", `{"clientInfo":{"name":"h"}}`}, [2]string{"agentSession/start", `{"workspaceId":"w2"}`})
	code, out, _ := runCLI(t, "transcript", "diff", "--bind", "ws=w1", g, bad)
	if code != exitFailed || !strings.Contains(out, "golden line 3 (>> initialized), host message 2: expected >> initialized, seen >> agentSession/start") {
		t.Errorf("departing exchange: exit %d\n%s", code, out)
	}
	broken := goldenFile(t, ">> initialize\n<< {nope\n")
	if code, _, errs := runCLI(t, "transcript", "diff", broken, good); code != exitUsage || !strings.Contains(errs, "task.io:2: not JSON") {
		t.Errorf("broken golden: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := runCLI(t, "transcript", "diff", "--spec", "no such spec", g, good); code != exitUsage || !strings.Contains(errs, "no App Server message") {
		t.Errorf("--spec matching nothing: exit %d, stderr %q", code, errs)
	}
}
