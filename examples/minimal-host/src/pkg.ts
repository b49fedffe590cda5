// Reading an Agent App package folder: the file walk and its hash, APP.md and
// its frontmatter, the layered app.*.yaml files, and the manifest's own
// checks. Nothing here runs package code, and nothing reads outside the
// package folder.

import * as fs from "node:fs";
import * as path from "node:path";
import { createHash } from "node:crypto";
import { parseDocument } from "yaml";
import type { Finding } from "./rpc";

export const STANDARD_VERSION = "0.10.0";
const KNOWN_MANIFEST_VERSIONS = ["0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "0.9.0", "0.10.0"];
const STATUSES = ["draft", "ready", "needs-review", "deprecated", "archived"];
const APP_TYPES = ["agent-app", "workflow-app", "domain-app", "customer-app", "custom"];
const LEGACY_KINDS = ["home", "scene"];

// Limits. The standard sets none; these are this host's.
const MAX_FILES = 10_000;
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_TOTAL_BYTES = 256 * 1024 * 1024;
const MAX_YAML_BYTES = 1024 * 1024;
const MAX_YAML_DEPTH = 64;
const MAX_YAML_ALIASES = 100;

export type Obj = Record<string, unknown>;

export interface PackageFile {
  rel: string; // relative path with "/" separators
  real: string; // where the bytes are (a link inside the package resolves here)
}

export interface LoadedPackage {
  root: string;
  files: PackageFile[];
  packageHash: string;
  manifestHash: string;
  manifest: Obj; // frontmatter with the layered files applied
  frontmatter: Obj;
  readinessModel: Obj | null; // evals/readiness.yaml
  healthModel: Obj | null; // evals/health.yaml's `health`
  signature: Obj | null; // app.signature.yaml's `signature`
  findings: Finding[];
}

export class PackageError extends Error {
  constructor(public findings: Finding[]) {
    super(findings.map((f) => f.message).join("; "));
  }
}

export function finding(code: string, file: string, field: string, message: string, severity: Finding["severity"] = "error"): Finding {
  return { code, severity, file, field, message };
}

export function sha256(data: Uint8Array | string): string {
  return "sha256:" + createHash("sha256").update(data).digest("hex");
}

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function within(parent: string, child: string): boolean {
  const r = path.relative(parent, child);
  return r === "" || (!r.startsWith("..") && !path.isAbsolute(r));
}

/**
 * Walk the package depth-first, each folder's names sorted as JavaScript
 * sorts strings (UTF-16 code units), skipping node_modules and .git. Links
 * that stay inside the package are followed; links that leave it, dangle or
 * loop, and special files, are findings and are never opened.
 */
export function walkPackage(root: string): { files: PackageFile[]; findings: Finding[] } {
  const findings: Finding[] = [];
  const files: PackageFile[] = [];
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
    if (!fs.statSync(realRoot).isDirectory()) throw new Error("not a folder");
  } catch {
    throw new PackageError([finding("missing-file", "", "path", "the package folder does not exist or is not a folder")]);
  }
  let total = 0;

  const visit = (dirReal: string, relDir: string, stack: string[]): void => {
    const names = fs.readdirSync(dirReal).sort();
    for (const name of names) {
      if (name === "node_modules" || name === ".git") continue;
      const rel = relDir ? `${relDir}/${name}` : name;
      const p = path.join(dirReal, name);
      let st = fs.lstatSync(p);
      let real = p;
      if (st.isSymbolicLink()) {
        try {
          real = fs.realpathSync(p);
        } catch (e) {
          const code = (e as { code?: string }).code;
          if (code === "ELOOP") findings.push(finding("symlink-cycle", rel, "", `symlink ${rel} is part of a loop`));
          else findings.push(finding("dangling-symlink", rel, "", `symlink ${rel} points at nothing`));
          continue;
        }
        if (within(real, realRoot)) {
          findings.push(finding("symlink-cycle", rel, "", `symlink ${rel} points at a folder that contains the package: a loop`));
          continue;
        }
        if (!within(realRoot, real)) {
          findings.push(finding("symlink-escapes-package", rel, "", `symlink ${rel} points outside the package`));
          continue;
        }
        st = fs.lstatSync(real);
        if (st.isDirectory() && stack.some((s) => within(real, s))) {
          findings.push(finding("symlink-cycle", rel, "", `symlink ${rel} points at a folder above it: a loop`));
          continue;
        }
      }
      if (st.isDirectory()) {
        visit(real, rel, [...stack, real]);
      } else if (st.isFile()) {
        if (files.length >= MAX_FILES) {
          findings.push(finding("too-many-files", rel, "", `the package has more than ${MAX_FILES} files`));
          return;
        }
        total += st.size;
        if (st.size > MAX_FILE_BYTES) findings.push(finding("file-too-large", rel, "", `${rel} is larger than ${MAX_FILE_BYTES} bytes`));
        else if (total > MAX_TOTAL_BYTES) findings.push(finding("file-too-large", rel, "", `the package is larger than ${MAX_TOTAL_BYTES} bytes`));
        files.push({ rel, real });
      } else {
        findings.push(finding("special-file", rel, "", `${rel} is a FIFO, device or socket; a package holds only files and folders`));
      }
    }
  };
  visit(realRoot, "", [realRoot]);
  return { files, findings };
}

