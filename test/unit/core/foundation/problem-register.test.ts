import fs from "node:fs/promises";
import path from "node:path";
import { userPaths } from "../../../../src/core/foundation/paths.js";
import {
  keepStateProblem,
  keptStateProblems,
  REPAIRED_SHOWN_MS,
} from "../../../../src/core/foundation/problem-register.js";

// What broke: a file the companion found damaged was named in companion.log and nowhere else. A
// later `offrun ls` or the menu bar read nothing of it, and once the companion had repaired the
// file (projects.json, the quota cache, state.json) nothing could. The register keeps each problem
// for the faces, and shows it only while it holds: a file fixed by hand drops out at once.

const home = () => userPaths().home;

beforeEach(async () => {
  await fs.rm(home(), { recursive: true, force: true });
  await fs.mkdir(home(), { recursive: true });
});

test("a damaged file is shown while it is as it was found, and no longer once it is fixed", async () => {
  const file = path.join(home(), "hosts.json");
  await fs.writeFile(file, '{"version": 1, "hosts": [{"name": "dev');
  await keepStateProblem({ file, message: `${file} is not valid JSON.` });
  expect(await keptStateProblems()).toEqual([{ file, message: `${file} is not valid JSON.` }]);

  await fs.writeFile(file, '{"version": 1, "hosts": []}\n');
  expect(await keptStateProblems()).toEqual([]);
});

test("a repaired file is told for a day, then no longer", async () => {
  const file = path.join(home(), "projects.json");
  const at = Date.parse("2026-12-05T10:00:00Z");
  await keepStateProblem({ file, message: "rebuilt", repaired: true }, at);
  expect(await keptStateProblems(at + 60_000)).toEqual([{ file, message: "rebuilt", repaired: true }]);
  expect(await keptStateProblems(at + REPAIRED_SHOWN_MS + 1)).toEqual([]);
});

test("a newer problem of the same file takes the older's place; what no longer holds is dropped on write", async () => {
  const a = path.join(home(), "accounts.json");
  const b = path.join(home(), "hosts.json");
  await fs.writeFile(a, "");
  await fs.writeFile(b, "{");
  await keepStateProblem({ file: a, message: "empty" });
  await keepStateProblem({ file: b, message: "cut short" });
  await keepStateProblem({ file: a, message: "still empty" });
  expect((await keptStateProblems()).map((p) => p.message)).toEqual(["cut short", "still empty"]);

  await fs.writeFile(b, "{}");
  await keepStateProblem({ file: a, message: "empty again" });
  const register = JSON.parse(await fs.readFile(path.join(home(), "problems.json"), "utf8")) as {
    problems: { file: string }[];
  };
  expect(register.problems.map((p) => p.file)).toEqual([a]);
});

test("problems kept at once are all written (one write after another)", async () => {
  const files = Array.from({ length: 6 }, (_, i) => path.join(home(), `f${i}.json`));
  await Promise.all(files.map((file) => fs.writeFile(file, "x")));
  await Promise.all(files.map((file) => keepStateProblem({ file, message: `bad ${path.basename(file)}` })));
  expect((await keptStateProblems()).map((p) => p.file).sort()).toEqual([...files].sort());
});

test("a damaged register is no problem to tell of: it reads as none, and the next problem writes it anew", async () => {
  const register = path.join(home(), "problems.json");
  await fs.writeFile(register, "{ not json");
  expect(await keptStateProblems()).toEqual([]);
  const file = path.join(home(), "accounts.json");
  await fs.writeFile(file, "");
  await keepStateProblem({ file, message: "empty" });
  expect(await keptStateProblems()).toEqual([{ file, message: "empty" }]);
});
