import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { BUILTIN_HARNESSES } from "../../harnesses/registry.js";
import type { Harness, HarnessHooks } from "../../harnesses/types.js";
import { replaceFile } from "../foundation/atomic-write.js";
import { OffrunError } from "../foundation/errors.js";
import { offrunHome } from "../foundation/paths.js";
import { readJsonFile, withFileLock, writeJsonAtomic } from "../foundation/store.js";
import { HOME_ARGUMENT } from "./hook-paths.js";

/**
 * Installs Offrun's hook into the settings of a login's CLI, and takes it out again. Before the
 * first change the file is copied beside itself (`<file>.offrun-backup`), and `~/.offrun/hooks.json`
 * records what was done, whether the file existed and a hash of what Offrun wrote. Uninstall puts
 * the backup back byte for byte (or deletes the file Offrun created), and refuses when the file
 * changed since, unless forced: then the changed file is kept as `<file>.offrun-replaced`. What
 * each CLI's file looks like is its adapter's `hooks`.
 */

/**
 * The harnesses whose CLIs take Offrun's hook. Only built-ins have a hook surface: a custom ACP agent
 * runs only inside Offrun, whose own stream of it notifies.
 */
export function hookHarnesses(): Harness[] {
  return BUILTIN_HARNESSES.filter((harness) => harness.hooks !== undefined);
}

/**
 * The argv a CLI runs on its hook events. `hookArgv` runs `offrun` (node and bin/offrun.js). The
 * CLI runs it with its own environment, which has no OFFRUN_HOME: a home that is not the default
 * goes along as an argument.
 */
export function hookCommand(hookArgv: readonly string[], harness: string, env: NodeJS.ProcessEnv): string[] {
  const home = offrunHome(env);
  const isDefault = home === offrunHome({ ...env, OFFRUN_HOME: "" });
  return [...hookArgv, "hook", harness, ...(isDefault ? [] : [HOME_ARGUMENT + home])];
}

function hooksOf(harness: Harness): HarnessHooks {
  if (harness.hooks) return harness.hooks;
  const known = hookHarnesses().map((h) => h.id);
  throw new OffrunError(
    "invalid_input",
    `${harness.displayName} has no hooks Offrun can use. Hooks are installed for ${known.join(", ")}.`,
  );
}

const FILE_MODE = 0o600;
const ABSENT = "absent";

const installSchema = z.object({
  harness: z.string(),
  // `account` names the login: the key is kept for files of earlier versions.
  account: z.string(),
  file: z.string(),
  existed: z.boolean(),
  backup: z.string().optional(),
  installedHash: z.string(),
  installedAt: z.string(),
});
const hooksFileSchema = z.object({ version: z.literal(1), installs: z.array(installSchema) });
export type HookInstall = z.infer<typeof installSchema>;
type HooksFile = z.infer<typeof hooksFileSchema>;

/** A login whose CLI gets the hook. */
export interface HookLogin {
  label: string;
  home: string;
}

export interface HookRequest {
  harness: Harness;
  login: HookLogin;
  env?: NodeJS.ProcessEnv;
}

export function hooksFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(offrunHome(env), "hooks.json");
}

export function settingsFileOf(harness: Harness, home: string): string {
  return hooksOf(harness).settingsFile(home);
}

/** Adds the hook; does nothing (outcome "already") when it is there. */
export interface InstallResult {
  file: string;
  outcome: "installed" | "already";
}

export interface UninstallResult {
  file: string;
  outcome: "restored" | "deleted" | "not_installed";
  /** With --force over a changed file: where that file was kept. */
  replacedCopy?: string;
}

