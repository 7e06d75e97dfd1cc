import fs from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { isAlive } from "../../src/core/foundation/pids.js";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { eventually, git } from "../helpers/offrun.js";
import { approvedCommand, shown } from "../helpers/sandbox-turns.js";

// A sandboxed turn cannot change what git hands out later. git does not re-hash an object it
// checks out: a turn that could write the shared object store replaced the blob of `setup.sh` as
// committed on main (deleted the loose object, wrote another under the same name), and the next
// `git worktree add` checked the planted content out, outside any sandbox. Now `objects/` is
// read-only in the sandbox and the turn's git writes to a quarantine; a forged object there is
// refused when the turn ends, and a branch that needs it goes back to its last verified commit.
// The real Claude Code, the real sandbox runtime and bubblewrap, against the fake model server.

const SETUP = "#!/bin/sh\necho the real setup\n";

let world: World;
beforeAll(async () => {
  world = await claudeWorld("offrun-objects-", { "README.md": "# demo\n", "setup.sh": SETUP });
  expect(await world.offrun(["companion", "start"])).toSucceed();
});
afterAll(async () => {
  await world.close();
});

/** Node code that writes a git loose object of `content` under the name `id`, in `store`. */
const forge = (store: string, id: string, content: string) => `
{
  const file = path.join(${JSON.stringify(store)}, ${JSON.stringify(id.slice(0, 2))}, ${JSON.stringify(id.slice(2))});
  const body = Buffer.from(${JSON.stringify(content)});
  const bytes = zlib.deflateSync(Buffer.concat([Buffer.from("blob " + body.length + "\\0"), body]));
  try { fs.rmSync(file, { force: true }); fs.mkdirSync(path.dirname(file), { recursive: true }); fs.writeFileSync(file, bytes); console.log("WROTE", file); }
  catch (e) { console.log("REFUSED", file, e.code); }
}`;

test("main's objects cannot be rewritten from the sandbox: the next worktree gets main's own setup.sh", async () => {
  const common = path.join(world.repo, ".git");
  const blob = (await git(world.repo, world.box.env, ["rev-parse", "main:setup.sh"])).trim();
  const script = path.join(world.box.dir, "rewrite-objects.cjs");
  const planted = "#!/bin/sh\ntouch PWNED\n";
  await fs.writeFile(
    script,
    `const fs = require("fs"), path = require("path"), zlib = require("zlib");
${forge(path.join(common, "objects"), blob, planted)}
for (const file of ["info/alternates", "info/commit-graphs/planted", "commit-graph", "pack/multi-pack-index"]) {
  const target = path.join(${JSON.stringify(path.join(common, "objects"))}, file);
  try { fs.mkdirSync(path.dirname(target), { recursive: true }); fs.writeFileSync(target, "planted\\n"); console.log("WROTE", target); }
  catch (e) { console.log("REFUSED", target, e.code); }
}
`,
  );
  const { output, shown: done } = await approvedCommand(world, "claude", "rewriter", `node ${script}`);
  expect(done.agent.status).toBe("idle");

  // What the user's next start and a plain checkout get: main's own content.
  const next = path.join(world.box.dir, "next");
  await execa("git", ["worktree", "add", "-q", "--detach", next, "main"], {
    cwd: world.repo,
    env: world.box.env,
    extendEnv: false,
  });
  expect(await fs.readFile(path.join(next, "setup.sh"), "utf8")).toBe(SETUP);
  expect((await git(world.repo, world.box.env, ["cat-file", "-p", blob])).trim()).toBe(SETUP.trim());
  expect(output).not.toContain("WROTE");
  expect(output).toContain("REFUSED");
});

