// Just enough SemVer to compare a capability version with a range such as
// ">=0.3.0 <1.0.0", "^0.10.0", "~0.10.1", "0.10.0" or "a || b".
// "current", "latest", "*" and "" ask for no particular version.

type V = [number, number, number, string];

export function parseVersion(s: string): V | null {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(s.trim());
  if (!m) return null;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0), m[4] ?? ""];
}

export function compare(a: V, b: V): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number) ? -1 : 1;
  if (a[3] === b[3]) return 0;
  if (a[3] === "") return 1; // a release is above its pre-releases
  if (b[3] === "") return -1;
  return a[3] < b[3] ? -1 : 1;
}

/** True when the range names no version at all. */
export function isOpenRange(range: string): boolean {
  const r = range.trim();
  return r === "" || r === "*" || r === "current" || r === "latest" || r === "x";
}

/**
 * satisfies(version, range): undefined when the range cannot be read
 * (the caller reports it), else whether version is in range.
 */
export function satisfies(version: string, range: string): boolean | undefined {
  if (isOpenRange(range)) return true;
  const v = parseVersion(version);
  if (!v) return false; // a capability without a version satisfies no range
  return range.split("||").some((alt) => {
    const parts = alt.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return true;
    return parts.every((p) => {
      const m = /^(>=|<=|>|<|=|\^|~)?\s*(.+)$/.exec(p);
      if (!m) return false;
      const op = m[1] ?? "=";
      const w = parseVersion(m[2]);
      if (!w) return false;
      const c = compare(v, w);
      switch (op) {
        case ">=": return c >= 0;
        case "<=": return c <= 0;
        case ">": return c > 0;
        case "<": return c < 0;
        case "=": return c === 0;
        case "^": {
          if (c < 0) return false;
          if (w[0] > 0) return v[0] === w[0];
          if (w[1] > 0) return v[0] === 0 && v[1] === w[1];
          return v[0] === 0 && v[1] === 0 && v[2] === w[2];
        }
        case "~": return c >= 0 && v[0] === w[0] && v[1] === w[1];
      }
      return false;
    });
  });
}

export function rangeIsReadable(range: string): boolean {
  if (isOpenRange(range)) return true;
  return range.split("||").every((alt) =>
    alt.trim().split(/\s+/).filter(Boolean).every((p) => {
      const m = /^(>=|<=|>|<|=|\^|~)?\s*(.+)$/.exec(p);
      return !!m && parseVersion(m[2]) !== null;
    }),
  );
}
