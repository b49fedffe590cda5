package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// maxHeaderBytes bounds a frame's header section (docs/host-control-protocol.md,
// "Framing"); real headers are a few dozen bytes.
const maxHeaderBytes = 4096

// frameError is a fatal failure reading the host's byte stream.
type frameError struct {
	kind   string // KindMalformed, KindOversize or KindClosed
	what   string // for KindMalformed: "is not JSON", "is not a Content-Length frame", ...
	detail string // the specific cause
	size   int64  // announced frame size (oversize, cut short)
	got    int64  // body bytes received before the stream ended (cut short)
	limit  int64  // the frame size limit (oversize)
	// stray is what the host wrote where a frame header was due, when that
	// was not a header at all (a log line on stdout, say).
	stray []byte
}

func (e *frameError) Error() string { return e.detail }

func malformed(what, format string, args ...any) *frameError {
	return &frameError{kind: KindMalformed, what: what, detail: fmt.Sprintf(format, args...)}
}

const notFrame = "is not a Content-Length frame"

// readFrame reads one Content-Length frame (LSP base protocol framing). It
// returns io.EOF when the stream ends cleanly between frames, else a
// *frameError together with the bytes seen (for the transcript). A frame
// larger than limit is refused from its header, before its body is read or
// any buffer for it allocated.
func readFrame(r *bufio.Reader, limit int64) (body, seen []byte, err error) {
	first, err := r.Peek(1)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, io.EOF
		}
		return nil, nil, &frameError{kind: KindClosed, detail: err.Error()}
	}
	if !isTokenByte(first[0]) {
		seen, _ = r.Peek(min(r.Buffered(), 256))
		fe := malformed(notFrame, "it starts with %s; every frame needs a Content-Length header", quoteStart(seen))
		fe.stray = append([]byte(nil), seen...)
		return nil, seen, fe
	}
	var header []byte
	length := int64(-1)
	for {
		ln, err := r.ReadSlice('\n')
		header = append(header, ln...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, header, malformed(notFrame, "a header line is longer than %d bytes", len(ln))
		case err != nil:
			return nil, header, &frameError{kind: KindClosed, detail: fmt.Sprintf("the stream ended inside a frame header (%v)", err)}
		case len(header) > maxHeaderBytes:
			return nil, header, malformed(notFrame, "the header section is longer than %d bytes", maxHeaderBytes)
		case !bytes.HasSuffix(ln, []byte("\r\n")):
			fe := malformed(notFrame, "header line %s does not end in CRLF", quoteStart(ln))
			if !bytes.Contains(ln, []byte(":")) {
				fe.stray = append([]byte(nil), ln...)
			}
			return nil, header, fe
		}
		ln = ln[:len(ln)-2]
		if len(ln) == 0 {
			break
		}
		name, value, ok := strings.Cut(string(ln), ":")
		if !ok || name == "" || !isToken(name) {
			return nil, header, malformed(notFrame, `header line %s is not "Name: value"`, quoteStart(ln))
		}
		if !strings.EqualFold(name, "Content-Length") {
			continue // Content-Type and unknown headers are ignored
		}
		n, ok := parseLength(strings.TrimSpace(value))
		if !ok {
			return nil, header, malformed(notFrame, "Content-Length %s is not a byte count", quoteStart([]byte(strings.TrimSpace(value))))
		}
		if length >= 0 && n != length {
			return nil, header, malformed(notFrame, "two Content-Length headers disagree (%d and %d)", length, n)
		}
		length = n
	}
	switch {
	case length < 0:
		return nil, header, malformed(notFrame, "the frame header has no Content-Length")
	case length > limit:
		return nil, header, &frameError{kind: KindOversize, size: length, limit: limit,
			detail: fmt.Sprintf("a %d-byte frame exceeds the %d-byte limit", length, limit)}
	case length == 0:
		return nil, header, malformed("is not JSON", "the frame is empty (Content-Length: 0)")
	}
	var buf bytes.Buffer
	buf.Grow(int(min(length, maxRecorded))) // grow as bytes arrive, not as announced
	got, err := io.CopyN(&buf, r, length)
	if err != nil {
		return nil, buf.Bytes(), &frameError{kind: KindClosed, size: length, got: got,
			detail: fmt.Sprintf("the stream ended after %d of %d bytes of a frame", got, length)}
	}
	return buf.Bytes(), nil, nil
}

func parseLength(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// isTokenByte reports whether c may appear in a header name (RFC 9110 token).
func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// quoteStart quotes at most the first 60 bytes of b.
func quoteStart(b []byte) string {
	if len(b) > 60 {
		return fmt.Sprintf("%q...", b[:60])
	}
	return fmt.Sprintf("%q", b)
}

// codec is the jsonrpc2.ObjectCodec of a connection: Content-Length framing
// with a size limit, recording every frame both ways into the transcript.
type codec struct {
	limit int64
	t     *Transcript
	conn  int

	mu       sync.Mutex
	inflight map[string]string // request id -> method, for naming answers in the transcript
	failure  *frameError       // first fatal read failure
}

func newCodec(limit int64, t *Transcript, conn int) *codec {
	return &codec{limit: limit, t: t, conn: conn, inflight: map[string]string{}}
}

// failed returns the first fatal read failure, if any.
func (c *codec) failed() *frameError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failure
}

func (c *codec) fail(fe *frameError) *frameError {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failure == nil {
		c.failure = fe
	}
	return fe
}

// WriteObject implements jsonrpc2.ObjectCodec.
func (c *codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("encoding frame: %w", err)
	}
	env := envelopeOf(data)
	if env.Method != "" && len(env.ID) > 0 {
		c.mu.Lock()
		c.inflight[idKey(env.ID)] = env.Method
		c.mu.Unlock()
	}
	c.t.record(frameRecord{conn: c.conn, dir: "send", method: env.Method, id: env.ID, body: data})
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// ReadObject implements jsonrpc2.ObjectCodec.
func (c *codec) ReadObject(r *bufio.Reader, v any) error {
	body, seen, err := readFrame(r, c.limit)
	if err != nil {
		var fe *frameError
		if !errors.As(err, &fe) {
			fe = &frameError{kind: KindClosed, detail: "the host closed the connection"}
		} else if len(seen) > 0 || fe.kind != KindClosed {
			c.t.record(frameRecord{conn: c.conn, dir: "recv", body: seen, invalid: true, size: fe.size, note: fe.detail})
		}
		c.fail(fe)
		return err
	}
	env := envelopeOf(body)
	method := env.Method
	if method == "" && len(env.ID) > 0 {
		c.mu.Lock()
		method = c.inflight[idKey(env.ID)]
		delete(c.inflight, idKey(env.ID))
		c.mu.Unlock()
	}
	c.t.record(frameRecord{conn: c.conn, dir: "recv", method: method, id: env.ID, body: body})
	if !json.Valid(body) {
		var x any
		err := json.Unmarshal(body, &x)
		return c.fail(malformed("is not JSON", "%v", err))
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		return c.fail(malformed("is not a JSON-RPC 2.0 message", "it is a batch (a JSON array); the protocol has no batches"))
	}
	if env.JSONRPC != "2.0" {
		return c.fail(malformed("is not a JSON-RPC 2.0 message", `it lacks the member "jsonrpc": "2.0"`))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return c.fail(malformed("is not a JSON-RPC 2.0 message", "%v", err))
	}
	return nil
}

func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}
