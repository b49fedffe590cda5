package reports

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentapp/conformance/levels"
)

// VerifyOptions is what a registry checks an envelope against.
type VerifyOptions struct {
	// Keys are the trusted public keys. Every signature of the envelope
	// must verify with one of them (docs/report-format.md "Signatures").
	Keys []*Key
	// RequireLevels must each pass, as recomputed from requirement outcomes.
	RequireLevels []string
	// Host, when set, is "NAME@VERSION" the subject must name.
	Host string
	// ArtifactSHA256, when set, is the hex SHA-256 the host subject must have.
	ArtifactSHA256 string
	// Catalog judges the levels; nil means levels.Default().
	Catalog *levels.Catalog
	// ArtifactDir, when set, is the report folder the envelope came from:
	// every file the statement names as a subject (CheckSubjectFiles) and
	// every artifact the predicate lists (CheckArtifacts) must be there
	// with its digest. conformance verify sets it to the envelope's folder.
	ArtifactDir string
}

// Verified is what a successful verification established.
type Verified struct {
	KeyIDs    []string                     // keys whose signatures verified
	Subjects  []*intoto.ResourceDescriptor // the statement's subjects
	Predicate *Predicate
	// Levels are the verdicts recomputed from requirement outcomes, for
	// the requested levels and then the required ones not requested.
	Levels []LevelResult
	// Files is how many subject files (transcript.jsonl, report.json, ...)
	// and Artifacts how many artifacts were checked against their digests
	// (0 without VerifyOptions.ArtifactDir).
	Files     int
	Artifacts int
}

// Verifier verifies envelopes; it holds the compiled predicate schema so
// that verifying many envelopes compiles it once.
type Verifier struct {
	opts   VerifyOptions
	schema *jsonschema.Schema
}

// NewVerifier checks the options and compiles the schema.
func NewVerifier(opts VerifyOptions) (*Verifier, error) {
	if len(opts.Keys) == 0 {
		return nil, fmt.Errorf("no public key given")
	}
	if opts.Catalog == nil {
		opts.Catalog = levels.Default()
	}
	req, err := opts.Catalog.ParseLevels(opts.RequireLevels)
	if err != nil {
		return nil, fmt.Errorf("required level: %w", err)
	}
	opts.RequireLevels = req
	if opts.Host != "" {
		if i := strings.LastIndex(opts.Host, "@"); i <= 0 || i == len(opts.Host)-1 {
			return nil, fmt.Errorf("host %q is not NAME@VERSION", opts.Host)
		}
	}
	if opts.ArtifactSHA256 != "" && !isHex64(opts.ArtifactSHA256) {
		return nil, fmt.Errorf("artifact digest %q is not a hex SHA-256", opts.ArtifactSHA256)
	}
	s, err := compilePredicateSchema()
	if err != nil {
		return nil, err
	}
	return &Verifier{opts: opts, schema: s}, nil
}

// VerifyEnvelope verifies one envelope with a fresh Verifier.
func VerifyEnvelope(ctx context.Context, data []byte, opts VerifyOptions) (*Verified, error) {
	v, err := NewVerifier(opts)
	if err != nil {
		return nil, err
	}
	return v.Verify(ctx, data)
}

// Verify checks, in order: the envelope's form, every signature, the
// payload type, the statement and predicate types, the predicate schema,
// that claimed verdicts follow from requirement outcomes, the subject, the
// subject files and artifacts (with ArtifactDir), and the required levels. The error's kind (KindOf) says which failed.
func (v *Verifier) Verify(ctx context.Context, data []byte) (*Verified, error) {
	pe, err := ParseEnvelope(data)
	if err != nil {
		return nil, err
	}
	keyIDs, err := v.verifySignatures(ctx, pe)
	if err != nil {
		return nil, err
	}
	if pe.Envelope.PayloadType != PayloadType {
		return nil, verr(KindMalformed, "payloadType is %q, expected %q", pe.Envelope.PayloadType, PayloadType)
	}
	st, p, err := v.parseStatement(pe.Payload)
	if err != nil {
		return nil, err
	}
	computed, err := checkVerdicts(v.opts.Catalog, p)
	if err != nil {
		return nil, err
	}
	if err := checkSubject(st.GetSubject(), p, v.opts.Host, v.opts.ArtifactSHA256); err != nil {
		return nil, err
	}
	res := &Verified{KeyIDs: keyIDs, Subjects: st.GetSubject(), Predicate: p, Levels: computed}
	if v.opts.ArtifactDir != "" {
		if res.Files, err = CheckSubjectFiles(v.opts.ArtifactDir, st.GetSubject()); err != nil {
			return nil, err
		}
		if res.Artifacts, err = CheckArtifacts(v.opts.ArtifactDir, &p.Results); err != nil {
			return nil, err
		}
	}
	if len(v.opts.RequireLevels) > 0 && p.Run.Status != RunComplete {
		return res, verr(KindLevel, "the run did not complete (%s: %s), so it certifies no level", p.Run.Status, p.Run.Reason)
	}
	for _, id := range v.opts.RequireLevels {
		ls, err := ComputeLevels(v.opts.Catalog, []string{id}, p.Requirements)
		if err != nil {
			return nil, verr(KindMalformed, "computing level %s: %w", id, err)
		}
		l := ls[0]
		if !contains(p.Requested, id) {
			res.Levels = append(res.Levels, l)
		}
		if l.Verdict != LevelPassed {
			why := l.Reason
			if why == "" {
				why = string(l.Verdict)
			}
			return res, verr(KindLevel, "required level %s did not pass: %s", id, why)
		}
	}
	return res, nil
}

