// Verification, in the standard's order: the manifest; the package and
// manifest hashes against the release; the manifest hash recorded in
// app.signature.yaml; capability and host version ranges; the sigstore
// signature; revocation; the publisher. Each step runs only when the ones
// before it passed.

import * as http from "node:http";
import type { Finding } from "./rpc";
import { LoadedPackage, Obj, isObj, finding, loadPackage, PackageError } from "./pkg";
import { satisfies, rangeIsReadable, parseVersion, compare, isOpenRange } from "./semver";
import type { Profile } from "./state";
import { verifySigstore } from "./sigstore";

export type StepName = "manifest" | "hashes" | "compatibility" | "signature" | "revocation" | "publisher";
export interface Step {
  step: StepName;
  status: "passed" | "failed" | "not-run" | "not-applicable";
  message?: string;
}

export interface Verdict {
  pkg: LoadedPackage | null;
  findings: Finding[];
  steps: Step[];
  /** The step that failed first, if any: tells install which error code to use. */
  failedAt?: StepName;
}

export interface VerifyContext {
  profile: Profile;
  now: () => Date;
  revocationTimeoutMs: number;
  revocationCache: Map<string, { at: number; revoked: boolean; reason?: string }>;
  sigstore?: Obj;
  systemRuntime?: string;
}

const ORDER: StepName[] = ["manifest", "hashes", "compatibility", "signature", "revocation", "publisher"];

export async function verifyPackage(path: string, release: Obj | undefined, ctx: VerifyContext): Promise<Verdict> {
  const steps: Step[] = [];
  const findings: Finding[] = [];
  let failedAt: StepName | undefined;
  const run = async (name: StepName, fn: () => Promise<Finding[] | "n/a"> | Finding[] | "n/a"): Promise<void> => {
    if (failedAt) {
      steps.push({ step: name, status: "not-run" });
      return;
    }
    const out = await fn();
    if (out === "n/a") {
      steps.push({ step: name, status: "not-applicable" });
      return;
    }
    findings.push(...out);
    const errs = out.filter((f) => f.severity === "error");
    if (errs.length) {
      failedAt = name;
      steps.push({ step: name, status: "failed", message: errs.map((f) => `${f.code}: ${f.message}`).join("; ") });
    } else steps.push({ step: name, status: "passed" });
  };

  let pkg: LoadedPackage | null = null;
  await run("manifest", () => {
    try {
      pkg = loadPackage(path);
      return pkg.findings;
    } catch (e) {
      if (e instanceof PackageError) return e.findings;
      throw e;
    }
  });
  const p = (): LoadedPackage => pkg as unknown as LoadedPackage;
  const rel = isObj(release) ? release : {};

  await run("hashes", () => {
    const out: Finding[] = [];
    if (rel.packageHash !== undefined && rel.packageHash !== p().packageHash) {
      out.push(finding("package-hash-mismatch", "", "packageHash", `package hash ${p().packageHash} does not match the release's ${String(rel.packageHash)}`));
    }
    if (rel.manifestHash !== undefined && rel.manifestHash !== p().manifestHash) {
      out.push(finding("manifest-hash-mismatch", "APP.md", "manifestHash", `manifest hash ${p().manifestHash} of APP.md does not match the release's ${String(rel.manifestHash)}`));
    }
    const sig = p().signature;
    const recorded = sig && isObj(sig.manifest) ? sig.manifest.hash : undefined;
    if (typeof recorded === "string" && recorded !== p().manifestHash) {
      out.push(finding("signature-manifest-hash-mismatch", "app.signature.yaml", "signature.manifest.hash", `app.signature.yaml records manifest hash ${recorded}, but APP.md hashes to ${p().manifestHash}`));
    }
    if (typeof rel.appId === "string" && rel.appId !== p().manifest.name) {
      out.push(finding("release-mismatch", "APP.md", "name", `the release is of app ${rel.appId}, the package is ${String(p().manifest.name)}`));
    }
    if (typeof rel.version === "string" && rel.version !== p().manifest.version) {
      out.push(finding("release-mismatch", "APP.md", "version", `the release is version ${rel.version}, the package says ${String(p().manifest.version)}`));
    }
    return out;
  });

  await run("compatibility", () => [...compatibilityFindings(p().manifest, ctx.profile), ...runtimeFindings(p().manifest, ctx.systemRuntime)]);

  await run("signature", () => {
    const sig = p().signature;
    const sp = sig && isObj(sig.package) ? sig.package : null;
    if (!sp || sp.signedBy !== "sigstore") return "n/a";
    if (!isObj(rel.signatureBundle)) {
      return [finding("signature-missing", "app.signature.yaml", "signature.package", "the package is signed with sigstore but its release carries no signatureBundle")];
    }
    const why = verifySigstore(rel.signatureBundle, String(rel.packageHash ?? p().packageHash), p().packageHash, sig, ctx.sigstore);
    return why ? [finding("signature-invalid", "app.signature.yaml", "signature.package", `the sigstore signature does not verify: ${why}`)] : [];
  });

  await run("revocation", async () => {
    const sig = p().signature;
    const rv = sig && isObj(sig.revocation) ? sig.revocation : null;
    if (!rv || typeof rv.checkUrl !== "string") return "n/a";
    return await checkRevocation(rv.checkUrl, Number(rv.cacheSeconds ?? 0), p(), ctx);
  });

  await run("publisher", () => {
    if (!isObj(rel.publisher)) return "n/a";
    const out: Finding[] = [];
    const want = rel.publisher;
    const sig = p().signature;
    const trust = sig && isObj(sig.trust) ? sig.trust : {};
    const pub = isObj(p().manifest.publisher) ? (p().manifest.publisher as Obj) : {};
    const cmp = (have: unknown, expected: unknown, file: string, field: string): void => {
      if (have === undefined || expected === undefined) return;
      if (String(have) !== String(expected)) {
        out.push(finding("publisher-mismatch", file, field, `${field} is ${JSON.stringify(have)}, but the registry's publisher says ${JSON.stringify(expected)}`));
      }
    };
    cmp(trust.publisherId, want.publisherId, "app.signature.yaml", "signature.trust.publisherId");
    cmp(trust.verifiedDomain, want.verifiedDomain, "app.signature.yaml", "signature.trust.verifiedDomain");
    cmp(pub.publisherId, want.publisherId, "APP.md", "publisher.publisherId");
    cmp(pub.verifiedDomain, want.verifiedDomain, "APP.md", "publisher.verifiedDomain");
    return out;
  });

  for (const s of ORDER) if (!steps.some((x) => x.step === s)) steps.push({ step: s, status: "not-run" });
  return { pkg, findings, steps, failedAt };
}

