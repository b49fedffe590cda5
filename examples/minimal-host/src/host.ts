// The methods of the host control protocol this host implements, mapped
// onto a tiny "desktop P0" host: it reads, verifies and projects packages,
// installs them into a folder of its own, and answers readiness. It has no
// agent runtime and no registry client, and runs no app code.

import * as fs from "node:fs";
import * as path from "node:path";
import * as os from "node:os";
import { ERR, RpcError, Handler, invalidParams, Finding } from "./rpc";
import { LoadedPackage, Obj, isObj, loadPackage, PackageError, walkPackage, hashFiles, errorFindings } from "./pkg";
import { project, registered } from "./project";
import { readiness, UnknownEntry } from "./readiness";
import { verifyPackage, Verdict, VerifyContext } from "./verify";
import { Config, HELLO_PROFILE, InstalledApp, Profile } from "./state";

export const HOST_NAME = "agentapp-minimal-host";
export const HOST_VERSION = "0.1.0";

const METHODS = [
  "conformance/hello", "host/reset", "host/configure", "host/shutdown",
  "package/verify", "package/project", "app/install", "app/uninstall", "app/list", "app/readiness", "app/review",
];

// Methods a host may have that this one does not: each answers -32006
// (unsupported), so the specs that need them are blocked, not failed.
const UNSUPPORTED: Record<string, string> = {
  "registry/list": "this host has no registry client",
  "app/disable": "this host does not disable apps",
  "app/enable": "this host does not disable apps",
  "app/update": "this host does not update apps",
  "app/rollback": "this host does not update apps",
  "app/migrate": "this host runs no storage migrations",
  "app/launch": "this host runs no app UI (a desktop P0 host)",
  "app/center": "this host has no app center page",
  "app/invoke": "this host runs no app code and has no capability bridge",
  "app/backend": "this host runs no app backends",
  "app/evals": "this host runs no workflows, so no regression evals",
  "host/observe": "this host mounts no app surface",
  "host/set": "this host mounts no app surface",
};

function defaultConfig(): Config {
  return {
    tenantId: "", workspaceId: "", userId: "",
    secrets: {}, sessionTokens: {},
    policy: { deniedApps: [], deniedEntries: {} },
    profile: cloneProfile(HELLO_PROFILE),
    revocationMs: 2000,
  };
}

function cloneProfile(p: Profile): Profile {
  const out: Profile = {};
  for (const [k, v] of Object.entries(p)) out[k] = { ...v };
  return out;
}

// --- param helpers: anything missing or mistyped is -32602 naming the field.
function str(p: Obj, field: string, required = true): string | undefined {
  const v = p[field];
  if (v === undefined || v === null) {
    if (required) throw invalidParams(field, "is required");
    return undefined;
  }
  if (typeof v !== "string" || v === "") throw invalidParams(field, "must be a non-empty string");
  return v;
}
function obj(p: Obj, field: string, required = false): Obj | undefined {
  const v = p[field];
  if (v === undefined || v === null) {
    if (required) throw invalidParams(field, "is required");
    return undefined;
  }
  if (!isObj(v)) throw invalidParams(field, "must be an object");
  return v;
}
function bool(p: Obj, field: string, required = false): boolean | undefined {
  const v = p[field];
  if (v === undefined || v === null) {
    if (required) throw invalidParams(field, "is required");
    return undefined;
  }
  if (typeof v !== "boolean") throw invalidParams(field, "must be true or false");
  return v;
}
function absPath(p: Obj, field = "path"): string {
  const v = str(p, field) as string;
  if (!path.isAbsolute(v)) throw invalidParams(field, "must be an absolute path");
  return v;
}
function stringMap(v: unknown, field: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw invalidParams(field, "must be an object");
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") throw invalidParams(`${field}.${k}`, "must be a string");
    out[k] = x;
  }
  return out;
}
function stringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw invalidParams(field, "must be a list of strings");
  return v as string[];
}

export class Host {
  private cfg: Config = defaultConfig();
  private configured = false;
  private apps = new Map<string, InstalledApp>();
  private retained = new Map<string, { dataPath: string; scopes: string[] }>();
  private revocationCache: VerifyContext["revocationCache"] = new Map();
  private readonly dataRoot: string;

