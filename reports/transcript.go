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
// exchanges: its first excerptHeadBytes and, when there is more, its last
// lines up to excerptTotalBytes, with what lies between left out (a spec
// usually fails near its end, before its cleanup).
const (
	excerptLineBytes  = 1 << 10
	excerptTotalBytes = 8 << 10
	excerptHeadBytes  = excerptTotalBytes / 4
)

// transcriptLine is one line of transcript.jsonl (drivers/control).
type transcriptLine struct {
	Seq     int             `json:"seq"`
	Conn    int             `json:"conn"`
	Spec    string          `json:"spec"`
	Dir     string          `json:"dir"`
	Method  string          `json:"method"`
	ID      json.RawMessage `json:"id"`
	Frame   json.RawMessage `json:"frame"`
	Invalid bool            `json:"invalid"`
	Text    string          `json:"text"`
}

// Excerpt is the part of the transcript a failed spec's exchanges cover.
type Excerpt struct {
	From, To int
	// Lines are the excerpt's first lines and, when Omitted > 0, its last
	// ones: Omitted lines between Lines[OmitAt-1] and Lines[OmitAt] are left out.
	Lines   []ExcerptLine
	OmitAt  int
	Omitted int
}

// ExcerptLine is one transcript line of an excerpt: Text as shown, and what
// report.html needs to tell its exchanges apart.
type ExcerptLine struct {
	Seq    int
	Conn   int
	ID     string // the JSON-RPC id as written; "" for a notification or an invalid frame
	Dir    string // send | recv
	Method string
	Error  bool // a frame carrying an error: an answer that failed
	Text   string
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
				ex.add(excerptLine(tl))
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

// excerptLine is tl as an excerpt shows it.
func excerptLine(tl transcriptLine) ExcerptLine {
	l := ExcerptLine{Seq: tl.Seq, Conn: tl.Conn, Dir: tl.Dir, Method: TruncateUTF8(tl.Method, excerptLineBytes), Text: formatLine(tl)}
	if id := strings.TrimSpace(string(tl.ID)); id != "" && id != "null" && !tl.Invalid {
		l.ID = TruncateUTF8(id, excerptLineBytes)
	}
	if len(tl.Frame) > 0 && !tl.Invalid {
		var f struct {
			Error json.RawMessage `json:"error"`
		}
		l.Error = json.Unmarshal(tl.Frame, &f) == nil && len(f.Error) > 0 && string(f.Error) != "null"
	}
	return l
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

// add keeps line: every line while the excerpt fits excerptTotalBytes;
// past that, the first excerptHeadBytes of lines and as many of the last
// as fit the rest, counting the lines left out between them.
func (e *Excerpt) add(line ExcerptLine) {
	e.Lines = append(e.Lines, line)
	total := 0
	for _, l := range e.Lines {
		total += len(l.Text)
	}
	if total <= excerptTotalBytes {
		return
	}
	if e.Omitted == 0 {
		// First overflow: the head is the lines that fit excerptHeadBytes.
		for n := 0; e.OmitAt < len(e.Lines) && n+len(e.Lines[e.OmitAt].Text) <= excerptHeadBytes; e.OmitAt++ {
			n += len(e.Lines[e.OmitAt].Text)
		}
	}
	for total > excerptTotalBytes && e.OmitAt < len(e.Lines) {
		total -= len(e.Lines[e.OmitAt].Text)
		e.Lines = append(e.Lines[:e.OmitAt], e.Lines[e.OmitAt+1:]...)
		e.Omitted++
	}
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
