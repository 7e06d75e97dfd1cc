import { importGraph, sourceFiles } from "../helpers/import-graph.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";
import { MIRRORS, mirroredModule, mirrorProblems } from "../helpers/test-mirror.js";

// A test of one module sits at that module's path under its kind folder (docs/development.md):
// tests were filed by kind only, and nothing told which of them tested src/core/git/merge.ts.

const srcFiles = sourceFiles(PROJECT_ROOT, "src");
const testFiles = MIRRORS.flatMap((m) => sourceFiles(PROJECT_ROOT, m.tests)).filter((f) => /\.test\.tsx?$/.test(f));
const graph = importGraph(PROJECT_ROOT, [...srcFiles, ...testFiles]);
const srcSet = new Set(srcFiles);
const importsOf = (file: string) => graph.get(file) ?? new Set<string>();

test("every test at a module's path names a file of src and imports it", () => {
  const mirrored = testFiles.filter((file) => mirroredModule(file, srcSet)?.module);
  expect(mirrored.length).toBeGreaterThan(70);
  expect(mirrorProblems(testFiles, srcSet, importsOf)).toEqual([]);
});

test("a test moved to a wrong path is named, one that spans modules at the top is not", () => {
  const real = "test/integration/core/git/discover.test.ts";
  expect(importsOf(real).has("src/core/git/discover.ts")).toBe(true);
  // The same test, with the same imports, at paths it does not belong to.
  const movedTo = (wrong: string) => mirrorProblems([wrong], srcSet, (f) => importsOf(f === wrong ? real : f));
  expect(movedTo("test/integration/core/git/discovery.test.ts")).toEqual([
    "test/integration/core/git/discovery.test.ts names no file of src (src/core/git/discovery.ts): move it to the path of the module it tests, or to the top of test/integration/ if it spans modules",
  ]);
  expect(movedTo("test/integration/git/discover.test.ts")).toHaveLength(1);
  expect(movedTo("test/integration/core/git/merge.test.ts")).toEqual([
    "test/integration/core/git/merge.test.ts sits at src/core/git/merge.ts's path but does not import it: move it to the module it tests",
  ]);
  expect(movedTo("test/integration/core/git/discover.found-by-symlink.test.ts")).toEqual([]);
  expect(movedTo("test/integration/discover-and-more.test.ts")).toEqual([]);
});

test("a module reached through its folder's index.ts counts as imported", () => {
  const parser = "test/unit/harnesses/claude/parser.test.ts";
  expect(importsOf(parser).has("src/harnesses/claude/parser.ts")).toBe(false);
  expect(mirrorProblems([parser], srcSet, importsOf)).toEqual([]);
  // test/commands mirrors src/commands: its Agents tests name src/commands/agents.tsx.
  expect(mirroredModule("test/commands/agents.actions.test.tsx", srcSet)?.module).toBe("src/commands/agents.tsx");
});
