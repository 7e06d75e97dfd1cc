import fs from "node:fs/promises";
import path from "node:path";
import { describeError } from "../foundation/errors.js";
import type { ParsedEvent } from "../foundation/events.js";
import { changedBetween, worktreeFingerprint } from "../git/fingerprint.js";
import { git } from "../git/repo.js";

/** Beyond this many ignored files (a node_modules), their check is skipped, and the log says so. */
const MAX_IGNORED_FILES = 50_000;

type Fingerprint = { head: string; tree: string };
type Notice = Extract<ParsedEvent, { type: "notice" }>;

/**
 * What a Planner turn must leave as it was: the worktree's content and HEAD (git's fingerprint,
 * which sees tracked and untracked files), and the files git ignores (`.env`, build output,
 * node_modules), compared by size and mtime since the fingerprint never looks at them.
 * Memory lives in the main checkout, not here; its changes are checked by memory-turn.ts.
 */
export interface PlannerCheck {
  /** After the turn: one warning notice naming what changed, or saying why it could not be checked. */
  finish(): Promise<Notice | undefined>;
}

export async function startPlannerCheck(worktree: string, agent: string): Promise<PlannerCheck> {
  const [before, ignoredBefore] = await Promise.all([
    worktreeFingerprint(worktree).catch((error: unknown) => error),
    ignoredFiles(worktree).catch(() => undefined),
  ]);
  return {
    finish: async () => {
      // A check that could not start must say so: silence would read as "nothing changed".
      if (!isFingerprint(before)) return warning(`Could not check the Planner turn: ${describeError(before)}`);
      try {
        const after = await worktreeFingerprint(worktree);
        const changed = await changedBetween(worktree, before, after);
        const ignoredAfter = ignoredBefore ? await ignoredFiles(worktree).catch(() => undefined) : undefined;
        if (ignoredBefore && ignoredAfter) changed.push(...ignoredChanges(ignoredBefore, ignoredAfter));
        const skipped =
          ignoredBefore === "too_many" ? ` (files git ignores were not checked: more than ${MAX_IGNORED_FILES})` : "";
        if (changed.length === 0) return undefined;
        return warning(
          `Planner turn changed the worktree, which Planner mode must not do: ${changed.join(", ")}${skipped}. Review with \`offrun diff ${agent}\`.`,
        );
      } catch (error) {
        return warning(`Could not check the Planner turn: ${describeError(error)}`);
      }
    },
  };
}

function isFingerprint(value: unknown): value is Fingerprint {
  return typeof value === "object" && value !== null && "tree" in value && "head" in value;
}

function warning(message: string): Notice {
  return { type: "notice", level: "warning", message };
}

type IgnoredListing = Map<string, string> | "too_many";

/** Every ignored file with its size and mtime, or "too_many" past the cap. */
async function ignoredFiles(worktree: string): Promise<IgnoredListing> {
  const result = await git(worktree, ["ls-files", "-z", "--others", "--ignored", "--exclude-standard"], {
    timeoutMs: 60_000,
    maxBuffer: 50_000_000,
  });
  const files = result.stdout.split("\0").filter(Boolean);
  if (files.length > MAX_IGNORED_FILES) return "too_many";
  const listing = new Map<string, string>();
  for (const file of files) {
    const stat = await fs.lstat(path.join(worktree, file)).catch(() => undefined);
    if (stat) listing.set(file, `${stat.size}:${stat.mtimeMs}`);
  }
  return listing;
}

function ignoredChanges(before: IgnoredListing, after: IgnoredListing): string[] {
  if (before === "too_many" || after === "too_many") return [];
  const changed: string[] = [];
  for (const [file, stamp] of after) if (before.get(file) !== stamp) changed.push(`${file} (ignored by git)`);
  for (const file of before.keys()) if (!after.has(file)) changed.push(`${file} (ignored by git, deleted)`);
  return changed;
}
