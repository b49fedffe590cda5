package install

import (
	"encoding/json"
	"time"

	"github.com/agentapp/conformance/suites/harness"

	. "github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/revocation"
	"github.com/agentapp/conformance/levels"
)

// describeRevocation checks step 3 of the verification order: revocation,
// asked of the revocation service the harness plays, with its cache, after
// the hashes, failing closed (spec 000, Package signing and revocation).
func describeRevocation(tc *harness.TestContext) {
	revokedPlanted := harness.RevokedPlanted

	Describe("Installable: revocation", func() {
		It("asks revocation.checkUrl, and refuses a revoked package at verify and at install", tc.Req("VERIFY-REVOCATION", levels.EveryEntryPoint), func() {
			dir, rel := revocablePackage(tc, 0)
			tc.ExpectVerifies(dir, rel)
			if len(tc.Revocation().Requests(rel.PackageHash)) == 0 {
				tc.Failf("package/verify accepted a package naming revocation.checkUrl %s without asking it", tc.Revocation().URL())
			}
			tc.Revocation().Revoke(rel.PackageHash, "the publisher's signing key was compromised")
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), revokedPlanted)
			_, err := tc.TryInstall(dir, rel, true)
			he, refused := tc.RefusalError(protocol.MethodInstall, err)
			if !refused {
				tc.Failf("app/install of a revoked package succeeded")
			}
			tc.ExpectRefused(harness.Refusal{Refused: he.Code == protocol.CodeVerificationFailed, Code: he.Code, Message: he.Message,
				Findings: harness.FindingsOfError(he)}, revokedPlanted)
		})

		It("asks again once cacheSeconds have passed, by the configured clock", tc.Req("VERIFY-REVOCATION-CACHE", levels.ChangeBetweenReads), func() {
			const cacheSeconds = 600
			dir, rel := revocablePackage(tc, cacheSeconds)
			asked := expectCachedAnswer(tc, dir, rel)
			tc.Revocation().Revoke(rel.PackageHash, "revoked after the first check")
			// Inside the window either reading is allowed ("Asking more
			// often is fine"): the report says which the host took.
			_ = tc.Call(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}, &json.RawMessage{})
			if n := len(tc.Revocation().Requests(rel.PackageHash)); n == asked {
				tc.Reading("The revocation cache", "an answer is reused inside cacheSeconds")
			} else {
				tc.Reading("The revocation cache", "the service is asked on every check")
				asked = n
			}
			later, err := time.Parse(time.RFC3339, harness.DefaultClock)
			if err != nil {
				harness.Errorf("DefaultClock: %v", err)
			}
			later = later.Add((cacheSeconds + 1) * time.Second)
			tc.Configure(withClock(tc, later.Format(time.RFC3339)))
			r := tc.VerifyRefusal(dir, rel)
			if len(tc.Revocation().Requests(rel.PackageHash)) == asked {
				tc.Failf("package/verify %ds after the last revocation check (cacheSeconds %d) did not ask revocation.checkUrl again", cacheSeconds+1, cacheSeconds)
			}
			tc.ExpectRefused(r, revokedPlanted)
		})

		// Every transition, then the same check: host/reset forgets
		// everything (docs/host-control-protocol.md, host/reset), so an
		// answer cached before it does not stand after it, inside its
		// window by the configured clock.
		It("forgets its cached answers at host/reset: a package revoked before the reset is asked about again after it", tc.Req("VERIFY-REVOCATION-CACHE", levels.EveryTransition), func() {
			const cacheSeconds = 600
			// A package of this spec's own: an answer a host kept from an
			// earlier spec's package (itself across a reset) is not about it.
			dir, rel := ownRevocablePackage(tc, cacheSeconds, harness.Nonce("checked-before-reset"))
			asked := expectCachedAnswer(tc, dir, rel)
			tc.Revocation().Revoke(rel.PackageHash, "revoked before host/reset")
			tc.MustCall(protocol.MethodReset, struct{}{}, &protocol.OK{})
			tc.Configure(tc.DefaultConfigure())
			r := tc.VerifyRefusal(dir, rel)
			if len(tc.Revocation().Requests(rel.PackageHash)) == asked {
				tc.Failf("package/verify after host/reset did not ask revocation.checkUrl about %s: the answer cached before the reset (cacheSeconds %d) stood in the fresh host", rel.PackageHash, cacheSeconds)
			}
			tc.ExpectRefused(r, revokedPlanted)
		})

		// A cached answer is about one package: another package whose
		// app.signature.yaml names the same checkUrl is asked about in its
		// own right, so one never passes on the other's "not revoked".
		It("keeps a cached answer to its own package: another package at the same checkUrl is asked about", tc.Req("VERIFY-REVOCATION-CACHE", levels.ConfusableIdentity), func() {
			const cacheSeconds = 600
			// Both packages are this spec's own (no other spec revoked
			// either), so nothing a host kept from an earlier spec answers.
			dir, rel := ownRevocablePackage(tc, cacheSeconds, "the first package at this revocation checkUrl")
			expectCachedAnswer(tc, dir, rel)
			other, otherRel := ownRevocablePackage(tc, cacheSeconds, "another release, at the same revocation checkUrl")
			tc.Revocation().Revoke(otherRel.PackageHash, "revoked before its first check")
			r := tc.VerifyRefusal(other, otherRel)
			if len(tc.Revocation().Requests(otherRel.PackageHash)) == 0 {
				tc.Failf("package/verify of a second package at the same revocation checkUrl (packageHash %s) never asked about it: the answer cached for %s stood in for it", otherRel.PackageHash, rel.PackageHash)
			}
			tc.ExpectRefused(r, revokedPlanted)
		})

		It("never asks about revocation for a package whose hashes failed", tc.Req("VERIFY-ORDER", levels.EveryMember), func() {
			dir, rel := revocablePackage(tc, 0)
			tc.ExpectVerifies(dir, rel)
			if len(tc.Revocation().Requests(rel.PackageHash)) == 0 {
				tc.Blockedf("the host never asked revocation.checkUrl about the untouched package, so the order of its checks cannot be seen")
			}
			before := len(tc.Revocation().Requests(""))
			harness.AppendFile(dir, harness.TamperTarget(tc, dir), []byte("\n// changed after hashing\n"))
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "a file changed after hashing",
				Codes: []string{"package-hash-mismatch"}, Field: "packageHash"})
			if n := len(tc.Revocation().Requests("")); n != before {
				tc.Failf("the host asked revocation.checkUrl about a package whose packageHash had failed (%d request(s)); the hashes come first", n-before)
			}
		})

		// A change between two reads: a host that remembers a failed
		// lookup for cacheSeconds, as it may remember an answer, lets the
		// package through on the next verification while the service is
		// still down. The control comes after the refusals (a status had
		// first could be cached, as the protocol allows): with the service
		// answering again, the same package verifies.
		It("refuses the package again while its revocation status still cannot be had: a failed lookup is no answer to cache", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.ChangeBetweenReads), func() {
			dir, rel := revocablePackage(tc, 600)
			tc.Revocation().SetMode(revocation.ErrorStatus)
			planted := harness.Planted{What: "a revocation service that " + revocation.ErrorStatus.Describe() + ", asked twice",
				Codes: []string{"revocation-unavailable", "revoked"}, File: "app.signature.yaml", Field: "revocation"}
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), planted)
			tc.ExpectRefused(tc.VerifyRefusal(dir, rel), planted)
			tc.Revocation().SetMode(revocation.Answer)
			tc.Precondition("with the revocation service answering again, the same package verifies", func() {
				tc.ExpectVerifies(dir, rel)
			})
		})

		// Every way a status cannot be had, not one representative: no
		// connection, no answer, an error status (whatever its body says),
		// a redirect to nothing, a body that is not JSON, and JSON without
		// a revoked member or with null in it (absent is not false).
		DescribeTable("refuses the package when its revocation status cannot be had",
			func(mode revocation.Mode) {
				dir, rel := revocablePackage(tc, 0)
				tc.ExpectVerifies(dir, rel)
				tc.Revocation().SetMode(mode)
				tc.ExpectRefused(tc.VerifyRefusal(dir, rel), harness.Planted{What: "a revocation service that " + mode.Describe(),
					Codes: []string{"revocation-unavailable", "revoked"}, File: "app.signature.yaml", Field: "revocation"})
			},
			Entry("the service is down", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember), revocation.Down),
			Entry("the service never answers", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember), revocation.Hang),
			Entry("the service answers an HTTP error status", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember), revocation.ErrorStatus),
			Entry("the service redirects to nothing", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember), revocation.Redirect),
			Entry("the service answers garbage", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember), revocation.Garbage),
			Entry("the service answers JSON without the revoked member", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember, levels.RepresentationLimit), revocation.NoStatus),
			Entry("the service answers a null revoked member", tc.Req("VERIFY-REVOCATION-FAIL-CLOSED", levels.EveryMember, levels.RepresentationLimit), revocation.NullStatus),
		)
	})
}

