package control

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// maxRecorded is the most of one frame a transcript line carries.
const maxRecorded = 64 << 10

// Transcript is an append-only, goroutine-safe recorder of every frame both
// ways, written as JSON Lines as frames pass (docs/host-control-protocol.md,
// "Transcript"). A nil *Transcript records nothing.
type Transcript struct {
	mu      sync.Mutex
	enc     *json.Encoder
	red     *Redactor
	seq     int
	conns   int
	spec    string
	err     error
	written int64 // bytes of JSONL written so far
	dropped int   // frames counted but not written past maxTranscriptBytes
	// onReceive sees every frame received from the host, as sent.
	onReceive func(ReceivedFrame)
}

// ReceivedFrame is one frame the host sent, before redaction: the harness
// searches it for planted secrets (the recorded copy has them redacted).
type ReceivedFrame struct {
	Seq    int    // its line in the transcript
	Spec   string // the spec that was running
	Method string // the method it answers, when known
	Body   []byte
}

// OnReceive registers fn to see every frame received from the host, as
// the host sent it. fn runs on the connection's reader: it must be quick
// and must not call the host.
func (t *Transcript) OnReceive(fn func(ReceivedFrame)) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onReceive = fn
}

// maxTranscriptBytes caps transcript.jsonl: past it, frames still count
// (their sequence numbers advance) but are not written, so a host that
// floods notifications cannot fill the disk. A final line says how many.
const maxTranscriptBytes = 256 << 20

// countingWriter counts the bytes the encoder writes.
type countingWriter struct {
	w io.Writer
	n *int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// NewTranscript writes JSONL lines to w, redacting red's secrets (red may be nil).
func NewTranscript(w io.Writer, red *Redactor) *Transcript {
	t := &Transcript{red: red}
	t.enc = json.NewEncoder(countingWriter{w: w, n: &t.written})
	t.enc.SetEscapeHTML(false)
	return t
}

// SetSpec tags the frames recorded after this call with the spec name.
func (t *Transcript) SetSpec(name string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spec = name
}

// Seq returns the number of frames recorded so far; the next line's seq is Seq()+1.
func (t *Transcript) Seq() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq
}

// Err returns the first error writing the transcript, if any.
func (t *Transcript) Err() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// openConn numbers a new connection (1, 2, ...).
func (t *Transcript) openConn() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.conns++
	return t.conns
}

// line is one transcript line.
type line struct {
	Seq     int             `json:"seq"`
	Time    string          `json:"time"`
	Conn    int             `json:"conn"`
	Spec    string          `json:"spec"`
	Dir     string          `json:"dir"`
	Method  string          `json:"method,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Frame   json.RawMessage `json:"frame,omitempty"`
	Invalid bool            `json:"invalid,omitempty"`
	Text    *string         `json:"text,omitempty"`
	Bytes   int64           `json:"bytes,omitempty"`
	Note    string          `json:"note,omitempty"`
}

// frameRecord is what the codec hands to the transcript.
type frameRecord struct {
	conn    int
	dir     string // "send" or "recv"
	method  string
	id      json.RawMessage
	body    []byte
	invalid bool   // not a frame at all (garbage, refused or cut short)
	size    int64  // announced size when it differs from len(body)
	note    string // what went wrong
}

func (t *Transcript) record(r frameRecord) {
	if t == nil {
		return
	}
	body := t.red.Redact(r.body)
	l := line{Conn: r.conn, Dir: r.dir, Method: r.method, Note: r.note, Bytes: r.size}
	if id := t.red.Redact(r.id); len(id) > 0 && json.Valid(id) {
		l.ID = id
	}
	origValid := !r.invalid && json.Valid(r.body)
	valid := origValid && (bytes.Equal(body, r.body) || json.Valid(body))
	if valid && len(body) <= maxRecorded {
		l.Frame = body
	} else {
		l.Invalid = !origValid
		if origValid && !valid {
			l.Note = joinNote(l.Note, "redaction made the frame invalid JSON")
		}
		text := body
		if len(text) > maxRecorded {
			text = text[:maxRecorded]
			l.Bytes = int64(len(body))
			l.Note = joinNote(l.Note, fmt.Sprintf("frame truncated to %d of %d bytes", maxRecorded, len(body)))
		}
		s := string(text)
		l.Text = &s
	}
	t.write(l, func(l line) {
		if r.dir == "recv" && t.onReceive != nil {
			t.onReceive(ReceivedFrame{Seq: l.Seq, Spec: l.Spec, Method: r.method, Body: r.body})
		}
	})
}

// RecordPeer records one request the host made of a service the harness
// plays for it (dir "peer"; method names the service), with what the
// service answered, redacted like frames.
func (t *Transcript) RecordPeer(peer, request, answer string) {
	if t == nil {
		return
	}
	text := string(t.red.Redact([]byte(request)))
	t.write(line{Dir: "peer", Method: peer, Text: &text, Note: string(t.red.Redact([]byte(answer)))}, nil)
}

// write numbers l, stamps it with the spec and time, lets seen look at it
// and appends it, under the lock.
func (t *Transcript) write(l line, seen func(line)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seq++
	l.Seq = t.seq
	l.Spec = t.spec
	if seen != nil {
		seen(l)
	}
	l.Time = time.Now().UTC().Format(time.RFC3339Nano)
	if t.written >= maxTranscriptBytes {
		if t.dropped == 0 {
			_ = t.enc.Encode(line{Seq: l.Seq, Time: l.Time, Spec: l.Spec, Conn: l.Conn,
				Note: fmt.Sprintf("transcript reached %d bytes; later frames are counted, not written", maxTranscriptBytes)})
		}
		t.dropped++
		return
	}
	if err := t.enc.Encode(l); err != nil && t.err == nil {
		t.err = fmt.Errorf("writing transcript line %d: %w", l.Seq, err)
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// frameEnvelope is the part of a JSON-RPC message the recorder needs.
type frameEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
}

func envelopeOf(body []byte) frameEnvelope {
	var env frameEnvelope
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		_ = json.Unmarshal(body, &env)
	}
	return env
}
