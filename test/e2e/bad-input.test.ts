import fs from "node:fs/promises";
import path from "node:path";
import { claudeWorld, type World } from "../helpers/e2e.js";
import { git, makeRepo, makeSandbox, runOffrun } from "../helpers/offrun.js";

// Each kind of bad input gets a clear message that says what to do, and nothing logged is lost.

let world: World;
let box: World["box"];
let server: World["server"];
let repo: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  world = await claudeWorld("offrun-e2e-bad-");
  ({ box, server, repo, env } = world);
});

afterAll(async () => {
  await world.close();
});

const offrun = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd = repo) =>
  world.offrun(args, { env: extraEnv, cwd });

test("a missing CLI says how to install it and creates nothing", async () => {
  // Its own OFFRUN_HOME: the companion it starts keeps the environment it was started with.
  const other = await makeSandbox("offrun-e2e-nocli-");
  try {
    const result = await runOffrun(["start", "--name", "nocli", "do something"], {
      env: { ...env, OFFRUN_HOME: other.offrunHome, OFFRUN_CLAUDE_BIN: path.join(box.dir, "no-such-claude") },
      cwd: repo,
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("npm install -g @anthropic-ai/claude-code");
    await expect(fs.access(path.join(repo, ".worktrees", "nocli"))).rejects.toThrow();
  } finally {
    await runOffrun(["companion", "stop"], { env: { ...env, OFFRUN_HOME: other.offrunHome } });
    await other.cleanup();
  }
});

test("hostile agent names are refused before anything is created", async () => {
  for (const name of ["../../etc", "-rf", "a b", ".hidden"]) {
    const result = await offrun(["start", "--name", name, "task"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/name/i);
  }
  const worktrees = await fs.readdir(path.join(repo, ".worktrees")).catch(() => []);
  expect(worktrees).toEqual([]);
});

test("a prompt of 200 KB reaches the model whole, through stdin rather than argv", async () => {
  const prompt = `BEGIN ${"lorem ipsum ".repeat(17_000)} END`;
  expect(prompt.length).toBeGreaterThan(200_000);
  const file = path.join(box.dir, "prompt.txt");
  await fs.writeFile(file, prompt);
  server.script({ kind: "text", text: "Read it all." });
  const before = server.turnRequests().length;
  const result = await offrun(["start", "--wait", "--name", "huge", "--prompt-file", file]);
  expect(result).toSucceed();
  expect(result.stdout).toContain("Read it all.");
  expect(JSON.stringify(server.turnRequests()[before]!.body)).toContain(prompt);
  const chat = await fs.readFile(path.join(repo, ".offrun", "chats", "huge.jsonl"), "utf8");
  expect(chat).toContain(prompt);
});

test("a mistyped command is named, with the nearest command, not 'too many arguments'", async () => {
  const typo = await offrun(["strat", "fix the build"]);
  expect(typo.exitCode).toBe(2);
  expect(typo.stderr).toContain("unknown command 'strat' (did you mean start?)");
  const nonsense = await offrun(["frobnicate"]);
  expect(nonsense.exitCode).toBe(2);
  expect(nonsense.stderr).toContain("unknown command 'frobnicate'");
  expect(nonsense.stderr).not.toContain("did you mean");
});

test("an empty prompt says what to write", async () => {
  const result = await offrun(["start", "--name", "empty"]);
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain("Say what the agent should do");
});

test("a folder that is not a git repository is named, with the fix", async () => {
  const plain = path.join(box.dir, "plain");
  await fs.mkdir(plain, { recursive: true });
  const result = await offrun(["start", "task"], {}, plain);
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain("not inside a git repository");
  const ls = await offrun(["ls", "--project", plain]);
  expect(ls.stderr).toContain("not inside a git repository");
});

test("an invalid .offrun/config.json names the file, the field and the fix", async () => {
  const other = await makeRepo(path.join(box.dir, "badconfig"), box.env);
  await fs.mkdir(path.join(other, ".offrun"), { recursive: true });
  await fs.writeFile(
    path.join(other, ".offrun", "config.json"),
    JSON.stringify({ branchPrefix: "bad prefix!", setup: "npm ci" }),
  );
  const result = await offrun(["start", "task"], {}, other);
  expect(result.exitCode).toBe(1);
  expect(result.stderr).toContain(path.join(other, ".offrun", "config.json"));
  expect(result.stderr).toContain("branchPrefix");
  expect(result.stderr).toContain("setup");
});

test("a detached HEAD can start an agent, and merge into it is refused with the fix", async () => {
  const detached = await makeRepo(path.join(box.dir, "detached"), box.env);
  await git(detached, box.env, ["checkout", "-q", "--detach"]);
  server.script({ kind: "text", text: "ok" });
  const started = await offrun(["start", "--wait", "--name", "det", "look around"], {}, detached);
  expect(started).toSucceed();
  const merged = await offrun(["merge", "det"], {}, detached);
  expect(merged.exitCode).not.toBe(0);
  expect(merged.stderr).toMatch(/check out/i);
});

test("merge refuses a dirty main checkout and names the files", async () => {
  server.script({ kind: "text", text: "ok" });
  expect(await offrun(["start", "--wait", "--name", "dirty", "tidy up"])).toSucceed();
  await fs.writeFile(path.join(repo, "README.md"), "# changed by the user\n");
  const merged = await offrun(["merge", "dirty"]);
  expect(merged.exitCode).not.toBe(0);
  expect(merged.stderr).toContain("README.md");
  await git(repo, box.env, ["checkout", "--", "README.md"]);
});

test("a CLI that hangs is ended by the idle watchdog with a clear reason, keeping what was logged", async () => {
  const hangRepo = await makeRepo(path.join(box.dir, "hang"), box.env);
  await fs.mkdir(path.join(hangRepo, ".offrun"), { recursive: true });
  await fs.writeFile(path.join(hangRepo, ".offrun", "config.json"), JSON.stringify({ idleTimeoutMinutes: 0.05 }));
  server.script({ kind: "hang" });
  const result = await offrun(["start", "--wait", "--name", "stuck", "this will hang"], {}, hangRepo);
  expect(result.exitCode).toBe(1);
  expect(result.stdout).toContain("printed nothing");
  const chat = (await fs.readFile(path.join(hangRepo, ".offrun", "chats", "stuck.jsonl"), "utf8")).trim().split("\n");
  const types = chat.map((l) => (JSON.parse(l) as { type: string }).type);
  expect(types[0]).toBe("user_message");
  expect(types).toContain("turn_start");
  expect(types.at(-1)).toBe("turn_end");
  const ls = JSON.parse((await offrun(["ls", "--json"], {}, hangRepo)).stdout) as { agents: { status: string }[] };
  expect(ls.agents[0]!.status).toBe("failed");
});

test("a CLI that is not logged in says how to log in", async () => {
  const other = await makeSandbox("offrun-e2e-nologin-");
  try {
    const noLoginEnv: NodeJS.ProcessEnv = {
      ...env,
      OFFRUN_HOME: other.offrunHome,
      CLAUDE_CONFIG_DIR: path.join(other.home, ".claude"),
    };
    delete noLoginEnv.ANTHROPIC_API_KEY;
    delete noLoginEnv.CLAUDE_CODE_OAUTH_TOKEN;
    const result = await runOffrun(["start", "--wait", "--name", "nologin", "hello"], { env: noLoginEnv, cwd: repo });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("not_logged_in");
    expect(result.stdout).toContain("Run `claude`");
    const ls = JSON.parse((await runOffrun(["ls", "--json"], { env: noLoginEnv, cwd: repo })).stdout) as {
      agents: { name: string; status: string }[];
    };
    expect(ls.agents.find((a) => a.name === "nologin")?.status).toBe("failed");
  } finally {
    await runOffrun(["companion", "stop"], { env: { ...env, OFFRUN_HOME: other.offrunHome } });
    await other.cleanup();
  }
});
