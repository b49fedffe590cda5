package mockhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sourcegraph/jsonrpc2"
)

// floodBytes is the size the flood-on-project answer announces and streams.
const floodBytes = 100 * 1024 * 1024

// floodChunk is one write of the flood; the flood never holds more.
const floodChunk = 64 * 1024

// flood writes a frame announcing floodBytes of an answer to id and streams
// that much valid-looking JSON until the peer stops reading (flood-on-project).
// A write failure leaves the stream unusable, so the connection is dropped.
func (s *session) flood(id jsonrpc2.ID) {
	idJSON, _ := json.Marshal(id)
	head := []byte(`{"jsonrpc":"2.0","id":` + string(idJSON) + `,"result":{"ok":true,"projection":{"padding":"`)
	tail := []byte(`"}}}`)
	pad := bytes.Repeat([]byte("x"), floodChunk)
	err := s.stream.WriteRaw(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", floodBytes); err != nil {
			return err
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		for left := floodBytes - len(head) - len(tail); left > 0; {
			n := min(left, len(pad))
			if _, err := w.Write(pad[:n]); err != nil {
				return err
			}
			left -= n
		}
		_, err := w.Write(tail)
		return err
	})
	if err != nil {
		s.kill()
	}
}

// crash writes a frame header announcing the whole answer, half of its body,
// and dies (crash-mid-uninstall): under ServeStdio the process exits with
// status 3; in-process the connection is dropped and refuses further work.
func (s *session) crash(id jsonrpc2.ID, result any) {
	resp := &jsonrpc2.Response{ID: id}
	body := []byte("{}")
	if err := resp.SetResult(result); err == nil {
		if b, err := json.Marshal(resp); err == nil {
			body = b
		}
	}
	_ = s.stream.WriteRaw(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
			return err
		}
		_, err := w.Write(body[:len(body)/2])
		return err
	})
	if s.host.exit != nil {
		_ = s.host.Close() // the temp dir goes; os.Exit skips deferred calls
		s.host.exit(3)
		return
	}
	s.kill()
}

// garbageBody is what garbage-on-list answers with: framed correctly, not JSON.
func garbageBody() []byte {
	return []byte("\x00\xff<html><body>500 Internal Server Error</body></html>\x1b[0m not json")
}

// garbage writes a well-framed body that is not JSON (garbage-on-list).
func (s *session) garbage() {
	body := garbageBody()
	err := s.stream.WriteRaw(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
			return err
		}
		_, err := w.Write(body)
		return err
	})
	if err != nil {
		s.kill()
	}
}
