import fs from "node:fs/promises";
import path from "node:path";
import { git } from "../helpers/offrun.js";
import { piWorld, type PiWorld } from "../helpers/pi-env.js";

// The real Pi CLI (0.73.1) against the fake Chat Completions server, driven through the real `offrun` CLI.

let world: PiWorld;

beforeAll(async () => {
  world = await piWorld("offrun-e2e-pi-", {
    "README.md": "# demo\n",
    "billing.ts": "export {};\n",
    // Offrun's own retry of a rate-limited turn would only repeat what the test already shows.
    ".offrun/config.json": JSON.stringify({ retry: { attempts: 0 } }),
  });
});

afterAll(async () => {
  await world.close();
});

const offrun = (...args: string[]) => world.offrun(args);
const worktreeOf = (name: string) => path.join(world.repo, ".worktrees", name);

test("a Build turn writes a file in the worktree only, and merge brings it to the main checkout", async () => {
  const worktree = worktreeOf("notes");
  world.server.script({ kind: "write_file", path: path.join(worktree, "notes.md"), content: "pi was here" });
  const started = await offrun("start", "--harness", "pi", "--wait", "--name", "notes", "write notes.md");
  expect(started.stderr).toBe("");
  expect(started).toSucceed();
  expect(await fs.readFile(path.join(worktree, "notes.md"), "utf8")).toBe("pi was here");
  await expect(fs.access(path.join(world.repo, "notes.md"))).rejects.toThrow();

  expect(await offrun("merge", "notes")).toSucceed();
  expect(await fs.readFile(path.join(world.repo, "notes.md"), "utf8")).toBe("pi was here");
});

test("send resumes the Pi session with the whole history", async () => {
  world.server.script({ kind: "text", text: "Split it by invoice and payment." });
  const first = await offrun(
    "start",
    "--harness",
    "pi",
    "--mode",
    "plan",
    "--wait",
    "--name",
    "split",
    "how to split?",
  );
  expect(first).toSucceed();
  expect(first.stdout).toContain("Split it by invoice and payment.");

  const before = world.server.turnRequests().length;
  world.server.script({ kind: "text", text: "Payments first." });
  const second = await offrun("send", "--wait", "split", "--", "-which part first?");
  expect(second).toSucceed();
  const body = JSON.stringify(world.server.turnRequests().slice(before).at(-1)!.body);
  expect(body).toContain("how to split?");
  expect(body).toContain("Split it by invoice and payment.");
  // A prompt starting with '-' is no option: Pi 0.73.1 would refuse it as an argument.
  expect(body).toContain("-which part first?");
});

test("a Planner turn cannot write, through the write tool or the shell", async () => {
  const worktree = worktreeOf("readonly");
  world.server.script(
    { kind: "write_file", path: path.join(worktree, "nope.md"), content: "should not exist" },
    { kind: "shell", command: "echo hacked > hacked.txt" },
    { kind: "text", text: "I only plan." },
  );
  const before = world.server.turnRequests().length;
  const result = await offrun("start", "--harness", "pi", "--mode", "plan", "--wait", "--name", "readonly", "plan");
  expect(result).toSucceed();
  expect(await git(worktree, world.box.env, ["status", "--porcelain", "--untracked-files=all"])).toBe("");
  const tools = JSON.stringify((world.server.turnRequests()[before]!.body as { tools?: unknown }).tools);
  expect(tools).not.toMatch(/"name":"(write|edit|bash)"/);
});

test("a 429 ends the turn with a clear failure, although Pi exits 0", async () => {
  world.server.script({ kind: "rate_limit", retryAfterSeconds: 0 });
  const result = await offrun("start", "--harness", "pi", "--wait", "--name", "limited", "hit the limit");
  expect(result.exitCode).toBe(1);
  expect(`${result.stdout}${result.stderr}`).toMatch(/rate limit/i);
});

// Pi inside the sandbox. Pi 0.73.1 has no permission prompts, so its commands run at once,
// and the sandbox is all that stands between them and the user's files.
test("in the sandbox, a Pi task writes its worktree; a command writing outside it or reading ~/.ssh is refused", async () => {
  const worktree = worktreeOf("boxed");
  const outside = path.join(world.box.dir, "pi-outside.txt");
  const key = path.join(world.box.home, ".ssh", "id_ed25519");
  await fs.mkdir(path.dirname(key), { recursive: true, mode: 0o700 });
  await fs.writeFile(key, "PI-SECRET-51d0\n", { mode: 0o600 });
  const before = world.server.turnRequests().length;
  world.server.script(
    { kind: "write_file", path: path.join(worktree, "boxed.md"), content: "inside" },
    { kind: "shell", command: `node -e "require('fs').writeFileSync('${outside}','x')"` },
    { kind: "shell", command: `cat ${key}` },
    { kind: "text", text: "Tried them all." },
  );
  const started = await offrun("start", "--harness", "pi", "--sandbox", "--wait", "--name", "boxed", "write two files");
  expect(started).toSucceed();
  expect(started.stdout).toContain("sandboxed");
  expect(await fs.readFile(path.join(worktree, "boxed.md"), "utf8")).toBe("inside");
  await expect(fs.access(outside)).rejects.toThrow();
  const shown = JSON.parse((await offrun("show", "boxed", "--json")).stdout) as {
    events: { type: string; kind?: string; target?: string }[];
  };
  expect(shown.events).toContainEqual(
    expect.objectContaining({ type: "sandbox_refusal", kind: "write", target: outside }),
  );
  expect(shown.events).toContainEqual(expect.objectContaining({ type: "sandbox_refusal", kind: "read", target: key }));
  const sent = JSON.stringify(
    world.server
      .turnRequests()
      .slice(before)
      .map((r) => r.body),
  );
  expect(sent).toContain("cat "); // the command ran, and its answer went back to the model
  expect(sent).not.toContain("PI-SECRET-51d0");
});