// verifySignatures verifies each signature on its own through dsse's
// verifier (which alone would accept an envelope once one signature
// verifies): every signature must verify with one of the keys.
func (v *Verifier) verifySignatures(ctx context.Context, pe *ParsedEnvelope) ([]string, error) {
	verifiers := make([]dsse.Verifier, len(v.opts.Keys))
	for i, k := range v.opts.Keys {
		verifiers[i] = k
	}
	var ids []string
	for i, s := range pe.Envelope.Signatures {
		one := dsse.Envelope{PayloadType: pe.Envelope.PayloadType, Payload: pe.Envelope.Payload, Signatures: []dsse.Signature{s}}
		ev, err := dsse.NewEnvelopeVerifier(verifiers...)
		if err != nil {
			return nil, verr(KindBadSignature, "setting up the verifier: %w", err)
		}
		accepted, err := ev.Verify(ctx, &one)
		if err != nil || len(accepted) == 0 {
			if v.signedOtherPayload(ctx, ev, pe, s) {
				return nil, verr(KindBadSignature, "the payload was changed after signing: signature %d (keyid %q) is valid, with %s, over the statement of the %s beside the envelope, not over the payload the envelope carries", i, s.KeyID, keyNames(v.opts.Keys), ReportFile)
			}
			return nil, verr(KindBadSignature, "signature %d (keyid %q) does not verify with %s", i, s.KeyID, keyNames(v.opts.Keys))
		}
		if !contains(ids, accepted[0].KeyID) {
			ids = append(ids, accepted[0].KeyID)
		}
	}
	return ids, nil
}

// signedOtherPayload tells a changed payload from a bad signature: it
// rebuilds the statement run wrote from the report folder beside the
// envelope (report.json, and the digests of report.json, junit.xml and
// report.html, as WriteAll builds it) and reports whether signature s,
// which does not verify over the envelope's payload, verifies over that
// one. Then the signature is good and the key's, and what changed after
// signing is the payload. Without ArtifactDir, or when the folder's report
// cannot be read or gives the same payload, it says false: a signature that
// verifies over nothing at hand is a bad signature.
func (v *Verifier) signedOtherPayload(ctx context.Context, ev *dsse.EnvelopeVerifier, pe *ParsedEnvelope, s dsse.Signature) bool {
	if v.opts.ArtifactDir == "" {
		return false
	}
	r, err := Load(filepath.Join(v.opts.ArtifactDir, ReportFile))
	if err != nil {
		return false
	}
	var files []FileDigest
	for _, name := range []string{ReportFile, JUnitFile, HTMLFile} {
		sum, err := FileSHA256(filepath.Join(v.opts.ArtifactDir, name))
		if err != nil {
			return false
		}
		files = append(files, FileDigest{Name: name, SHA256: sum})
	}
	st, err := BuildStatements(r, v.opts.Catalog, files...)
	if err != nil || bytes.Equal(st.Conformance, pe.Payload) {
		return false
	}
	signed := dsse.Envelope{PayloadType: pe.Envelope.PayloadType, Payload: base64.StdEncoding.EncodeToString(st.Conformance), Signatures: []dsse.Signature{s}}
	accepted, err := ev.Verify(ctx, &signed)
	return err == nil && len(accepted) > 0
}

func keyNames(ks []*Key) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = fmt.Sprintf("%s (%s key %s)", k.label, k.alg, k.id)
	}
	return strings.Join(names, ", ")
}

// parseStatement reads the in-toto statement and its predicate.
func (v *Verifier) parseStatement(payload []byte) (*intoto.Statement, *Predicate, error) {
	st, p, err := decodeStatement(payload, v.schema)
	if err != nil {
		return nil, nil, verr(KindMalformed, "%w", err)
	}
	return st, p, nil
}

// decodeStatement reads a conformance statement: UTF-8, a valid in-toto
// Statement v1 of our predicate type, whose predicate matches the schema
// and decodes strictly. verify and diff both read statements through it.
func decodeStatement(payload []byte, schema *jsonschema.Schema) (*intoto.Statement, *Predicate, error) {
	if !utf8.Valid(payload) {
		return nil, nil, fmt.Errorf("payload is not UTF-8")
	}
	if err := checkJSONBounds(payload); err != nil {
		return nil, nil, fmt.Errorf("statement refused: %w", err)
	}
	st := &intoto.Statement{}
	if err := protojson.Unmarshal(payload, st); err != nil {
		return nil, nil, fmt.Errorf("payload is not an in-toto statement: %w", err)
	}
	if err := st.Validate(); err != nil {
		return nil, nil, fmt.Errorf("in-toto statement: %w", err)
	}
	if st.GetType() != intoto.StatementTypeUri {
		return nil, nil, fmt.Errorf("statement _type is %q, expected %q", st.GetType(), intoto.StatementTypeUri)
	}
	if st.GetPredicateType() != PredicateType {
		return nil, nil, fmt.Errorf("predicateType is %q; this harness reads %q", st.GetPredicateType(), PredicateType)
	}
	raw, err := rawPredicate(payload)
	if err != nil {
		return nil, nil, err
	}
	if err := validatePredicateJSON(schema, raw); err != nil {
		return nil, nil, err
	}
	p := &Predicate{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, nil, fmt.Errorf("predicate: %w", err)
	}
	return st, p, nil
}

