import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import * as z from "zod";
import { describeError } from "../foundation/errors.js";
import { userPaths } from "../foundation/paths.js";
import { listProjectFiles, readProjectState, scanProjectFiles, type ProjectState } from "./project-files.js";
import { readUserVocabulary } from "./user-list.js";
import { writeTextAtomic } from "../foundation/store.js";
import {
  buildCodeEntries,
  compareKeys,
  createVocabulary,
  type Vocabulary,
  type VocabularyEntry,
} from "./vocabulary.js";

/**
 * A project's vocabulary, built once and cached two ways: in memory for a long-lived process (the
 * companion, one CLI run) and on disk in `~/.offrun/cache/vocabulary/` for short-lived ones (a
 * Raycast command is unloaded when it closes). Either is used only while the project's
 * fingerprint (project-files.ts) is unchanged. The user's list is read on every load: it is small,
 * and an edit to it must show at once.
 */

/** Bump when extraction or keys change, so caches built by an older Offrun are rebuilt. */
const CACHE_VERSION = 1;

const cacheFileSchema = z
  .object({
    version: z.literal(CACHE_VERSION),
    root: z.string(),
    fingerprint: z.string(),
    listedBy: z.enum(["git", "walk"]),
    files: z.number().int().nonnegative(),
    // Columns, not an object per phrase: 100,000 phrases parse and check several times faster.
    keys: z.array(z.string()),
    spellings: z.array(z.string()),
    counts: z.array(z.number()),
    /** Index -> other spellings, only for the phrases that have any. */
    alternatives: z.record(z.string(), z.array(z.string())),
  })
  .refine(
    (cache) =>
      cache.spellings.length === cache.keys.length &&
      cache.counts.length === cache.keys.length &&
      // Lookups are binary searches: an unsorted file would silently miss phrases.
      cache.keys.every((key, i) => i === 0 || compareKeys(cache.keys[i - 1]!, key) < 0),
    "columns of one length, keys sorted",
  );
type CacheFile = z.infer<typeof cacheFileSchema>;

export interface VocabularyStats {
  /** Where the code's phrases came from this time. */
  from: "memory" | "disk" | "scan";
  listedBy: "git" | "walk";
  files: number;
  /** Phrases from the code, and from the user's list. */
  codePhrases: number;
  userPhrases: number;
  /** Wall time of this load, fingerprint included. */
  ms: number;
  /** The cache could not be written (the vocabulary is fine; the next load scans again). */
  cacheError?: string;
}

export interface ProjectVocabulary {
  root: string;
  vocabulary: Vocabulary;
  stats: VocabularyStats;
}

interface Remembered {
  fingerprint: string;
  userStamp: string;
  listedBy: "git" | "walk";
  files: number;
  code: VocabularyEntry[];
  vocabulary: Vocabulary;
}
const remembered = new Map<string, Remembered>();
const loading = new Map<string, Promise<ProjectVocabulary>>();

export interface LoadOptions {
  /** Where the disk cache lives (default `~/.offrun/cache`). */
  cacheDir?: string;
}

/** The vocabulary of the project at `root`; concurrent loads of one project share the work. */
export function loadProjectVocabulary(root: string, options: LoadOptions = {}): Promise<ProjectVocabulary> {
  const absolute = path.resolve(root);
  const pending = loading.get(absolute);
  if (pending) return pending;
  const load = loadOnce(absolute, options).finally(() => loading.delete(absolute));
  loading.set(absolute, load);
  return load;
}

async function loadOnce(root: string, options: LoadOptions): Promise<ProjectVocabulary> {
  const started = performance.now();
  const [state, user] = await Promise.all([readProjectState(root), readUserVocabulary(root)]);
  const userStamp = JSON.stringify(user);
  const done = (from: VocabularyStats["from"], known: Remembered, cacheError?: string): ProjectVocabulary => ({
    root,
    vocabulary: known.vocabulary,
    stats: {
      from,
      listedBy: known.listedBy,
      files: known.files,
      codePhrases: known.code.length,
      userPhrases: user.length,
      ms: performance.now() - started,
      ...(cacheError === undefined ? {} : { cacheError }),
    },
  });

  const inMemory = remembered.get(root);
  if (inMemory?.fingerprint === state.fingerprint) {
    if (inMemory.userStamp !== userStamp) {
      inMemory.vocabulary = createVocabulary(inMemory.code, user);
      inMemory.userStamp = userStamp;
    }
    return done("memory", inMemory);
  }

  const file = cacheFile(root, options);
  const cached = await readCache(file);
  if (cached?.root === root && cached.fingerprint === state.fingerprint) {
    const code = cached.keys.map((key, i): VocabularyEntry => ({
      key,
      spelling: cached.spellings[i]!,
      count: cached.counts[i]!,
      alternatives: cached.alternatives[i] ?? [],
      source: "code",
      isCode: true,
    }));
    return done("disk", remember(root, state, cached.files, code, user, userStamp));
  }

  const files = await listProjectFiles(root, state);
  const scan = await scanProjectFiles(root, files);
  const code = buildCodeEntries(scan.names);
  const known = remember(root, state, files.length, code, user, userStamp);
  const cacheError = await writeCache(file, {
    version: CACHE_VERSION,
    root,
    fingerprint: state.fingerprint,
    listedBy: state.listedBy,
    files: files.length,
    keys: code.map((entry) => entry.key),
    spellings: code.map((entry) => entry.spelling),
    counts: code.map((entry) => entry.count),
    alternatives: Object.fromEntries(
      code.flatMap((entry, i) => (entry.alternatives.length > 0 ? [[String(i), entry.alternatives]] : [])),
    ),
  });
  return done("scan", known, cacheError);
}

function remember(
  root: string,
  state: ProjectState,
  files: number,
  code: VocabularyEntry[],
  user: Awaited<ReturnType<typeof readUserVocabulary>>,
  userStamp: string,
): Remembered {
  const known: Remembered = {
    fingerprint: state.fingerprint,
    userStamp,
    listedBy: state.listedBy,
    files,
    code,
    vocabulary: createVocabulary(code, user),
  };
  remembered.set(root, known);
  return known;
}

/** Forgets what this process remembers (tests, and a face that wants a cold start). */
export function forgetVocabularies(): void {
  remembered.clear();
}

export function cacheFile(root: string, options: LoadOptions = {}): string {
  const name = createHash("sha256").update(root).digest("hex").slice(0, 24);
  return path.join(options.cacheDir ?? userPaths().cache, "vocabulary", `${name}.json`);
}

/** The cache is Offrun's own: anything unreadable, old or foreign is rebuilt, never an error. */
async function readCache(file: string): Promise<CacheFile | undefined> {
  try {
    const parsed = cacheFileSchema.safeParse(JSON.parse(await fs.readFile(file, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function writeCache(file: string, value: CacheFile): Promise<string | undefined> {
  try {
    await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeTextAtomic(file, JSON.stringify(value) + "\n");
    return undefined;
  } catch (error) {
    return `Could not write the vocabulary cache ${file}: ${describeError(error)}`;
  }
}
