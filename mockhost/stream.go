package mockhost

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// maxRequestBytes bounds one incoming frame; a larger Content-Length ends the
// connection before anything is allocated.
const maxRequestBytes = 16 << 20

// maxHeaderLine bounds one header line of a frame.
const maxHeaderLine = 4096

// frameStream is the jsonrpc2.ObjectStream of one connection: Content-Length
// framed JSON (LSP style) written with jsonrpc2.VSCodeObjectCodec. Every write
// takes mu, so the hostile faults can write raw bytes between two answers
// without jsonrpc2 writing at the same time. Reads answer a body that is not
// JSON (-32700) or not a JSON-RPC message (-32600) and go on with the next
// frame instead of dropping the connection.
type frameStream struct {
	conn io.ReadWriteCloser
	r    *bufio.Reader

	mu sync.Mutex // guards w and every write to conn
	w  *bufio.Writer

	errMu   sync.Mutex
	readErr error // why reading stopped, when it was not a clean EOF
}

func newFrameStream(conn io.ReadWriteCloser) *frameStream {
	return &frameStream{conn: conn, r: bufio.NewReader(conn), w: bufio.NewWriter(conn)}
}

// WriteObject implements jsonrpc2.ObjectStream.
func (s *frameStream) WriteObject(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := (jsonrpc2.VSCodeObjectCodec{}).WriteObject(s.w, obj); err != nil {
		return err
	}
	return s.w.Flush()
}

// WriteRaw runs fn with exclusive access to the connection's writer; fn's
// bytes are flushed when it returns.
func (s *frameStream) WriteRaw(fn func(w io.Writer) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := fn(s.w); err != nil {
		return err
	}
	return s.w.Flush()
}

// ReadObject implements jsonrpc2.ObjectStream.
func (s *frameStream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			if errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) || errors.Is(err, os.ErrClosed) {
				return io.EOF // closed by this side (Close, kill): a clean end
			}
			if !errors.Is(err, io.EOF) {
				s.errMu.Lock()
				s.readErr = err
				s.errMu.Unlock()
			}
			return err
		}
		if !json.Valid(body) {
			if err := s.writeNullIDError(jsonrpc2.CodeParseError, "request is not JSON"); err != nil {
				return err
			}
			continue
		}
		if err := json.Unmarshal(body, v); err != nil {
			if err := s.writeNullIDError(jsonrpc2.CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error()); err != nil {
				return err
			}
			continue
		}
		return nil
	}
}

// Close implements jsonrpc2.ObjectStream.
func (s *frameStream) Close() error { return s.conn.Close() }

// err reports why reading stopped, nil after a clean end of stream.
func (s *frameStream) err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.readErr
}

// readFrame reads one Content-Length framed body.
func (s *frameStream) readFrame() ([]byte, error) {
	length := int64(-1)
	for {
		line, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("reading frame header: %q is not a header line", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("reading frame header: Content-Length %q is not a byte count", strings.TrimSpace(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("reading frame header: no Content-Length header")
	}
	if length > maxRequestBytes {
		return nil, fmt.Errorf("reading frame: Content-Length %d exceeds the limit of %d bytes", length, maxRequestBytes)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, fmt.Errorf("reading a %d-byte frame body: %w", length, err)
	}
	return body, nil
}

// readLine reads one CRLF-terminated header line without the CRLF.
func (s *frameStream) readLine() (string, error) {
	var b strings.Builder
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if b.Len() == 0 {
				return "", err
			}
			return "", fmt.Errorf("reading frame header: %w", io.ErrUnexpectedEOF)
		}
		if c == '\n' {
			return strings.TrimSuffix(b.String(), "\r"), nil
		}
		if b.Len() >= maxHeaderLine {
			return "", fmt.Errorf("reading frame header: line longer than %d bytes", maxHeaderLine)
		}
		b.WriteByte(c)
	}
}

// writeNullIDError answers a message whose id could not be read (JSON-RPC 2.0 §5).
func (s *frameStream) writeNullIDError(code int64, msg string) error {
	return s.WriteObject(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": msg},
	})
}
