import { cycles, groupGraph, importGraph, sourceFiles, specifiersOf } from "../helpers/import-graph.js";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// No two files of src, and no two rooms of src/core, import each other, even through others and
// even by `import type`: before the rooms were ordered, agents and logins (and eight other pairs)
// did, and two pairs of files in agents and views.

const files = sourceFiles(PROJECT_ROOT, "src");
const graph = importGraph(PROJECT_ROOT, files);
const coreFolder = (file: string) => /^src\/core\/([^/]+)\//.exec(file)?.[1];

test("the graph counts every kind of import, type-only ones too", () => {
  const code = [
    'import type { A } from "./a.js";',
    'import { type B } from "./b.js";',
    'export type { C } from "./c.js";',
    'export * from "./d.js";',
    'const e = () => import("./e.js");',
    'type F = import("./f.js").F;',
  ].join("\n");
  expect(specifiersOf("x.ts", code)).toEqual(["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js"]);
  expect(files.length).toBeGreaterThan(300);
  expect([...graph.values()].reduce((sum, targets) => sum + targets.size, 0)).toBeGreaterThan(1000);
});

test("the circle finder names a circle through three files and leaves a chain alone", () => {
  const g = new Map([
    ["a", new Set(["b"])],
    ["b", new Set(["c"])],
    ["c", new Set(["a", "d"])],
    ["d", new Set<string>()],
  ]);
  expect(cycles(g)).toEqual([["a", "b", "c", "a"]]);
  g.get("c")!.delete("a");
  expect(cycles(g)).toEqual([]);
});

test("no file of src imports itself back through others", () => {
  expect(cycles(graph).map((circle) => circle.join(" -> "))).toEqual([]);
});

test("no room of src/core imports itself back through others", () => {
  const rooms = groupGraph(graph, coreFolder);
  expect(rooms.size).toBeGreaterThan(10);
  expect(cycles(rooms).map((circle) => circle.join(" -> "))).toEqual([]);
});