export function hashFiles(files: PackageFile[]): string {
  const h = createHash("sha256");
  const nul = Buffer.from([0]);
  for (const f of files) {
    h.update(Buffer.from(f.rel, "utf8"));
    h.update(nul);
    h.update(fs.readFileSync(f.real));
    h.update(nul);
  }
  return "sha256:" + h.digest("hex");
}

/** Parse one YAML document with limits on size, depth and aliases. */
export function parseYaml(text: string, file: string): { value: unknown; findings: Finding[] } {
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_YAML_BYTES) {
    return { value: null, findings: [finding("yaml-too-large", file, "", `${file}: YAML of ${bytes} bytes is over this host's limit of ${MAX_YAML_BYTES}`)] };
  }
  // Cheap depth scan before the parser sees it: flow brackets and indentation.
  let depth = 0;
  let max = 0;
  let quote = "";
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = "";
      else if (ch === "\n") quote = "";
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[" || ch === "{") max = Math.max(max, ++depth);
    else if (ch === "]" || ch === "}") depth = Math.max(0, depth - 1);
    else if (ch === "\n") depth = depth; // flow collections may span lines
  }
  if (max > MAX_YAML_DEPTH) {
    return { value: null, findings: [finding("yaml-too-deep", file, "", `${file}: YAML nested deeper than this host's limit of ${MAX_YAML_DEPTH}`)] };
  }
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, strict: true });
  } catch (e) {
    return { value: null, findings: [finding("invalid-yaml", file, "", `${file}: YAML does not parse: ${(e as Error).message.split("\n")[0]}`)] };
  }
  if (doc.errors.length > 0) {
    return { value: null, findings: [finding("invalid-yaml", file, "", `${file}: YAML does not parse: ${doc.errors[0].message.split("\n")[0]}`)] };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    const msg = (e as Error).message;
    if (/alias/i.test(msg)) return { value: null, findings: [finding("yaml-alias-bomb", file, "", `${file}: YAML alias expansion beyond this host's limit`)] };
    return { value: null, findings: [finding("invalid-yaml", file, "", `${file}: YAML does not parse: ${msg.split("\n")[0]}`)] };
  }
  const deep = (v: unknown, d: number): boolean => {
    if (d > MAX_YAML_DEPTH) return true;
    if (Array.isArray(v)) return v.some((x) => deep(x, d + 1));
    if (isObj(v)) return Object.values(v).some((x) => deep(x, d + 1));
    return false;
  };
  if (deep(value, 0)) {
    return { value: null, findings: [finding("yaml-too-deep", file, "", `${file}: YAML nested deeper than this host's limit of ${MAX_YAML_DEPTH}`)] };
  }
  return { value, findings: [] };
}

function decodeUtf8(bytes: Uint8Array, file: string): { text: string | null; findings: Finding[] } {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), findings: [] };
  } catch {
    return { text: null, findings: [finding("not-utf8", file, "", `${file} is not valid UTF-8`)] };
  }
}

