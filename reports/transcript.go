package reports

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// TranscriptFile is the transcript's name in the report directory.
const TranscriptFile = "transcript.jsonl"

// Excerpt limits: report.html shows at most this much of a failed spec's
// exchanges.
const (
	excerptLineBytes  = 1 << 10
	excerptTotalBytes = 8 << 10
)

// transcriptLine is one line of transcript.jsonl (drivers/control).
type transcriptLine struct {
	Seq     int             `json:"seq"`
	Conn    int             `json:"conn"`
	Spec    string          `json:"spec"`
	Dir     string          `json:"dir"`
	Method  string          `json:"method"`
	Frame   json.RawMessage `json:"frame"`
	Invalid bool            `json:"invalid"`
	Text    string          `json:"text"`
}

// Excerpt is the part of the transcript a failed spec's exchanges cover.
type Excerpt struct {
	From, To  int
	Lines     []string
	Truncated bool
}

// TranscriptScan is what ScanTranscript read.
type TranscriptScan struct {
	SHA256   string // hex, of the file's bytes
	Frames   int    // lines that parsed
	BadLines int    // lines that did not
	Excerpts map[[2]int]*Excerpt
}

// ScanTranscript digests transcript.jsonl and collects the lines whose seq
// falls in each wanted [from, to] range (inclusive; [0, 0] is no range).
func ScanTranscript(path string, ranges [][2]int) (*TranscriptScan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading transcript: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 64<<10)
	ts := &TranscriptScan{Excerpts: map[[2]int]*Excerpt{}}
	for _, r := range ranges {
		if r != [2]int{} && r[0] <= r[1] {
			ts.Excerpts[r] = &Excerpt{From: r[0], To: r[1]}
		}
	}
	for n := 1; ; n++ {
		line, err := readLine(br)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("reading %s line %d: %w", path, n, err)
		}
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var tl transcriptLine
		if json.Unmarshal(line, &tl) != nil {
			ts.BadLines++
			continue
		}
		ts.Frames++
		for _, ex := range ts.Excerpts {
			if tl.Seq >= ex.From && tl.Seq <= ex.To {
				ex.add(formatLine(tl))
			}
		}
	}
	ts.SHA256 = hex.EncodeToString(h.Sum(nil))
	return ts, nil
}

// readLine reads one line, holding at most MaxInputBytes of it.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(out)+len(chunk) > MaxInputBytes {
			return nil, fmt.Errorf("line longer than %d bytes", MaxInputBytes)
		}
		out = append(out, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return out, err
	}
}

func formatLine(tl transcriptLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d conn %d %s", tl.Seq, tl.Conn, tl.Dir)
	if tl.Method != "" {
		b.WriteString(" " + tl.Method)
	}
	if tl.Invalid {
		b.WriteString(" (invalid frame) " + tl.Text)
	} else if len(tl.Frame) > 0 {
		b.WriteString(" " + string(tl.Frame))
	}
	return TruncateUTF8(strings.ToValidUTF8(b.String(), "\uFFFD"), excerptLineBytes)
}

func (e *Excerpt) add(line string) {
	if e.Truncated {
		return
	}
	total := 0
	for _, l := range e.Lines {
		total += len(l)
	}
	if total+len(line) > excerptTotalBytes {
		e.Truncated = true
		return
	}
	e.Lines = append(e.Lines, line)
}

// MaxFailureText caps one failure message or reason, in bytes, wherever it
// is kept: the harness cuts a message to it where it builds it (suites), and
// report.json, junit.xml, report.html, the predicate and the console all
// show that message. A host echoing a planted secret in 50,000 answers once
// made a message of 24 MB and a report.html of 74 MB.
const MaxFailureText = 32 << 10

// ClipFailure cuts s to at most MaxFailureText bytes, the mark of the cut
// included (ClipText).
func ClipFailure(s string) string { return ClipText(s, MaxFailureText) }

// ClipText cuts s on a rune boundary so that it and the mark of the cut
// (" … (N more bytes)") take at most n bytes; a text within n bytes, one
// ClipText made included, is returned as it is.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := max(n-len(fmt.Sprintf(" … (%d more bytes)", len(s))), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (%d more bytes)", len(s)-cut)
}

// TruncateUTF8 cuts s to at most n bytes on a rune boundary, marking the cut.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" … (%d more bytes)", len(s)-cut)
}