/** requires.capabilities against the profile; requires.lime against the host's components. */
export function compatibilityFindings(m: Obj, profile: Profile): Finding[] {
  const out: Finding[] = [];
  const req = isObj(m.requires) ? m.requires : {};
  if (isObj(req.capabilities)) {
    for (const [name, r] of Object.entries(req.capabilities)) {
      const range = r === null || r === undefined ? "" : String(r);
      const field = `requires.capabilities.${name}`;
      const cap = profile[name];
      if (!rangeIsReadable(range)) out.push(finding("invalid-field", "APP.md", field, `the range ${JSON.stringify(range)} for ${name} cannot be read`));
      else if (!cap) out.push(finding("incompatible-capability", "APP.md", field, `capability ${name} is not offered by this host`));
      // A capability offered switched off meets no requirement
      // (docs/host-control-protocol.md, Capability profile): this host
      // refuses such a package at verification as it does at readiness.
      else if (!cap.enabled) out.push(finding("incompatible-capability", "APP.md", field, `capability ${name} is switched off on this host`));
      else if (!satisfies(cap.version, range)) out.push(finding("incompatible-capability", "APP.md", field, `capability ${name} ${cap.version || "(no version)"} does not satisfy ${range}`));
    }
  }
  if (isObj(req.lime)) {
    for (const [comp, r] of Object.entries(req.lime)) {
      const range = r === null || r === undefined ? "" : String(r);
      const field = `requires.lime.${comp}`;
      const cap = profile[`lime.${comp}`];
      const version = cap ? cap.version : comp === "appRuntime" ? "0.10.0" : undefined;
      if (version === undefined) continue; // a component this host does not judge
      if (!rangeIsReadable(range)) out.push(finding("invalid-field", "APP.md", field, `the range ${JSON.stringify(range)} for ${comp} cannot be read`));
      else if (!satisfies(version, range)) out.push(finding("incompatible-host-version", "APP.md", field, `this host's ${comp} ${version || "(no version)"} does not satisfy ${range}`));
    }
  }
  return out;
}

