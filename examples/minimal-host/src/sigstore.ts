// Sigstore bundle verification: not implemented yet (see README).
import type { Obj } from "./pkg";

/** Returns why the bundle does not verify, or null when it does. */
export function verifySigstore(_bundle: Obj, _artifact: string, _packageHash: string, _signature: Obj | null, _trust: Obj | undefined): string | null {
  return "this host cannot verify sigstore bundles yet";
}
