import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { userPaths } from "./paths.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "./store.js";

/**
 * Workspace trust, as VS Code's Restricted Mode and `direnv allow` have it: a repository comes
 * from someone else, and the settings of its `.offrun/config.json` that run or widen anything
 * take effect only once the user has trusted them, on this machine, for that repository's real
 * path and those exact values. A change to any of them is asked again. What the user trusts, and
 * the approvals they chose "always" for, live in `~/.offrun/trust.json`, never in the repository.
 */

/** The settings that run something (setup, a harness's command), pre-approve it, or widen the sandbox. */
export const GATED_KEYS = ["setup", "copyFiles", "harnesses", "defaultHarness", "alwaysAllow", "sandbox"] as const;

const repositorySchema = z.object({
  /** The hash of the gated settings the user trusted (`gatedHash`); absent: never trusted. */
  trusted: z.string().optional(),
  trustedAt: z.string().optional(),
  /** Approval keys the user chose "always" for in this repository (`offrun approve --always`). */
  alwaysAllow: z.array(z.string()).default([]),
});
const trustFileSchema = z.object({
  version: z.literal(1),
  repositories: z.record(z.string(), repositorySchema).default({}),
});
type TrustFile = z.infer<typeof trustFileSchema>;

const trustFile = () => path.join(userPaths().home, "trust.json");

async function readTrust(): Promise<TrustFile> {
  const file = await readJsonFile(
    trustFile(),
    trustFileSchema,
    "Fix it, or delete it: every repository is then untrusted again, and its always-allowed approvals are asked again.",
  );
  return file ?? { version: 1, repositories: {} };
}

async function changeTrust(root: string, change: (entry: TrustFile["repositories"][string]) => void): Promise<void> {
  await withFileLock(trustFile(), async () => {
    const file = await readTrust();
    const key = await realRoot(root);
    const entry = file.repositories[key] ?? { alwaysAllow: [] };
    change(entry);
    file.repositories[key] = entry;
    await writeJsonAtomic(trustFile(), file);
  });
}

/** The repository's real path: a symlinked checkout and its target are one repository. */
async function realRoot(root: string): Promise<string> {
  return fs.realpath(root).catch(() => path.resolve(root));
}

/**
 * A fingerprint of the gated settings as they stand: any change to one of them changes it.
 * node:crypto is loaded here, when a trust is given or checked, not by every command that lists agents.
 */
export async function gatedHash(raw: Readonly<Record<string, unknown>>): Promise<string> {
  const gated = Object.fromEntries(GATED_KEYS.filter((key) => raw[key] !== undefined).map((key) => [key, raw[key]]));
  const { createHash } = await import("node:crypto");
  return createHash("sha256").update(canonicalJson(gated)).digest("hex");
}

/** JSON with every object's keys sorted, so that the same settings always hash alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The gated settings a config names, each as it would take effect (for `offrun trust` and `start`). */
export function gatedSettings(raw: Readonly<Record<string, unknown>>): string[] {
  return GATED_KEYS.filter((key) => {
    const value = raw[key];
    if (value === undefined) return false;
    if (Array.isArray(value)) return value.length > 0;
    // `sandbox.enabled` only narrows: it needs no trust; its allowHosts and allowWrite do.
    if (key === "sandbox" && value && typeof value === "object") {
      const { allowHosts, allowWrite } = value as { allowHosts?: unknown[]; allowWrite?: unknown[] };
      return (allowHosts?.length ?? 0) > 0 || (allowWrite?.length ?? 0) > 0;
    }
    return true;
  });
}

/** What each gated setting does once trusted: the user reads this before trusting. */
const EFFECTS = {
  setup: "runs these commands in each new agent's worktree, outside any sandbox",
  copyFiles: "copies these files from the main checkout into each new worktree",
  harnesses: "adds these agent CLIs, each run as the command it names",
  defaultHarness: "runs this agent CLI on a plain `offrun start`",
  alwaysAllow: "approves matching tool calls without asking",
  sandbox: "opens these hosts and folders to sandboxed agents",
} satisfies Record<(typeof GATED_KEYS)[number], string>;

/** Each gated setting a config names, with its value and what it does, for `offrun trust` and Raycast. */
export function describeGated(
  raw: Readonly<Record<string, unknown>>,
): { key: string; value: unknown; effect: string }[] {
  return gatedSettings(raw).map((key) => ({ key, value: raw[key], effect: EFFECTS[key as keyof typeof EFFECTS] }));
}

export interface RepositoryTrust {
  /** The user trusted the gated settings as they are now. */
  trusted: boolean;
  /** The gated settings the config names that are withheld (empty when trusted, or when it names none). */
  withheld: string[];
  /** A trust given to other values, which these no longer match (they changed since). */
  changedSince: boolean;
  alwaysAllow: string[];
}

/** Whether the repository's gated settings, as `raw` has them, are trusted. */
export async function repositoryTrust(root: string, raw: Readonly<Record<string, unknown>>): Promise<RepositoryTrust> {
  const entry = (await readTrust()).repositories[await realRoot(root)];
  const named = gatedSettings(raw);
  const trusted = entry?.trusted !== undefined && entry.trusted === (await gatedHash(raw));
  return {
    trusted,
    withheld: trusted ? [] : named,
    changedSince: !trusted && entry?.trusted !== undefined,
    alwaysAllow: entry?.alwaysAllow ?? [],
  };
}

/** What `start` says when a repository's settings were left out, or undefined when none were. */
export function untrustedWarning(trust: RepositoryTrust): string | undefined {
  if (trust.withheld.length === 0) return undefined;
  const named = trust.withheld.join(", ");
  return trust.changedSince
    ? `This repository's settings (${named}) changed since you trusted them and were not applied: \`offrun trust\` shows them, \`offrun trust --yes\` trusts them again.`
    : `This repository's settings (${named}) were not applied: it is not trusted yet. \`offrun trust\` shows what they would run; \`offrun trust --yes\` trusts them.`;
}

/** The config as it takes effect: the gated settings of an untrusted repository left out (their defaults apply). */
export function withoutUntrusted(raw: Record<string, unknown>, trust: RepositoryTrust): Record<string, unknown> {
  if (trust.trusted) return raw;
  const kept: Record<string, unknown> = { ...raw };
  for (const key of GATED_KEYS) delete kept[key];
  const sandbox = raw.sandbox as { enabled?: unknown } | undefined;
  if (sandbox && typeof sandbox === "object" && sandbox.enabled !== undefined)
    kept.sandbox = { enabled: sandbox.enabled };
  return kept;
}

/** Trusts the gated settings as `raw` has them now. */
export async function trustRepository(
  root: string,
  raw: Readonly<Record<string, unknown>>,
  now = new Date(),
): Promise<void> {
  const hash = await gatedHash(raw);
  await changeTrust(root, (entry) => {
    entry.trusted = hash;
    entry.trustedAt = now.toISOString();
  });
}

export async function revokeTrust(root: string): Promise<void> {
  await changeTrust(root, (entry) => {
    delete entry.trusted;
    delete entry.trustedAt;
  });
}

/** Remembers an "always" approval for this repository, for this user only. */
export async function rememberAlwaysAllow(root: string, key: string): Promise<void> {
  await changeTrust(root, (entry) => {
    if (!entry.alwaysAllow.includes(key)) entry.alwaysAllow.push(key);
  });
}
