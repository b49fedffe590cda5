// Readiness: can this app (or one entry) run here, now, under the current
// configuration? It reads the manifest, evals/readiness.yaml and the host's
// configuration. It never runs the app.

import { LoadedPackage, Obj, isObj } from "./pkg";
import type { Config } from "./state";
import { compatibilityFindings } from "./verify";

export type Status = "ready" | "ready-degraded" | "needs-setup" | "blocked" | "unknown" | "disabled";
type Tier = "required" | "recommended" | "performance";

export interface Check {
  severity: "info" | "warning" | "error";
  kind: string;
  key: string;
  message: string;
  tier?: Tier;
  required?: boolean;
  blocking?: boolean;
  code?: string;
  entry?: string;
  supersededBy?: string;
}
export interface SetupAction {
  key: string;
  title: string;
  kind: string;
  target: string;
  description?: string;
}

interface Failure {
  check: Check;
  status: Status; // what this failure does to the status
  action?: SetupAction;
}

const RANK: Record<Status, number> = { ready: 0, "ready-degraded": 1, unknown: 2, "needs-setup": 3, blocked: 4, disabled: 5 };
const worst = (a: Status, b: Status): Status => (RANK[b] > RANK[a] ? b : a);

function date(v: unknown): Date | null {
  if (typeof v !== "string" && !(v instanceof Date)) return null;
  const d = new Date(v as string);
  return isNaN(d.getTime()) ? null : d;
}