/** Split APP.md into frontmatter text and body. null when it has none. */
export function splitFrontmatter(text: string): string | null {
  let t = text.startsWith("\uFEFF") ? text.slice(1) : text;
  t = t.replace(/\r\n/g, "\n");
  if (!t.startsWith("---\n") && t !== "---") return null;
  const rest = t.slice(4);
  const m = /(^|\n)---[ \t]*(\n|$)/.exec(rest);
  if (!m) return null;
  return rest.slice(0, m.index + (m[1] ? 1 : 0));
}

// The layered files, by convention, and where each lands in the manifest.
// "key" files put their top-level members over the frontmatter's; the
// others are the whole document of a frontmatter shorthand.
const LAYERED: Array<{ file: string; as: "members" | string; member?: string }> = [
  { file: "app.capabilities.yaml", as: "members" },
  { file: "app.entries.yaml", as: "members" },
  { file: "app.permissions.yaml", as: "members" },
  { file: "app.errors.yaml", as: "members" },
  { file: "app.i18n.yaml", as: "members" },
  { file: "app.signature.yaml", as: "members" },
  { file: "app.runtime.yaml", as: "agentRuntime" },
  { file: "app.requirements.yaml", as: "requirements" },
  { file: "app.boundary.yaml", as: "boundary" },
  { file: "app.integrations.yaml", as: "integrations" },
  { file: "app.operations.yaml", as: "operations" },
  { file: "app.install.yaml", as: "install", member: "install" },
];

function readSmall(pkg: { files: PackageFile[] }, rel: string): Buffer | null {
  const f = pkg.files.find((x) => x.rel === rel);
  return f ? fs.readFileSync(f.real) : null;
}

/** Load and check a package. Throws PackageError when it cannot be read at all. */
export function loadPackage(root: string): LoadedPackage {
  if (typeof root !== "string" || !path.isAbsolute(root)) {
    throw new PackageError([finding("missing-file", "", "path", "path must be an absolute folder path")]);
  }
  const { files, findings } = walkPackage(root);
  const appmd = readSmall({ files }, "APP.md");
  if (appmd === null) {
    throw new PackageError([...findings, finding("missing-file", "APP.md", "", "APP.md is missing: a folder without APP.md is no Agent App")]);
  }
  const manifestHash = sha256(appmd);
  const packageHash = hashFiles(files);
  const pkg: LoadedPackage = {
    root, files, packageHash, manifestHash, manifest: {}, frontmatter: {}, readinessModel: null, healthModel: null, signature: null, findings,
  };

  const dec = decodeUtf8(appmd, "APP.md");
  if (dec.text === null) {
    findings.push(...dec.findings);
    return pkg;
  }
  const fmText = splitFrontmatter(dec.text);
  if (fmText === null) {
    findings.push(finding("no-frontmatter", "APP.md", "", "APP.md has no YAML frontmatter (it must start with a --- line and close it with another)"));
    return pkg;
  }
  const fm = parseYaml(fmText, "APP.md");
  if (fm.findings.length) {
    findings.push(...fm.findings);
    return pkg;
  }
  if (!isObj(fm.value)) {
    findings.push(finding("invalid-yaml", "APP.md", "", "APP.md frontmatter is not a YAML mapping"));
    return pkg;
  }
  pkg.frontmatter = fm.value;
  const manifest: Obj = { ...fm.value };
  const layeredDocs: Array<{ file: string; doc: Obj }> = [];

  for (const l of LAYERED) {
    const bytes = readSmall(pkg, l.file);
    if (bytes === null) continue;
    const d = decodeUtf8(bytes, l.file);
    if (d.text === null) {
      findings.push(...d.findings);
      continue;
    }
    const y = parseYaml(d.text, l.file);
    if (y.findings.length) {
      findings.push(...y.findings);
      continue;
    }
    if (y.value === null || y.value === undefined) continue;
    if (!isObj(y.value)) {
      findings.push(finding("invalid-field", l.file, "", `${l.file} is not a YAML mapping`));
      continue;
    }
    layeredDocs.push({ file: l.file, doc: y.value });
    if (l.as === "members") Object.assign(manifest, y.value);
    else if (l.member) manifest[l.as] = y.value[l.member];
    else manifest[l.as] = y.value;
  }
  if (isObj(manifest.signature)) pkg.signature = manifest.signature;

  // An evals/ model: the file's object under key (or the whole file), null when absent.
  const evalsModel = (file: string, key: string): Obj | null => {
    const bytes = readSmall(pkg, file);
    if (bytes === null) return null;
    const d = decodeUtf8(bytes, file);
    if (d.text === null) {
      findings.push(...d.findings);
      return null;
    }
    const y = parseYaml(d.text, file);
    if (y.findings.length) findings.push(...y.findings);
    else if (isObj(y.value)) {
      const inner = y.value[key];
      return isObj(inner) ? inner : y.value;
    }
    return null;
  };
  pkg.readinessModel = evalsModel("evals/readiness.yaml", "readiness");
  pkg.healthModel = evalsModel("evals/health.yaml", "health");
  pkg.manifest = manifest;
  if (findings.some((f) => f.severity === "error")) return pkg;

  checkManifest(pkg, layeredDocs);
  return pkg;
}

