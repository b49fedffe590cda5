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
 * runtime and no artifact store: those are listed switched off, so that an
 * app needing them installs and reads needs-setup rather than being refused.
 */
export const HELLO_PROFILE: Profile = {
  "lime.ui": { version: "0.10.0", enabled: true },
  "lime.storage": { version: "0.10.0", enabled: true },
  "lime.agent": { version: "0.10.0", enabled: false },
  "lime.artifacts": { version: "0.10.0", enabled: false },
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
