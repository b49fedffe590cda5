package mockhost

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The host's runtime events become OpenTelemetry spans (spec 000, Tool
// discovery and observability: agent.task, artifact.materialize, ...),
// exported over OTLP/HTTP (protobuf; JSON under a variant) to the collector host/configure
// names, in batches as an SDK's batch span processor sends them. Prompt
// text, user content and artifact bodies go in only when the user opted in
// (protocol.Telemetry.ExportContent): "not exported by default; content
// export must be explicit opt-in".

// otelBatchDelay is how long a span waits for others before its batch is
// sent (an SDK's default is 5 s; the harness waits for that too).
const otelBatchDelay = 200 * time.Millisecond

// otelExportTimeout bounds one export request.
const otelExportTimeout = 2 * time.Second

// Content members a span may carry.
const (
	contentPrompt   = "prompt"
	contentUser     = "user-content"
	contentArtifact = "artifact-body"
)

// spanContent is one piece of content a span would carry on opt-in.
type spanContent struct {
	member, key, value string
}

// otelExporter queues spans and sends each batch once otelBatchDelay has
// passed since its first span.
type otelExporter struct {
	mu      sync.Mutex
	queue   map[otelTarget][]*tracepb.Span
	pending bool
	// optIns is the content opt-in each collector was first configured
	// with (kept only by the telemetry-content-opt-in-latched fault).
	optIns map[string]bool
	// changed are the collectors whose opt-in a configuration changed
	// (kept only by the telemetry-content-opt-in-on-change fault).
	changed map[string]bool
}

// optInOnceChanged is the opt-in of a host that starts with content
// capture on and applies a configuration's opt-in only once it differs
// from the first one that named endpoint.
func (e *otelExporter) optInOnceChanged(endpoint string, optIn bool) bool {
	first := e.firstOptIn(endpoint, optIn)
	e.mu.Lock()
	defer e.mu.Unlock()
	if optIn != first {
		if e.changed == nil {
			e.changed = map[string]bool{}
		}
		e.changed[endpoint] = true
	}
	return optIn || !e.changed[endpoint]
}

// firstOptIn is the content opt-in of the first configuration that named
// endpoint, optIn when this one is the first.
func (e *otelExporter) firstOptIn(endpoint string, optIn bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if first, ok := e.optIns[endpoint]; ok {
		return first
	}
	if e.optIns == nil {
		e.optIns = map[string]bool{}
	}
	e.optIns[endpoint] = optIn
	return optIn
}

// otelTarget is where a batch goes and in which OTLP/HTTP encoding.
type otelTarget struct {
	endpoint string
	json     bool
}

