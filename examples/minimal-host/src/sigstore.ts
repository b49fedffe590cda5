// Offline verification of a Sigstore bundle (v0.3 JSON) with a message
// signature over the package hash string, against a TrustedRoot document:
//  - the signing certificate chains to a certificate authority of the root,
//    valid when the log integrated the entry;
//  - the transparency log entry is signed by a log of the root (its signed
//    entry timestamp), its body is this signature, certificate and digest,
//    and its inclusion proof leads to the checkpoint's root hash;
//  - the signature covers the artifact;
//  - the certificate's OIDC issuer is the trusted issuer, and its subject
//    (an email or URI) lies in the package's verifiedDomain.
// Only Node's crypto module is used.

import { createHash, createPublicKey, verify, X509Certificate, KeyObject } from "node:crypto";
import { Obj, isObj } from "./pkg";

const b64 = (s: unknown): Buffer => Buffer.from(String(s ?? ""), "base64");
const sha = (d: Uint8Array): Buffer => createHash("sha256").update(d).digest();

class Invalid extends Error {}
function need(cond: unknown, why: string): asserts cond {
  if (!cond) throw new Invalid(why);
}

/** Returns why the bundle does not verify, or null when it does. */
export function verifySigstore(bundle: Obj, artifact: string, _packageHash: string, signature: Obj | null, trust: Obj | undefined): string | null {
  try {
    check(bundle, artifact, signature, trust);
    return null;
  } catch (e) {
    if (e instanceof Invalid) return e.message;
    return `the bundle cannot be read: ${(e as Error).message}`;
  }
}

