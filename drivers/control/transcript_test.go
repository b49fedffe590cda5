package control

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentapp/conformance/drivers/protocol"
)

type recorded struct {
	Seq     int             `json:"seq"`
	Time    string          `json:"time"`
	Conn    int             `json:"conn"`
	Spec    string          `json:"spec"`
	Dir     string          `json:"dir"`
	Method  string          `json:"method"`
	ID      json.RawMessage `json:"id"`
	Frame   json.RawMessage `json:"frame"`
	Invalid bool            `json:"invalid"`
	Text    *string         `json:"text"`
	Bytes   int64           `json:"bytes"`
	Note    string          `json:"note"`
}

func parseTranscript(t *testing.T, b []byte) []recorded {
	t.Helper()
	var out []recorded
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("transcript line %d is not JSON: %v\n%s", len(out)+1, err, sc.Bytes())
		}
		if _, err := time.Parse(time.RFC3339Nano, r.Time); err != nil {
			t.Errorf("line %d time %q: %v", r.Seq, r.Time, err)
		}
		if r.Seq != len(out)+1 {
			t.Errorf("line %d has seq %d", len(out)+1, r.Seq)
		}
		out = append(out, r)
	}
	return out
}

func TestTranscriptRecordsBothWaysRedacted(t *testing.T) {
	const secret = `canary-<S3cr3t>&"q"`
	for _, tc := range transportsWith(patient) {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			red := NewRedactor()
			red.Add(secret, "api-key")
			red.Add("", "ignored")
			tr := NewTranscript(&buf, red)
			cl := mustConnect(t, tc.connect("ok"), tr)
			tr.SetSpec("configures the host")
			var res map[string]any
			err := cl.Call(context.Background(), protocol.MethodConfigure, protocol.ConfigureParams{
				TenantID: "t", WorkspaceID: "w", UserID: "u", Secrets: map[string]string{"api": secret}}, &res)
			if err != nil {
				t.Fatal(err)
			}
			if echo, _ := res["echo"].(map[string]any); echo["api"] != secret {
				t.Fatalf("the wire must carry the secret unredacted; host echoed %v", res["echo"])
			}
			if tr.Seq() != 4 {
				t.Errorf("Seq() = %d after hello and configure, want 4", tr.Seq())
			}
			_ = cl.Close()
			cl = mustConnect(t, tc.connect("garbage-on-list"), tr)
			_ = cl.Call(context.Background(), protocol.MethodList, nil, nil)
			if err := tr.Err(); err != nil {
				t.Fatal(err)
			}

			raw := buf.String()
			for _, leak := range []string{"S3cr3t", `S3cr3t\u003e`} {
				if strings.Contains(raw, leak) {
					t.Errorf("transcript leaks the secret (%s)", leak)
				}
			}
			lines := parseTranscript(t, buf.Bytes())
			if len(lines) != 8 {
				t.Fatalf("%d lines, want 8:\n%s", len(lines), raw)
			}
			want := []struct {
				conn      int
				spec, dir string
				method    string
			}{
				{1, "", "send", "conformance/hello"}, {1, "", "recv", "conformance/hello"},
				{1, "configures the host", "send", "host/configure"}, {1, "configures the host", "recv", "host/configure"},
				{2, "configures the host", "send", "conformance/hello"}, {2, "configures the host", "recv", "conformance/hello"},
				{2, "configures the host", "send", "app/list"}, {2, "configures the host", "recv", ""},
			}
			for i, w := range want {
				l := lines[i]
				if l.Conn != w.conn || l.Spec != w.spec || l.Dir != w.dir || l.Method != w.method {
					t.Errorf("line %d = conn %d spec %q %s %q, want %+v", i+1, l.Conn, l.Spec, l.Dir, l.Method, w)
				}
			}
			for _, i := range []int{2, 3} {
				if !bytes.Contains(lines[i].Frame, []byte("<redacted:api-key>")) {
					t.Errorf("line %d does not show the redaction: %s", i+1, lines[i].Frame)
				}
				if string(lines[i].ID) != string(lines[2].ID) || len(lines[i].ID) == 0 {
					t.Errorf("line %d id %s, want the request's id %s", i+1, lines[i].ID, lines[2].ID)
				}
			}
			if g := lines[7]; !g.Invalid || g.Text == nil || *g.Text != "xyzzy!!" || g.Frame != nil {
				t.Errorf("garbage frame recorded as %+v", g)
			}
		})
	}
}

func TestTranscriptOversizeAndTruncation(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTranscript(&buf, nil)
	cl := mustConnect(t, PipeConnector(pipeHost("flood-on-project"), fast), tr)
	var big json.RawMessage
	if err := cl.Call(context.Background(), "test/big", nil, &big); err != nil {
		t.Fatal(err)
	}
	if len(big) < 100<<10 {
		t.Errorf("big answer cut on the wire: %d bytes", len(big))
	}
	_ = cl.Call(context.Background(), protocol.MethodProject, protocol.PackageParams{Path: "/p"}, nil)
	lines := parseTranscript(t, buf.Bytes())
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(lines), buf.String())
	}
	b := lines[3]
	if b.Invalid || b.Frame != nil || b.Text == nil || len(*b.Text) != maxRecorded || b.Bytes <= maxRecorded ||
		!strings.Contains(b.Note, "frame truncated to 65536 of") || b.Method != "test/big" {
		t.Errorf("big frame recorded as invalid=%v text=%d bytes=%d note=%q", b.Invalid, len(*b.Text), b.Bytes, b.Note)
	}
	o := lines[5]
	if !o.Invalid || o.Bytes != 100<<20 || !strings.Contains(o.Note, "a 104857600-byte frame exceeds the 16777216-byte limit") ||
		o.Text == nil || !strings.HasPrefix(*o.Text, "Content-Length: 104857600") {
		t.Errorf("oversize frame recorded as %+v", o)
	}
}

