import fs from "node:fs/promises";
import path from "node:path";
import { eventually, makeRepo, makeSandbox, runOffrun, type Sandbox } from "../helpers/offrun.js";

// Files an older Offrun made (0644 in 0755 folders) are user-only after the next
// companion start; what the user commits, worktrees and the CLIs' own login homes keep their modes.

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox("offrun-tight-");
});
afterAll(async () => {
  await box.cleanup();
});

const modeOf = async (file: string) => (await fs.lstat(file)).mode & 0o777;

async function writeOld(file: string, text = "{}\n"): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o755 });
  await fs.writeFile(file, text);
  await fs.chmod(file, 0o644);
  return file;
}

test("the next companion start makes the files and folders an older Offrun left open user-only", async () => {
  const repo = await makeRepo(path.join(box.dir, "repo"), box.env);
  const home = box.offrunHome;
  const offrun = (...args: string[]) => runOffrun(args, { env: box.env, cwd: repo });
  const projects = { version: 1, projects: [{ root: repo, lastUsedAt: "2026-11-30T03:00:00.000Z" }] };
  const old = await Promise.all([
    writeOld(path.join(home, "projects.json"), JSON.stringify(projects)),
    writeOld(path.join(home, "companion.log"), "an old line\n"),
    writeOld(path.join(home, "cache", "sources", "claude", "default", "x", "cache.json")),
    writeOld(path.join(repo, ".offrun", "chats", "fin.jsonl"), ""),
    writeOld(path.join(repo, ".offrun", "agents", "drafts", "fin.md"), "a draft\n"),
    writeOld(path.join(repo, ".offrun", "agents", "reviews", "fin-1.jsonl"), ""),
    writeOld(path.join(repo, ".offrun", "agents", "logs", "fin.log"), "set up\n"),
    writeOld(path.join(repo, ".offrun", "memory-snapshots", "blobs", "a".repeat(64)), "old memory\n"),
  ]);
  const kept = await Promise.all([
    writeOld(path.join(repo, ".offrun", "config.json")),
    writeOld(path.join(repo, ".offrun", "memory", "conventions.md"), "# Conventions\n"),
    writeOld(path.join(repo, ".worktrees", "fin", "src.ts"), "export {};\n"),
    // A login's home holds its CLI's own files, which the start does not walk.
    writeOld(path.join(home, "accounts", "claude", "work", "settings.json")),
  ]);
  const loginHome = path.join(home, "accounts", "claude", "work");
  // A symlink in a private folder: changing it would change what it points at.
  const outside = await writeOld(path.join(box.dir, "outside.txt"), "not Offrun's\n");
  await fs.symlink(outside, path.join(repo, ".offrun", "chats", "link.jsonl"));
  await fs.chmod(home, 0o755);

  expect(await offrun("companion", "start")).toSucceed();
  // Requests wait for the start's work, the tightening included.
  expect(await offrun("companion", "status")).toSucceed();

  for (const file of old) expect({ file, mode: await modeOf(file) }).toEqual({ file, mode: 0o600 });
  const folders = [
    home,
    path.join(home, "cache"),
    path.join(home, "cache", "sources", "claude", "default", "x"),
    path.join(home, "accounts"),
    path.join(home, "accounts", "claude"),
    loginHome,
    path.join(repo, ".offrun", "chats"),
    path.join(repo, ".offrun", "agents"),
    path.join(repo, ".offrun", "agents", "drafts"),
    path.join(repo, ".offrun", "agents", "reviews"),
    path.join(repo, ".offrun", "agents", "logs"),
    path.join(repo, ".offrun", "memory-snapshots"),
    path.join(repo, ".offrun", "memory-snapshots", "blobs"),
  ];
  for (const dir of folders) expect({ dir, mode: await modeOf(dir) }).toEqual({ dir, mode: 0o700 });

  for (const file of kept) expect({ file, mode: await modeOf(file) }).toEqual({ file, mode: 0o644 });
  for (const dir of [path.join(repo, ".offrun"), path.join(repo, ".offrun", "memory"), path.join(repo, ".worktrees")])
    expect({ dir, mode: await modeOf(dir) }).toEqual({ dir, mode: 0o755 });
  expect(await modeOf(outside)).toBe(0o644);

  const log = await eventually(async () => {
    const text = await fs.readFile(path.join(home, "companion.log"), "utf8");
    return text.includes("private: took group and other access off") ? text : undefined;
  });
  expect(log).toMatch(/private: took group and other access off .+ and \d+ more/);
});