/**
 * A release offered runtime_backed runs on the system lime-runtime: each
 * lower bound its install contract declares must be met (spec 003,
 * Distribution flow). "current", "latest", "*" ask for none.
 */
export function runtimeFindings(m: Obj, system: string | undefined): Finding[] {
  const install = isObj(m.install) ? m.install : undefined;
  if (!system || !install || !Array.isArray(install.modes) || !install.modes.includes("runtime_backed")) return [];
  const have = parseVersion(system);
  const out: Finding[] = [];
  const members: [string, unknown][] = [];
  const rb = isObj(install.runtimeBacked) ? install.runtimeBacked : {};
  const rt = isObj(install.runtime) ? install.runtime : {};
  const dist = isObj(rt.distribution) && isObj(rt.distribution.runtimeBacked) ? rt.distribution.runtimeBacked : {};
  members.push(["install.runtimeBacked.minVersion", rb.minVersion], ["install.runtime.minVersion", rt.minVersion],
    ["install.runtime.distribution.runtimeBacked.minVersion", dist.minVersion]);
  for (const [field, v] of members) {
    if (typeof v !== "string" || isOpenRange(v)) continue;
    const want = parseVersion(v);
    if (!have || !want || compare(have, want) < 0) {
      out.push(finding("incompatible-runtime", "app.install.yaml", field, `the system lime-runtime ${system} does not satisfy ${field} ${v}`));
    }
  }
  return out;
}

async function checkRevocation(checkUrl: string, cacheSeconds: number, pkg: LoadedPackage, ctx: VerifyContext): Promise<Finding[]> {
  const key = `${checkUrl}\n${pkg.packageHash}\n${pkg.manifestHash}`;
  const now = ctx.now().getTime();
  const cached = ctx.revocationCache.get(key);
  let answer = cached && cacheSeconds > 0 && now - cached.at <= cacheSeconds * 1000 && now >= cached.at ? cached : undefined;
  if (!answer) {
    const sep = checkUrl.includes("?") ? "&" : "?";
    const url = `${checkUrl}${sep}packageHash=${encodeURIComponent(pkg.packageHash)}&manifestHash=${encodeURIComponent(pkg.manifestHash)}`;
    let body: unknown;
    try {
      body = await getJson(url, ctx.revocationTimeoutMs);
    } catch (e) {
      return [finding("revocation-unavailable", "app.signature.yaml", "signature.revocation", `revocation status could not be had from ${checkUrl}: ${(e as Error).message}`)];
    }
    if (!isObj(body) || typeof body.revoked !== "boolean") {
      return [finding("revocation-unavailable", "app.signature.yaml", "signature.revocation", `the revocation service at ${checkUrl} gave no usable answer`)];
    }
    answer = { at: now, revoked: body.revoked, reason: typeof body.reason === "string" ? body.reason : undefined };
    ctx.revocationCache.set(key, answer);
  }
  if (answer.revoked) {
    return [finding("revoked", "app.signature.yaml", "signature.revocation", `the package is revoked${answer.reason ? `: ${answer.reason}` : ""}`)];
  }
  return [];
}

function getJson(url: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (!/^http:\/\//.test(url)) {
      reject(new Error("only http:// revocation URLs are supported by this host"));
      return;
    }
    let done = false;
    const finish = (err: Error | null, v?: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(v);
    };
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
      finish(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const req = http.get(url, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c) => {
        size += c.length;
        if (size > 1024 * 1024) req.destroy(new Error("answer too large"));
        else chunks.push(c);
      });
      res.on("aborted", () => finish(new Error("connection dropped")));
      res.on("error", (e) => finish(e));
      res.on("end", () => {
        if (res.statusCode !== 200) return finish(new Error(`HTTP ${res.statusCode}`));
        try {
          finish(null, JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          finish(new Error("answer is not JSON"));
        }
      });
    });
    req.on("error", (e) => finish(e));
  });
}
