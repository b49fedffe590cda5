package reports

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// MaxInputBytes caps every envelope, statement and report that verify,
// diff and merge read; larger input is refused before it is parsed (so is
// input past MaxInputValues or MaxInputDepth).
const MaxInputBytes = 64 << 20

// maxSignatures caps the signatures of one envelope.
const maxSignatures = 16

// ErrorKind classifies why verify refused an envelope; each kind has its
// own exit code (docs/report-format.md "Exit codes of verify").
type ErrorKind int

// Error kinds.
const (
	KindMalformed    ErrorKind = iota + 1 // not a well-formed envelope, statement or predicate
	KindBadSignature                      // a signature does not verify with the given keys
	KindWrongSubject                      // the subject is not the --host / --artifact asked for
	KindLevel                             // a required level did not pass, or claimed verdicts disagree with outcomes
	KindArtifact                          // an artifact the report lists is missing beside it or differs from its digest
)

func (k ErrorKind) String() string {
	switch k {
	case KindMalformed:
		return "malformed input"
	case KindBadSignature:
		return "bad signature"
	case KindWrongSubject:
		return "wrong subject"
	case KindLevel:
		return "level not passed"
	case KindArtifact:
		return "artifact mismatch"
	}
	return "error"
}

// VerifyError is an error of a given kind.
type VerifyError struct {
	Kind ErrorKind
	Err  error
}

func (e *VerifyError) Error() string { return e.Kind.String() + ": " + e.Err.Error() }
func (e *VerifyError) Unwrap() error { return e.Err }

func verr(k ErrorKind, format string, args ...any) error {
	return &VerifyError{Kind: k, Err: fmt.Errorf(format, args...)}
}

// KindOf returns the kind of err, KindMalformed for an error of no kind.
func KindOf(err error) ErrorKind {
	var ve *VerifyError
	if errors.As(err, &ve) {
		return ve.Kind
	}
	return KindMalformed
}

// strictObject decodes one JSON object whose keys are exactly the allowed
// ones (case-sensitive, no duplicates, required ones present) and rejects
// trailing data. encoding/json alone would accept "KeyID" for "keyid" and
// take the last of two "payload" keys.
func strictObject(what string, raw []byte, required, optional []string) (map[string]json.RawMessage, error) {
	allowed := map[string]bool{}
	for _, k := range required {
		allowed[k] = true
	}
	for _, k := range optional {
		allowed[k] = true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%s is not JSON: %w", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", what)
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s is not JSON: %w", what, err)
		}
		key, _ := tok.(string)
		if !allowed[key] {
			return nil, fmt.Errorf("%s has an unknown field %q", what, key)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s has the field %q twice", what, key)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: field %q is not JSON: %w", what, key, err)
		}
		out[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s is not JSON: %w", what, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s has data after the JSON object", what)
	}
	for _, k := range required {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("%s has no field %q", what, k)
		}
	}
	return out, nil
}

func jsonString(what string, raw json.RawMessage) (string, error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' {
		return "", fmt.Errorf("%s is not a string", what)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s is not a string: %w", what, err)
	}
	return s, nil
}

// strictBase64 decodes standard padded base64 and insists the text is the
// one canonical encoding of its bytes, so no two texts carry one payload or
// signature (the URL alphabet, missing padding and stray bits are refused).
func strictBase64(what, s string) ([]byte, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s is not standard base64: %w", what, err)
	}
	if base64.StdEncoding.EncodeToString(b) != s {
		return nil, fmt.Errorf("%s is not canonical base64", what)
	}
	return b, nil
}

// ParsedEnvelope is a DSSE envelope whose form was checked; its signatures
// are not verified yet.
type ParsedEnvelope struct {
	Envelope dsse.Envelope
	Payload  []byte
}

// ParseEnvelope checks the form of a DSSE envelope: size, UTF-8, exactly the
// fields payloadType, payload and signatures (each {keyid, sig}), canonical
// base64. Errors are KindMalformed, or KindBadSignature for a signature that
// is not base64.
func ParseEnvelope(data []byte) (*ParsedEnvelope, error) {
	if len(data) > MaxInputBytes {
		return nil, verr(KindMalformed, "envelope is %d bytes, over the limit of %d", len(data), MaxInputBytes)
	}
	if !utf8.Valid(data) {
		return nil, verr(KindMalformed, "envelope is not UTF-8")
	}
	if err := checkJSONBounds(data); err != nil {
		return nil, verr(KindMalformed, "envelope refused: %w", err)
	}
	top, err := strictObject("envelope", data, []string{"payloadType", "payload", "signatures"}, nil)
	if err != nil {
		return nil, verr(KindMalformed, "%w", err)
	}
	var pe ParsedEnvelope
	if pe.Envelope.PayloadType, err = jsonString("envelope payloadType", top["payloadType"]); err != nil {
		return nil, verr(KindMalformed, "%w", err)
	}
	if pe.Envelope.Payload, err = jsonString("envelope payload", top["payload"]); err != nil {
		return nil, verr(KindMalformed, "%w", err)
	}
	if pe.Payload, err = strictBase64("envelope payload", pe.Envelope.Payload); err != nil {
		return nil, verr(KindMalformed, "%w", err)
	}
	var sigs []json.RawMessage
	if err := json.Unmarshal(top["signatures"], &sigs); err != nil || sigs == nil {
		return nil, verr(KindMalformed, "envelope signatures is not an array")
	}
	if len(sigs) == 0 {
		return nil, verr(KindBadSignature, "envelope has no signature")
	}
	if len(sigs) > maxSignatures {
		return nil, verr(KindMalformed, "envelope has %d signatures, over the limit of %d", len(sigs), maxSignatures)
	}
	for i, raw := range sigs {
		what := fmt.Sprintf("envelope signatures[%d]", i)
		obj, err := strictObject(what, raw, []string{"sig"}, []string{"keyid"})
		if err != nil {
			return nil, verr(KindMalformed, "%w", err)
		}
		var s dsse.Signature
		if kid, ok := obj["keyid"]; ok {
			if s.KeyID, err = jsonString(what+".keyid", kid); err != nil {
				return nil, verr(KindMalformed, "%w", err)
			}
		}
		if s.Sig, err = jsonString(what+".sig", obj["sig"]); err != nil {
			return nil, verr(KindMalformed, "%w", err)
		}
		if b, err := strictBase64(what+".sig", s.Sig); err != nil {
			return nil, verr(KindBadSignature, "%w", err)
		} else if len(b) == 0 {
			return nil, verr(KindBadSignature, "%s is empty", what+".sig")
		}
		pe.Envelope.Signatures = append(pe.Envelope.Signatures, s)
	}
	return &pe, nil
}
