import fs from "node:fs";
import path from "node:path";
import { PROJECT_ROOT } from "../helpers/offrun.js";

// Comments cited design notes kept outside the repository and the numbers of a tracker a reader
// does not see; they cite this repository's docs/ now, or say the fact themselves.

const TREES = ["src", "bench", "scripts", "docs", "test"];
// What the CLIs recorded (fixtures) is their text, not ours.
const NOT_OURS = [path.join("test", "fixtures")];
const FILES = ["eslint.config.js", "README.md", "CHANGELOG.md", "package.json", ".ci/run"];
const TEXT = /\.(?:ts|tsx|js|mjs|cjs|json|md)$/;

const FOREIGN = [
  {
    what: "a design note kept outside the repository",
    pattern: /\b(?:HARNESSES|DESIGN|STYLE|RAYCAST)\.md\b|\/work\/shared\b/,
  },
  { what: "an issue number", pattern: /\b[Ii]ssues? ?#?\d+/ },
];
// A path that starts at `docs/` (not inside another repository's path such as `pager/docs/`).
const DOCS_PATH = /(?<![\w./-])docs\/[\w./-]+?\.md\b/g;

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const skip = entry.name === "node_modules" || NOT_OURS.includes(path.relative(PROJECT_ROOT, full));
      return skip ? [] : filesUnder(full);
    }
    return TEXT.test(entry.name) ? [full] : [];
  });
}

const scanned = [
  ...TREES.flatMap((tree) => filesUnder(path.join(PROJECT_ROOT, tree))),
  ...FILES.map((file) => path.join(PROJECT_ROOT, file)).filter((file) => fs.existsSync(file)),
];
const lines = (file: string) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .map((text, i) => ({ where: `${path.relative(PROJECT_ROOT, file)}:${i + 1}`, text }));

test("the scan reaches the sources, the benchmarks, the scripts, the docs and the tests", () => {
  const relative = scanned.map((file) => path.relative(PROJECT_ROOT, file));
  for (const tree of TREES) expect(relative.filter((file) => file.startsWith(`${tree}/`)).length).toBeGreaterThan(0);
  expect(relative).toEqual(expect.arrayContaining(["eslint.config.js", "README.md"]));
});

test.each(FOREIGN)("nothing the repository ships cites $what", ({ pattern }) => {
  const found = scanned.flatMap((file) =>
    lines(file)
      .filter((line) => pattern.test(line.text))
      .map((line) => `${line.where}: ${line.text.trim()}`),
  );
  expect(found).toEqual([]);
});

test("every docs/ page a source, benchmark, script or test cites exists", () => {
  const code = scanned.filter((file) => !file.endsWith(".md") && !file.startsWith(path.join(PROJECT_ROOT, "docs")));
  const cited = code.flatMap((file) =>
    lines(file).flatMap((line) => [...line.text.matchAll(DOCS_PATH)].map((match) => ({ ...line, page: match[0] }))),
  );
  expect(cited.length).toBeGreaterThan(5);
  const missing = cited
    .filter(({ page }) => !fs.existsSync(path.join(PROJECT_ROOT, page)))
    .map(({ where, page }) => `${where}: ${page}`);
  expect(missing).toEqual([]);
});