// rawPredicate returns the predicate's JSON text. protojson has already
// refused duplicate and unknown keys at every depth, so encoding/json reads
// the same object.
func rawPredicate(payload []byte) ([]byte, error) {
	var st struct {
		Predicate json.RawMessage `json:"predicate"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, fmt.Errorf("statement: %w", err)
	}
	return st.Predicate, nil
}

// checkVerdicts recomputes every verdict from spec outcomes and refuses a
// predicate whose claims disagree (KindLevel).
func checkVerdicts(cat *levels.Catalog, p *Predicate) ([]LevelResult, error) {
	computed, err := CheckVerdicts(cat, &p.Results)
	if err != nil {
		return nil, verr(KindLevel, "predicate refused: %w", err)
	}
	return computed, nil
}

// checkSubject checks that the statement's host subject names the
// predicate's host, and matches --host and --artifact when given.
func checkSubject(subjects []*intoto.ResourceDescriptor, p *Predicate, host, artifact string) error {
	var hs *intoto.ResourceDescriptor
	for _, s := range subjects {
		if strings.HasPrefix(s.GetName(), HostSubjectPrefix) {
			if hs != nil {
				return verr(KindWrongSubject, "the statement has two host subjects")
			}
			hs = s
		}
	}
	if hs == nil {
		return verr(KindWrongSubject, "the statement has no host subject (%s...)", HostSubjectPrefix)
	}
	id := HostIdentity(p.Host)
	if hs.GetName() != HostSubjectPrefix+id {
		return verr(KindWrongSubject, "host subject %q does not name the predicate's host %q", hs.GetName(), id)
	}
	if host != "" && host != id {
		return verr(KindWrongSubject, "the report is for host %s, not %s", id, host)
	}
	sha := hs.GetDigest()["sha256"]
	if (sha != "" || p.Host.ArtifactDigest != "") && p.Host.ArtifactDigest != "sha256:"+sha {
		return verr(KindWrongSubject, "host subject digest %q differs from the predicate's artifactDigest %q", sha, p.Host.ArtifactDigest)
	}
	if artifact != "" {
		if sha == "" {
			return verr(KindWrongSubject, "the report names no host artifact digest (the run had no --host-artifact), so it cannot match %s", artifact)
		}
		if sha != artifact {
			return verr(KindWrongSubject, "the host artifact has SHA-256 %s, the report was made for %s", artifact, sha)
		}
	}
	return nil
}

// isFileSubject says whether a subject names a file of the report folder:
// every subject but the host and the fixture set.
func isFileSubject(name string) bool {
	return !strings.HasPrefix(name, HostSubjectPrefix) && name != FixturesSubject
}

// CheckSubjectFiles checks every subject that names a file of the report
// folder dir (transcript.jsonl, report.json, junit.xml, report.html, or
// whatever else the statement lists) against the file there: its SHA-256
// must be the subject's. It stops at the first that is not, with a one-line
// error naming the file (KindArtifact; KindWrongSubject for a subject that
// cannot name a file of the folder). It returns how many it checked.
func CheckSubjectFiles(dir string, subjects []*intoto.ResourceDescriptor) (int, error) {
	var files []*intoto.ResourceDescriptor
	for _, s := range subjects {
		if isFileSubject(s.GetName()) {
			files = append(files, s)
		}
	}
	if len(files) == 0 {
		return 0, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, verr(KindArtifact, "%s: cannot open the report folder %s: %v", files[0].GetName(), dir, oneLine(err))
	}
	defer root.Close()
	for _, s := range files {
		name := s.GetName()
		if err := CheckArtifactPath(name); err != nil {
			return 0, verr(KindWrongSubject, "subject %q is neither the host, the fixtures nor a file of the report folder: %v", name, err)
		}
		want, ok := s.GetDigest()["sha256"]
		if !ok {
			return 0, verr(KindWrongSubject, "subject %s names a file of the report folder but carries no sha256 digest", name)
		}
		sum, err := rootSHA256(root, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return 0, verr(KindArtifact, "%s is missing: the signed statement names it, but %s holds no such file", name, dir)
		case err != nil:
			return 0, verr(KindArtifact, "%s cannot be read: %v", name, oneLine(err))
		case sum != want:
			return 0, verr(KindArtifact, "%s has SHA-256 %s, but the signed statement lists %s: the file changed after signing", name, sum, want)
		}
	}
	return len(files), nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
