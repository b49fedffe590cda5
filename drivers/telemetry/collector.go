// Package telemetry is the OpenTelemetry collector the harness plays on
// loopback: an OTLP/HTTP receiver (spec 000, Tool discovery and
// observability: "Runtime profile events should map to OpenTelemetry
// spans ... Prompt text, user content, and artifact bodies are not exported
// by default"). A host given its endpoint (host/configure telemetry)
// exports there as it would to any collector:
//
//	POST <endpoint>/v1/traces   ExportTraceServiceRequest, protobuf or JSON
//	POST <endpoint>/v1/logs     any OTLP body (kept, not decoded)
//	POST <endpoint>/v1/metrics  any OTLP body (kept, not decoded)
//
// gzip bodies are inflated. Every export is kept whole, so a spec can look
// for what it planted anywhere in it, and the spans of each trace export
// are read out, so a spec can tell a host that exports from one that does
// not.
package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

// MaxBody bounds one export the collector reads; a larger one is refused
// (413) and kept as an export that could not be read.
const MaxBody = 8 << 20

// Content types of OTLP/HTTP.
const (
	ContentProtobuf = "application/x-protobuf"
	ContentJSON     = "application/json"
)

// Export is one request a host sent the collector.
type Export struct {
	// Signal is traces, logs or metrics (the path's last element), or the
	// path itself when it names none of them.
	Signal string
	// ContentType is the request's media type.
	ContentType string
	// Body is the request's body, inflated.
	Body []byte
	// Spans are the names of the spans a trace export carries, in order.
	Spans []string
	// Err says why the body could not be read as its signal.
	Err string
	At  time.Time
}

// Collector is an OTLP/HTTP receiver on 127.0.0.1.
type Collector struct {
	srv *http.Server
	url string

	mu      sync.Mutex
	exports []Export
	arrived chan struct{} // closed at each export
	record  func(Export)
}

// Start starts a collector; record (may be nil) sees every export as it
// arrives, for the run's transcript.
func Start(record func(Export)) (*Collector, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("telemetry collector: %w", err)
	}
	c := &Collector{url: "http://" + l.Addr().String(), arrived: make(chan struct{}), record: record}
	c.srv = &http.Server{Handler: http.HandlerFunc(c.serve), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	go func() { _ = c.srv.Serve(l) }()
	return c, nil
}

// URL is the collector's OTLP/HTTP endpoint: a base URL, as
// OTEL_EXPORTER_OTLP_ENDPOINT takes it.
func (c *Collector) URL() string { return c.url }

// Close stops the collector.
func (c *Collector) Close() error { return c.srv.Close() }

// Reset forgets every export (before each spec).
func (c *Collector) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.exports = nil
}

// Exports are the exports received since the last Reset, in order.
func (c *Collector) Exports() []Export {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Export(nil), c.exports...)
}

// WaitSince waits, within ctx, for an export received after since, and
// reports whether one came.
func (c *Collector) WaitSince(ctx context.Context, since time.Time) bool {
	for {
		c.mu.Lock()
		for _, e := range c.exports {
			if e.At.After(since) {
				c.mu.Unlock()
				return true
			}
		}
		arrived := c.arrived
		c.mu.Unlock()
		select {
		case <-arrived:
		case <-ctx.Done():
			return false
		}
	}
}

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "OTLP/HTTP takes POST", http.StatusMethodNotAllowed)
		return
	}
	e := Export{Signal: signalOf(r.URL.Path), At: time.Now()}
	e.ContentType, _, _ = mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, status, err := readBody(r)
	e.Body = body
	if err != nil {
		e.Err = err.Error()
	} else if e.Signal == "traces" {
		if e.Spans, err = spanNames(e.ContentType, body); err != nil {
			e.Err, status = err.Error(), http.StatusBadRequest
		}
	}
	c.mu.Lock()
	c.exports = append(c.exports, e)
	close(c.arrived)
	c.arrived = make(chan struct{})
	record := c.record
	c.mu.Unlock()
	if record != nil {
		record(e)
	}
	if status != http.StatusOK {
		http.Error(w, e.Err, status)
		return
	}
	// An empty Export*ServiceResponse reads the same in both encodings'
	// simplest form: no partial success.
	if e.ContentType == ContentJSON {
		w.Header().Set("Content-Type", ContentJSON)
		_, _ = io.WriteString(w, "{}")
		return
	}
	w.Header().Set("Content-Type", ContentProtobuf)
	w.WriteHeader(http.StatusOK)
}

// signalOf names the OTLP signal a path is for.
func signalOf(path string) string {
	for _, s := range []string{"traces", "logs", "metrics"} {
		if strings.HasSuffix(strings.TrimSuffix(path, "/"), "/v1/"+s) {
			return s
		}
	}
	return path
}

// readBody reads r's body, inflated, within MaxBody.
func readBody(r *http.Request) ([]byte, int, error) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
	if err != nil {
		return nil, http.StatusBadRequest, fmt.Errorf("reading the export: %w", err)
	}
	if len(raw) > MaxBody {
		return raw[:MaxBody], http.StatusRequestEntityTooLarge, fmt.Errorf("the export is over %d bytes", MaxBody)
	}
	if !strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		return raw, http.StatusOK, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return raw, http.StatusBadRequest, fmt.Errorf("the export says gzip but is not: %w", err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, MaxBody+1))
	if err != nil {
		return raw, http.StatusBadRequest, fmt.Errorf("inflating the export: %w", err)
	}
	if len(body) > MaxBody {
		return body[:MaxBody], http.StatusRequestEntityTooLarge, fmt.Errorf("the export inflates to over %d bytes", MaxBody)
	}
	return body, http.StatusOK, nil
}

// spanNames reads the span names of an ExportTraceServiceRequest in either
// OTLP/HTTP encoding. JSON is read by its member names alone: OTLP's JSON
// mapping writes trace and span ids in hex, which protojson would not take.
func spanNames(contentType string, body []byte) ([]string, error) {
	var names []string
	switch contentType {
	case ContentProtobuf:
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			return nil, fmt.Errorf("the trace export is not an ExportTraceServiceRequest in protobuf: %w", err)
		}
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					names = append(names, s.GetName())
				}
			}
		}
	case ContentJSON:
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						Name string `json:"name"`
					} `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, fmt.Errorf("the trace export is not an ExportTraceServiceRequest in JSON: %w", err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
				}
			}
		}
	default:
		return nil, errors.New("the trace export's Content-Type is neither " + ContentProtobuf + " nor " + ContentJSON)
	}
	return names, nil
}
