package reports

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// A signer that lies about a level is refused: verify recomputes every
// verdict from the requirement outcomes.
func TestVerifyRefusesClaimsOutcomesDoNotSupport(t *testing.T) {
	k := testKey(t, Ed25519)
	pub := []*Key{publicOnly(t, k)}
	r := testReport(t, 0)
	r.Transcript = TranscriptRef{SHA256: sha("t")}
	setSpec(t, r, "READY-CAPABILITIES", Failed, "status was \"okay\"")

	honest, err := BuildPredicate(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(honest.LevelsPassed, ","), "desktop-p0") {
		t.Fatal("desktop-p0 passed with READY-CAPABILITIES failed")
	}
	lies := map[string]func(p *Predicate){
		"level verdict says passed": func(p *Predicate) {
			for i := range p.Levels {
				if p.Levels[i].ID == "desktop-p0" {
					p.Levels[i].Verdict, p.Levels[i].Reason = LevelPassed, ""
				}
			}
			p.LevelsPassed = append(p.LevelsPassed, "desktop-p0")
		},
		"levelsPassed lists it": func(p *Predicate) {
			p.LevelsPassed = append(p.LevelsPassed, "desktop-p0")
		},
		"requirement says passed over a failed spec": func(p *Predicate) {
			for i := range p.Requirements {
				if p.Requirements[i].ID == "READY-CAPABILITIES" {
					p.Requirements[i].Outcome = Passed
				}
			}
		},
		"requirement passed without specs": func(p *Predicate) {
			p.Requirements[0].Specs = []SpecResult{}
		},
		"a level passes that was not judged": func(p *Predicate) {
			for i := range p.Levels {
				if p.Levels[i].ID == "executable" {
					p.Levels[i].Verdict = LevelPassed
				}
			}
		},
		"an extra level verdict": func(p *Predicate) {
			p.Levels = append(p.Levels, LevelResult{ID: "desktop-p1", Name: "Desktop P1", Family: "desktop", Verdict: LevelPassed})
		},
	}
	for name, lie := range lies {
		t.Run(name, func(t *testing.T) {
			p, err := BuildPredicate(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			lie(p)
			wantKind(t, verifyWith(signPredicate(t, r, p, k), VerifyOptions{Keys: pub}), KindLevel)
		})
	}
	// The honest predicate verifies, but desktop-p0 is not passed.
	env := signPredicate(t, r, honest, k)
	if err := verifyWith(env, VerifyOptions{Keys: pub, RequireLevels: []string{"catalog"}}); err != nil {
		t.Fatal(err)
	}
	wantKind(t, verifyWith(env, VerifyOptions{Keys: pub, RequireLevels: []string{"catalog", "desktop-p0"}}), KindLevel)
	// A level that was not requested is judged from the outcomes too.
	wantKind(t, verifyWith(env, VerifyOptions{Keys: pub, RequireLevels: []string{"desktop-p1"}}), KindLevel)
}

func TestVerifySubject(t *testing.T) {
	k := testKey(t, Ed25519)
	pub := []*Key{publicOnly(t, k)}
	dir := t.TempDir()
	art := filepath.Join(dir, "host.bin")
	if err := os.WriteFile(art, []byte("host binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := FileSHA256(art)
	if err != nil {
		t.Fatal(err)
	}
	plain := signedEnvelope(t, testReport(t, 0), k)
	r := testReport(t, 0)
	r.Host.ArtifactDigest = "sha256:" + sum
	withArt := signedEnvelope(t, r, k)

	if err := verifyWith(plain, VerifyOptions{Keys: pub, Host: "agentapp-mockhost@0.1.0"}); err != nil {
		t.Fatal(err)
	}
	if err := verifyWith(withArt, VerifyOptions{Keys: pub, Host: "agentapp-mockhost@0.1.0", ArtifactSHA256: sum}); err != nil {
		t.Fatal(err)
	}
	wantKind(t, verifyWith(plain, VerifyOptions{Keys: pub, Host: "agentapp-mockhost@0.2.0"}), KindWrongSubject)
	wantKind(t, verifyWith(plain, VerifyOptions{Keys: pub, Host: "other@0.1.0"}), KindWrongSubject)
	wantKind(t, verifyWith(plain, VerifyOptions{Keys: pub, ArtifactSHA256: sum}), KindWrongSubject)
	wantKind(t, verifyWith(withArt, VerifyOptions{Keys: pub, ArtifactSHA256: sha("another binary")}), KindWrongSubject)

	// A statement whose host subject names another host than its predicate.
	p, err := BuildPredicate(testReport(t, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Host.Name = "impostor"
	wantKind(t, verifyWith(signPredicate(t, testReport(t, 0), p, k), VerifyOptions{Keys: pub}), KindWrongSubject)
}

func TestVerifyOptionsChecked(t *testing.T) {
	pub := []*Key{publicOnly(t, testKey(t, Ed25519))}
	for name, o := range map[string]VerifyOptions{
		"no key":        {},
		"unknown level": {Keys: pub, RequireLevels: []string{"platinum"}},
		"host no @":     {Keys: pub, Host: "mockhost"},
		"host no ver":   {Keys: pub, Host: "mockhost@"},
		"bad artifact":  {Keys: pub, ArtifactSHA256: "xyz"},
	} {
		if _, err := NewVerifier(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Hostile envelopes get a clear error of the right kind, never a panic.
func TestVerifyHostileInput(t *testing.T) {
	k := testKey(t, Ed25519)
	pub := []*Key{publicOnly(t, k)}
	good := signedEnvelope(t, smallReport(t), k)
	var e dsse.Envelope
	if err := json.Unmarshal(good, &e); err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.StdEncoding.DecodeString(e.Payload)
	sign := func(payloadType string, payload []byte) []byte {
		es, err := dsse.NewEnvelopeSigner(k)
		if err != nil {
			t.Fatal(err)
		}
		env, err := es.SignPayload(context.Background(), payloadType, payload)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(env)
		return b
	}
	drop := func(field string) []byte {
		var m map[string]any
		_ = json.Unmarshal(payload, &m)
		delete(m["predicate"].(map[string]any), field)
		b, _ := json.Marshal(m)
		return sign(PayloadType, b)
	}
	big := make([]byte, 100<<20)
	copy(big, `{"payloadType":"application/vnd.in-toto+json","payload":"`)
	cases := map[string]struct {
		data []byte
		kind ErrorKind
		says string
	}{
		"empty":                {nil, KindMalformed, "not JSON"},
		"truncated":            {good[:len(good)/2], KindMalformed, "not JSON"},
		"100 MB":               {big, KindMalformed, "over the limit"},
		"array":                {[]byte(`[]`), KindMalformed, "not a JSON object"},
		"not UTF-8":            {append(append([]byte{}, good[:20]...), 0xff, 0xfe), KindMalformed, "not UTF-8"},
		"missing signatures":   {[]byte(`{"payloadType":"x","payload":""}`), KindMalformed, `no field "signatures"`},
		"null signatures":      {[]byte(`{"payloadType":"x","payload":"","signatures":null}`), KindMalformed, "not an array"},
		"no signature":         {[]byte(`{"payloadType":"x","payload":"","signatures":[]}`), KindBadSignature, "no signature"},
		"unknown field":        {[]byte(`{"payloadType":"x","payload":"","signatures":[],"extra":1}`), KindMalformed, "unknown field"},
		"case-folded field":    {[]byte(`{"PayloadType":"x","payload":"","signatures":[]}`), KindMalformed, "unknown field"},
		"duplicate field":      {[]byte(`{"payloadType":"x","payload":"","payload":"","signatures":[]}`), KindMalformed, "twice"},
		"payload not base64":   {[]byte(`{"payloadType":"x","payload":"%%%","signatures":[{"sig":"AA=="}]}`), KindMalformed, "base64"},
		"URL-safe base64":      {[]byte(`{"payloadType":"x","payload":"-_-_","signatures":[{"sig":"AA=="}]}`), KindMalformed, "base64"},
		"sig not base64":       {[]byte(`{"payloadType":"x","payload":"","signatures":[{"sig":"%"}]}`), KindBadSignature, "base64"},
		"sig number":           {[]byte(`{"payloadType":"x","payload":"","signatures":[{"sig":1}]}`), KindMalformed, "not a string"},
		"trailing data":        {append(append([]byte{}, good...), []byte(" {}")...), KindMalformed, "after the JSON object"},
		"wrong payloadType":    {sign("text/plain", payload), KindMalformed, "payloadType"},
		"payload not UTF-8":    {sign(PayloadType, []byte{'{', 0xff, '}'}), KindMalformed, "not UTF-8"},
		"payload not JSON":     {sign(PayloadType, []byte("{")), KindMalformed, "not an in-toto statement"},
		"statement no subject": {sign(PayloadType, []byte(`{"_type":"https://in-toto.io/Statement/v1","predicateType":"x","predicate":{}}`)), KindMalformed, "subject"},
		"other predicate type": {sign(PayloadType, []byte(strings.Replace(string(payload), PredicateType, TestResultPredicateType, 1))), KindMalformed, "predicateType"},
		"predicate no levels":  {drop("levels"), KindMalformed, "schema"},
		"predicate no host":    {drop("host"), KindMalformed, "schema"},
	}
	for name, c := range cases {
		_, err := VerifyEnvelope(context.Background(), c.data, VerifyOptions{Keys: pub})
		if err == nil {
			t.Errorf("%s: verified", name)
			continue
		}
		if KindOf(err) != c.kind || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: got %s: %v; want %s saying %q", name, KindOf(err), err, c.kind, c.says)
		}
	}
}

func TestReadLimitedRefusesLargeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // sparse: 100 MB of zeros
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadLimited(p, MaxInputBytes); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("ReadLimited of 100 MB: %v", err)
	}
	if _, err := ReadLimited(t.TempDir(), MaxInputBytes); err == nil {
		t.Fatal("ReadLimited of a directory succeeded")
	}
}

// A host's name, version and claims are hostile: long or odd values still
// give a report that verifies, and long failure messages are cut in the
// predicate only.
func TestHostileHostStillSignsAndVerifies(t *testing.T) {
	k := testKey(t, Ed25519)
	r := testReport(t, 0)
	r.Host.Name = strings.Repeat("n", 5000) + "\u202e<script>"
	r.Host.Version = "1.0 \"beta\""
	r.Host.LevelsClaimed = []string{"Desktop P0", "ALL OF THEM", strings.Repeat("x", 2000)}
	setSpec(t, r, "READY-CAPABILITIES", Failed, strings.Repeat("a host said: ", 20000))
	env := signedEnvelope(t, r, k)
	v, err := VerifyEnvelope(context.Background(), env, VerifyOptions{Keys: []*Key{publicOnly(t, k)}, Host: HostIdentity(r.Host)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rq := range v.Predicate.Requirements {
		if rq.ID == "READY-CAPABILITIES" {
			if m := rq.Specs[0].Failure.Message; len(m) > MaxFailureText || !strings.Contains(m, "more bytes") {
				t.Errorf("failure message of %d bytes in the predicate", len(m))
			}
		}
	}
}
