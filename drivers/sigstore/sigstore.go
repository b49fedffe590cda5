// Package sigstore is the harness's offline Sigstore (spec 000, Package
// signing and revocation, step 2: "Verify the sigstore signature"): a
// Fulcio CA, a Rekor log and a timestamp authority that live for one run
// and never touch the network, and the verifier the reference host uses.
//
// The signed artifact is the project's reading, fixed: the UTF-8 bytes of
// a package hash string exactly as written (for example "sha256:"
// followed by 64 lowercase hex digits), with no trailing newline. A
// signature is a Sigstore message signature (a hashedrekord entry) over
// those bytes, made with a short-lived leaf certificate whose subject
// alternative name is the signer's identity and which carries the OIDC
// issuer extension.
package sigstore

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"google.golang.org/protobuf/proto"
)

// bundleMediaType is the Sigstore bundle version Sign writes.
const bundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Authority is an offline Sigstore instance (Fulcio CA, Rekor log, TSA)
// for a run. It is built on sigstore-go's VirtualSigstore, whose trusted
// root gives the CA and the log about an hour from NewAuthority; Sign
// refuses once an entry's integrated time would fall outside it. Bundles
// made in time keep verifying: verification is at the integrated time.
type Authority struct {
	// mu serialises calls into the VirtualSigstore, which does not
	// promise to be safe for concurrent use.
	mu   sync.Mutex
	vs   *ca.VirtualSigstore
	root []byte // the trusted root JSON, fixed at NewAuthority
	// signUntil is the last integrated time the trusted root accepts.
	signUntil time.Time
	// tsaUntil is when the TSA's leaf certificate expires; timestamps
	// made after it would not verify, so Sign leaves them out.
	tsaUntil time.Time
}

// NewAuthority starts a fresh offline Sigstore instance with its own keys.
// Two authorities share nothing: each is the other's "untrusted root".
func NewAuthority() (*Authority, error) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		return nil, fmt.Errorf("sigstore: new virtual instance: %w", err)
	}
	rekor, err := logsByRawID(vs.RekorLogs())
	if err != nil {
		return nil, fmt.Errorf("sigstore: rekor logs: %w", err)
	}
	ctlogs, err := logsByRawID(vs.CTLogs())
	if err != nil {
		return nil, fmt.Errorf("sigstore: ct logs: %w", err)
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01,
		vs.FulcioCertificateAuthorities(), ctlogs, vs.TimestampingAuthorities(), rekor)
	if err != nil {
		return nil, fmt.Errorf("sigstore: trusted root: %w", err)
	}
	rootJSON, err := tr.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("sigstore: trusted root: %w", err)
	}
	a := &Authority{vs: vs, root: rootJSON}
	var until []time.Time
	for _, c := range vs.FulcioCertificateAuthorities() {
		if f, ok := c.(*root.FulcioCertificateAuthority); ok {
			until = append(until, f.ValidityPeriodEnd)
			for _, i := range f.Intermediates {
				until = append(until, i.NotAfter)
			}
		}
	}
	for _, l := range rekor {
		until = append(until, l.ValidityPeriodEnd)
	}
	if len(until) == 0 {
		return nil, errors.New("sigstore: virtual instance has no CA or log")
	}
	a.signUntil = slices.MinFunc(until, time.Time.Compare)
	for _, t := range vs.TimestampingAuthorities() {
		if s, ok := t.(*root.SigstoreTimestampingAuthority); ok && s.Leaf != nil {
			a.tsaUntil = s.Leaf.NotAfter
		}
	}
	return a, nil
}

// logsByRawID copies VirtualSigstore's log descriptions with each log's ID
// as the raw key digest the trusted root format carries. VirtualSigstore
// sets ID to the hex string's bytes, which would not survive a round trip
// through JSON: the verifier would look the log up under another name.
func logsByRawID(logs map[string]*root.TransparencyLog) (map[string]*root.TransparencyLog, error) {
	out := make(map[string]*root.TransparencyLog, len(logs))
	for id, l := range logs {
		raw, err := hex.DecodeString(id)
		if err != nil {
			return nil, fmt.Errorf("log id %q: %w", id, err)
		}
		c := *l
		c.ID = raw
		out[id] = &c
	}
	return out, nil
}

// TrustedRootJSON is the instance's Sigstore TrustedRoot (media type
// application/vnd.dev.sigstore.trustedroot+json;version=0.1), as a
// verifier loads it with root.NewTrustedRootFromJSON. It is the same
// bytes on every call.
func (a *Authority) TrustedRootJSON() ([]byte, error) {
	if a == nil || a.root == nil {
		return nil, errors.New("sigstore: trusted root: authority not initialised")
	}
	return append([]byte(nil), a.root...), nil
}

// Sign signs artifact for identity (an email, or a URI) under the OIDC
// issuer and returns a Sigstore bundle JSON (media type
// application/vnd.dev.sigstore.bundle.v0.3+json): the leaf certificate,
// the message signature, a Rekor entry with its inclusion promise and
// inclusion proof, and an RFC 3161 timestamp while the TSA's certificate
// is valid. Sign is safe for concurrent use.
//
// VirtualSigstore writes every identity into the certificate's email SAN
// field, a URI included; verifiers read the SAN value, not its type.
func (a *Authority) Sign(artifact []byte, identity, issuer string) ([]byte, error) {
	if a == nil || a.vs == nil {
		return nil, errors.New("sigstore: sign: authority not initialised")
	}
	if identity == "" || issuer == "" {
		return nil, errors.New("sigstore: sign: identity and issuer are required")
	}
	pb, err := a.sign(artifact, identity, issuer)
	if err != nil {
		return nil, fmt.Errorf("sigstore: sign %s: %w", identity, err)
	}
	// NewBundle checks the bundle as a verifier will load it.
	b, err := bundle.NewBundle(pb)
	if err != nil {
		return nil, fmt.Errorf("sigstore: sign %s: bundle: %w", identity, err)
	}
	out, err := b.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("sigstore: sign %s: marshal bundle: %w", identity, err)
	}
	return out, nil
}

