import fs from "node:fs/promises";
import path from "node:path";
import { checkProjectFolder, initRepository } from "../../../../src/core/git/project-folder.js";
import { git, makeRepo, makeSandbox, useSandboxInProcess, type Sandbox } from "../../../helpers/offrun.js";

// A folder picked in Start Agent's Add Project… (core/git/project-folder.ts), against real git.

let box: Sandbox;
beforeEach(async () => {
  box = await makeSandbox("offrun-folder-");
  useSandboxInProcess(box);
});
afterEach(async () => {
  await box.cleanup();
});

test("a folder in a repository is that repository, from its top or a folder in it", async () => {
  const root = await fs.realpath(await makeRepo(path.join(box.home, "app"), box.env, { "src/a.ts": "export {};\n" }));
  expect(await checkProjectFolder(root)).toEqual({ kind: "repository", root });
  expect(await checkProjectFolder(path.join(root, "src"))).toEqual({ kind: "repository", root });
});

test("a plain folder is made a repository with an empty first commit, leaving the user's files uncommitted", async () => {
  await fs.mkdir(path.join(box.home, "idea"));
  const dir = await fs.realpath(path.join(box.home, "idea"));
  await fs.writeFile(path.join(dir, "notes.md"), "# idea\n");
  expect(await checkProjectFolder(dir)).toEqual({ kind: "not-a-repository", dir });
  expect(await initRepository(dir)).toBe(dir);
  expect(await checkProjectFolder(dir)).toEqual({ kind: "repository", root: dir });
  expect((await git(dir, box.env, ["log", "--format=%s"])).trim()).toBe("Initial commit");
  expect(await git(dir, box.env, ["status", "--porcelain"])).toBe("?? notes.md");
  // Again: nothing more is made.
  const head = await git(dir, box.env, ["rev-parse", "HEAD"]);
  expect(await initRepository(dir)).toBe(dir);
  expect(await git(dir, box.env, ["rev-parse", "HEAD"])).toBe(head);
});

test("a repository without commits says so, and gets its first commit", async () => {
  const dir = path.join(box.home, "fresh");
  await fs.mkdir(dir);
  await git(dir, box.env, ["init", "-q"]);
  const root = await fs.realpath(dir);
  expect(await checkProjectFolder(dir)).toEqual({ kind: "no-commits", root });
  expect(await initRepository(dir)).toBe(root);
  expect(await checkProjectFolder(dir)).toEqual({ kind: "repository", root });
});
