// The host's state: its capability profile, the configuration the harness
// set, installed apps and the data uninstalls kept.

import type { Obj } from "./pkg";

export interface Capability {
  version: string;
  enabled: boolean;
}
export type Profile = Record<string, Capability>;

/**
 * What this host offers: a desktop host with UI and storage. It has no agent
 * runtime (listed switched off) and no artifact store (not listed): a
 * package that requires either is refused at verification.
 */
export const HELLO_PROFILE: Profile = {
  "lime.ui": { version: "0.10.0", enabled: true },
  "lime.storage": { version: "0.10.0", enabled: true },
  "lime.agent": { version: "0.10.0", enabled: false },
};

export interface Config {
  tenantId: string;
  workspaceId: string;
  userId: string;
  secrets: Record<string, string>;
  sessionTokens: Record<string, string>;
  policy: { deniedApps: string[]; deniedEntries: Record<string, string[]> };
  grants?: Record<string, string[]>;
  available?: { tools?: string[]; skills?: string[]; evals?: string[] };
  profile: Profile;
  locale?: string;
  clock?: Date;
  /** host/configure systemRuntime.version: the system lime-runtime a runtime-backed release runs on. */
  systemRuntime?: string;
  /** host/configure health.failing: the health checks whose signals read as failing. */
  healthFailing?: string[];
  revocationMs: number;
  sigstore?: Obj;
}

export interface InstalledApp {
  appId: string;
  version: string;
  displayName?: string;
  displayNameI18n?: Record<string, string>;
  packageHash: string;
  manifestHash: string;
  installedPath: string;
  dataPath: string;
  hasData: boolean;
  registered: Obj;
}