function check(bundle: Obj, artifact: string, signature: Obj | null, trust: Obj | undefined): void {
  need(isObj(trust) && isObj(trust.trustedRoot), "this host has no trusted root configured for sigstore");
  const root = trust.trustedRoot as Obj;
  const issuer = typeof trust.issuer === "string" ? trust.issuer : "";
  need(typeof bundle.mediaType === "string" && bundle.mediaType.startsWith("application/vnd.dev.sigstore.bundle"), "not a sigstore bundle");
  const vm = bundle.verificationMaterial;
  need(isObj(vm), "the bundle has no verificationMaterial");
  const certDer = isObj(vm.certificate)
    ? b64(vm.certificate.rawBytes)
    : isObj(vm.x509CertificateChain) && Array.isArray(vm.x509CertificateChain.certificates) && isObj(vm.x509CertificateChain.certificates[0])
      ? b64((vm.x509CertificateChain.certificates[0] as Obj).rawBytes)
      : null;
  need(certDer && certDer.length > 0, "the bundle carries no signing certificate");
  const leaf = new X509Certificate(certDer);

  // The message signature over the artifact.
  const ms = bundle.messageSignature;
  need(isObj(ms), "the bundle has no messageSignature");
  const sig = b64(ms.signature);
  const art = Buffer.from(artifact, "utf8");
  const digest = sha(art);
  if (isObj(ms.messageDigest) && ms.messageDigest.digest !== undefined) {
    need(b64(ms.messageDigest.digest).equals(digest), "the bundle's message digest is not the digest of the package hash");
  }
  need(verify("sha256", art, leaf.publicKey, sig), "the signature does not cover this package hash");

  // The transparency log entry.
  const entries = Array.isArray(vm.tlogEntries) ? vm.tlogEntries.filter(isObj) : [];
  need(entries.length > 0, "the bundle has no transparency log entry");
  const e = entries[0];
  const logKeyId = isObj(e.logId) ? String(e.logId.keyId ?? "") : "";
  const tlogs = Array.isArray(root.tlogs) ? root.tlogs.filter(isObj) : [];
  const tlog = tlogs.find((t) => isObj(t.logId) && t.logId.keyId === logKeyId);
  need(tlog && isObj(tlog.publicKey), "the log entry is from a log the trusted root does not name");
  const logKey = createPublicKey({ key: b64((tlog.publicKey as Obj).rawBytes), format: "der", type: "spki" });
  const integratedTime = Number(e.integratedTime);
  need(Number.isFinite(integratedTime) && integratedTime > 0, "the log entry has no integrated time");
  const when = new Date(integratedTime * 1000);
  need(within(when, (tlog.publicKey as Obj).validFor), "the log's key was not valid when the entry was integrated");

  const bodyB64 = String(e.canonicalizedBody ?? "");
  const body = b64(bodyB64);
  need(body.length > 0, "the log entry has no body");
  const rec = JSON.parse(body.toString("utf8")) as Obj;
  const spec = isObj(rec.spec) ? rec.spec : {};
  const data = isObj(spec.data) && isObj(spec.data.hash) ? spec.data.hash : {};
  need(String(data.value ?? "").toLowerCase() === digest.toString("hex"), "the log entry records another artifact digest");
  const rsig = isObj(spec.signature) ? spec.signature : {};
  need(b64(rsig.content).equals(sig), "the log entry records another signature");
  const rkey = isObj(rsig.publicKey) ? b64(rsig.publicKey.content).toString("utf8") : "";
  need(rkey.replace(/\s+/g, "") === leaf.toString().replace(/\s+/g, ""), "the log entry records another certificate");

  // The signed entry timestamp: the log's promise to include the entry.
  const promise = isObj(e.inclusionPromise) ? b64(e.inclusionPromise.signedEntryTimestamp) : null;
  const proof = isObj(e.inclusionProof) ? e.inclusionProof : null;
  need(promise || proof, "the log entry has neither an inclusion promise nor an inclusion proof");
  if (promise && promise.length) {
    const payload = `{"body":${JSON.stringify(bodyB64)},"integratedTime":${integratedTime},"logID":${JSON.stringify(b64(logKeyId).toString("hex"))},"logIndex":${Number(e.logIndex)}}`;
    need(verify("sha256", Buffer.from(payload, "utf8"), logKey, promise), "the log's signed entry timestamp does not verify");
  }
  if (proof) checkInclusion(proof, body, logKey);

  // The certificate chains to a certificate authority of the root, valid then.
  need(new Date(leaf.validFrom) <= when && when <= new Date(leaf.validTo), "the signing certificate was not valid when the log integrated the entry");
  const cas = Array.isArray(root.certificateAuthorities) ? root.certificateAuthorities.filter(isObj) : [];
  const chained = cas.some((ca) => {
    if (!within(when, ca.validFor)) return false;
    const certs = isObj(ca.certChain) && Array.isArray(ca.certChain.certificates) ? ca.certChain.certificates.filter(isObj) : [];
    const chain = certs.map((c) => new X509Certificate(b64(c.rawBytes)));
    if (chain.length === 0) return false;
    let child = leaf;
    for (const parent of chain) {
      if (!child.checkIssued(parent) || !child.verify(parent.publicKey)) return false;
      if (!(new Date(parent.validFrom) <= when && when <= new Date(parent.validTo))) return false;
      child = parent;
    }
    return child.checkIssued(child) && child.verify(child.publicKey);
  });
  need(chained, "the signing certificate does not chain to a certificate authority of the trusted root");

  // Who signed: the OIDC issuer and a subject in the package's verified domain.
  const certIssuer = oidcIssuer(leaf.raw);
  need(issuer !== "" && certIssuer === issuer, `the certificate's issuer ${certIssuer ? JSON.stringify(certIssuer) : "(none)"} is not the trusted issuer`);
  const trustSection = signature && isObj(signature.trust) ? signature.trust : {};
  const domain = String(trustSection.verifiedDomain ?? "").toLowerCase();
  need(domain !== "", "the package names no signature.trust.verifiedDomain to check the signer against");
  const subjects = (leaf.subjectAltName ?? "").split(/,\s*/).map((s) => s.trim()).filter(Boolean);
  const inDomain = subjects.some((s) => {
    const m = /^(email|URI):(.*)$/.exec(s);
    if (!m) return false;
    let host = "";
    if (m[1] === "email" && m[2].includes("@")) host = m[2].slice(m[2].lastIndexOf("@") + 1);
    else {
      const u = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(m[2]);
      host = u ? u[1] : m[2].includes("@") ? m[2].slice(m[2].lastIndexOf("@") + 1) : "";
    }
    host = host.toLowerCase();
    return host === domain || host.endsWith(`.${domain}`);
  });
  need(inDomain, `the signer ${subjects.join(", ") || "(none)"} is not in the package's verifiedDomain ${domain}`);
}

