/**
 * Where the CLI's boot (src/cli/boot.ts) leaves an `import()` of its own for the bundle. The bundle
 * runs through `vm.Script`, and on Node 20 a script made from V8's cached data loses its
 * `importModuleDynamically`: every `import()` inside it then throws
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING, from the second start on (the first writes the cache).
 * The boot file itself is an ordinary CommonJS module, whose `import()` always works, and it sits
 * beside the bundle, so a package name resolves from the same folder.
 */
export const IMPORT_HOOK = Symbol.for("offrun.import");

type Importer = (specifier: string) => Promise<unknown>;

/**
 * Loads an ES module that the bundle keeps outside (the sandbox runtime): through the boot's
 * `import()` when the CLI was started by it, else (tests, the benchmarks) through this module's own.
 */
export async function importEsm<T>(specifier: string): Promise<T> {
  const hook = (globalThis as { [IMPORT_HOOK]?: Importer })[IMPORT_HOOK];
  return (await (hook ? hook(specifier) : import(specifier))) as T;
}