// ownRevocablePackage is revocablePackage with mark written into a file
// of it, so its packageHash is its own: no answer a host kept from another
// spec's package is about it.
func ownRevocablePackage(tc *harness.TestContext, cacheSeconds int, mark string) (string, *protocol.Release) {
	GinkgoHelper()
	dir, _ := revocablePackage(tc, cacheSeconds)
	harness.AppendFile(dir, harness.TamperTarget(tc, dir), []byte("\n// "+mark+"\n"))
	return dir, tc.ReleaseOf(dir)
}

// expectCachedAnswer is the positive control of the cache specs: the
// package verifies and the host asked revocation.checkUrl about it, so it
// has an answer it may cache; it returns how many times it asked. A host
// that never asked leaves the spec blocked (VERIFY-REVOCATION judges that).
func expectCachedAnswer(tc *harness.TestContext, dir string, rel *protocol.Release) int {
	GinkgoHelper()
	tc.ExpectVerifies(dir, rel)
	asked := len(tc.Revocation().Requests(rel.PackageHash))
	if asked == 0 {
		tc.Blockedf("the host never asked revocation.checkUrl about the untouched package (VERIFY-REVOCATION judges that), so there is no answer it could cache")
	}
	return asked
}

// revocablePackage is full-app naming the harness's revocation service in
// app.signature.yaml, with cacheSeconds, and its release.
func revocablePackage(tc *harness.TestContext, cacheSeconds int) (string, *protocol.Release) {
	GinkgoHelper()
	dir := tc.Fixture("full-app")
	tc.NameRevocation(dir, cacheSeconds)
	return dir, tc.ReleaseOf(dir)
}