test("an object forged in the quarantine is refused, and the branch that needs it goes back to its verified commit", async () => {
  const name = "forger";
  const script = path.join(world.box.dir, "forge-quarantine.cjs");
  // The agent commits a file, then rewrites the loose object of that file in its quarantine
  // (GIT_OBJECT_DIRECTORY) with other content under the same name.
  await fs.writeFile(
    script,
    `const fs = require("fs"), path = require("path"), zlib = require("zlib"), { execFileSync } = require("child_process");
const run = (...args) => execFileSync("git", args).toString().trim();
fs.writeFileSync("honest.txt", "what the diff showed\\n");
run("add", "honest.txt");
run("-c", "user.name=Agent", "-c", "user.email=agent@example.com", "commit", "-qm", "looks honest");
const blob = run("rev-parse", "HEAD:honest.txt");
const store = process.env.GIT_OBJECT_DIRECTORY;
console.log("QUARANTINE", store && !store.endsWith(path.join(".git", "objects")) ? "yes" : "no");
const file = path.join(store, blob.slice(0, 2), blob.slice(2));
const body = Buffer.from("something else\\n");
fs.rmSync(file, { force: true });
fs.writeFileSync(file, zlib.deflateSync(Buffer.concat([Buffer.from("blob " + body.length + "\\0"), body])));
console.log("WROTE", file);
console.log("COMMITTED", run("rev-parse", "HEAD"));
`,
  );
  const base = (await git(world.repo, world.box.env, ["rev-parse", "main"])).trim();
  const { output, shown: done } = await approvedCommand(world, "claude", name, `node ${script}`);
  expect(output).toContain("QUARANTINE yes");
  expect(output).toMatch(/WROTE .*offrun-objects/);
  expect(output).toMatch(/COMMITTED [0-9a-f]{40}/);
  // The branch is back at its verified commit (the base: the agent's first turn), and the log says why.
  expect((await git(world.repo, world.box.env, ["rev-parse", `offrun/${name}`])).trim()).toBe(base);
  const notices = done.events.filter((e) => e.type === "notice").map((e) => e.message ?? "");
  expect(notices.join("\n")).toMatch(/its content hashes to/);
  expect(notices.join("\n")).toMatch(/set it back to/);
  // Nothing forged reached the store: the repository is whole.
  await execa("git", ["fsck", "--no-dangling", "--no-progress"], {
    cwd: world.repo,
    env: world.box.env,
    extendEnv: false,
  });

  // The follow-up works: the same agent's next sandboxed turn commits, and its commit is in the repository.
  const again = path.join(world.box.dir, "commit-again.cjs");
  await fs.writeFile(
    again,
    `const { execFileSync } = require("child_process"), fs = require("fs");
fs.writeFileSync("second.txt", "second turn\\n");
execFileSync("git", ["add", "-A"]);
execFileSync("git", ["-c", "user.name=Agent", "-c", "user.email=agent@example.com", "commit", "-qm", "second"]);
console.log("COMMITTED", execFileSync("git", ["rev-parse", "HEAD"]).toString().trim());
`,
  );
  const second = await approvedCommand(world, "claude", name, `node ${again}`, undefined, { send: true });
  expect(second.shown.agent.status).toBe("idle");
  const committed = [...second.output.matchAll(/COMMITTED ([0-9a-f]{40})/g)].at(-1)?.[1];
  expect((await git(world.repo, world.box.env, ["rev-parse", `offrun/${name}`])).trim()).toBe(committed);
  expect((await git(world.repo, world.box.env, ["show", `offrun/${name}:second.txt`])).trim()).toBe("second turn");
  expect((await shown(world, name)).agent.status).toBe("idle");
});

