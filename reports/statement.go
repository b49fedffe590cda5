package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	trv0 "github.com/in-toto/attestation/go/predicates/test_result/v0"
	intoto "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/agentapp/conformance/levels"
)

// Statement and envelope constants (docs/report-format.md "Attestation").
const (
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// TestResultPredicateType is in-toto's generic test-result predicate.
	TestResultPredicateType = "https://in-toto.io/attestation/test-result/v0.1"
)

// Subject names (docs/report-format.md "Subjects").
const (
	HostSubjectPrefix = "host:"
	FixturesSubject   = "fixtures"
	TranscriptSubject = "transcript.jsonl"
	// HostIdentityAlgorithm is the digest key of the host subject when no
	// host artifact was given: hex SHA-256 of "NAME@VERSION". It names the
	// host; it proves nothing about its binary.
	HostIdentityAlgorithm = "agentappHostIdentity"
)

// isHex64 reports whether s is 64 lowercase hex digits.
func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// bareSHA256 strips an optional "sha256:" prefix and checks the hex digest.
func bareSHA256(field, d string) (string, error) {
	h := strings.TrimPrefix(d, "sha256:")
	if !isHex64(h) {
		return "", fmt.Errorf("%s: %q is not a SHA-256 digest (64 lowercase hex digits, optionally prefixed sha256:)", field, d)
	}
	return h, nil
}

// HostIdentity is "NAME@VERSION".
func HostIdentity(h Host) string { return h.Name + "@" + h.Version }

// FileDigest is a file of the report folder, by its name there, with the
// hex SHA-256 of its bytes.
type FileDigest struct {
	Name   string
	SHA256 string
}

// Subjects lists the statement's subjects: the host under test, the fixture
// set, the transcript file and files, the files of the report folder that
// render the run (report.json, junit.xml, report.html), so that verify can
// check each against the file beside the envelope.
func Subjects(r *Report, files ...FileDigest) ([]*intoto.ResourceDescriptor, error) {
	if r.Host.Name == "" || r.Host.Version == "" {
		return nil, fmt.Errorf("host.name and host.version are required for the host subject")
	}
	host := &intoto.ResourceDescriptor{Name: HostSubjectPrefix + HostIdentity(r.Host)}
	ann := map[string]any{"hostName": r.Host.Name, "hostVersion": r.Host.Version}
	if r.Host.ArtifactDigest != "" {
		h, err := bareSHA256("host.artifactDigest", r.Host.ArtifactDigest)
		if err != nil {
			return nil, err
		}
		host.Digest = map[string]string{"sha256": h}
	} else {
		sum := sha256.Sum256([]byte(HostIdentity(r.Host)))
		host.Digest = map[string]string{HostIdentityAlgorithm: hex.EncodeToString(sum[:])}
	}
	a, err := structpb.NewStruct(ann)
	if err != nil {
		return nil, fmt.Errorf("host subject annotations: %w", err)
	}
	host.Annotations = a
	out := []*intoto.ResourceDescriptor{host}
	if r.FixtureSet != "" {
		h, err := bareSHA256("fixtureSetDigest", r.FixtureSet)
		if err != nil {
			return nil, err
		}
		out = append(out, &intoto.ResourceDescriptor{Name: FixturesSubject, Digest: map[string]string{"sha256": h}})
	}
	if r.Transcript.SHA256 != "" {
		h, err := bareSHA256("transcript.sha256", r.Transcript.SHA256)
		if err != nil {
			return nil, err
		}
		out = append(out, &intoto.ResourceDescriptor{Name: TranscriptSubject, Digest: map[string]string{"sha256": h}})
	}
	for _, f := range files {
		if err := CheckArtifactPath(f.Name); err != nil {
			return nil, fmt.Errorf("subject: %w", err)
		}
		h, err := bareSHA256(f.Name+" sha256", f.SHA256)
		if err != nil {
			return nil, err
		}
		out = append(out, &intoto.ResourceDescriptor{Name: f.Name, Digest: map[string]string{"sha256": h}})
	}
	return out, nil
}

// toStruct converts a JSON-marshalable value to a protobuf Struct.
func toStruct(v any) (*structpb.Struct, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s := &structpb.Struct{}
	if err := protojson.Unmarshal(raw, s); err != nil {
		return nil, err
	}
	return s, nil
}

