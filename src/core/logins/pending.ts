import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { causeOf, failedForRoom } from "../foundation/disk-full.js";
import { OffrunError } from "../foundation/errors.js";
import { offrunHome } from "../foundation/paths.js";
import { isAlive } from "../foundation/pids.js";
import { readJsonFile, writeJsonAtomic } from "../foundation/store.js";

/**
 * A login change written down before it starts (`~/.offrun/pending-logins/<id>.json`) and deleted
 * once it is whole: a change cut short by a crash or a full disk is found there by the next
 * companion (login-recovery.ts), which finishes it or undoes it. Nothing secret is in it.
 */
const pendingSchema = z.discriminatedUnion("op", [
  /** An added login's home made by this add: removed again when accounts.json never got the login. */
  z.object({ op: z.literal("add"), harness: z.string(), label: z.string(), home: z.string(), pid: z.number() }),
  /** A login removed with --purge: its home is deleted once accounts.json no longer lists it. */
  z.object({ op: z.literal("remove"), harness: z.string(), label: z.string(), home: z.string(), pid: z.number() }),
  /** A rename: the agents' records, the quota cache and the sign-in follow once accounts.json has it. */
  z.object({ op: z.literal("rename"), harness: z.string(), label: z.string(), to: z.string(), pid: z.number() }),
]);
export type PendingLoginChange = z.infer<typeof pendingSchema>;
type Change = PendingLoginChange extends infer C ? (C extends PendingLoginChange ? Omit<C, "pid"> : never) : never;

/** Changes this process has under way: never finished by someone else meanwhile. */
const underWay = new Set<string>();

export function pendingDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(offrunHome(env), "pending-logins");
}

export interface Pending {
  /** The change is whole (or was undone): it is no longer pending. */
  done(): Promise<void>;
  /** The change stopped half made: it stays pending, for the next run or companion to finish. */
  leave(): void;
}

/** Writes the change down before its first step; a disk too full for this changes nothing. */
export async function beginLoginChange(change: Change, env: NodeJS.ProcessEnv = process.env): Promise<Pending> {
  const file = path.join(pendingDir(env), `${randomUUID()}.json`);
  underWay.add(file);
  try {
    await writeJsonAtomic(file, { ...change, pid: process.pid }, { fsync: false });
  } catch (error) {
    underWay.delete(file);
    throw error;
  }
  return {
    done: async () => {
      await fs.rm(file, { force: true });
      underWay.delete(file);
    },
    leave: () => {
      underWay.delete(file);
    },
  };
}

/** The changes left pending by processes that no longer carry them on, with their files. */
export async function leftPending(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ file: string; change: PendingLoginChange | undefined }[]> {
  const dir = pendingDir(env);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const left: { file: string; change: PendingLoginChange | undefined }[] = [];
  for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
    const file = path.join(dir, name);
    if (underWay.has(file)) continue;
    const change = await readJsonFile(file, pendingSchema).catch(() => undefined);
    // Another process (a CLI by itself) still at it: its change is its own to finish.
    if (change && change.pid !== process.pid && isAlive(change.pid)) continue;
    left.push({ file, change });
  }
  return left;
}

/** Rethrows a full disk as that, saying nothing was changed; anything else as it is. */
export function refuseForRoom(env: NodeJS.ProcessEnv, what: string) {
  return async (error: unknown): Promise<never> => {
    if (!failedForRoom(error)) throw error;
    throw new OffrunError(
      "process_failed",
      `${what}: ${await causeOf(offrunHome(env), error)}. Nothing was changed: free space, then try again.`,
      { cause: error },
    );
  };
}
