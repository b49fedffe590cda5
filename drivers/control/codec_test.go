package control

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadFrame(t *testing.T) {
	cases := []struct {
		name, in string
		body     string // when the frame is good
		kind     string // else the failure kind
		detail   string
	}{
		{"plain", "Content-Length: 2\r\n\r\n{}", `{}`, "", ""},
		{"headers in any case, extra headers ignored", "content-type: application/json\r\nCONTENT-LENGTH:  2 \r\nX-Y: z\r\n\r\n{}", `{}`, "", ""},
		{"repeated equal lengths", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n[]", `[]`, "", ""},
		{"unframed JSON", `{"jsonrpc":"2.0"}` + "\n", "", KindMalformed, `it starts with "{\"jsonrpc\":\"2.0\"}\n"; every frame needs a Content-Length header`},
		{"no length", "Content-Type: x\r\n\r\n{}", "", KindMalformed, "the frame header has no Content-Length"},
		{"signed length", "Content-Length: +2\r\n\r\n{}", "", KindMalformed, `Content-Length "+2" is not a byte count`},
		{"word length", "Content-Length: two\r\n\r\n{}", "", KindMalformed, `Content-Length "two" is not a byte count`},
		{"huge digits", "Content-Length: 99999999999999999999\r\n\r\n", "", KindMalformed, "is not a byte count"},
		{"disagreeing lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", "", KindMalformed, "two Content-Length headers disagree (2 and 3)"},
		{"bare LF", "Content-Length: 2\n\n{}", "", KindMalformed, `header line "Content-Length: 2\n" does not end in CRLF`},
		{"no colon", "Content-Length 2\r\n\r\n{}", "", KindMalformed, `header line "Content-Length 2" is not "Name: value"`},
		{"bad name", "Content Length: 2\r\n\r\n{}", "", KindMalformed, `is not "Name: value"`},
		{"long line", "X: " + strings.Repeat("a", 5000) + "\r\n\r\n", "", KindMalformed, "a header line is longer than 4096 bytes"},
		{"long section", strings.Repeat("X: aaaaaaaaaaaaaaaa\r\n", 300), "", KindMalformed, "the header section is longer than 4096 bytes"},
		{"empty frame", "Content-Length: 0\r\n\r\n", "", KindMalformed, "the frame is empty (Content-Length: 0)"},
		{"oversize", "Content-Length: 1025\r\n\r\n{}", "", KindOversize, "a 1025-byte frame exceeds the 1024-byte limit"},
		{"cut in header", "Content-Len", "", KindClosed, "the stream ended inside a frame header (EOF)"},
		{"cut in body", "Content-Length: 10\r\n\r\n{\"a\"", "", KindClosed, "the stream ended after 4 of 10 bytes of a frame"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body, _, err := readFrame(bufio.NewReader(strings.NewReader(c.in)), 1024)
			if c.kind == "" {
				if err != nil || string(body) != c.body {
					t.Errorf("readFrame = %q, %v; want %q", body, err, c.body)
				}
				return
			}
			var fe *frameError
			if !errors.As(err, &fe) || fe.kind != c.kind || !strings.Contains(fe.detail, c.detail) {
				t.Errorf("readFrame error = %#v, want kind %s detail containing %q", err, c.kind, c.detail)
			}
		})
	}
	if _, _, err := readFrame(bufio.NewReader(strings.NewReader("")), 1024); err != io.EOF {
		t.Errorf("clean end = %v, want io.EOF", err)
	}
}

// headerOnly serves a header and then fails the test if anything reads on:
// an oversize frame is refused from its header alone.
type headerOnly struct {
	t      *testing.T
	header string
	done   bool
}

func (h *headerOnly) Read(p []byte) (int, error) {
	if h.done {
		h.t.Error("readFrame read past the header of an oversize frame")
		return 0, io.EOF
	}
	h.done = true
	return copy(p, h.header), nil
}

func TestOversizeRefusedBeforeReadingBody(t *testing.T) {
	r := &headerOnly{t: t, header: "Content-Length: 1099511627776\r\n\r\n"}
	_, seen, err := readFrame(bufio.NewReader(r), 16<<20)
	var fe *frameError
	if !errors.As(err, &fe) || fe.kind != KindOversize || fe.size != 1<<40 || fe.limit != 16<<20 {
		t.Fatalf("readFrame = %#v", err)
	}
	if string(seen) != r.header {
		t.Errorf("seen %q", seen)
	}
	allocs := testing.AllocsPerRun(20, func() {
		_, _, _ = readFrame(bufio.NewReaderSize(strings.NewReader("Content-Length: 1099511627776\r\n\r\n"), 64), 16<<20)
	})
	if allocs > 30 {
		t.Errorf("refusing an oversize frame took %.0f allocations", allocs)
	}
}
