package reports

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/agentapp/conformance/levels"
)

// Files of the report directory (docs/report-format.md "Files").
const (
	ReportFile              = "report.json"
	EnvelopeFile            = "report.intoto.json"
	StatementFile           = "report.statement.json"
	TestResultEnvelopeFile  = "test-result.intoto.json"
	TestResultStatementFile = "test-result.statement.json"
	JUnitFile               = "junit.xml"
	HTMLFile                = "report.html"
)

// WriteOptions say how WriteAll signs and what it digests.
type WriteOptions struct {
	SignKeyPath  string // PEM PKCS#8 private key; empty = unsigned
	HostArtifact string // optional file whose SHA-256 becomes a subject
	Catalog      *levels.Catalog
}

// Written is what WriteAll wrote.
type Written struct {
	Files  []string
	Signed bool
	KeyID  string
}

// WriteAll writes report.json, the conformance and test-result statements
// (signed DSSE envelopes report.intoto.json and test-result.intoto.json with
// a key; unsigned report.statement.json and test-result.statement.json
// without), junit.xml and report.html into dir. The statements' subjects
// name transcript.jsonl, report.json, junit.xml and report.html with their
// digests, so verify checks every file beside the envelope. transcript.jsonl must
// already be there: WriteAll digests it into r.Transcript and takes the
// excerpts report.html shows from it. The artifacts r lists must be in dir
// with their digests (CheckArtifacts), as verify will find them. It fills r.Host.ArtifactDigest from
// HostArtifact. r must be settled (Settle): WriteAll decides no outcome or
// verdict, and refuses a report whose verdicts do not follow from its
// outcomes, so every file agrees with what verify recomputes.
func WriteAll(dir string, r *Report, opts WriteOptions) (Written, error) {
	var w Written
	cat := opts.Catalog
	if cat == nil {
		cat = levels.Default()
	}
	var key *Key
	if opts.SignKeyPath != "" {
		k, err := LoadPrivateKey(opts.SignKeyPath)
		if err != nil {
			return w, fmt.Errorf("signing key: %w", err)
		}
		key = k
	}
	if opts.HostArtifact != "" {
		sum, err := FileSHA256(opts.HostArtifact)
		if err != nil {
			return w, fmt.Errorf("host artifact: %w", err)
		}
		r.Host.ArtifactDigest = "sha256:" + sum
	}
	var ranges [][2]int
	for _, rr := range r.Requirements {
		for _, s := range rr.Specs {
			if s.Outcome != Passed {
				ranges = append(ranges, s.Exchanges)
			}
		}
	}
	ts, err := ScanTranscript(filepath.Join(dir, TranscriptFile), ranges)
	if err != nil {
		return w, err
	}
	r.Transcript = TranscriptRef{Path: TranscriptFile, SHA256: ts.SHA256, Exchanges: ts.Frames}
	// What is signed must verify: every artifact listed is in dir as listed.
	if _, err := CheckArtifacts(dir, &r.Results); err != nil {
		return w, fmt.Errorf("the report's artifacts: %w", err)
	}
	if r.Format == "" {
		r.Format = FormatVersion
	}
	// report.json, junit.xml and report.html are rendered first: the
	// statement names each with its digest, so that a doctored copy beside
	// a genuine envelope fails verify.
	rj, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return w, fmt.Errorf("encoding report.json: %w", err)
	}
	rj = append(rj, '\n')
	var junit, html bytes.Buffer
	if err := WriteJUnit(&junit, r, cat); err != nil {
		return w, err
	}
	signed := ""
	if key != nil {
		signed = key.alg + " key " + key.id
		w.Signed, w.KeyID = true, key.id
	}
	if err := WriteHTML(&html, r, HTMLOptions{Catalog: cat, Excerpts: ts.Excerpts, Signed: signed}); err != nil {
		return w, err
	}
	rendered := []struct {
		name string
		data []byte
	}{{ReportFile, rj}, {JUnitFile, junit.Bytes()}, {HTMLFile, html.Bytes()}}
	files := make([]FileDigest, len(rendered))
	for i, f := range rendered {
		sum := sha256.Sum256(f.data)
		files[i] = FileDigest{Name: f.name, SHA256: hex.EncodeToString(sum[:])}
	}
	st, err := BuildStatements(r, cat, files...)
	if err != nil {
		return w, fmt.Errorf("building the attestation: %w", err)
	}
	if err := ValidatePredicate(st.Predicate); err != nil {
		return w, fmt.Errorf("building the attestation: %w", err)
	}
	put := func(name string, data []byte) error {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", p, err)
		}
		w.Files = append(w.Files, p)
		return nil
	}
	for _, f := range rendered {
		if err := put(f.name, f.data); err != nil {
			return w, err
		}
	}
	type out struct{ signed, unsigned string }
	for _, f := range []struct {
		names   out
		payload []byte
	}{
		{out{EnvelopeFile, StatementFile}, st.Conformance},
		{out{TestResultEnvelopeFile, TestResultStatementFile}, st.TestResult},
	} {
		name, stale, data := f.names.unsigned, f.names.signed, indentJSON(f.payload)
		if key != nil {
			name, stale = f.names.signed, f.names.unsigned
			if data, err = SignPayload(context.Background(), f.payload, key); err != nil {
				return w, err
			}
		}
		if err := os.Remove(filepath.Join(dir, stale)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return w, fmt.Errorf("removing stale %s: %w", stale, err)
		}
		if err := put(name, data); err != nil {
			return w, err
		}
	}
	return w, nil
}

func indentJSON(b []byte) []byte {
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return b
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// FileSHA256 returns the hex SHA-256 of a file.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Load reads report.json, refusing files over MaxInputBytes (or
// MaxInputValues, MaxInputDepth), non-UTF-8,
// unknown fields, another format version and inconsistent outcomes.
func Load(path string) (*Report, error) {
	data, err := ReadLimited(path, MaxInputBytes)
	if err != nil {
		return nil, err
	}
	r, err := ParseReport(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseReport decodes report.json bytes (see Load).
func ParseReport(data []byte) (*Report, error) {
	if len(data) > MaxInputBytes {
		return nil, fmt.Errorf("report is %d bytes, over the limit of %d", len(data), MaxInputBytes)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("report is not UTF-8")
	}
	if err := checkJSONBounds(data); err != nil {
		return nil, fmt.Errorf("report refused: %w", err)
	}
	var probe struct {
		Format *string `json:"format"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("report is not a JSON object: %w", err)
	}
	if probe.Format == nil {
		return nil, fmt.Errorf("report has no field \"format\"")
	}
	if *probe.Format != FormatVersion {
		return nil, fmt.Errorf("report format is %q; this harness reads %q", *probe.Format, FormatVersion)
	}
	r := &Report{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("report has data after the JSON object")
	}
	if r.Host.Name == "" {
		return nil, fmt.Errorf("report: host.name is empty")
	}
	if err := CheckOutcomes(r.Requirements); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return r, nil
}