export async function installHook(request: HookRequest & { hookArgv: readonly string[] }): Promise<InstallResult> {
  const { harness, login, hookArgv, env = process.env } = request;
  const file = settingsFileOf(harness, login.home);
  await requireHome(harness, login);
  return updateHooksFile<InstallResult>(env, (hooks) =>
    untilUnchanged(file, async () => {
      const before = await readBytes(file);
      const command = hookCommand(hookArgv, harness.id, env);
      const after = Buffer.from(hooksOf(harness).add(before?.toString("utf8"), command, file), "utf8");
      const recorded = hooks.installs.find((entry) => entry.file === file);
      if (before !== undefined && before.equals(after)) return { hooks, result: { file, outcome: "already" } };
      // Recorded, yet the hook is gone: the person took it out. What is there now is theirs to get back.
      const others = hooks.installs.filter((entry) => entry !== recorded);
      const backup = `${file}.offrun-backup`;
      if (before !== undefined) await writeBackup(backup, before, recorded !== undefined);
      const entry: HookInstall = {
        harness: harness.id,
        account: login.label,
        file,
        existed: before !== undefined,
        ...(before !== undefined ? { backup } : {}),
        installedHash: hashOf(after),
        installedAt: new Date().toISOString(),
      };
      // Recorded before the settings change: a crash in between leaves a record uninstall can undo.
      await writeHooksFile(env, { version: 1, installs: [...others, entry] });
      // A file of Offrun's own may need its folder (Grok's hooks/); an emptied folder is left behind.
      await fs.mkdir(path.dirname(file), { recursive: true });
      if (!(await replaceIfUnchanged(file, before, after))) return undefined;
      return { hooks: { version: 1, installs: [...others, entry] }, result: { file, outcome: "installed" } };
    }),
  );
}

/** Puts the settings file back as it was before install. */
export async function uninstallHook(request: HookRequest & { force?: boolean }): Promise<UninstallResult> {
  const { harness, login, force = false, env = process.env } = request;
  const file = settingsFileOf(harness, login.home);
  return updateHooksFile<UninstallResult>(env, (hooks) =>
    untilUnchanged(file, async () => {
      const entry = hooks.installs.find((candidate) => candidate.file === file);
      if (!entry) return { hooks, result: { file, outcome: "not_installed" } };
      const current = await readBytes(file);
      let replacedCopy: string | undefined;
      if (hashOf(current) !== entry.installedHash) {
        if (!force) throw changedSince(entry);
        if (current !== undefined) {
          replacedCopy = `${file}.offrun-replaced`;
          await replaceFile(replacedCopy, current, { mode: FILE_MODE, fsync: true });
        }
      }
      let outcome: "restored" | "deleted";
      if (entry.existed && entry.backup) {
        const original = await readBytes(entry.backup);
        if (original === undefined) {
          throw new OffrunError("not_found", `The backup ${entry.backup} is gone, so Offrun cannot restore ${file}.`);
        }
        if (!(await replaceIfUnchanged(file, current, original))) return undefined;
        await fs.rm(entry.backup, { force: true });
        outcome = "restored";
      } else {
        await fs.rm(file, { force: true });
        outcome = "deleted";
      }
      const next: HooksFile = { version: 1, installs: hooks.installs.filter((other) => other !== entry) };
      return { hooks: next, result: { file, outcome, ...(replacedCopy ? { replacedCopy } : {}) } };
    }),
  );
}

/** How often a settings file the CLI keeps changing is read again before Offrun gives up. */
const SETTINGS_ATTEMPTS = 5;

/**
 * Runs `attempt` until it finds the settings file unchanged between its read and its write (it
 * returns undefined when the file changed meanwhile): the CLI writes this file itself, without
 * Offrun's lock, and its own edit is built on, never overwritten.
 */
async function untilUnchanged<T>(file: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let round = 0; round < SETTINGS_ATTEMPTS; round += 1) {
    const done = await attempt();
    if (done !== undefined) return done;
  }
  throw new OffrunError(
    "conflict",
    `${file} kept changing while Offrun wrote it (the CLI may be saving its settings). Run the command again.`,
  );
}

/**
 * Replaces the file with `bytes` whole or not at all (a temp file and a rename: a full disk or a
 * kill never leaves the CLI a half-written settings file), only if it still holds `expected`.
 * False when it changed. A new file is user-only; an existing one keeps its mode.
 */
