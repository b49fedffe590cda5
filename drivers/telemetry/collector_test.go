package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func post(t *testing.T, c *Collector, path, contentType string, body []byte, gz bool) int {
	t.Helper()
	if gz {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write(body)
		_ = w.Close()
		body = b.Bytes()
	}
	req, _ := http.NewRequest(http.MethodPost, c.URL()+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if gz {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// Both OTLP/HTTP encodings, gzip or not, give the spans they carry, and
// every body is kept whole for a spec to search.
func TestTheCollectorReadsSpansInEitherEncoding(t *testing.T) {
	c, err := Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{ScopeSpans: []*tracepb.ScopeSpans{{
		Spans: []*tracepb.Span{{Name: "agent.task", TraceId: make([]byte, 16), SpanId: make([]byte, 8)}, {Name: "artifact.materialize"}}}}}}}
	pb, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	js := []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","name":"tool.call","attributes":[{"key":"k","value":{"stringValue":"planted-1"}}]}]}]}]}`)
	since := time.Now()
	for _, tc := range []struct {
		path, ct string
		body     []byte
		gz       bool
		want     []string
	}{
		{"/v1/traces", ContentProtobuf, pb, false, []string{"agent.task", "artifact.materialize"}},
		{"/v1/traces", ContentProtobuf + "; charset=binary", pb, true, []string{"agent.task", "artifact.materialize"}},
		{"/v1/traces", ContentJSON, js, false, []string{"tool.call"}},
		{"/otlp/v1/traces/", ContentJSON, js, true, []string{"tool.call"}},
	} {
		if code := post(t, c, tc.path, tc.ct, tc.body, tc.gz); code != http.StatusOK {
			t.Fatalf("POST %s (%s, gzip %v) answered %d", tc.path, tc.ct, tc.gz, code)
		}
		got := c.Exports()
		last := got[len(got)-1]
		if !slices.Equal(last.Spans, tc.want) || last.Err != "" || last.Signal != "traces" {
			t.Errorf("POST %s (%s, gzip %v): spans %q, signal %q, err %q; want %q", tc.path, tc.ct, tc.gz, last.Spans, last.Signal, last.Err, tc.want)
		}
	}
	if !strings.Contains(string(c.Exports()[3].Body), "planted-1") {
		t.Error("the gzip body was not kept inflated")
	}
	if post(t, c, "/v1/logs", ContentProtobuf, []byte("planted-2"), false) != http.StatusOK || string(c.Exports()[4].Body) != "planted-2" {
		t.Error("a log export was not kept as it came")
	}
	if code := post(t, c, "/v1/traces", ContentJSON, []byte("not json"), false); code != http.StatusBadRequest || c.Exports()[5].Err == "" {
		t.Errorf("a trace export that is not OTLP was answered %d and kept without saying so", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if !c.WaitSince(ctx, since) {
		t.Error("WaitSince did not see the exports after its instant")
	}
	c.Reset()
	if len(c.Exports()) != 0 {
		t.Error("Reset kept exports")
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if c.WaitSince(short, time.Now()) {
		t.Error("WaitSince reported an export that never came")
	}
}