  constructor() {
    const base = process.env.AGENTAPP_CONFORMANCE_HOST || process.env.TMPDIR || os.tmpdir();
    this.dataRoot = fs.mkdtempSync(path.join(base, "minimal-host-"));
  }

  close(): void {
    fs.rmSync(this.dataRoot, { recursive: true, force: true });
  }

  method(name: string): Handler | undefined {
    const table: Record<string, Handler> = {
      "conformance/hello": (p) => this.hello(p),
      "host/reset": () => this.reset(),
      "host/configure": (p) => this.configure(p),
      "host/shutdown": () => ({ ok: true }),
      "package/verify": (p) => this.verify(p),
      "package/project": (p) => this.project(p),
      "app/install": (p) => this.install(p),
      "app/uninstall": (p) => this.uninstall(p),
      "app/list": () => this.list(),
      "app/readiness": (p) => this.readiness(p),
      "app/review": (p) => this.review(p),
    };
    if (table[name]) return table[name];
    if (UNSUPPORTED[name]) {
      const why = UNSUPPORTED[name];
      return () => {
        throw new RpcError(ERR.UNSUPPORTED, `${name} is unsupported: ${why}`);
      };
    }
    return undefined; // -32601, also for the reserved methods
  }

  private now(): Date {
    return this.cfg.clock ?? new Date();
  }

  private ctx(): VerifyContext {
    return {
      profile: this.cfg.profile,
      now: () => this.now(),
      revocationTimeoutMs: this.cfg.revocationMs,
      revocationCache: this.revocationCache,
      sigstore: this.cfg.sigstore,
      systemRuntime: this.cfg.systemRuntime,
    };
  }

  // --- conformance/hello
  private hello(p: Obj): Obj {
    if (p.protocolVersion !== undefined && p.protocolVersion !== "1") {
      throw new RpcError(ERR.UNSUPPORTED, `protocol version ${String(p.protocolVersion)} is unsupported; this host speaks 1`);
    }
    return {
      host: { name: HOST_NAME, version: HOST_VERSION, kind: "electron" },
      protocolVersion: "1",
      capabilities: cloneProfile(HELLO_PROFILE),
      levels: ["catalog", "installable", "desktop-p0"],
      methods: METHODS,
    };
  }

  // --- host/reset
  private reset(): Obj {
    for (const a of this.apps.values()) this.removeApp(a, true);
    for (const r of this.retained.values()) fs.rmSync(r.dataPath, { recursive: true, force: true });
    this.apps.clear();
    this.retained.clear();
    this.revocationCache.clear();
    this.cfg = defaultConfig();
    this.configured = false;
    return { ok: true };
  }