/** Checks of the app as a whole. */
function appChecks(pkg: LoadedPackage, cfg: Config, now: Date, installedHashProblem: string | null): Failure[] {
  const m = pkg.manifest;
  const name = String(m.name);
  const out: Failure[] = [];
  const fail = (status: Status, check: Check, action?: SetupAction): void => {
    out.push({ status, check, action });
  };

  if (installedHashProblem) {
    fail("blocked", { severity: "error", kind: "package_integrity", key: "packageHash", tier: "required", required: true, blocking: true, message: installedHashProblem },
      { key: "packageHash", title: "Reinstall the app: its installed files changed", kind: "reinstall-app", target: "packageHash" });
  }

  if (cfg.policy.deniedApps.includes(name)) {
    fail("blocked", { severity: "error", kind: "policy", key: name, tier: "required", required: true, blocking: true, message: `tenant policy does not allow the app ${name}` },
      { key: `policy-${name}`, title: `Ask an admin to allow ${name}`, kind: "external", target: name });
  }

  // Lifecycle dates, by the configured clock.
  const eol = date(m.endOfLifeAt);
  const sw = isObj(m.supportWindow) ? m.supportWindow : {};
  const supersededBy = sw.supersededBy !== undefined ? String(sw.supersededBy) : undefined;
  if (eol && eol.getTime() < now.getTime()) {
    fail("blocked", {
      severity: "error", kind: "lifecycle", key: "endOfLifeAt", tier: "required", required: true, blocking: true,
      message: `${name} reached its end of life on ${String(m.endOfLifeAt)}${supersededBy ? `; use version ${supersededBy}` : ""}`,
      ...(supersededBy ? { supersededBy } : {}),
    }, { key: "endOfLifeAt", title: supersededBy ? `Upgrade to ${supersededBy}` : "Replace this app: it reached its end of life", kind: "external", target: supersededBy ?? "endOfLifeAt" });
  } else {
    const dep = date(m.deprecatedAt);
    if (dep && dep.getTime() < now.getTime()) {
      fail("ready", {
        severity: "warning", kind: "lifecycle", key: "deprecatedAt", tier: "recommended", required: false, blocking: false,
        message: `${name} is deprecated since ${String(m.deprecatedAt)}${supersededBy ? `; version ${supersededBy} supersedes it` : ""}`,
        ...(supersededBy ? { supersededBy } : {}),
      });
    }
  }

  // Host and capability versions.
  for (const f of compatibilityFindings(m, cfg.profile)) {
    const capName = f.field.replace(/^requires\.(capabilities|lime)\./, "");
    const cap = cfg.profile[capName];
    const fixable = f.code === "incompatible-capability" && cap !== undefined && !cap.enabled;
    fail(fixable ? "needs-setup" : "blocked", {
      severity: "error", kind: f.code === "incompatible-host-version" ? "host_version" : "capability_available", key: capName,
      tier: "required", required: true, blocking: true, code: f.code, message: f.message,
    }, { key: capName, title: fixable ? `Enable capability ${capName}` : `Use a host that offers ${capName}`, kind: fixable ? "open-settings" : "external", target: capName });
  }

  // Required secrets: configured host-wide.
  for (const s of list(m.secrets)) {
    if (s.required !== true || typeof s.key !== "string") continue;
    if (cfg.secrets[s.key] === undefined || cfg.secrets[s.key] === "") {
      fail("needs-setup", { severity: "error", kind: "secret_configured", key: s.key, tier: "required", required: true, blocking: true, message: `secret ${s.key} is not configured` },
        { key: s.key, title: `Configure ${s.key}`, kind: "configure-secret", target: s.key });
    }
  }

  // Required permissions, when the configuration says what was granted.
  if (cfg.grants) {
    const granted = cfg.grants[name] ?? [];
    for (const p of list(m.permissions)) {
      if (p.required !== true || typeof p.key !== "string") continue;
      if (!granted.includes(p.key)) {
        fail("needs-setup", { severity: "error", kind: "permission_granted", key: p.key, tier: "required", required: true, blocking: true, message: `permission ${p.key} is not granted` },
          { key: p.key, title: `Grant permission ${p.key}`, kind: "grant-permission", target: p.key });
      }
    }
  }

  // Required tools, skills and evals, when the configuration says what the host has.
  const avail = cfg.available ?? {};
  const need = (kind: "tools" | "skills" | "evals", items: Obj[], idOf: (o: Obj) => unknown, checkKind: string, actionKind: string): void => {
    const have = avail[kind];
    if (!have) return;
    for (const it of items) {
      const id = idOf(it);
      if (it.required !== true || typeof id !== "string") continue;
      if (!have.includes(id)) {
        fail("needs-setup", { severity: "error", kind: checkKind, key: id, tier: "required", required: true, blocking: true, message: `${kind.slice(0, -1)} ${id} is not available on this host` },
          { key: id, title: `Install ${id}`, kind: actionKind, target: id });
      }
    }
  };
  need("tools", list(m.toolRefs), (o) => o.key ?? o.id, "tool_available", "install-tool");
  need("skills", list(m.skillRefs), (o) => o.id ?? o.key, "skill_available", "install-skill");
  need("evals", list(m.evals), (o) => o.key ?? o.id, "eval_available", "install-eval");

  // Health checks (evals/health.yaml), read against the signals the configuration says fail: a
  // failing startup check regresses the app to blocked, a failing runtime check degrades it.
  if (cfg.healthFailing && pkg.healthModel) {
    for (const phase of ["startup", "runtime"]) {
      for (const c of list(pkg.healthModel[phase])) {
        if (typeof c.check !== "string" || !cfg.healthFailing.includes(c.check)) continue;
        if (phase === "startup" && c.critical !== false) {
          fail("blocked", { severity: "error", kind: "health", key: c.check, tier: "required", required: true, blocking: true, message: `the startup health check ${c.check} fails` },
            { key: c.check, title: `Fix ${c.check}`, kind: "external", target: c.check });
        } else {
          fail("ready-degraded", { severity: "warning", kind: "health", key: c.check, tier: "recommended", required: false, blocking: false, message: `the ${phase} health check ${c.check} fails` });
        }
      }
    }
  }

  // Required knowledge templates: this host binds no knowledge packs.
  for (const k of list(m.knowledgeTemplates)) {
    if (k.required !== true || typeof k.key !== "string") continue;
    fail("needs-setup", { severity: "error", kind: "knowledge_bound", key: k.key, tier: "required", required: true, blocking: true, message: `knowledge template ${k.key} is not bound` },
      { key: k.key, title: `Bind a knowledge pack to ${k.key}`, kind: "bind-knowledge", target: k.key });
  }

  // evals/readiness.yaml tiers.
  const model = pkg.readinessModel ?? {};
  for (const tier of ["required", "recommended", "performance"] as Tier[]) {
    const items = Array.isArray(model[tier]) ? (model[tier] as unknown[]) : [];
    items.forEach((raw, i) => {
      if (!isObj(raw)) return;
      const r = evalReadinessCheck(raw, cfg);
      const key = r.key || `${tier}[${i}]`;
      const msg = typeof raw.message === "string" ? raw.message : r.message;
      if (r.ok) return;
      if (r.unknownKind) {
        fail("ready", { severity: "warning", kind: String(raw.check ?? "unknown"), key, tier, required: false, blocking: false, message: `unknown readiness check kind ${String(raw.check)}; not judged` });
        return;
      }
      const base = { kind: String(raw.check), key, tier, message: `${msg} (${r.message})` };
      const action: SetupAction = { key, title: actionTitle(r.actionKind, key), kind: r.actionKind, target: key };
      if (tier === "required") {
        fail(r.blocked ? "blocked" : "needs-setup", { ...base, severity: "error", required: true, blocking: true }, action);
      } else if (tier === "recommended") {
        fail("ready-degraded", { ...base, severity: "warning", required: false, blocking: false }, action);
      } else {
        fail("ready", { ...base, severity: "info", required: false, blocking: false }, action);
      }
    });
  }
  return out;
}

