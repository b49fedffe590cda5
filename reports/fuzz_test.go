package reports

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzVerify: verify never panics, and whatever it accepts carries exactly
// the predicate that was signed (the seeds run as a normal test).
func FuzzVerify(f *testing.F) {
	k := testKey(f, Ed25519)
	r := testReport(f, 0)
	r.Requirements = r.Requirements[:4]
	r.Requested = []string{"catalog"}
	recompute(f, r)
	env := signedEnvelope(f, r, k)
	want, err := BuildPredicate(r, nil)
	if err != nil {
		f.Fatal(err)
	}
	v, err := NewVerifier(VerifyOptions{Keys: []*Key{publicOnly(f, k)}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(env)
	f.Add(env[:len(env)/2])
	f.Add([]byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[{"keyid":"","sig":"AA=="}]}`))
	f.Add([]byte(`{"payloadType":1,"payload":[],"signatures":{}}`))
	f.Add([]byte("\xff\xfe{}"))
	f.Add([]byte(`{"payloadType":"x","payload":"","signatures":[{"sig":"AA=="},{"sig":"AA=="}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := v.Verify(context.Background(), data)
		if err != nil {
			if KindOf(err) == 0 || err.Error() == "" {
				t.Fatalf("error without kind or text: %v", err)
			}
			return
		}
		// Times round-trip through JSON; compare as JSON.
		a, _ := json.Marshal(got.Predicate)
		b, _ := json.Marshal(want)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("verify accepted a predicate that was not signed:\n%s", a)
		}
	})
}

// FuzzDiff: diff never panics on any pair of inputs, and two inputs that
// parse always diff.
func FuzzDiff(f *testing.F) {
	r := testReport(f, 0)
	r.Requirements = r.Requirements[:4]
	recompute(f, r)
	rj, err := json.Marshal(r)
	if err != nil {
		f.Fatal(err)
	}
	env := signedEnvelope(f, r, testKey(f, Ed25519))
	f.Add(rj, env)
	f.Add(env, rj[:len(rj)/3])
	f.Add([]byte(`{"_type":"https://in-toto.io/Statement/v1"}`), []byte(`{"format":"`+FormatVersion+`","requirements":[{"id":"A","outcome":"passed","specs":[]}]}`))
	f.Add([]byte(`{"format":"`+FormatVersion+`","host":{"name":"h"},"requirements":[{"id":"A","outcome":"not-run"},{"id":"A","outcome":"not-run"}]}`), []byte("null"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		oa, errA := ParseForDiff(a)
		ob, errB := ParseForDiff(b)
		if errA != nil || errB != nil {
			return
		}
		if _, err := Diff(oa.Report, ob.Report, nil); err != nil {
			t.Fatalf("two parsed inputs do not diff: %v", err)
		}
	})
}