  // --- host/configure
  private configure(p: Obj): Obj {
    const cfg = defaultConfig();
    cfg.tenantId = str(p, "tenantId") as string;
    cfg.workspaceId = str(p, "workspaceId") as string;
    cfg.userId = str(p, "userId") as string;
    cfg.secrets = stringMap(p.secrets, "secrets");
    cfg.sessionTokens = stringMap(p.sessionTokens, "sessionTokens");
    const policy = obj(p, "policy");
    if (policy) {
      cfg.policy.deniedApps = stringList(policy.deniedApps, "policy.deniedApps");
      const de = policy.deniedEntries;
      if (de !== undefined && de !== null) {
        if (!isObj(de)) throw invalidParams("policy.deniedEntries", "must be an object");
        for (const [k, v] of Object.entries(de)) cfg.policy.deniedEntries[k] = stringList(v, `policy.deniedEntries.${k}`);
      }
    }
    const grants = obj(p, "grants");
    if (grants) {
      cfg.grants = {};
      for (const [k, v] of Object.entries(grants)) cfg.grants[k] = stringList(v, `grants.${k}`);
    }
    const avail = obj(p, "available");
    if (avail) {
      cfg.available = {};
      for (const kind of ["tools", "skills", "evals"] as const) {
        if (avail[kind] !== undefined && avail[kind] !== null) cfg.available[kind] = stringList(avail[kind], `available.${kind}`);
      }
    }
    const caps = obj(p, "capabilities");
    if (caps) {
      for (const [k, v] of Object.entries(caps)) {
        if (!isObj(v) || typeof v.version !== "string" || typeof v.enabled !== "boolean") {
          throw invalidParams(`capabilities.${k}`, "must be {version: string, enabled: boolean}");
        }
        cfg.profile[k] = { version: v.version, enabled: v.enabled };
      }
    }
    if (p.locale !== undefined && p.locale !== null) cfg.locale = str(p, "locale");
    if (typeof p.clock === "string" && p.clock !== "") {
      const d = new Date(p.clock);
      if (isNaN(d.getTime())) throw invalidParams("clock", "must be an RFC 3339 instant");
      cfg.clock = d;
    }
    const sr = obj(p, "systemRuntime");
    if (sr) {
      if (typeof sr.version !== "string" || sr.version === "") throw invalidParams("systemRuntime.version", "must be a non-empty string");
      cfg.systemRuntime = sr.version;
    }
    const health = obj(p, "health");
    if (health) cfg.healthFailing = health.failing === undefined || health.failing === null ? [] : stringList(health.failing, "health.failing");
    const t = obj(p, "timeouts");
    if (t && typeof t.revocationMs === "number" && t.revocationMs > 0) cfg.revocationMs = Math.min(t.revocationMs, 3000);
    const sig = obj(p, "sigstore");
    if (sig) cfg.sigstore = sig;
    this.cfg = cfg;
    this.configured = true;
    return { ok: true };
  }

  // --- package/verify
  private async verify(p: Obj): Promise<Obj> {
    const where = absPath(p);
    const release = obj(p, "release");
    const v = await verifyPackage(where, release, this.ctx());
    if (!v.pkg) throw new RpcError(ERR.PACKAGE_INVALID, `package invalid: ${summary(v.findings)}`, { findings: v.findings });
    return {
      ok: errorFindings(v.findings).length === 0,
      appName: typeof v.pkg.manifest.name === "string" ? v.pkg.manifest.name : "",
      appVersion: typeof v.pkg.manifest.version === "string" ? v.pkg.manifest.version : "",
      packageHash: v.pkg.packageHash,
      manifestHash: v.pkg.manifestHash,
      findings: v.findings,
    };
  }

  // --- package/project
  private project(p: Obj): Obj {
    const where = absPath(p);
    obj(p, "release");
    const pkg = this.load(where);
    return { ok: true, projection: project(pkg), findings: pkg.findings };
  }

  /** Load a package that must be valid; refuse it with -32001 otherwise. */
  private load(where: string): LoadedPackage {
    let pkg: LoadedPackage;
    try {
      pkg = loadPackage(where);
    } catch (e) {
      if (e instanceof PackageError) throw new RpcError(ERR.PACKAGE_INVALID, `package invalid: ${summary(e.findings)}`, { findings: e.findings });
      throw e;
    }
    const errs = errorFindings(pkg.findings);
    if (errs.length) throw new RpcError(ERR.PACKAGE_INVALID, `package invalid: ${summary(errs)}`, { findings: pkg.findings });
    return pkg;
  }

  // --- app/review
  private async review(p: Obj): Promise<Obj> {
    if (p.source !== undefined) throw new RpcError(ERR.UNSUPPORTED, "app/review with source is unsupported: this host has no registry client");
    const where = absPath(p);
    const release = obj(p, "release");
    const v = await verifyPackage(where, release, this.ctx());
    const m = v.pkg?.manifest ?? {};
    return {
      ok: errorFindings(v.findings).length === 0,
      appId: typeof m.name === "string" ? m.name : "",
      version: typeof m.version === "string" ? m.version : "",
      checks: v.steps,
      findings: v.findings,
    };
  }