const chars = (s: string): number => [...s].length;

// A date-time: a day of the calendar and a time, with Z or an offset.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate(); // the days of month mo
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 && mi <= 59 && se <= 59;
}

function checkManifest(pkg: LoadedPackage, layered: Array<{ file: string; doc: Obj }>): void {
  const m = pkg.manifest;
  const f = pkg.findings;
  for (const req of ["name", "description", "version", "status", "appType"]) {
    const v = m[req];
    if (v === undefined || v === null) f.push(finding("missing-field", "APP.md", req, `APP.md is missing the required field ${req}`));
  }
  const str = (field: string, min: number, max: number): void => {
    const v = m[field];
    if (v === undefined || v === null) return;
    if (typeof v !== "string") {
      f.push(finding("invalid-field", "APP.md", field, `${field} must be a string`));
      return;
    }
    const n = chars(v);
    if (n < min || n > max) f.push(finding("invalid-field", "APP.md", field, `${field} must be ${min}-${max} characters; it has ${n}`));
  };
  str("name", 1, 64);
  str("description", 1, 1024);
  str("displayName", 1, 128);
  str("shortDescription", 1, 140);
  str("copyright", 1, 256);
  if (m.version !== undefined && m.version !== null && (typeof m.version !== "string" || m.version.trim() === "")) {
    f.push(finding("invalid-field", "APP.md", "version", "version must be a non-empty string (quote it in YAML)"));
  }
  if (m.status !== undefined && m.status !== null && !STATUSES.includes(m.status as string)) {
    f.push(finding("invalid-field", "APP.md", "status", `status must be one of ${STATUSES.join(", ")}`));
  }
  if (m.appType !== undefined && m.appType !== null && !APP_TYPES.includes(m.appType as string)) {
    f.push(finding("invalid-field", "APP.md", "appType", `appType must be one of ${APP_TYPES.join(", ")}`));
  }
  if (Array.isArray(m.keywords) && m.keywords.length > 32) f.push(finding("invalid-field", "APP.md", "keywords", "keywords has more than 32 items"));
  if (Array.isArray(m.categories) && m.categories.length > 8) f.push(finding("invalid-field", "APP.md", "categories", "categories has more than 8 items"));
  // The timeline fields are ISO 8601 date-times (000 Version and timeline).
  for (const field of ["createdAt", "updatedAt", "releasedAt", "deprecatedAt", "endOfLifeAt"]) {
    const v = m[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string" || !isDateTime(v)) {
      f.push(finding("invalid-field", "APP.md", field, `${field} must be an ISO 8601 date-time such as 2026-01-05T10:00:00Z`));
    }
  }

  const mv = manifestVersion(m);
  if (m.manifestVersion !== undefined && !KNOWN_MANIFEST_VERSIONS.includes(mv)) {
    f.push(finding("unsupported-manifest-version", "APP.md", "manifestVersion", `manifestVersion ${JSON.stringify(m.manifestVersion)} is not one the standard knows (0.3.0 to 0.10.0)`));
  }

  // bypassPermissions, as a key or a value, anywhere in the manifest.
  const bypass = (v: unknown, at: string, file: string): void => {
    if (typeof v === "string" && v === "bypassPermissions") {
      f.push(finding("bypass-permissions", file, at, `${file} declares bypassPermissions at ${at}; Agent App manifests must not`));
    } else if (Array.isArray(v)) v.forEach((x, i) => bypass(x, `${at}[${i}]`, file));
    else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) {
        const here = at ? `${at}.${k}` : k;
        if (k === "bypassPermissions") f.push(finding("bypass-permissions", file, here, `${file} declares bypassPermissions at ${here}; Agent App manifests must not`));
        else bypass(x, here, file);
      }
    }
  };
  bypass(pkg.frontmatter, "", "APP.md");
  for (const l of layered) bypass(l.doc, "", l.file);

  // Entry kinds: home and scene are legacy, an error in a current manifest.
  const entries = Array.isArray(m.entries) ? m.entries : [];
  entries.forEach((e, i) => {
    if (!isObj(e)) {
      f.push(finding("invalid-field", entryFile(pkg), `entries[${i}]`, `entries[${i}] is not a mapping`));
      return;
    }
    if (typeof e.kind === "string" && LEGACY_KINDS.includes(e.kind) && mv === STANDARD_VERSION) {
      f.push(finding("legacy-entry-kind", entryFile(pkg), `entries[${i}].kind`, `entry ${String(e.key)} uses the legacy kind ${e.kind}, which a ${STANDARD_VERSION} manifest may not`));
    }
  });

  // References must stay inside the package.
  checkRefs(m, "", pkg);

  const rp = isObj(m.runtimePackage) ? m.runtimePackage : null;
  if (rp && rp.hash !== undefined && (typeof rp.hash !== "string" || !/^sha256:[a-fA-F0-9]{64}$/.test(rp.hash))) {
    f.push(finding("invalid-field", "APP.md", "runtimePackage.hash", "runtimePackage.hash must be sha256: and 64 hex digits"));
  }
}

