import fs from "node:fs/promises";
import path from "node:path";
import { readJsonFile, writeJsonAtomic } from "../foundation/store.js";
import { hostCopiesSchema, type HostCopies } from "../protocol/protocol-views.js";
import type { Host } from "../remote/hosts-file.js";

/**
 * A host's copies here have two budgets: what one agent's copy may hold, and what all of the host's
 * copies (set-aside ones included) may hold together. A host's word on its sizes is input: without
 * them, a host that claims large logs, or runs many agents, fills this machine's disk.
 *
 * 256 MB a copy: a long day's work of one agent logs a few MB; 256 MB is far beyond any real log.
 * 1 GiB a host: hundreds of real agents' logs (months of work on one host) or four logs at the copy
 * budget; the faces read these copies, and a laptop's disk is shared with everything else on it.
 */
export const DEFAULT_COPY_MB = 256;
export const DEFAULT_FOLDER_MB = 1024;
const MB = 1024 * 1024;

export interface CopyBudget {
  copyBytes: number;
  folderBytes: number;
}

/** A host's budgets: its entry in hosts.json (`offrun hosts budget`), else OFFRUN_HOST_COPY_MB / OFFRUN_HOST_FOLDER_MB, else the defaults. */
export function copyBudget(host: Pick<Host, "copyMB" | "folderMB">, env: NodeJS.ProcessEnv = process.env): CopyBudget {
  const fromEnv = (value: string | undefined) => {
    const mb = Number(value);
    return value !== undefined && Number.isFinite(mb) && mb > 0 ? mb : undefined;
  };
  return {
    copyBytes: Math.floor((host.copyMB ?? fromEnv(env.OFFRUN_HOST_COPY_MB) ?? DEFAULT_COPY_MB) * MB),
    folderBytes: Math.floor((host.folderMB ?? fromEnv(env.OFFRUN_HOST_FOLDER_MB) ?? DEFAULT_FOLDER_MB) * MB),
  };
}

/** What the files of a host's chats folder hold (its copies and the set-aside ones). */
export async function bytesIn(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    total += (await fs.stat(path.join(dir, entry.name)).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/**
 * `~/.offrun/hosts/<host>/copies.json`: the last round's account, so that what was refused is
 * still shown after a restart, or while the host is down.
 */
export const copiesFile = (hostFolder: string) => path.join(hostFolder, "copies.json");

export async function readCopies(hostFolder: string): Promise<HostCopies | undefined> {
  return readJsonFile(copiesFile(hostFolder), hostCopiesSchema).catch(() => undefined);
}

export async function writeCopies(hostFolder: string, copies: HostCopies): Promise<void> {
  await writeJsonAtomic(copiesFile(hostFolder), copies);
}

/**
 * The command that lets every refused log be copied: a budget raised to what they need, at least
 * doubled (a log that was refused is one that grows). Undefined when nothing was refused.
 */
export function raiseBudgetCommand(host: string, copies: HostCopies): string | undefined {
  const args: string[] = [];
  const overCopy = copies.refused.filter((r) => r.budget === "copy");
  const copyNeeds = Math.max(0, ...overCopy.map((r) => r.logBytes));
  const copyMB = Math.max(Math.ceil(copyNeeds / MB), 2 * Math.ceil(copies.copyBudgetBytes / MB));
  if (overCopy.length > 0) args.push("--copy-mb", String(copyMB));
  // Every refused log whole, beside what is copied already.
  const missing = copies.refused.reduce((sum, r) => sum + Math.max(0, r.logBytes - r.copiedBytes), 0);
  const folderNeeds = copies.usedBytes + missing;
  if (copies.refused.some((r) => r.budget === "folder") || folderNeeds > copies.folderBudgetBytes) {
    args.push(
      "--folder-mb",
      String(Math.max(Math.ceil(folderNeeds / MB), 2 * Math.ceil(copies.folderBudgetBytes / MB))),
    );
  }
  return args.length > 0 ? ["offrun", "hosts", "budget", host, ...args].join(" ") : undefined;
}

/** Why one agent's log is not copied (further), with its sizes and the budget it is over. */
export function describeRefusal(host: string, refusal: HostCopies["refused"][number], copies: HostCopies): string {
  const { agent, project, copiedBytes, logBytes } = refusal;
  return refusal.budget === "copy"
    ? `${agent} (${project}) is copied here up to ${megabytes(copiedBytes)} of its ${megabytes(logBytes)} log: over the ${megabytes(copies.copyBudgetBytes)} one copy may hold`
    : `${agent} (${project}) is not copied here past ${megabytes(copiedBytes)} of its ${megabytes(logBytes)} log: ${host}'s copies hold ${megabytes(copies.usedBytes)} of the ${megabytes(copies.folderBudgetBytes)} they may`;
}

/** "2.0 MB": sizes as the faces say them. */
export function megabytes(bytes: number): string {
  return `${(bytes / MB).toFixed(bytes < 10 * MB ? 1 : 0)} MB`;
}