  // --- app/install
  private async install(p: Obj): Promise<Obj> {
    if (p.path !== undefined && p.source !== undefined) throw invalidParams("source", "and path never come together");
    const consent = obj(p, "consent", true) as Obj;
    const granted = bool(consent, "granted", true);
    if (consent.by !== undefined && !["user", "tenant", "workspace"].includes(consent.by as string)) {
      throw invalidParams("consent.by", "must be user, tenant or workspace");
    }
    if (p.source !== undefined) {
      obj(p, "source", true);
      if (!granted) throw new RpcError(ERR.CONSENT_REQUIRED, "install needs consent");
      throw new RpcError(ERR.UNSUPPORTED, "installing from a registry source is unsupported: this host has no registry client");
    }
    const where = absPath(p);
    const release = obj(p, "release");
    if (!granted) throw new RpcError(ERR.CONSENT_REQUIRED, "install needs user, tenant or workspace consent; nothing was installed");

    const v: Verdict = await verifyPackage(where, release, this.ctx());
    const errs = errorFindings(v.findings);
    if (!v.pkg || errs.length) {
      const code = !v.pkg || v.failedAt === "manifest" ? ERR.PACKAGE_INVALID : ERR.VERIFICATION_FAILED;
      throw new RpcError(code, `nothing installed: ${summary(errs.length ? errs : v.findings)}`, { findings: v.findings });
    }
    const pkg = v.pkg;
    const appId = String(pkg.manifest.name);
    if (this.cfg.policy.deniedApps.includes(appId)) {
      throw new RpcError(ERR.DENIED_BY_POLICY, `tenant policy does not allow the app ${appId}; nothing was installed`, {
        findings: [{ code: "policy-denied", severity: "error", file: "APP.md", field: "name", message: `tenant policy denies ${appId}` }],
      });
    }
    const old = this.apps.get(appId);
    if (old) this.removeApp(old, false);

    // Keep our own copy of the package: readiness reads it, never the folder we were given.
    const slot = path.join(this.dataRoot, `app-${this.apps.size}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`);
    const installedPath = path.join(slot, "package");
    fs.mkdirSync(installedPath, { recursive: true });
    for (const f of pkg.files) {
      const dst = path.join(installedPath, ...f.rel.split("/"));
      fs.mkdirSync(path.dirname(dst), { recursive: true });
      fs.writeFileSync(dst, fs.readFileSync(f.real));
    }
    // The app's data namespace: what an earlier uninstall kept, or a new one.
    let dataPath = path.join(slot, "data");
    let hasData = false;
    const kept = this.retained.get(appId);
    if (kept) {
      dataPath = kept.dataPath;
      hasData = true;
      this.retained.delete(appId);
    } else fs.mkdirSync(dataPath, { recursive: true });

    const proj = project(pkg);
    const app: InstalledApp = {
      appId,
      version: String(pkg.manifest.version),
      displayName: typeof pkg.manifest.displayName === "string" ? pkg.manifest.displayName : undefined,
      displayNameI18n: isObj(pkg.manifest.displayNameI18n) ? (pkg.manifest.displayNameI18n as Record<string, string>) : undefined,
      packageHash: pkg.packageHash,
      manifestHash: pkg.manifestHash,
      installedPath,
      dataPath,
      hasData,
      registered: registered(proj),
    };
    this.apps.set(appId, app);
    return { ok: true, app: this.row(app) };
  }

  private row(a: InstalledApp): Obj {
    const out: Obj = {
      appId: a.appId,
      name: a.appId,
      version: a.version,
      packageHash: a.packageHash,
      manifestHash: a.manifestHash,
      state: "installed",
      hasData: a.hasData,
      installedPath: a.installedPath,
      registered: a.registered,
    };
    const locale = this.cfg.locale;
    const i18n = a.displayNameI18n;
    const dn = locale && i18n && typeof i18n[locale] === "string" ? i18n[locale] : a.displayName;
    if (dn !== undefined) out.displayName = dn;
    return out;
  }

  private removeApp(a: InstalledApp, deleteData: boolean): void {
    fs.rmSync(path.join(a.installedPath), { recursive: true, force: true });
    if (deleteData) fs.rmSync(a.dataPath, { recursive: true, force: true });
  }

