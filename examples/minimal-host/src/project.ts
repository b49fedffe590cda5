// Projection: the manifest compiled into the catalog objects a launcher
// reads. Deterministic: it depends only on the package's bytes, never on
// where the folder is, the time, or anything random. It loads no secret and
// runs nothing.

import { LoadedPackage, Obj, isObj, STANDARD_VERSION, manifestVersion } from "./pkg";

export interface Provenance {
  appName: string;
  appVersion: string;
  packageHash: string;
  manifestHash: string;
  standard: "agentapp";
  standardVersion: string;
}

export function provenanceOf(pkg: LoadedPackage): Provenance {
  return {
    appName: String(pkg.manifest.name),
    appVersion: String(pkg.manifest.version),
    packageHash: pkg.packageHash,
    manifestHash: pkg.manifestHash,
    standard: "agentapp",
    standardVersion: STANDARD_VERSION,
  };
}

const LEGACY_KINDS = ["home", "scene"];

/** Publisher as the catalog shows it: `verified` is the registry's to say, never the package's. */
export function publisherCard(m: Obj): Obj | undefined {
  if (!isObj(m.publisher)) return undefined;
  const p: Obj = { ...m.publisher };
  delete p.verified;
  p.verified = false;
  return p;
}

function pick(m: Obj, keys: string[]): Obj {
  const out: Obj = {};
  for (const k of keys) if (m[k] !== undefined) out[k] = m[k];
  return out;
}

/** Turn a list of strings or objects into objects with a `key`. */
function asObjects(v: unknown, keyName = "key"): Obj[] {
  if (!Array.isArray(v)) {
    if (isObj(v)) return Object.entries(v).map(([k, x]) => (isObj(x) ? { [keyName]: k, ...x } : { [keyName]: k, value: x }));
    return [];
  }
  return v.map((x) => (isObj(x) ? { ...x } : { [keyName]: x }));
}

export function project(pkg: LoadedPackage): Obj {
  const m = pkg.manifest;
  const prov = provenanceOf(pkg);
  const withProv = (o: Obj): Obj => ({ ...o, provenance: prov });
  const mv = manifestVersion(m);

  const app: Obj = withProv({
    ...pick(m, ["name", "version", "displayName", "displayNameI18n", "description", "shortDescription", "shortDescriptionI18n",
      "status", "appType", "manifestVersion", "keywords", "categories", "runtimeTargets", "author", "maintainers", "contributors", "presentation"]),
  });
  const pub = publisherCard(m);
  if (pub) app.publisher = pub;

  const projection: Obj = { app };

  // Capability requirements: requires.capabilities ranges, requires.lime, and declared capabilities.
  const reqs = isObj(m.requires) ? m.requires : {};
  const caps: Obj[] = [];
  if (isObj(reqs.capabilities)) {
    for (const [k, range] of Object.entries(reqs.capabilities)) caps.push(withProv({ key: k, capability: k, range: String(range ?? ""), required: true }));
  }
  if (isObj(reqs.lime)) {
    for (const [k, range] of Object.entries(reqs.lime)) caps.push(withProv({ key: `lime.${k}`, component: k, range: String(range ?? ""), kind: "host-component", required: true }));
  }
  if (Array.isArray(m.capabilities)) {
    for (const c of m.capabilities) {
      const key = isObj(c) ? String(c.key ?? c.name ?? "") : String(c);
      if (!caps.some((x) => x.key === key)) caps.push(withProv({ key, capability: key, declared: true, ...(isObj(c) ? c : {}) }));
    }
  }
  projection.capabilityRequirements = caps;

  projection.entries = asObjects(m.entries).map((e) => {
    const out = withProv(e);
    if (typeof e.kind === "string" && LEGACY_KINDS.includes(e.kind) && mv !== STANDARD_VERSION) out.legacy = true;
    return out;
  });

  const objSection = (name: string, v: unknown): void => {
    if (isObj(v)) projection[name] = withProv({ ...v });
  };
  const arrSection = (name: string, v: unknown, keyName = "key"): void => {
    if (v !== undefined && v !== null) projection[name] = asObjects(v, keyName).map(withProv);
  };

  objSection("ui", m.ui);
  objSection("storage", m.storage ?? (isObj(m.runtimePackage) ? m.runtimePackage.storage : undefined));
  arrSection("services", m.services);
  arrSection("workflows", m.workflows);
  arrSection("knowledgeTemplates", m.knowledgeTemplates);
  const skills: Obj[] = asObjects(m.skillRefs).map((s) => ({ ...s, key: s.key ?? s.id }));
  if (skills.length) projection.skillRefs = skills.map(withProv);
  arrSection("toolRequirements", m.toolRefs);
  arrSection("artifactTypes", m.artifactTypes);
  arrSection("evals", m.evals);
  arrSection("permissions", m.permissions);
  if (m.policyPrompts !== undefined) arrSection("policyPrompts", m.policyPrompts);
  if (Array.isArray(m.secrets) || isObj(m.secrets)) {
    // Slot keys and their declaration only: never a value.
    projection.secrets = asObjects(m.secrets).map((s) => withProv(pick(s, ["key", "provider", "required", "scope", "description"])));
  }
  arrSection("events", m.events);
  arrSection("overlayTemplates", m.overlayTemplates);
  objSection("triggers", m.triggers);
  objSection("quickstart", m.quickstart);
  const timeline = pick(m, ["createdAt", "updatedAt", "releasedAt", "deprecatedAt", "endOfLifeAt"]);
  if (Object.keys(timeline).length) projection.timeline = withProv(timeline);
  objSection("supportWindow", m.supportWindow);
  if (pub) projection.publisher = withProv(pub);
  const links = pick(m, ["homepage", "repository", "documentation", "issues", "changelog", "licenseUrl", "support"]);
  if (Object.keys(links).length) projection.links = withProv(links);
  const license = pick(m, ["license", "licenseUrl", "copyright"]);
  if (Object.keys(license).length) projection.license = withProv(license);
  objSection("i18n", m.i18n);
  objSection("signature", m.signature);
  objSection("errors", m.errors);
  objSection("distribution", m.distribution);
  objSection("compliance", m.compliance);
  objSection("lifecycle", m.lifecycle);
  objSection("install", m.install);
  objSection("agentRuntime", m.agentRuntime);
  for (const k of ["requirements", "boundary", "integrations", "operations"]) {
    const v = m[k];
    if (isObj(v)) objSection(k, v);
    else if (Array.isArray(v)) arrSection(k, v, "id");
  }
  projection.provenance = prov;
  return projection;
}

/** What install registers into the host's catalogs, by projection key. */
export function registered(projection: Obj): Obj {
  const out: Obj = {};
  for (const k of ["entries", "services", "skillRefs", "knowledgeTemplates", "toolRequirements", "artifactTypes", "evals", "permissions"]) {
    const v = projection[k];
    if (Array.isArray(v) && v.length) out[k] = v.map((x) => String((x as Obj).key));
  }
  return out;
}
