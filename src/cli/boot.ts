import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { IMPORT_HOOK } from "../core/foundation/esm-import.js";
import { PRIVATE_DIR_MODE } from "../core/foundation/private-files.js";
import { offrunHome } from "../core/foundation/paths.js";
import { runsQuick } from "./quick-words.js";

/**
 * Starts the CLI (and the companion, which is the CLI too) from a bundle with V8's code cache:
 * build/cli-quick.cjs for the everyday commands (quick-words.ts), build/cli.cjs for the others.
 * Every `offrun` is a new process, and a start pays for the size of the bundle it loads (reading,
 * and the cache's functions) and, without the cache, for compiling it: Node's own compile cache
 * (module.enableCompileCache) does not reach code run through vm. The cache
 * holds what a run of one command compiled, so there is one per bundle and command word (`ls`,
 * `start`, `companion`, ...), each under a megabyte, in the user's private ~/.offrun/cache/compile.
 * Its name carries the bundles' sizes and time and the Node version, so a rebuilt CLI or another
 * Node never reads it; V8 itself turns down a cache of another version, other flags or another
 * source length, or one that is not whole (caches are written under another name and renamed),
 * and that one is written again.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
/** Every command; and the everyday ones alone (quick-words.ts), half the size, so quicker to start. */
const WHOLE = path.join(here, "cli.cjs");
const QUICK = path.join(here, "cli-quick.cjs");
/**
 * The wrapper Node puts around a CommonJS module. The build writes it into each bundle, on its
 * first line so that its lines keep their numbers (scripts/build-cli.mjs, wrapForBoot): the text is
 * compiled as read, with no megabyte-long copy to join the two.
 */
const WRAPPER = "(function (exports, require, module, __filename, __dirname) { ";

export async function boot(argv: string[]): Promise<void> {
  const quick = runsQuick(argv);
  const bundle = quick ? QUICK : WHOLE;
  // The build writes the bundle in ASCII (escaping the rest): read as latin1, it is a tenth of the time of UTF-8.
  const source = fs.readFileSync(bundle, "latin1");
  if (!source.startsWith(WRAPPER)) {
    throw new Error(`${bundle} was not built for this boot. Run \`npm run build:cli\` in the Offrun checkout.`);
  }
  const cacheFile = cachePath(`${quick ? "quick-" : ""}${commandWord(argv)}`);
  const cachedData = readCache(cacheFile);
  const script = new vm.Script(source, {
    filename: bundle,
    columnOffset: -WRAPPER.length,
    ...(cachedData ? { cachedData } : {}),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // At exit the cache holds everything this command compiled, not only the bundle's top level.
  if (cachedData === undefined || script.cachedDataRejected) process.once("exit", () => writeCache(script, cacheFile));
  // The bundle's own import() is gone when the script came from the cache (Node 20): it uses this one.
  Object.defineProperty(globalThis, IMPORT_HOOK, { value: (specifier: string) => import(specifier) });
  const module = { exports: {} as { main(argv: string[]): Promise<void> } };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    here,
  );
  await module.exports.main(argv);
}

/** The command word a cache is for (the first argument that looks like one); `offrun --help` and the like share one. */
export function commandWord(argv: string[]): string {
  return argv.slice(2).find((a) => /^[a-z][a-z-]{0,30}$/.test(a)) ?? "other";
}

/**
 * One name per build and Node: a rebuilt CLI or another Node never reads the last one's cache. The
 * build is both bundles' sizes and the time they were written, so that the caches of one bundle
 * never clear away the other's.
 */
function cachePath(word: string): CacheFile {
  const [whole, quick] = [fs.statSync(WHOLE), fs.statSync(QUICK)];
  const build = `${process.version}_${process.arch}_${whole.size}_${quick.size}_${Math.trunc(whole.mtimeMs)}`.replace(
    /[^\w.]/g,
    "_",
  );
  const dir = path.join(offrunHome(), "cache", "compile");
  return { dir, build, file: path.join(dir, `${build}-${word}.v8`) };
}

interface CacheFile {
  dir: string;
  /** What every cache of this build and Node starts with: v20.20.2_x64_1865597_891204_1764705061123 */
  build: string;
  file: string;
}

function readCache({ file }: CacheFile): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Written whole under another name and then renamed, so that a process starting meanwhile reads
 * the old cache or the new one, never half of one; the caches of other builds go. A cache that
 * cannot be written (a read-only home, a full disk) is no error: the next start compiles again.
 */
function writeCache(script: vm.Script, { dir, build, file }: CacheFile): void {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    for (const old of fs.readdirSync(dir)) {
      if (!old.startsWith(`${build}-`)) fs.rmSync(path.join(dir, old), { force: true });
    }
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
    fs.renameSync(partial, file);
  } catch {
    // No cache this time.
  }
}