  // --- app/uninstall
  private uninstall(p: Obj): Obj {
    const appId = str(p, "appId") as string;
    const keepData = bool(p, "keepData", true) as boolean;
    if (p.exportTo !== undefined) {
      if (keepData) throw invalidParams("exportTo", "goes only with keepData: false");
      throw new RpcError(ERR.UNSUPPORTED, "exportTo is unsupported: this host does not export app data");
    }
    const a = this.apps.get(appId);
    if (!a) throw new RpcError(ERR.APP_NOT_FOUND, `no installed app ${appId}`);
    this.apps.delete(appId);
    this.removeApp(a, !keepData);
    if (keepData) this.retained.set(appId, { dataPath: a.dataPath, scopes: ["app-namespace"] });
    return { ok: true, appId, dataRemoved: !keepData };
  }

  // --- app/list
  private list(): Obj {
    const apps = [...this.apps.values()].sort((a, b) => (a.appId < b.appId ? -1 : a.appId > b.appId ? 1 : 0)).map((a) => this.row(a));
    const retained = [...this.retained.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([appId, r]) => ({ appId, scopes: r.scopes }));
    return { apps, retained };
  }

  // --- app/readiness
  private readiness(p: Obj): Obj {
    const entry = str(p, "entry", false);
    const appId = str(p, "appId", false);
    let pkg: LoadedPackage;
    let hashProblem: string | null = null;
    let notInstalled = false;
    if (appId !== undefined) {
      const a = this.apps.get(appId);
      if (!a) throw new RpcError(ERR.APP_NOT_FOUND, `no installed app ${appId}`);
      hashProblem = this.installedHashProblem(a);
      try {
        pkg = loadPackage(a.installedPath);
      } catch (e) {
        if (!(e instanceof PackageError)) throw e;
        return this.brokenInstall(a, e.findings, entry);
      }
      if (hashProblem === null && errorFindings(pkg.findings).length) return this.brokenInstall(a, pkg.findings, entry);
    } else {
      if (p.path === undefined) throw invalidParams("appId", "or path is required");
      const where = absPath(p);
      obj(p, "release");
      pkg = this.load(where);
      const installed = this.apps.get(String(pkg.manifest.name));
      if (installed && installed.packageHash === pkg.packageHash) hashProblem = this.installedHashProblem(installed);
      else notInstalled = true;
    }
    try {
      return readiness(pkg, this.cfg, this.now(), { entry, installedHashProblem: hashProblem, notInstalled });
    } catch (e) {
      if (e instanceof UnknownEntry) throw invalidParams("entry", `names no entry of ${String(pkg.manifest.name)}`);
      throw e;
    }
  }

  private brokenInstall(a: InstalledApp, findings: Finding[], entry?: string): Obj {
    const msg = `the installed copy of ${a.appId} cannot be read: ${summary(findings)}`;
    const check = { severity: "error", kind: "package_integrity", key: "packageHash", tier: "required", required: true, blocking: true, message: msg };
    const out: Obj = {
      ok: false, status: "blocked", app: a.appId, checks: [check], tiers: { required: [check], recommended: [], performance: [] },
      blockers: [msg], warnings: [], setupActions: [{ key: "packageHash", title: "Reinstall the app", kind: "reinstall-app", target: "packageHash" }],
    };
    if (entry !== undefined) out.entry = entry;
    return out;
  }

  /** Hash the installed copy again: a changed file keeps the app from ready. */
  private installedHashProblem(a: InstalledApp): string | null {
    try {
      const { files, findings } = walkPackage(a.installedPath);
      if (errorFindings(findings).length) return `the installed copy of ${a.appId} changed: ${summary(findings)} (packageHash)`;
      const now = hashFiles(files);
      if (now !== a.packageHash) return `the installed files of ${a.appId} changed since install: packageHash is ${now}, installed ${a.packageHash}`;
      return null;
    } catch (e) {
      return `the installed copy of ${a.appId} cannot be read (packageHash): ${(e as Error).message}`;
    }
  }

  get isConfigured(): boolean {
    return this.configured;
  }
}

function summary(findings: Finding[]): string {
  const errs = findings.filter((f) => f.severity === "error");
  const list = (errs.length ? errs : findings).slice(0, 5).map((f) => `${f.code}${f.field ? ` (${f.field})` : f.file ? ` (${f.file})` : ""}: ${f.message}`);
  return list.join("; ") || "no findings";
}