function entryFile(pkg: LoadedPackage): string {
  return pkg.files.some((x) => x.rel === "app.entries.yaml") ? "app.entries.yaml" : "APP.md";
}

// Members whose string values are file references.
const REF_KEYS = new Set(["path", "persona", "workflow", "schema", "migrations", "icon", "changelog", "entry", "service", "install", "uninstall", "activate", "upgrade", "disable", "logoUrl", "command"]);

function checkRefs(v: unknown, at: string, pkg: LoadedPackage, key = ""): void {
  if (typeof v === "string") {
    const s = v.trim();
    const looksRelative = s.startsWith("./") || s.startsWith("../") || s === ".." || s.includes("/../") || s.endsWith("/..");
    const underUi = at.startsWith("ui.") || key === "route";
    const looksAbsolute = REF_KEYS.has(key) && !underUi && (s.startsWith("/") || /^[A-Za-z]:[\\/]/.test(s) || s.startsWith("\\"));
    if (looksAbsolute || (looksRelative && escapes(s))) {
      pkg.findings.push(finding("path-escapes-package", "APP.md", at, `${at} refers to ${JSON.stringify(s)}, which leaves the package`));
    }
    return;
  }
  if (Array.isArray(v)) v.forEach((x, i) => checkRefs(x, `${at}[${i}]`, pkg, key));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) checkRefs(x, at ? `${at}.${k}` : k, pkg, k);
}

function escapes(ref: string): boolean {
  const parts = ref.replace(/\\/g, "/").split("/");
  let depth = 0;
  for (const p of parts) {
    if (p === "" || p === ".") continue;
    if (p === "..") {
      depth--;
      if (depth < 0) return true;
    } else depth++;
  }
  return false;
}

export function manifestVersion(m: Obj): string {
  const v = m.manifestVersion;
  if (v === undefined || v === null) return STANDARD_VERSION;
  return typeof v === "string" ? v.trim() : String(v);
}

export function errorFindings(fs_: Finding[]): Finding[] {
  return fs_.filter((x) => x.severity === "error");
}