// exportSpan records a finished span of the app's runtime: attrs always,
// each piece of content only on the user's opt-in.
func (h *Host) exportSpan(l *launch, name string, attrs map[string]string, content ...spanContent) {
	cfg, _ := h.config()
	// variant: telemetry-none — the host exports no telemetry at all, whatever host/configure names.
	if cfg.Telemetry == nil || cfg.Telemetry.Endpoint == "" || h.variants.Has("telemetry-none") {
		return
	}
	all := map[string]string{"lime.app.id": l.appID, "lime.app.version": l.version}
	for k, v := range attrs {
		all[k] = v
	}
	optIn := cfg.Telemetry.ExportContent
	// fault: telemetry-content-opt-in-latched — the exporter keeps, per collector, the content opt-in of the first host/configure that named it: after a host/configure turning content export off, spans to the same collector still carry the prompt text, user content and artifact bodies.
	if h.faults.Has("telemetry-content-opt-in-latched") {
		optIn = h.otel.firstOptIn(cfg.Telemetry.Endpoint, optIn)
	}
	// fault: telemetry-content-opt-in-on-change — the exporter starts with content capture on (an instrumentation's default) and applies a configuration's content opt-in only once it differs from the first one that named the collector: a host configured with content export off from the start exports the prompt text, user content and artifact bodies until a later host/configure changes the opt-in.
	if h.faults.Has("telemetry-content-opt-in-on-change") {
		optIn = h.otel.optInOnceChanged(cfg.Telemetry.Endpoint, optIn)
	}
	for _, c := range content {
		if optIn || h.exportsContent(c.member) {
			all[c.key] = c.value
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	now := uint64(time.Now().UnixNano())
	s := &tracepb.Span{Name: name, TraceId: randomBytes(16), SpanId: randomBytes(8), Kind: tracepb.Span_SPAN_KIND_INTERNAL,
		StartTimeUnixNano: now, EndTimeUnixNano: now}
	for _, k := range keys {
		s.Attributes = append(s.Attributes, stringAttr(k, all[k]))
	}
	// variant: telemetry-otlp-json — spans are exported in OTLP/HTTP's JSON encoding, not protobuf.
	h.otel.add(otelTarget{cfg.Telemetry.Endpoint, h.variants.Has("telemetry-otlp-json")}, s)
}

// exportsContent says whether a fault exports one content member without
// the user's opt-in.
func (h *Host) exportsContent(member string) bool {
	switch member {
	case contentPrompt:
		// fault: telemetry-exports-prompt — an agent task's span carries the prompt text (the input's text) although the user never opted in to content export.
		return h.faults.Has("telemetry-exports-prompt")
	case contentUser:
		// fault: telemetry-exports-user-content — an agent task's span carries the user content of its input (everything beside the text, attachments included) without the user's opt-in.
		return h.faults.Has("telemetry-exports-user-content")
	case contentArtifact:
		// fault: telemetry-exports-artifact-body — an artifact.materialize span carries the artifact's body without the user's opt-in.
		return h.faults.Has("telemetry-exports-artifact-body")
	}
	return false
}

// taskContent splits a task's input into its prompt text and the rest,
// the user's content.
func taskContent(input json.RawMessage) []spanContent {
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil {
		return []spanContent{{contentPrompt, "lime.task.input", string(input)}}
	}
	var text string
	_ = json.Unmarshal(in["text"], &text)
	delete(in, "text")
	rest, _ := json.Marshal(in)
	return []spanContent{{contentPrompt, "lime.task.prompt", text}, {contentUser, "lime.task.user_content", string(rest)}}
}

// artifactContent is the body of an artifact read's answer.
func artifactContent(res any) []spanContent {
	b, _ := json.Marshal(res)
	var a struct {
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(b, &a)
	return []spanContent{{contentArtifact, "lime.artifact.content", string(a.Content)}}
}

func (e *otelExporter) add(to otelTarget, s *tracepb.Span) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.queue == nil {
		e.queue = map[otelTarget][]*tracepb.Span{}
	}
	e.queue[to] = append(e.queue[to], s)
	if !e.pending {
		e.pending = true
		time.AfterFunc(otelBatchDelay, e.flush)
	}
}

// flush sends every queued span, a request per endpoint; a collector that
// is down or slow loses the batch, as an SDK's exporter drops it.
func (e *otelExporter) flush() {
	e.mu.Lock()
	queue := e.queue
	e.queue, e.pending = nil, false
	e.mu.Unlock()
	for to, spans := range queue {
		req := &coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
			Resource:   &resourcepb.Resource{Attributes: []*commonpb.KeyValue{stringAttr("service.name", "agentapp-mockhost")}},
			ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "agentapp-mockhost"}, Spans: spans}},
		}}}
		contentType, encode := "application/x-protobuf", proto.Marshal
		if to.json {
			contentType, encode = "application/json", otlpJSON
		}
		body, err := encode(req)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), otelExportTimeout)
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(to.endpoint, "/")+"/v1/traces", bytes.NewReader(body))
		if err == nil {
			r.Header.Set("Content-Type", contentType)
			if resp, err := http.DefaultClient.Do(r); err == nil {
				_ = resp.Body.Close()
			}
		}
		cancel()
	}
}

// otlpJSON encodes req in OTLP's JSON mapping: protobuf's JSON with trace
// and span ids in hex, not base64.
func otlpJSON(req proto.Message) ([]byte, error) {
	b, err := protojson.Marshal(req)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	for _, rs := range asList(doc["resourceSpans"]) {
		for _, ss := range asList(rs["scopeSpans"]) {
			for _, sp := range asList(ss["spans"]) {
				for _, id := range []string{"traceId", "spanId", "parentSpanId"} {
					if v, ok := sp[id].(string); ok {
						raw, _ := base64.StdEncoding.DecodeString(v)
						sp[id] = hex.EncodeToString(raw)
					}
				}
			}
		}
	}
	return json.Marshal(doc)
}

// asList reads v as a list of JSON objects.
func asList(v any) []map[string]any {
	var out []map[string]any
	list, _ := v.([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func stringAttr(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
