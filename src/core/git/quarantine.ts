import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { inflateSync } from "node:zlib";
import { describeError } from "../foundation/errors.js";
import { alternateEntry, quarantineOf } from "./quarantine-path.js";
import { git } from "./repo.js";

export { quarantineEnv, quarantineOf } from "./quarantine-path.js";

/**
 * A sandboxed turn never writes the repository's shared object store. git does not re-hash an
 * object it reads: a turn that could write `objects/` could replace the content of any object
 * other branches share (the blob of `main`'s `setup.sh`), and the next worktree, checkout or
 * trusted setup would get the replaced content outside any sandbox. So, as git's own
 * `receive-pack` quarantines what a push brings, the turn writes its new objects to a folder of
 * its own, the worktree's `<git dir>/offrun-objects` (GIT_OBJECT_DIRECTORY), with the shared store
 * as a read-only alternate (GIT_ALTERNATE_OBJECT_DIRECTORIES); `objects/` itself is read-only in
 * the sandbox. When the turn is over, the companion moves in only loose objects whose content
 * hashes to their name, and packs that `git index-pack` indexes anew from their content (it hashes
 * every object), then checks that every object the branch gained is there and whole (`rev-list
 * --verify-objects`); if not, the branch goes back to its last verified commit.
 */

/** What a quarantine brought in, and what it refused. */
export interface Admission {
  /** Loose objects and packs moved into the shared store. */
  admitted: number;
  /** One line per object or pack refused, with why. */
  refused: string[];
  /** Set when the branch was set back: its tip that lacked objects, and the verified commit it is at now. */
  reset?: { from: string; to: string };
  /** The worktree's index named an object that was refused: it was rebuilt from the branch (the files stay). */
  indexRebuilt?: boolean;
  /** The branch's tip now, verified whole. */
  tip: string;
}

/** A loose object larger than this (inflated) is refused rather than read whole. */
const MAX_LOOSE_BYTES = 512 * 1024 * 1024;

/** Beside the quarantine: its objects that passed their own check, until the branch's check says which go in. */
const STAGING_FOLDER = "offrun-objects-checked";

/**
 * Moves what a turn left in the quarantine into the shared store; empties the quarantine. In two
 * steps, so that nothing the store gets can name an object it lacks: each object is checked by
 * itself (a loose one hashed, a pack indexed anew by git) into a staging folder; then the branch's
 * new commits are walked with the staging folder as an alternate, every object read and hashed
 * (`rev-list --verify-objects`). When that holds, the objects the branch gained and the blobs the
 * worktree's index names go in, and packs whole; when it does not, nothing goes in and the branch
 * goes back to `verified`, its last commit known whole (its tip when the turn started). An index
 * that names a refused object is rebuilt from the branch's tip, the worktree's files as they are.
 * The caller holds the agent (no other turn of it runs). Never throws for the quarantine's content:
 * what it refused is said in `refused`.
 */