func TestTranscriptNilAndWriteErrors(t *testing.T) {
	var nilT *Transcript
	nilT.SetSpec("x")
	nilT.record(frameRecord{dir: "send", body: []byte(`{}`)})
	if nilT.Seq() != 0 || nilT.Err() != nil || nilT.openConn() != 0 {
		t.Error("nil transcript is not inert")
	}
	tr := NewTranscript(failWriter{}, nil)
	tr.record(frameRecord{dir: "send", body: []byte(`{}`)})
	tr.record(frameRecord{dir: "send", body: []byte(`{}`)})
	if err := tr.Err(); err == nil || !strings.Contains(err.Error(), "writing transcript line 1") {
		t.Errorf("Err() = %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRedactor(t *testing.T) {
	r := NewRedactor()
	r.Add("abc", "short")
	r.Add("abcdef", "long")
	r.Add("x<y", `bad"label\`)
	got := string(r.Redact([]byte(`{"a":"abcdef","b":"abc","c":"x\u003cy","d":"x<y"}`)))
	want := `{"a":"<redacted:long>","b":"<redacted:short>","c":"<redacted:bad_label_>","d":"<redacted:bad_label_>"}`
	if got != want {
		t.Errorf("Redact:\n got  %s\n want %s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Error("redaction broke JSON")
	}
	var nilR *Redactor
	nilR.Add("x", "y")
	if string(nilR.Redact([]byte("x"))) != "x" {
		t.Error("nil redactor changed bytes")
	}
	// A secret that is a JSON number breaks the JSON when redacted: the
	// transcript keeps the text and says why.
	var buf bytes.Buffer
	r2 := NewRedactor()
	r2.Add("12345", "num")
	NewTranscript(&buf, r2).record(frameRecord{dir: "recv", body: []byte(`{"n":12345}`)})
	lines := parseTranscript(t, buf.Bytes())
	if l := lines[0]; l.Invalid || l.Text == nil || *l.Text != `{"n":<redacted:num>}` || !strings.Contains(l.Note, "redaction made the frame invalid JSON") {
		t.Errorf("recorded as %+v", l)
	}
}

// TestOnReceiveSeesWhatTheHostSent: the observer gets every received frame
// as sent (the harness searches it for secrets) while the recorded copy is
// redacted; frames the harness sent are not observed.
func TestOnReceiveSeesWhatTheHostSent(t *testing.T) {
	var buf bytes.Buffer
	red := NewRedactor()
	red.Add("s3cret", "key")
	tr := NewTranscript(&buf, red)
	tr.SetSpec("spec A")
	var seen []ReceivedFrame
	tr.OnReceive(func(f ReceivedFrame) { seen = append(seen, f) })
	tr.record(frameRecord{dir: "send", method: "app/list", body: []byte(`{"q":"s3cret"}`)})
	tr.record(frameRecord{dir: "recv", method: "app/list", body: []byte(`{"a":"s3cret"}`)})
	tr.record(frameRecord{dir: "recv", body: []byte(`garbage s3cret`), invalid: true})
	if len(seen) != 2 || seen[0].Seq != 2 || seen[0].Spec != "spec A" || seen[0].Method != "app/list" ||
		string(seen[0].Body) != `{"a":"s3cret"}` || string(seen[1].Body) != `garbage s3cret` {
		t.Errorf("observed %+v", seen)
	}
	if strings.Contains(buf.String(), "s3cret") {
		t.Error("the recorded copy carries the secret")
	}
}

// TestRecordPeerWritesAPeerLine: a request to a service the harness plays
// is a numbered "peer" line, redacted like frames.
func TestRecordPeerWritesAPeerLine(t *testing.T) {
	var buf bytes.Buffer
	red := NewRedactor()
	red.Add("s3cret", "key")
	tr := NewTranscript(&buf, red)
	tr.SetSpec("spec B")
	tr.record(frameRecord{dir: "send", method: "package/verify", body: []byte(`{}`)})
	tr.RecordPeer("revocation", "GET checkUrl?packageHash=sha256:ab&token=s3cret", `200 {"revoked":false}`)
	lines := parseTranscript(t, buf.Bytes())
	if len(lines) != 2 {
		t.Fatalf("lines: %+v", lines)
	}
	l := lines[1]
	if l.Seq != 2 || l.Dir != "peer" || l.Method != "revocation" || l.Spec != "spec B" || l.Text == nil ||
		*l.Text != "GET checkUrl?packageHash=sha256:ab&token=<redacted:key>" || l.Note != `200 {"revoked":false}` {
		t.Errorf("peer line %+v", l)
	}
}