async function replaceIfUnchanged(file: string, expected: Buffer | undefined, bytes: Buffer): Promise<boolean> {
  if (hashOf(await readBytes(file)) !== hashOf(expected)) return false;
  // A settings file that is a link (dotfiles kept elsewhere) stays a link: its target is replaced.
  const target = await fs.realpath(file).catch(() => file);
  await replaceFile(target, bytes, { ...(expected === undefined ? { mode: FILE_MODE } : {}), fsync: true });
  return true;
}

export interface HookStatus {
  file: string;
  /** hooks.json has a record of Offrun's install. */
  recorded: boolean;
  /** The settings file runs Offrun's hook now. */
  present: boolean;
  /** The file differs from what Offrun wrote (uninstall would need --force). */
  changedSince: boolean;
}

export async function hookStatus(request: HookRequest & { hookArgv: readonly string[] }): Promise<HookStatus> {
  const { harness, login, hookArgv, env = process.env } = request;
  const file = settingsFileOf(harness, login.home);
  const hooks = await readHooksFile(env);
  const entry = hooks.installs.find((candidate) => candidate.file === file);
  const current = await readBytes(file);
  return {
    file,
    recorded: entry !== undefined,
    present: hooksOf(harness).isPresent(current?.toString("utf8"), hookCommand(hookArgv, harness.id, env)),
    changedSince: entry !== undefined && hashOf(current) !== entry.installedHash,
  };
}

function changedSince(entry: HookInstall): OffrunError {
  return new OffrunError(
    "conflict",
    `${entry.file} changed since Offrun added its hook (${entry.installedAt}). Uninstalling puts back the file ` +
      `from before (${entry.existed ? entry.backup : "it did not exist"}), which would lose those changes. ` +
      `Run \`offrun hooks uninstall --force\` to do it anyway: the changed file is kept as ${entry.file}.offrun-replaced.`,
  );
}

async function requireHome(harness: Harness, login: HookLogin): Promise<void> {
  const stat = await fs.stat(login.home).catch(() => undefined);
  if (stat?.isDirectory()) return;
  throw new OffrunError(
    "not_found",
    `The ${harness.displayName} login '${login.label}' has no home folder yet (${login.home}). ` +
      `Sign in first (\`offrun logins login ${harness.id} ${login.label}\`), then install the hooks.`,
  );
}

/** Writes the backup; an older backup Offrun did not record is kept unless it is the same bytes. */
async function writeBackup(backup: string, bytes: Buffer, replacesRecorded: boolean): Promise<void> {
  const existing = await readBytes(backup);
  if (existing !== undefined && !replacesRecorded && !existing.equals(bytes)) {
    throw new OffrunError(
      "conflict",
      `${backup} already exists and Offrun has no record of it. Move it aside, then run \`offrun hooks install\` again.`,
    );
  }
  await replaceFile(backup, bytes, { mode: FILE_MODE, fsync: true });
}

async function readBytes(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function hashOf(bytes: Buffer | undefined): string {
  return bytes === undefined ? ABSENT : createHash("sha256").update(bytes).digest("hex");
}

async function readHooksFile(env: NodeJS.ProcessEnv): Promise<HooksFile> {
  return (await readJsonFile(hooksFilePath(env), hooksFileSchema)) ?? { version: 1, installs: [] };
}

async function writeHooksFile(env: NodeJS.ProcessEnv, hooks: HooksFile): Promise<void> {
  await writeJsonAtomic(hooksFilePath(env), hooks, { mode: FILE_MODE });
}

async function updateHooksFile<T>(
  env: NodeJS.ProcessEnv,
  change: (hooks: HooksFile) => Promise<{ hooks: HooksFile; result: T }>,
): Promise<T> {
  const file = hooksFilePath(env);
  return withFileLock(file, async () => {
    const before = await readHooksFile(env);
    const { hooks, result } = await change(before);
    if (hooks !== before) await writeHooksFile(env, hooks);
    return result;
  });
}
