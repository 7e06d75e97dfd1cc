import fs from "node:fs/promises";
import path from "node:path";
import { codexWorld, type World } from "../helpers/e2e.js";
import { git, runOffrun } from "../helpers/offrun.js";

// The real Codex CLI against the fake model server, driven through the real `offrun` CLI.

let world: World;
let box: World["box"];
let server: World["server"];
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  world = await codexWorld("offrun-e2e-codex-", { "README.md": "# demo\n", "billing.ts": "export {};\n" });
  ({ box, server, repo, env } = world);
});

afterAll(async () => {
  await world.close();
});

const offrun = (...args: string[]) => world.offrun(args);

test("a Build turn writes a file in the worktree only, and merge brings it to the main checkout", async () => {
  const worktree = path.join(repo, ".worktrees", "notes");
  server.script({ kind: "write_file", path: path.join(worktree, "notes.md"), content: "codex was here" });
  const started = await offrun("start", "--harness", "codex", "--wait", "--name", "notes", "write notes.md");
  expect(started.stderr).toBe("");
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(worktree, "notes.md"), "utf8")).toContain("codex was here");
  await expect(fs.access(path.join(repo, "notes.md"))).rejects.toThrow();

  expect(await offrun("merge", "notes")).toSucceed();
  expect(await fs.readFile(path.join(repo, "notes.md"), "utf8")).toContain("codex was here");
  const subject = (await git(repo, box.env, ["log", "-1", "--format=%s", "offrun/notes"])).trim();
  expect(subject).toBe("offrun: notes: write notes.md");
});

test("send resumes the Codex thread with the whole history", async () => {
  server.script({ kind: "text", text: "Split it by invoice and payment." });
  const first = await offrun(
    "start",
    "--harness",
    "codex",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "split",
    "how would you split billing.ts?",
  );
  expect(first).toSucceed();
  expect(first.stdout).toContain("Split it by invoice and payment.");

  const before = server.turnRequests().length;
  server.script({ kind: "text", text: "Payments first." });
  const second = await offrun("send", "--wait", "split", "which part first?");
  expect(second).toSucceed();
  const body = JSON.stringify(server.turnRequests().slice(before).at(-1)!.body);
  expect(body).toContain("how would you split billing.ts?");
  expect(body).toContain("Split it by invoice and payment.");
  expect(body).toContain("which part first?");

  const worktree = path.join(repo, ".worktrees", "split");
  expect(await git(worktree, box.env, ["status", "--porcelain"])).toBe("");
});

test("a Planner turn cannot write, even when the model tries", async () => {
  const worktree = path.join(repo, ".worktrees", "readonly");
  server.script({ kind: "write_file", path: path.join(worktree, "nope.md"), content: "should not exist" });
  const result = await offrun(
    "start",
    "--harness",
    "codex",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "readonly",
    "plan only",
  );
  expect([0, 1]).toContain(result.exitCode);
  await expect(fs.access(path.join(worktree, "nope.md"))).rejects.toThrow();
  expect(await git(worktree, box.env, ["status", "--porcelain"])).toBe("");
});

test("a prompt of 200 KB reaches Codex whole, through stdin", async () => {
  const prompt = `BEGIN ${"dolor sit amet ".repeat(14_000)} END`;
  const file = path.join(box.dir, "prompt.txt");
  await fs.writeFile(file, prompt);
  server.script({ kind: "text", text: "Got the long prompt." });
  const before = server.turnRequests().length;
  const result = await runOffrun(["start", "--harness", "codex", "--wait", "--name", "long", "--prompt-file", file], {
    env,
    cwd: repo,
  });
  expect(result).toSucceed();
  expect(result.stdout).toContain("Got the long prompt.");
  expect(JSON.stringify(server.turnRequests()[before]!.body)).toContain(prompt);
});