export async function admitQuarantine(request: {
  commonDir: string;
  gitDir: string;
  worktree: string;
  /** The branch's full ref (`refs/heads/offrun/<agent>`). */
  branchRef: string;
  verified: string;
}): Promise<Admission> {
  const { commonDir, gitDir, worktree, branchRef, verified } = request;
  const quarantine = quarantineOf(gitDir);
  const staging = path.join(gitDir, STAGING_FOLDER);
  const refused: string[] = [];
  const refusedIds = new Set<string>();
  const staged = new Map<string, string>(); // loose object id -> its staged file
  const stagedPacks: string[] = []; // staged pack files, each with its .idx beside it
  await fs.rm(staging, { recursive: true, force: true });
  try {
    const entries = await fs.readdir(quarantine, { withFileTypes: true }).catch(() => []);
    if (entries.length > 0) {
      const algorithm = await objectFormat(commonDir);
      const nameLength = algorithm === "sha256" ? 62 : 38;
      const store = path.join(commonDir, "objects");
      for (const entry of entries) {
        if (entry.name === "pack" && entry.isDirectory()) {
          const packs = (await fs.readdir(path.join(quarantine, "pack")).catch(() => [])).filter((name) =>
            name.endsWith(".pack"),
          );
          for (const name of packs) {
            const pack = await stagePack(commonDir, path.join(quarantine, "pack", name), staging, refused);
            if (pack) stagedPacks.push(pack);
          }
        }
        if (!entry.isDirectory() || !/^[0-9a-f]{2}$/.test(entry.name)) continue;
        for (const name of await fs.readdir(path.join(quarantine, entry.name)).catch(() => [])) {
          if (name.length !== nameLength || !/^[0-9a-f]+$/.test(name)) continue;
          const id = `${entry.name}${name}`;
          // The store has it: git keeps the first copy of a name, and so does Offrun.
          if (await exists(path.join(store, entry.name, name))) continue;
          const why = await stageLoose(path.join(quarantine, entry.name, name), id, algorithm, staging);
          if (why === undefined) staged.set(id, path.join(staging, entry.name, name));
          else {
            refused.push(`${id}: ${why}`);
            refusedIds.add(id);
          }
        }
      }
    }
    await fs.rm(quarantine, { recursive: true, force: true });
    const alternate = { GIT_ALTERNATE_OBJECT_DIRECTORIES: alternateEntry(staging) };

    // The branch: every object it gained, read and hashed, with what was staged. Its ref as the turn
    // left it, read as a file (the commit may be staged only): anything but an object name there (a
    // symbolic `ref: refs/heads/main`, through which a later commit would move main) is not kept.
    const tip = await branchTip(commonDir, branchRef);
    let admission: Admission = { admitted: 0, refused, tip: verified };
    let needed: string[] = [];
    if (tip && tip !== verified) {
      const walked = await git(
        commonDir,
        ["rev-list", "--objects", "--verify-objects", `${tip}^{commit}`, "--not", verified, "--"],
        {
          env: staged.size > 0 || stagedPacks.length > 0 ? alternate : {},
          maxBuffer: 200_000_000,
        },
      ).catch(() => undefined);
      if (walked) {
        needed = walked.stdout.split("\n").map((line) => line.split(" ")[0]!);
        admission.tip = tip;
      }
    }
    if (!tip || (tip !== verified && admission.tip !== tip)) {
      await git(commonDir, [
        "update-ref",
        "--no-deref",
        "-m",
        "offrun: back to the last verified commit",
        branchRef,
        verified,
      ]);
      admission = { ...admission, reset: { from: tip || "(none)", to: verified } };
    }

    // The index: staged blobs it names go in with the branch's (what `git add` staged and no commit
    // holds); one it names that was refused, or any after a reset, and it is rebuilt from the branch.
    // Read only when a staged object is not the branch's or something was refused: a 20,000-file
    // index is not listed at the end of every turn that committed.
    const wanted = new Set(needed);
    const unclaimed = [...staged.keys()].some((id) => !wanted.has(id));
    let badIndex = admission.reset !== undefined;
    if (unclaimed || refusedIds.size > 0 || badIndex) {
      const index = (await git(worktree, ["ls-files", "-s", "-z"], { maxBuffer: 200_000_000 })).stdout
        .split("\0")
        .map((line) => /^\d+ ([0-9a-f]+) /.exec(line)?.[1])
        .filter((id): id is string => id !== undefined);
      badIndex ||= index.some((id) => refusedIds.has(id));
      if (!badIndex) needed.push(...index.filter((id) => staged.has(id)));
    }
    if (!admission.reset) admission.admitted += await moveIn(commonDir, staged, needed, stagedPacks);
    if (badIndex) {
      await git(worktree, ["reset", "-q", "--mixed", admission.tip]);
      admission.indexRebuilt = true;
    }
    if (admission.reset) {
      // The reflogs of the branch and of the worktree's HEAD still name the commits kept out: `git
      // fsck` calls such an entry invalid. Only those go (--stale-fix), none for their age.
      const expire = ["reflog", "expire", "--stale-fix", "--expire=never", "--expire-unreachable=never"];
      await git(commonDir, [...expire, branchRef]);
      await git(worktree, [...expire, "HEAD"]);
    }
    return admission;
  } finally {
    await fs.rm(quarantine, { recursive: true, force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/**
 * The branch's commit as its ref says: the loose ref file when there is one (a sandboxed turn can
 * write only that one; an object name, or "" when it holds anything else), else git's answer
 * (packed-refs, which no turn writes).
 */
async function branchTip(commonDir: string, branchRef: string): Promise<string> {
  const file = path.join(commonDir, ...branchRef.split("/"));
  const stat = await fs.lstat(file).catch(() => undefined);
  if (stat) {
    const text = stat.isFile() ? (await fs.readFile(file, "utf8").catch(() => "")).trim() : "";
    return /^([0-9a-f]{40}|[0-9a-f]{64})$/.test(text) ? text : "";
  }
  return (await git(commonDir, ["rev-parse", "--verify", "-q", branchRef], { okExitCodes: [1] })).stdout.trim();
}

/** sha1, or sha256 for a repository made with `--object-format=sha256` (its config's extensions.objectformat). */
async function objectFormat(commonDir: string): Promise<"sha1" | "sha256"> {
  const config = await fs.readFile(path.join(commonDir, "config"), "utf8").catch(() => "");
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? "sha256" : "sha1";
}

const exists = (file: string) =>
  fs.lstat(file).then(
    () => true,
    () => false,
  );

/** One loose object: read (never through a link), inflated, hashed, and staged as a fresh file. Why not, or undefined. */
async function stageLoose(
  file: string,
  id: string,
  algorithm: "sha1" | "sha256",
  staging: string,
): Promise<string | undefined> {
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return "not a plain file";
  let compressed: Buffer;
  let inflated: Buffer;
  try {
    compressed = await fs.readFile(file);
    inflated = inflateSync(compressed, { maxOutputLength: MAX_LOOSE_BYTES });
  } catch (error) {
    return `unreadable (${describeError(error)})`;
  }
  const header = /^(blob|tree|commit|tag) (\d+)\0/.exec(inflated.subarray(0, 32).toString("latin1"));
  if (!header || Number(header[2]) !== inflated.length - header[0].length) return "not a git object";
  const hash = createHash(algorithm).update(inflated).digest("hex");
  if (hash !== id) return `its content hashes to ${hash}`;
  // A fresh file, never the quarantine's own (a hard link to a worktree file would change with it).
  const target = path.join(staging, id.slice(0, 2), id.slice(2));
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.writeFile(target, compressed, { mode: 0o444 });
  return undefined;
}

/** One pack: copied to the staging folder and indexed there by git from its content (the turn's own index is never used). */
async function stagePack(
  commonDir: string,
  file: string,
  staging: string,
  refused: string[],
): Promise<string | undefined> {
  const name = path.basename(file);
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat?.isFile()) return void refused.push(`${name}: not a plain file`);
  const packDir = path.join(staging, "pack");
  await fs.mkdir(packDir, { recursive: true });
  const base = path.join(packDir, `tmp-${name.slice(0, -".pack".length)}`);
  try {
    await fs.copyFile(file, `${base}.pack`);
    const indexed = await git(commonDir, ["index-pack", "-o", `${base}.idx`, `${base}.pack`], { timeoutMs: 600_000 });
    const hash = /^(?:pack\t)?([0-9a-f]{40,64})$/m.exec(indexed.stdout)?.[1];
    if (!hash) throw new Error(`git index-pack said ${JSON.stringify(indexed.stdout.trim())}`);
    const target = path.join(packDir, `pack-${hash}`);
    await fs.rename(`${base}.pack`, `${target}.pack`);
    await fs.rename(`${base}.idx`, `${target}.idx`);
    return `${target}.pack`;
  } catch (error) {
    refused.push(`${name}: ${describeError(error)}`);
    return undefined;
  }
}

/** Moves the needed staged loose objects, and the staged packs, into the store (same file system: renames). */
async function moveIn(
  commonDir: string,
  staged: ReadonlyMap<string, string>,
  needed: readonly string[],
  packs: readonly string[],
): Promise<number> {
  const store = path.join(commonDir, "objects");
  let moved = 0;
  for (const pack of packs) {
    const target = path.join(store, "pack", path.basename(pack));
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.chmod(pack, 0o444);
    await fs.chmod(pack.replace(/\.pack$/, ".idx"), 0o444);
    // The .pack first: git finds a pack by its .idx, which must not name a .pack that is not there yet.
    await fs.rename(pack, target);
    await fs.rename(pack.replace(/\.pack$/, ".idx"), target.replace(/\.pack$/, ".idx"));
    moved++;
  }
  for (const id of new Set(needed)) {
    const file = staged.get(id);
    if (!file) continue;
    const target = path.join(store, id.slice(0, 2), id.slice(2));
    if (await exists(target)) continue;
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.rename(file, target);
    moved++;
  }
  return moved;
}
