package sigstore

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

const (
	email  = "release@pub.example.org"
	uri    = "https://pub.example.org/ci"
	issuer = "https://issuer.example.org"
	domain = "pub.example.org"
)

var policy = Policy{Issuer: issuer, Domain: domain}

// packageHash is an artifact as the harness signs it.
func packageHash(seed string) []byte {
	sum := sha256.Sum256([]byte(seed))
	return []byte("sha256:" + hex.EncodeToString(sum[:]))
}

func newAuthority(t testing.TB) *Authority {
	t.Helper()
	a, err := NewAuthority()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func trustedRoot(t testing.TB, a *Authority) []byte {
	t.Helper()
	r, err := a.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sign(t testing.TB, a *Authority, artifact []byte, identity string) []byte {
	t.Helper()
	b, err := a.Sign(artifact, identity, issuer)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// refused checks that err is a one-line Verify error naming part.
func refused(t *testing.T, err error, part string) {
	t.Helper()
	if err == nil {
		t.Fatalf("verified; want refused (%s)", part)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	if !strings.HasPrefix(msg, "sigstore: "+part+": ") {
		t.Errorf("error %q; want it to start %q", msg, "sigstore: "+part+": ")
	}
}

func TestSignVerify(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	art := packageHash("pkg")
	for _, id := range []string{email, uri} {
		t.Run(id, func(t *testing.T) {
			b := sign(t, a, art, id)
			if err := Verify(tr, b, art, policy); err != nil {
				t.Fatal(err)
			}
			var pb bundle.Bundle
			if err := pb.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			if pb.GetMediaType() != bundleMediaType {
				t.Errorf("media type %q", pb.GetMediaType())
			}
			if !pb.HasInclusionPromise() || !pb.HasInclusionProof() {
				t.Error("bundle lacks the inclusion promise or proof")
			}
			if pb.GetMessageSignature() == nil {
				t.Error("not a message signature")
			}
		})
	}
}

// edit returns bundle b with its first log entry changed by f.
func edit(t *testing.T, b []byte, f func(tle map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	vm := doc["verificationMaterial"].(map[string]any)
	f(vm["tlogEntries"].([]any)[0].(map[string]any))
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBundleTimes: the bundle carries two observer times, the log's
// integrated time and a TSA timestamp, and each verifies on its own; once
// the TSA's certificate has expired, Sign leaves the timestamp out and the
// bundle still verifies.
func TestBundleTimes(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	trusted, err := root.NewTrustedRootFromJSON(tr)
	if err != nil {
		t.Fatal(err)
	}
	art := packageHash("pkg")
	id, err := policy.identity()
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, b []byte, opts ...verify.VerifierOption) {
		t.Helper()
		var pb bundle.Bundle
		if err := pb.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		v, err := verify.NewVerifier(trusted, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.Verify(&pb, verify.NewPolicy(verify.WithArtifact(bytes.NewReader(art)), verify.WithCertificateIdentity(id)))
		if err != nil {
			t.Fatal(err)
		}
	}
	b := sign(t, a, art, email)
	t.Run("integrated time", func(t *testing.T) {
		check(t, b, verify.WithTransparencyLog(1), verify.WithIntegratedTimestamps(1))
	})
	t.Run("TSA timestamp", func(t *testing.T) {
		check(t, b, verify.WithTransparencyLog(1), verify.WithSignedTimestamps(1))
	})
	t.Run("TSA expired", func(t *testing.T) {
		a.tsaUntil = time.Now().Add(-time.Second)
		late := sign(t, a, art, email)
		if strings.Contains(string(late), "rfc3161Timestamps") {
			t.Error("a timestamp from an expired TSA certificate")
		}
		if err := Verify(tr, late, art, policy); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTrustedRootJSON(t *testing.T) {
	a := newAuthority(t)
	r1, r2 := trustedRoot(t, a), trustedRoot(t, a)
	if string(r1) != string(r2) {
		t.Error("trusted root changes between calls")
	}
	tr, err := root.NewTrustedRootFromJSON(r1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.RekorLogs()) != 1 || len(tr.FulcioCertificateAuthorities()) != 1 || len(tr.TimestampingAuthorities()) != 1 {
		t.Errorf("trusted root: %d rekor logs, %d CAs, %d TSAs",
			len(tr.RekorLogs()), len(tr.FulcioCertificateAuthorities()), len(tr.TimestampingAuthorities()))
	}
	var doc struct {
		MediaType string `json:"mediaType"`
	}
	if err := json.Unmarshal(r1, &doc); err != nil || doc.MediaType != root.TrustedRootMediaType01 {
		t.Errorf("media type %q (%v)", doc.MediaType, err)
	}
}

func TestRefused(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	art := packageHash("pkg")
	b := sign(t, a, art, email)

	t.Run("other artifact", func(t *testing.T) {
		other := append([]byte(nil), art...)
		last := len(other) - 1
		if other[last] == '0' {
			other[last] = '1'
		} else {
			other[last] = '0'
		}
		refused(t, Verify(tr, b, other, policy), partArtifact)
	})
	t.Run("other domain", func(t *testing.T) {
		refused(t, Verify(tr, b, art, Policy{Issuer: issuer, Domain: "other.example.org"}), partIdentity)
	})
	t.Run("other issuer", func(t *testing.T) {
		refused(t, Verify(tr, b, art, Policy{Issuer: "https://issuer.example.com", Domain: domain}), partIdentity)
	})
	t.Run("other root", func(t *testing.T) {
		refused(t, Verify(trustedRoot(t, newAuthority(t)), b, art, policy), partUntrusted)
	})
	t.Run("log promise forged", func(t *testing.T) {
		forged := edit(t, b, func(tle map[string]any) {
			tle["inclusionPromise"].(map[string]any)["signedEntryTimestamp"] = base64.StdEncoding.EncodeToString([]byte("forged"))
		})
		refused(t, Verify(tr, forged, art, policy), partUntrusted)
	})
	t.Run("log proof forged", func(t *testing.T) {
		forged := edit(t, b, func(tle map[string]any) {
			tle["inclusionProof"].(map[string]any)["rootHash"] = base64.StdEncoding.EncodeToString(make([]byte, 32))
		})
		refused(t, Verify(tr, forged, art, policy), partUntrusted)
	})
	t.Run("policy incomplete", func(t *testing.T) {
		refused(t, Verify(tr, b, art, Policy{Domain: domain}), partPolicy)
		refused(t, Verify(tr, b, art, Policy{Issuer: issuer}), partPolicy)
		refused(t, Verify(tr, b, art, Policy{Issuer: issuer, Domain: "pub.example.org/x"}), partPolicy)
	})
}

func TestDomainRule(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	art := packageHash("pkg")
	for id, ok := range map[string]bool{
		"release@ci.pub.example.org":       true,
		"release@evilpub.example.org":      false,
		"release@pub.example.org.evil.com": false,
	} {
		t.Run(id, func(t *testing.T) {
			err := Verify(tr, sign(t, a, art, id), art, policy)
			if ok && err != nil {
				t.Fatal(err)
			}
			if !ok {
				refused(t, err, partIdentity)
			}
		})
	}

	// The pattern alone, for the shapes not worth a signature each.
	san, err := policy.sanRegexp()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(san)
	for id, ok := range map[string]bool{
		"release@pub.example.org":            true,
		"release@PUB.Example.org":            true,
		"https://pub.example.org":            true,
		"https://pub.example.org/ci":         true,
		"https://ci.pub.example.org/ci":      true,
		"https://pub.example.org:8443/ci":    true,
		"http://pub.example.org/ci":          true,
		"@pub.example.org":                   false,
		"release@evil.com@pub.example.org":   false,
		"pub.example.org":                    false,
		"https://evilpub.example.org/ci":     false,
		"https://pub.example.org.evil.com/":  false,
		"https://evil.com/x.pub.example.org": false,
		"https://evil.com/?pub.example.org":  false,
		"https://pub.example.org@evil.com/":  false,
		"https://evil.com#.pub.example.org":  false,
		"ftp://pub.example.org/ci":           false,
		"release@pub.example.org\nx@evil":    false,
	} {
		if re.MatchString(id) != ok {
			t.Errorf("SAN %q: match %v, want %v", id, !ok, ok)
		}
	}
}

func TestGarbage(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	art := packageHash("pkg")
	b := sign(t, a, art, email)

	for _, g := range []string{"", "null", "{}", "[]", "not json", `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}`} {
		refused(t, Verify(tr, []byte(g), art, policy), partBundle)
		refused(t, Verify([]byte(g), b, art, policy), partRoot)
	}
	for n := range len(b) {
		if err := Verify(tr, b[:n], art, policy); err == nil {
			t.Fatalf("bundle truncated to %d bytes verified", n)
		}
	}
	for _, n := range []int{1, len(tr) / 2, len(tr) - 1} {
		refused(t, Verify(tr[:n], b, art, policy), partRoot)
	}
}

// TestFieldRemoved: a bundle missing any one field is refused, unless the
// field is one a verifier can do without, and never panics.
func TestFieldRemoved(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	art := packageHash("pkg")
	b := sign(t, a, art, email)

	// paths lists every member and element below v, parents first.
	var paths func(prefix []any, v any) [][]any
	paths = func(prefix []any, v any) [][]any {
		var out [][]any
		add := func(key, c any) {
			p := append(append([]any(nil), prefix...), key)
			out = append(append(out, p), paths(p, c)...)
		}
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				add(k, c)
			}
		case []any:
			for i, c := range v {
				add(i, c)
			}
		}
		return out
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// What a bundle may lack and still verify: the TSA timestamp (the
	// log's integrated time suffices); the inclusion promise (the proof
	// and the TSA timestamp suffice); the message digest (the signature
	// is checked over the artifact itself); the kind and version's values
	// (sigstore-go reads them from the entry's body).
	optional := regexp.MustCompile(`^/verificationMaterial/timestampVerificationData\b` +
		`|^/verificationMaterial/tlogEntries/0/inclusionPromise\b` +
		`|^/messageSignature/messageDigest/` +
		`|^/verificationMaterial/tlogEntries/0/kindVersion/`)
	for _, p := range paths(nil, doc) {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		parent, name := v, ""
		for _, k := range p[:len(p)-1] {
			switch k := k.(type) {
			case string:
				parent = parent.(map[string]any)[k]
			case int:
				parent = parent.([]any)[k]
			}
		}
		switch k := p[len(p)-1].(type) {
		case string:
			delete(parent.(map[string]any), k)
		case int:
			s := parent.([]any)
			s[k] = nil
		}
		for _, k := range p {
			name += fmt.Sprint("/", k)
		}
		mutated, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		err = Verify(tr, mutated, art, policy)
		if err == nil && !optional.MatchString(name) {
			t.Errorf("verified without %s", name)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("without %s: error spans lines", name)
		}
	}
}

func TestSignConcurrent(t *testing.T) {
	a := newAuthority(t)
	tr := trustedRoot(t, a)
	const n = 8
	bundles := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			bundles[i], errs[i] = a.Sign(packageHash(fmt.Sprint(i)), email, issuer)
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if err := Verify(tr, bundles[i], packageHash(fmt.Sprint(i)), policy); err != nil {
			t.Errorf("bundle %d: %v", i, err)
		}
		if i > 0 {
			refused(t, Verify(tr, bundles[i], packageHash(fmt.Sprint(i-1)), policy), partArtifact)
		}
	}
}

// TestSignRefuses: no identity, no issuer, an expired or zero Authority.
func TestSignRefuses(t *testing.T) {
	a := newAuthority(t)
	if _, err := a.Sign(packageHash("pkg"), "", issuer); err == nil {
		t.Error("signed without identity")
	}
	if _, err := a.Sign(packageHash("pkg"), email, ""); err == nil {
		t.Error("signed without issuer")
	}
	late := newAuthority(t)
	late.signUntil = time.Now()
	if _, err := late.Sign(packageHash("pkg"), email, issuer); err == nil || !strings.Contains(err.Error(), "authority expired") {
		t.Errorf("signed past the trusted root's validity: %v", err)
	}
	var zero Authority
	if _, err := zero.Sign(packageHash("pkg"), email, issuer); err == nil {
		t.Error("zero Authority signed")
	}
	if _, err := zero.TrustedRootJSON(); err == nil {
		t.Error("zero Authority has a trusted root")
	}
}

func BenchmarkSign(b *testing.B) {
	a := newAuthority(b)
	art := packageHash("pkg")
	for b.Loop() {
		if _, err := a.Sign(art, email, issuer); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	a := newAuthority(b)
	tr := trustedRoot(b, a)
	art := packageHash("pkg")
	bun := sign(b, a, art, email)
	for b.Loop() {
		if err := Verify(tr, bun, art, policy); err != nil {
			b.Fatal(err)
		}
	}
}