test("while the turn runs its commits show in offrun diff; after a crash the next companion checks and moves them in", async () => {
  const name = "crasher";
  const script = path.join(world.box.dir, "commit-then-wait.cjs");
  await fs.writeFile(
    script,
    `const { execFileSync } = require("child_process"), fs = require("fs");
fs.writeFileSync("crashed.txt", "committed before the crash\\n");
execFileSync("git", ["add", "-A"]);
execFileSync("git", ["-c", "user.name=Agent", "-c", "user.email=agent@example.com", "commit", "-qm", "before the crash"]);
setTimeout(() => {}, 300000);
`,
  );
  world.server.script({ kind: "shell", command: `node ${script}` }, { kind: "text", text: "never reached" });
  expect(
    await world.offrun(["start", "--harness", "claude", "--sandbox", "--name", name, "commit, then work a long time"]),
  ).toSucceed();
  await eventually(async () => ((await shown(world, name)).pending.length > 0 ? true : undefined), 60_000, "the ask");
  expect(await world.offrun(["approve", name])).toSucceed();
  const ref = path.join(world.repo, ".git", "refs", "heads", "offrun", name);
  const base = (await git(world.repo, world.box.env, ["rev-parse", "main"])).trim();
  const committed = await eventually(
    async () => {
      const now = (await fs.readFile(ref, "utf8").catch(() => "")).trim();
      return now && now !== base ? now : undefined;
    },
    60_000,
    "the commit",
  );
  // The commit is in quarantine, not in the store; Offrun's own diff sees it all the same.
  const inStore = await execa("git", ["cat-file", "-e", committed], {
    cwd: world.repo,
    env: world.box.env,
    extendEnv: false,
    reject: false,
  });
  expect(inStore.exitCode).not.toBe(0);
  const diff = await world.offrun(["diff", name]);
  expect(diff).toSucceed();
  expect(diff.stdout).toContain("crashed.txt");

  const pid = Number((await fs.readFile(path.join(world.box.offrunHome, "run", "companion.pid"), "utf8")).trim());
  // The sandbox runtime's socat bridges are the companion's children; they go with it (they stayed, for good).
  const bridges = await childrenNamed(pid, "socat");
  expect(bridges.length).toBeGreaterThan(0);
  process.kill(pid, "SIGKILL");
  world.server.clearScript(); // the reply the killed turn never asked for
  await eventually(async () => (bridges.some(isAlive) ? undefined : true), 5_000, "the bridges to end");
  expect(await world.offrun(["companion", "start"])).toSucceed();
  const after = await eventually(
    async () => {
      const now = await shown(world, name);
      return now.agent.status === "failed" ? now : undefined;
    },
    30_000,
    "the recovery",
  );
  // Recovery moved the checked objects in: the branch kept its commit, and the repository is whole.
  expect((await git(world.repo, world.box.env, ["rev-parse", `offrun/${name}`])).trim()).toBe(committed);
  expect((await git(world.repo, world.box.env, ["show", `${committed}:crashed.txt`])).trim()).toBe(
    "committed before the crash",
  );
  await execa("git", ["fsck", "--no-dangling", "--no-progress"], {
    cwd: world.repo,
    env: world.box.env,
    extendEnv: false,
  });
  await expect(fs.readdir(path.join(world.repo, ".git", "worktrees", name, "offrun-objects"))).rejects.toThrow();
  expect(after.events.filter((e) => e.type === "turn_end").at(-1)?.outcome).toBe("interrupted");
}, 180_000);

test("a branch turned into a link to main is set back, so that no later commit of Offrun's moves main", async () => {
  const name = "linker";
  const ref = path.join(world.repo, ".git", "refs", "heads", "offrun", name);
  const main = (await git(world.repo, world.box.env, ["rev-parse", "main"])).trim();
  const { output, shown: done } = await approvedCommand(
    world,
    "claude",
    name,
    `node -e 'require("fs").writeFileSync(${JSON.stringify(ref)}, "ref: refs/heads/main\\n"); console.log("LINKED")'`,
  );
  expect(output).toContain("LINKED");
  expect((await fs.readFile(ref, "utf8")).trim()).toMatch(/^[0-9a-f]{40}$/);
  expect(done.events.some((e) => e.type === "notice" && /set it back to/.test(e.message ?? ""))).toBe(true);
  // A plain branch again, and main where it was.
  const linked = await execa("git", ["symbolic-ref", "-q", `refs/heads/offrun/${name}`], {
    cwd: world.repo,
    env: world.box.env,
    extendEnv: false,
    reject: false,
  });
  expect(linked.exitCode).not.toBe(0);
  expect((await git(world.repo, world.box.env, ["rev-parse", "main"])).trim()).toBe(main);
});