// canonicalJSON re-encodes protojson output (whose spacing is deliberately
// unstable) as compact JSON with sorted keys, so the same statement always
// gives the same bytes.
func canonicalJSON(m proto.Message) ([]byte, error) {
	raw, err := protojson.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func marshalStatement(subjects []*intoto.ResourceDescriptor, predicateType string, predicate any) ([]byte, error) {
	ps, err := toStruct(predicate)
	if err != nil {
		return nil, fmt.Errorf("encoding %s predicate: %w", predicateType, err)
	}
	st := &intoto.Statement{Type: intoto.StatementTypeUri, Subject: subjects, PredicateType: predicateType, Predicate: ps}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("in-toto statement for %s: %w", predicateType, err)
	}
	b, err := canonicalJSON(st)
	if err != nil {
		return nil, fmt.Errorf("encoding in-toto statement for %s: %w", predicateType, err)
	}
	return b, nil
}

// Statements are the two in-toto statements of a run, as payload bytes.
type Statements struct {
	Predicate   *Predicate
	Conformance []byte // predicate type PredicateType
	TestResult  []byte // predicate type TestResultPredicateType
}

// BuildStatements builds the conformance and test-result statements of r,
// whose subjects name files too (Subjects).
func BuildStatements(r *Report, cat *levels.Catalog, files ...FileDigest) (*Statements, error) {
	if cat == nil {
		cat = levels.Default()
	}
	p, err := BuildPredicate(r, cat)
	if err != nil {
		return nil, err
	}
	subj, err := Subjects(r, files...)
	if err != nil {
		return nil, err
	}
	conf, err := marshalStatement(subj, PredicateType, p)
	if err != nil {
		return nil, err
	}
	tr, err := TestResult(p, cat)
	if err != nil {
		return nil, err
	}
	trJSON, err := protojson.Marshal(tr)
	if err != nil {
		return nil, fmt.Errorf("encoding test-result predicate: %w", err)
	}
	trPayload, err := marshalStatement(subj, TestResultPredicateType, json.RawMessage(trJSON))
	if err != nil {
		return nil, err
	}
	return &Statements{Predicate: p, Conformance: conf, TestResult: trPayload}, nil
}

// Test-result verdicts of in-toto's test-result predicate.
const (
	ResultPassed = "PASSED"
	ResultWarned = "WARNED"
	ResultFailed = "FAILED"
)

// TestResult maps the predicate onto in-toto's test-result predicate, with
// requirement ids as test names, by each requirement's effect (EffectOf):
//   - passedTests: requirements that passed;
//   - failedTests: binding requirements of the standard that failed (the
//     host broke the clause);
//   - warnedTests: every other requirement that did not pass: a failed
//     should or may, and those not judged (error, flaky, blocked,
//     interrupted, skipped, not-run, a broken protocol precondition);
//     a not-applicable requirement is in none of the three lists.
//
// result is PASSED when every requested level passed and nothing warned,
// WARNED when every requested level passed with warnings, FAILED otherwise.
// It renders the predicate's verdicts; it decides none.
func TestResult(p *Predicate, cat *levels.Catalog) (*trv0.TestResult, error) {
	tr := &trv0.TestResult{}
	for _, r := range p.Requirements {
		cr, ok := cat.Requirement(r.ID)
		if !ok {
			cr = levels.Requirement{ID: r.ID, Strength: levels.Strength(r.Strength)}
		}
		switch EffectOf(cr, r.Outcome) {
		case EffectNone:
			if r.Outcome == NotApplicable {
				// A clause that binds nothing on this host is no test of it.
				continue
			}
			tr.WarnedTests = append(tr.WarnedTests, r.ID)
		case EffectPass:
			tr.PassedTests = append(tr.PassedTests, r.ID)
		case EffectFail:
			tr.FailedTests = append(tr.FailedTests, r.ID)
		default:
			tr.WarnedTests = append(tr.WarnedTests, r.ID)
		}
	}
	allPassed := len(p.Levels) > 0
	for _, l := range p.Levels {
		if l.Verdict != LevelPassed {
			allPassed = false
		}
	}
	switch {
	case !allPassed || len(tr.FailedTests) > 0:
		tr.Result = ResultFailed
	case len(tr.WarnedTests) > 0:
		tr.Result = ResultWarned
	default:
		tr.Result = ResultPassed
	}
	cfg := []*intoto.ResourceDescriptor{
		{Name: "harness:" + p.Harness.Name + "@" + p.Harness.Version},
		{Name: "standard:" + p.Standard.Name + "@" + p.Standard.Version},
		{Name: "levels:" + strings.Join(p.Requested, ",")},
	}
	if p.FixtureSet != "" {
		h, err := bareSHA256("fixtureSetDigest", p.FixtureSet)
		if err != nil {
			return nil, err
		}
		cfg = append(cfg, &intoto.ResourceDescriptor{Name: FixturesSubject, Digest: map[string]string{"sha256": h}})
	}
	tr.Configuration = cfg
	return tr, nil
}
