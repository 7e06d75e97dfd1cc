import fs from "node:fs/promises";
import type { GuardedJsonKeys } from "../../harnesses/types.js";
import { replaceFile } from "../foundation/atomic-write.js";

/**
 * What a sandboxed turn must leave as it found it, checked by the companion, outside the
 * sandbox, when the turn is over: files whose change would make git or the CLI run something
 * outside later (the worktree's git links; the policy keeps them read-only, and this is the proof),
 * and executable keys inside files the CLI itself rewrites in a turn (Claude Code's `.claude.json`
 * `mcpServers`), which no policy can split from the rest of the file.
 */
export interface KeptAsFound {
  /** Puts back what changed; says what it was, for the turn's log. */
  restore(): Promise<string[]>;
}

export async function keepAsFound(files: readonly string[], guarded: readonly GuardedJsonKeys[]): Promise<KeptAsFound> {
  const before = new Map<string, Buffer | undefined>();
  for (const file of files) before.set(file, await readIfThere(file));
  const keys = await Promise.all(
    guarded.map(async (entry) => ({ entry, text: (await readIfThere(entry.file))?.toString("utf8") })),
  );
  return {
    async restore() {
      const said: string[] = [];
      for (const [file, was] of before) {
        const now = await readIfThere(file);
        if (sameBytes(was, now)) continue;
        if (was === undefined) await fs.rm(file, { force: true });
        else await writeFileAtomically(file, was);
        said.push(
          `${file} was ${was === undefined ? "created" : now === undefined ? "removed" : "changed"} during the turn; Offrun put it back.`,
        );
      }
      for (const { entry, text } of keys) said.push(...(await restoreKeys(entry, text)));
      return said;
    },
  };
}

/** Puts the guarded keys of one JSON file back as they were, leaving the CLI's other changes. */
async function restoreKeys(entry: GuardedJsonKeys, beforeText: string | undefined): Promise<string[]> {
  const nowText = (await readIfThere(entry.file))?.toString("utf8");
  if (nowText === beforeText || nowText === undefined) return [];
  const before = parseObject(beforeText ?? "{}");
  const now = parseObject(nowText);
  if (now === undefined) {
    // Unreadable now: the whole file goes back (the turn's own state updates with it).
    if (beforeText === undefined) await fs.rm(entry.file, { force: true });
    else await writeFileAtomically(entry.file, beforeText);
    return [`${entry.file} was left unreadable during the turn; Offrun put back the copy from before it.`];
  }
  const changed: string[] = [];
  for (const keyPath of entry.keys) {
    for (const concrete of expand(keyPath, before ?? {}, now)) {
      const was = valueAt(before ?? {}, concrete);
      if (JSON.stringify(was) === JSON.stringify(valueAt(now, concrete))) continue;
      setAt(now, concrete, was);
      prune(now, before ?? {}, concrete);
      changed.push(concrete.join("."));
    }
  }
  if (changed.length === 0) return [];
  await writeFileAtomically(entry.file, JSON.stringify(now, null, 2));
  return [
    `${entry.file}: ${changed.join(", ")} changed during the turn; Offrun put ${changed.length === 1 ? "it" : "them"} back.`,
  ];
}

type Json = Record<string, unknown>;

/** A key path with each `*` replaced by every property name either object has at that level. */
function expand(keyPath: readonly string[], a: Json, b: Json): string[][] {
  const at = keyPath.indexOf("*");
  if (at < 0) return [[...keyPath]];
  const prefix = keyPath.slice(0, at);
  const names = new Set([...Object.keys(objectAt(a, prefix)), ...Object.keys(objectAt(b, prefix))]);
  return [...names].flatMap((name) => expand([...prefix, name, ...keyPath.slice(at + 1)], a, b));
}

function objectAt(root: Json, keyPath: readonly string[]): Json {
  const value = valueAt(root, keyPath);
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}

function valueAt(root: Json, keyPath: readonly string[]): unknown {
  let value: unknown = root;
  for (const key of keyPath) {
    if (!value || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Json)[key];
  }
  return value;
}

function setAt(root: Json, keyPath: readonly string[], value: unknown): void {
  let holder = root;
  for (const key of keyPath.slice(0, -1)) {
    const next = holder[key];
    if (!next || typeof next !== "object" || Array.isArray(next)) {
      if (value === undefined) return; // nothing to remove below a value that is not there
      holder[key] = {};
    }
    holder = holder[key] as Json;
  }
  const last = keyPath[keyPath.length - 1]!;
  if (value === undefined) delete holder[last];
  else holder[last] = value;
}

/** Removes the objects above a removed key that the turn made and that are empty now (`projects["/x"]: {}`). */
function prune(now: Json, before: Json, keyPath: readonly string[]): void {
  for (let depth = keyPath.length - 1; depth > 0; depth -= 1) {
    const above = keyPath.slice(0, depth);
    const value = valueAt(now, above);
    const empty = value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
    if (!empty || valueAt(before, above) !== undefined) return;
    setAt(now, above, undefined);
  }
}

function parseObject(text: string): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Json) : undefined;
  } catch {
    return undefined;
  }
}

async function readIfThere(file: string): Promise<Buffer | undefined> {
  return fs.readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });
}

/** Temp file and rename, keeping the file's mode (replaceFile writes every byte, or leaves the file as it was). */
async function writeFileAtomically(file: string, content: Buffer | string): Promise<void> {
  await replaceFile(file, Buffer.isBuffer(content) ? content : Buffer.from(content, "utf8"), { fsync: true });
}

function sameBytes(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}