function within(when: Date, validFor: unknown): boolean {
  if (!isObj(validFor)) return true;
  if (typeof validFor.start === "string" && when < new Date(validFor.start)) return false;
  if (typeof validFor.end === "string" && when > new Date(validFor.end)) return false;
  return true;
}

/** RFC 6962 inclusion proof, and the checkpoint's signature over its root hash. */
function checkInclusion(proof: Obj, body: Buffer, logKey: KeyObject): void {
  const index = Number(proof.logIndex ?? 0);
  const size = Number(proof.treeSize);
  need(Number.isInteger(size) && size > 0 && Number.isInteger(index) && index >= 0 && index < size, "the inclusion proof's index or tree size is invalid");
  const hashes = Array.isArray(proof.hashes) ? proof.hashes.map((h) => b64(h)) : [];
  let fn = index;
  let sn = size - 1;
  let r = sha(Buffer.concat([Buffer.from([0]), body]));
  for (const p of hashes) {
    if (sn === 0) throw new Invalid("the inclusion proof is too long");
    if (fn % 2 === 1 || fn === sn) {
      r = sha(Buffer.concat([Buffer.from([1]), p, r]));
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else r = sha(Buffer.concat([Buffer.from([1]), r, p]));
    fn >>= 1;
    sn >>= 1;
  }
  need(sn === 0, "the inclusion proof is too short");
  const rootHash = b64(proof.rootHash);
  need(r.equals(rootHash), "the inclusion proof does not lead to the log's root hash");
  const cp = isObj(proof.checkpoint) ? String(proof.checkpoint.envelope ?? "") : "";
  if (cp) {
    const split = cp.indexOf("\n\n");
    need(split > 0, "the checkpoint is not a signed note");
    const note = cp.slice(0, split + 1);
    const lines = note.split("\n");
    need(lines.length >= 3 && b64(lines[2]).equals(rootHash), "the checkpoint names another root hash");
    const sigs = cp.slice(split + 2).split("\n").filter((l) => l.startsWith("\u2014 "));
    const ok = sigs.some((l) => {
      const raw = b64(l.slice(l.lastIndexOf(" ") + 1));
      return raw.length > 4 && verify("sha256", Buffer.from(note, "utf8"), logKey, raw.subarray(4));
    });
    need(ok, "the checkpoint's signature does not verify");
  }
}

/** The Fulcio OIDC issuer extension (1.3.6.1.4.1.57264.1.8, or the older .1.1) of a DER certificate. */
function oidcIssuer(der: Buffer): string {
  const find = (last: number): string | null => {
    const oid = Buffer.from([0x06, 0x0a, 0x2b, 0x06, 0x01, 0x04, 0x01, 0x83, 0xbf, 0x30, 0x01, last]);
    let at = der.indexOf(oid);
    if (at < 0) return null;
    at += oid.length;
    if (der[at] === 0x01) at += 3; // critical BOOLEAN
    if (der[at] !== 0x04) return null; // OCTET STRING
    const [len, off] = derLen(der, at + 1);
    let v = der.subarray(off, off + len);
    if (last === 8 && (v[0] === 0x0c || v[0] === 0x16)) {
      const [l2, o2] = derLen(v, 1);
      v = v.subarray(o2, o2 + l2);
    }
    return v.toString("utf8");
  };
  return find(8) ?? find(1) ?? "";
}

function derLen(b: Buffer, at: number): [number, number] {
  const first = b[at];
  if (first < 0x80) return [first, at + 1];
  const n = first & 0x7f;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + b[at + 1 + i];
  return [len, at + 1 + n];
}