// sign runs the virtual instance and assembles the protobuf bundle.
func (a *Authority) sign(artifact []byte, identity, issuer string) (*protobundle.Bundle, error) {
	a.mu.Lock()
	defer a.mu.Unlock()

	ent, err := a.vs.Sign(identity, issuer, artifact)
	if err != nil {
		return nil, err
	}
	vc, err := ent.VerificationContent()
	if err != nil {
		return nil, fmt.Errorf("verification content: %w", err)
	}
	cert := vc.Certificate()
	if cert == nil {
		return nil, errors.New("no leaf certificate")
	}
	sc, err := ent.SignatureContent()
	if err != nil {
		return nil, fmt.Errorf("signature content: %w", err)
	}
	ms := sc.MessageSignatureContent()
	if ms == nil {
		return nil, errors.New("not a message signature")
	}
	alg, ok := protocommon.HashAlgorithm_value[ms.DigestAlgorithm()]
	if !ok {
		return nil, fmt.Errorf("digest algorithm %q", ms.DigestAlgorithm())
	}
	entries, err := ent.TlogEntries()
	if err != nil {
		return nil, fmt.Errorf("tlog entries: %w", err)
	}
	var tles []*protorekor.TransparencyLogEntry
	for _, e := range entries {
		if t := e.IntegratedTime(); t.After(a.signUntil) {
			return nil, fmt.Errorf("authority expired: integrated time %s is past %s",
				t.UTC().Format(time.RFC3339), a.signUntil.UTC().Format(time.RFC3339))
		}
		tle, err := a.logEntry(e)
		if err != nil {
			return nil, err
		}
		tles = append(tles, tle)
	}
	stamps, err := ent.Timestamps()
	if err != nil {
		return nil, fmt.Errorf("timestamps: %w", err)
	}
	var rfc3161 []*protocommon.RFC3161SignedTimestamp
	if time.Now().Before(a.tsaUntil) {
		for _, s := range stamps {
			rfc3161 = append(rfc3161, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: s})
		}
	}

	vm := &protobundle.VerificationMaterial{
		Content: &protobundle.VerificationMaterial_Certificate{
			Certificate: &protocommon.X509Certificate{RawBytes: cert.Raw},
		},
		TlogEntries: tles,
	}
	if len(rfc3161) > 0 {
		vm.TimestampVerificationData = &protobundle.TimestampVerificationData{Rfc3161Timestamps: rfc3161}
	}
	return &protobundle.Bundle{
		MediaType:            bundleMediaType,
		VerificationMaterial: vm,
		Content: &protobundle.Bundle_MessageSignature{
			MessageSignature: &protocommon.MessageSignature{
				MessageDigest: &protocommon.HashOutput{
					Algorithm: protocommon.HashAlgorithm(alg),
					Digest:    ms.Digest(),
				},
				Signature: ms.Signature(),
			},
		},
	}, nil
}

// logEntry completes a VirtualSigstore log entry for a bundle. The entry
// keeps its signed entry timestamp to itself, so the log signs the same
// payload again (the promise covers body, time, index and log ID, not a
// particular signature); the bundle also needs the entry's kind and
// version, and an inclusion proof with a signed checkpoint. Called with
// a.mu held.
func (a *Authority) logEntry(e *tlog.Entry) (*protorekor.TransparencyLogEntry, error) {
	tle, ok := proto.Clone(e.TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
	if !ok || tle == nil || tle.GetLogId() == nil {
		return nil, errors.New("tlog entry: incomplete")
	}
	var kv struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(tle.CanonicalizedBody, &kv); err != nil {
		return nil, fmt.Errorf("tlog entry body: %w", err)
	}
	tle.KindVersion = &protorekor.KindVersion{Kind: kv.Kind, Version: kv.APIVersion}

	set, err := a.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		return nil, fmt.Errorf("tlog entry: inclusion promise: %w", err)
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}

	ip, err := a.vs.GetInclusionProof(tle.CanonicalizedBody)
	if err != nil {
		return nil, fmt.Errorf("tlog entry: inclusion proof: %w", err)
	}
	if ip.RootHash == nil || ip.TreeSize == nil || ip.LogIndex == nil || ip.Checkpoint == nil {
		return nil, errors.New("tlog entry: inclusion proof incomplete")
	}
	rootHash, err := hex.DecodeString(*ip.RootHash)
	if err != nil {
		return nil, fmt.Errorf("tlog entry: inclusion proof root: %w", err)
	}
	hashes := make([][]byte, len(ip.Hashes))
	for i, h := range ip.Hashes {
		if hashes[i], err = hex.DecodeString(h); err != nil {
			return nil, fmt.Errorf("tlog entry: inclusion proof hash: %w", err)
		}
	}
	// The proof's index is the entry's place in the proof's tree, which
	// VirtualSigstore builds around the entry alone.
	tle.InclusionProof = &protorekor.InclusionProof{
		LogIndex:   *ip.LogIndex,
		RootHash:   rootHash,
		TreeSize:   *ip.TreeSize,
		Hashes:     hashes,
		Checkpoint: &protorekor.Checkpoint{Envelope: *ip.Checkpoint},
	}
	return tle, nil
}