test("another agent's packed branch cannot be replaced from the sandbox, and refs made beside the turn's own are removed", async () => {
  // Broke: after `git pack-refs` (a `git gc` does it) another agent's branch had no loose file to
  // hold read-only, and a loose one the turn wrote under its name took its place; other files the
  // turn made beside its own ref stayed, each read by git as a branch.
  world.server.script({ kind: "text", text: "The victim's turn." });
  expect(await world.offrun(["start", "--no-sandbox", "--wait", "--name", "packed-victim", "hi"])).toSucceed();
  const victimTip = (await git(world.repo, world.box.env, ["rev-parse", "offrun/packed-victim"])).trim();
  await git(world.repo, world.box.env, ["pack-refs", "--all"]);
  const heads = path.join(world.repo, ".git", "refs", "heads", "offrun");
  await expect(fs.access(path.join(heads, "packed-victim"))).rejects.toThrow();

  const script = path.join(world.box.dir, "write-refs.cjs");
  await fs.writeFile(
    script,
    `const fs = require("fs"), path = require("path"), { execFileSync } = require("child_process");
const run = (...args) => execFileSync("git", args).toString().trim();
run("-c", "user.name=Agent", "-c", "user.email=agent@example.com", "commit", "--allow-empty", "-qm", "mine");
const mine = run("rev-parse", "HEAD");
const heads = ${JSON.stringify(heads)};
for (const name of ["packed-victim", "next-agent", "planted.sh"]) {
  try { fs.writeFileSync(path.join(heads, name), mine + "\\n"); console.log("WROTE", name); }
  catch (e) { console.log("REFUSED", name, e.code); }
}
`,
  );
  const { output, shown: done } = await approvedCommand(world, "claude", "ref-writer", `node ${script}`);
  expect(done.agent.status).toBe("idle");
  expect(output).toMatch(/REFUSED packed-victim/);
  expect((await git(world.repo, world.box.env, ["rev-parse", "offrun/packed-victim"])).trim()).toBe(victimTip);
  // What the turn made beside its own ref is gone, and said.
  expect(output).toMatch(/WROTE next-agent/);
  await expect(fs.access(path.join(heads, "next-agent"))).rejects.toThrow();
  await expect(fs.access(path.join(heads, "planted.sh"))).rejects.toThrow();
  const notices = done.events.filter((e) => e.type === "notice").map((e) => e.message ?? "");
  expect(notices.join("\n")).toContain(
    "refs/heads/offrun/next-agent in the git folder, beside its branch's ref; Offrun removed it",
  );
  // The follow-up: an agent of that name starts on main, and the victim goes on.
  world.server.script({ kind: "text", text: "Next." });
  expect(await world.offrun(["start", "--no-sandbox", "--wait", "--name", "next-agent", "hi"])).toSucceed();
  const main = (await git(world.repo, world.box.env, ["rev-parse", "main"])).trim();
  expect((await git(world.repo, world.box.env, ["rev-parse", "offrun/next-agent"])).trim()).toBe(main);
  world.server.script({ kind: "text", text: "Victim again." });
  expect(await world.offrun(["send", "--wait", "packed-victim", "again"])).toSucceed();
});

/** The processes whose parent is `parent` and whose program is `name` (Linux's /proc). */
async function childrenNamed(parent: number, name: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z" || Number(ppid) !== parent) continue;
    const argv0 = (await fs.readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).split("\0")[0] ?? "";
    if (path.basename(argv0) === name) found.push(Number(entry));
  }
  return found;
}