function actionTitle(kind: string, target: string): string {
  switch (kind) {
    case "bind-knowledge": return `Bind a knowledge pack to ${target}`;
    case "open-settings": return `Enable ${target} in settings`;
    default: return `Set up ${target}`;
  }
}

/** One check of evals/readiness.yaml. */
function evalReadinessCheck(c: Obj, cfg: Config): { ok: boolean; key: string; message: string; actionKind: string; blocked?: boolean; unknownKind?: boolean } {
  switch (c.check) {
    case "sdk_version":
      // This host implements the current SDK; any other expectation it cannot meet.
      if (c.expect === undefined || c.expect === "current" || c.expect === "latest" || c.expect === "0.10.0") return { ok: true, key: "sdk_version", message: "", actionKind: "external" };
      return { ok: false, key: "sdk_version", message: `this host's SDK is 0.10.0, not ${String(c.expect)}`, actionKind: "external", blocked: true };
    case "capability_available": {
      const name = String(c.capability ?? "");
      const cap = cfg.profile[name];
      if (cap && cap.enabled) return { ok: true, key: name, message: "", actionKind: "open-settings" };
      return { ok: false, key: name, message: cap ? `capability ${name} is switched off` : `capability ${name} is not offered by this host`, actionKind: cap ? "open-settings" : "external", blocked: !cap };
    }
    case "knowledge_bound": {
      const t = String(c.template ?? c.key ?? "");
      return { ok: false, key: t, message: `knowledge template ${t} is not bound`, actionKind: "bind-knowledge" };
    }
    case "secret_configured": {
      const k = String(c.secret ?? c.key ?? "");
      const ok = cfg.secrets[k] !== undefined && cfg.secrets[k] !== "";
      return { ok, key: k, message: `secret ${k} is not configured`, actionKind: "configure-secret" };
    }
    case "storage_quota": {
      const cap = cfg.profile["lime.storage"];
      return { ok: !!cap && cap.enabled, key: "storage_quota", message: "app storage is not available", actionKind: "open-settings" };
    }
    default:
      return { ok: false, key: String(c.key ?? c.check ?? ""), message: "", actionKind: "external", unknownKind: true };
  }
}

