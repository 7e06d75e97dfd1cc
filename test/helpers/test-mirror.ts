import path from "node:path";

/**
 * Where the tests of one module sit (docs/development.md, "Tests and checks"): under each kind
 * folder, at the module's path. `test/unit/core/quota/pace.test.ts` tests `src/core/quota/pace.ts`,
 * and so would `test/unit/core/quota/pace.<aspect>.test.ts`; `test/commands/` mirrors
 * `src/commands/`. A test that spans modules sits at the top of its kind folder.
 */
export const MIRRORS = [
  { tests: "test/unit", src: "src" },
  { tests: "test/integration", src: "src" },
  { tests: "test/commands", src: "src/commands" },
] as const;

/** The src file a test's path names (`.ts` or `.tsx`), or undefined; `nested` when below the top of its kind folder. */
export function mirroredModule(
  testFile: string,
  srcFiles: ReadonlySet<string>,
): { kind: string; stem: string; module?: string; nested: boolean } | undefined {
  const mirror = MIRRORS.find((m) => testFile.startsWith(`${m.tests}/`));
  if (!mirror) return undefined;
  const rest = testFile.slice(mirror.tests.length + 1);
  const folder = path.posix.dirname(rest);
  const name = path.posix.basename(rest).split(".")[0]!;
  const stem = path.posix.join(mirror.src, folder, name);
  const module = [`${stem}.ts`, `${stem}.tsx`].find((file) => srcFiles.has(file));
  return { kind: mirror.tests, stem, module, nested: folder !== "." };
}

/**
 * What is wrong with where the tests sit: a nested test that names no src file, or a test at a
 * module's path that imports neither the module nor its folder's index.ts that imports it.
 */
export function mirrorProblems(
  testFiles: readonly string[],
  srcFiles: ReadonlySet<string>,
  importsOf: (file: string) => ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const file of testFiles) {
    const mirrored = mirroredModule(file, srcFiles);
    if (!mirrored) continue;
    const { kind, stem, module, nested } = mirrored;
    if (!module) {
      if (nested) {
        problems.push(
          `${file} names no file of src (${stem}.ts): move it to the path of the module it tests, or to the top of ${kind}/ if it spans modules`,
        );
      }
      continue;
    }
    const imports = importsOf(file);
    const index = path.posix.join(path.posix.dirname(module), "index.ts");
    if (imports.has(module) || (imports.has(index) && importsOf(index).has(module))) continue;
    problems.push(`${file} sits at ${module}'s path but does not import it: move it to the module it tests`);
  }
  return problems;
}