function list(v: unknown): Obj[] {
  if (Array.isArray(v)) return v.filter(isObj);
  if (isObj(v)) return Object.entries(v).map(([k, x]) => (isObj(x) ? { key: k, ...x } : { key: k }));
  return [];
}

/** Checks of one entry beyond the app's: its capabilities and tenant policy. */
function entryChecks(pkg: LoadedPackage, entry: Obj, cfg: Config): Failure[] {
  const out: Failure[] = [];
  const name = String(pkg.manifest.name);
  const key = String(entry.key);
  const denied = cfg.policy.deniedEntries[name] ?? [];
  if (denied.includes(key)) {
    out.push({
      status: "blocked",
      check: { severity: "error", kind: "policy", key, entry: key, tier: "required", required: true, blocking: true, message: `tenant policy does not allow the entry ${key} of ${name}` },
      action: { key: `policy-${key}`, title: `Ask an admin to allow the entry ${key}`, kind: "external", target: key },
    });
  }
  const caps = Array.isArray(entry.requiredCapabilities) ? entry.requiredCapabilities : [];
  for (const c of caps) {
    const cname = String(c);
    const cap = cfg.profile[cname];
    if (cap && cap.enabled) continue;
    out.push({
      status: cap ? "needs-setup" : "blocked",
      check: { severity: "error", kind: "capability_available", key: cname, entry: key, tier: "required", required: true, blocking: true, message: `entry ${key} needs capability ${cname}, which is ${cap ? "switched off" : "not offered by this host"}` },
      action: { key: `${key}-${cname}`, title: cap ? `Enable capability ${cname}` : `Use a host that offers ${cname}`, kind: cap ? "open-settings" : "external", target: cname },
    });
  }
  return out;
}

function statusOf(fails: Failure[]): Status {
  return fails.reduce<Status>((s, f) => worst(s, f.status), "ready");
}

function answer(name: string, fails: Failure[], extraChecks: Check[], entry?: string): Obj {
  const status = statusOf(fails);
  const checks = [...fails.map((f) => f.check), ...extraChecks];
  const tiers: Record<Tier, Check[]> = { required: [], recommended: [], performance: [] };
  for (const c of checks) if (c.tier) tiers[c.tier].push(c);
  const out: Obj = {
    ok: status === "ready" || status === "ready-degraded",
    status,
    app: name,
    checks,
    tiers,
    blockers: fails.filter((f) => f.check.severity === "error").map((f) => f.check.message),
    warnings: fails.filter((f) => f.check.severity === "warning").map((f) => f.check.message),
    setupActions: fails.filter((f) => f.action).map((f) => f.action as SetupAction),
  };
  if (entry !== undefined) out.entry = entry;
  return out;
}

export class UnknownEntry extends Error {}

/**
 * Readiness of a loaded package. `installedHashProblem` names a changed
 * installed copy; `notInstalled` adds an info check and nothing else.
 */
export function readiness(pkg: LoadedPackage, cfg: Config, now: Date, opts: { entry?: string; installedHashProblem?: string | null; notInstalled?: boolean }): Obj {
  const name = String(pkg.manifest.name);
  const base = appChecks(pkg, cfg, now, opts.installedHashProblem ?? null);
  const info: Check[] = opts.notInstalled
    ? [{ severity: "info", kind: "install_state", key: "installed", message: `${name} is not installed; judged as if it were` }]
    : [];
  const entries = list(pkg.manifest.entries);
  if (opts.entry !== undefined) {
    const e = entries.find((x) => String(x.key) === opts.entry);
    if (!e) throw new UnknownEntry(opts.entry);
    return answer(name, [...base, ...entryChecks(pkg, e, cfg)], info, opts.entry);
  }
  const out = answer(name, base, info);
  out.entries = entries.map((e) => {
    const fails = [...base, ...entryChecks(pkg, e, cfg)];
    return { key: String(e.key), status: statusOf(fails), blockers: fails.filter((f) => f.check.severity === "error").map((f) => f.check.message) };
  });
  return out;
}
